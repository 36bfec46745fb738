"""``digits-cnn``: a small CNN trained on scikit-learn's digits, in NumPy, and its integer
inference in fixed point.

Data: :func:`sklearn.datasets.load_digits` (1797 8x8 images, pixels 0..16), scaled to
``x / 16`` in [0, 1]; a fixed stratified split (``train_test_split(test_size=0.2,
random_state=0, stratify=y)``: 1437 training and 360 test images).

Network (:data:`ARCH`): conv 3x3 1->8 pad 1 + ReLU (8x8), conv 3x3 8->16 stride 2 pad 1 +
ReLU (4x4), fully connected 256->10. Training: He-normal initialisation and mini-batch
shuffling from ``np.random.default_rng(seed)``, Adam (lr 0.003, betas 0.9/0.999), batch 32,
softmax cross-entropy, float32, :data:`EPOCHS` epochs; the gradients are written out by
hand (no autodiff). The forward pass (training and inference) goes through the golden
primitives (:func:`~termwise.golden.primitives.conv2d_direct`,
:func:`~termwise.golden.primitives.fc`, :func:`~termwise.golden.primitives.relu`), so a
given seed reproduces the weights bit for bit. The trained float weights are cached in
``build/workloads/digits-cnn_<arch>_seed<seed>_<hash>.npz`` (``hash``: the training
hyper-parameters), together with the measured float test accuracy.

Quantisation (the power-of-two formats of :mod:`.quantisation`,
:func:`.quantisation.pow2_formats`): symmetric per-tensor fixed point with power-of-two
scales, ``bits`` = 8 or 16 base; the input range of every layer is calibrated as the
maximum magnitude over the *training* set. Lowering a layer's precision to ``p`` bits drops
fraction bits (the integer bits stay those of the calibrated range). Integer inference:
``conv2d_direct`` / ``fc`` on the integer codes (exact int64 accumulators), the bias
quantised at the accumulator scale ``2**-(act_frac + wgt_frac)``, integer ReLU, then
:func:`~termwise.golden.primitives.requantise` (multiplier 1, right shift
``act_frac + wgt_frac - next_act_frac``, round half to even, saturate to the next layer's
precision). The class is the argmax of the last layer's integer accumulators.

Lossless (:data:`LOSSLESS_MARGIN`): test accuracy within 0.5 points of the float model.
The profiles are searched on the test set (as the trade-off study asks; there is no
separate validation split). Per-layer activation profile: each layer's smallest lossless
precision with the others at ``bits`` (scanning down to the first lossy one), then every
combination of those minima plus 0..3 bits; the lossless combination with the fewest
Stripes cycles (``sum steps_i * p_i`` over the 360 test images, ties: higher accuracy)
wins. The weight profile is searched the same way with the activations at their profile,
minimising ``sum steps_i * Pw_i`` (Loom's weight factor).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import time
from dataclasses import dataclass

import numpy as np

from ..primitives import conv2d_direct, fc, relu, requantise
from .base import Layer, Workload, cache_dir
from .quantisation import pow2_formats, quantise
from .trace_builder import Calibration, load_weights, save_weights

__all__ = ["ARCH", "SEED", "EPOCHS", "LOSSLESS_MARGIN", "dataset", "init_params", "train",
           "trained", "float_forward", "loss_and_grads", "accuracy", "QuantModel", "quant_model",
           "int_forward", "int_accuracy", "act_profile", "wgt_profile", "profiles", "load",
           "layer_steps"]

#: Layers: ("conv", cin, cout, kernel, stride, padding) | ("fc", cin, cout).
ARCH = (("conv", 1, 8, 3, 1, 1), ("conv", 8, 16, 3, 2, 1), ("fc", 256, 10))
ARCH_KEY = "c8k3-c16k3s2-fc10"
LAYER_NAMES = ("conv1", "conv2", "fc")
SEED = 0
EPOCHS = 15
BATCH = 32
LR = 0.003
BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8
TEST_SIZE = 0.2
SPLIT_SEED = 0
#: Test images of the split (the cost weights of the profile search use them all).
TEST_IMAGES = 360
#: Accuracy points (percent) a lossless setting may lose against the float model.
LOSSLESS_MARGIN = 0.5


# ----------------------------------------------------------------------------- data


def dataset():
    """``(x_train, y_train, x_test, y_test)``: float32 (N, 1, 8, 8) in [0, 1], int64."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    d = load_digits()
    x = (d.images.astype(np.float32) / np.float32(16.0))[:, None]
    y = d.target.astype(np.int64)
    xtr, xte, ytr, yte = train_test_split(x, y, test_size=TEST_SIZE, random_state=SPLIT_SEED,
                                          stratify=y)
    return (np.ascontiguousarray(xtr), ytr, np.ascontiguousarray(xte), yte)


# ----------------------------------------------------------------------------- float model


def init_params(rng) -> dict:
    p = {}
    for i, spec in enumerate(ARCH):
        if spec[0] == "conv":
            _, cin, cout, k, _, _ = spec
            fan_in = cin * k * k
            w = rng.standard_normal((cout, cin, k, k), dtype=np.float32)
        else:
            _, cin, cout = spec
            fan_in = cin
            w = rng.standard_normal((cout, cin), dtype=np.float32)
        p[f"w{i}"] = (w * np.float32(np.sqrt(2.0 / fan_in))).astype(np.float32)
        p[f"b{i}"] = np.zeros(cout, np.float32)
    return p


def float_forward(params, x, record=None):
    """Float32 logits; ``record(i, x)`` sees the input of layer ``i``; also returns the
    pre-activations (for the backward pass) as ``(logits, cache)``."""
    cache = []
    for i, spec in enumerate(ARCH):
        if record is not None:
            record(i, x)
        if spec[0] == "conv":
            z = conv2d_direct(x, params[f"w{i}"], params[f"b{i}"], stride=spec[4],
                              padding=spec[5])
        else:
            x = x.reshape(x.shape[0], -1)
            z = fc(x, params[f"w{i}"], params[f"b{i}"])
        cache.append((x, z))
        x = relu(z) if i < len(ARCH) - 1 else z
    return x, cache


def _conv_backward(x, w, dz, stride, pad):
    """Gradients of ``conv2d_direct(x, w, stride, pad)`` w.r.t. ``w`` and ``x``."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    _, _, r, s = w.shape
    oh, ow = dz.shape[2:]
    dw = np.zeros_like(w)
    dxp = np.zeros_like(xp)
    for i in range(r):
        for j in range(s):
            sl = (slice(None), slice(None), slice(i, i + stride * (oh - 1) + 1, stride),
                  slice(j, j + stride * (ow - 1) + 1, stride))
            dw[:, :, i, j] = np.einsum("nkhw,nchw->kc", dz, xp[sl])
            dxp[sl] += np.einsum("nkhw,kc->nchw", dz, w[:, :, i, j])
    h, wd = x.shape[2:]
    return dw, dxp[:, :, pad:pad + h, pad:pad + wd]


def loss_and_grads(params, x, y):
    """Cross-entropy loss of a batch and its gradients (hand-written back-propagation).

    Parameters
    ----------
    params : dict
        The float32 parameters (``w<i>``, ``b<i>``).
    x : numpy.ndarray
        The input images, ``(n, 1, 8, 8)``.
    y : numpy.ndarray
        Their labels.

    Returns
    -------
    tuple
        ``(loss, grads)``: the mean loss (float) and ``{name: gradient}`` for every
        parameter.
    """
    logits, cache = float_forward(params, x)
    n = x.shape[0]
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    prob = e / e.sum(axis=1, keepdims=True)
    loss = float(-np.log(prob[np.arange(n), y] + 1e-12).mean())
    g = prob
    g[np.arange(n), y] -= 1
    g = (g / np.float32(n)).astype(np.float32)
    grads = {}
    for i in range(len(ARCH) - 1, -1, -1):
        spec = ARCH[i]
        xin, zi = cache[i]
        if i < len(ARCH) - 1:
            g = g * (zi > 0)
        grads[f"b{i}"] = g.sum(axis=tuple(a for a in range(g.ndim) if a != 1))
        if spec[0] == "fc":
            grads[f"w{i}"] = g.T @ xin
            g = g @ params[f"w{i}"]
        else:
            grads[f"w{i}"], g = _conv_backward(xin, params[f"w{i}"], g, spec[4], spec[5])
        if i > 0 and g.ndim == 2 and ARCH[i - 1][0] == "conv":
            g = g.reshape(cache[i - 1][1].shape)
    return loss, grads


#: The former private name (tests/golden/test_digits.py checks the gradients through it);
#: public since pruning's masked fine-tune imports it from here (issue 39).
_grads = loss_and_grads


def train(seed: int = SEED, epochs: int = EPOCHS, data=None, log=None) -> dict:
    """Train from scratch (deterministic in ``seed``); returns the float32 parameters."""
    xtr, ytr, _, _ = dataset() if data is None else data
    rng = np.random.default_rng(seed)
    params = init_params(rng)
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v2 = {k: np.zeros_like(v) for k, v in params.items()}
    b1, b2 = BETAS
    t = 0
    for ep in range(epochs):
        order = rng.permutation(len(xtr))
        losses = []
        for s in range(0, len(order), BATCH):
            idx = order[s:s + BATCH]
            loss, grads = loss_and_grads(params, xtr[idx], ytr[idx])
            losses.append(loss)
            t += 1
            for k in params:
                g = grads[k].astype(np.float32)
                m[k] = np.float32(b1) * m[k] + np.float32(1 - b1) * g
                v2[k] = np.float32(b2) * v2[k] + np.float32(1 - b2) * g * g
                mh = m[k] / np.float32(1 - b1 ** t)
                vh = v2[k] / np.float32(1 - b2 ** t)
                params[k] = (params[k] - np.float32(LR) * mh /
                             (np.sqrt(vh) + np.float32(ADAM_EPS))).astype(np.float32)
        if log:
            log(f"  epoch {ep + 1:2d}/{epochs}: loss {np.mean(losses):.4f}")
    return params


def accuracy(params, x, y) -> float:
    """Float test accuracy in percent."""
    logits, _ = float_forward(params, x)
    return float((logits.argmax(1) == y).mean() * 100)


def _hyper(seed, epochs) -> dict:
    return {"arch": ARCH_KEY, "seed": seed, "epochs": epochs, "batch": BATCH, "lr": LR,
            "betas": BETAS, "eps": ADAM_EPS, "test_size": TEST_SIZE, "split_seed": SPLIT_SEED,
            "init": "he-normal float32", "optimiser": "adam"}


def weights_path(seed: int = SEED, epochs: int = EPOCHS) -> str:
    h = hashlib.sha1(json.dumps(_hyper(seed, epochs), sort_keys=True).encode()).hexdigest()
    return os.path.join(cache_dir(), f"digits-cnn_{ARCH_KEY}_seed{seed}_{h[:10]}.npz")


def trained(seed: int = SEED, epochs: int = EPOCHS, log=None) -> tuple[dict, dict]:
    """Cached trained parameters and their info ``{"float_test_accuracy", "seconds", ...}``."""
    path = weights_path(seed, epochs)
    cached = load_weights(path)
    if cached is not None:
        return cached
    data = dataset()
    t0 = time.perf_counter()
    params = train(seed, epochs, data)
    sec = time.perf_counter() - t0
    info = dict(_hyper(seed, epochs), train_seconds=sec,
                float_test_accuracy=accuracy(params, data[2], data[3]),
                float_train_accuracy=accuracy(params, data[0], data[1]))
    if log:
        log(f"trained digits-cnn ({ARCH_KEY}, seed {seed}) in {sec:.1f} s: float test "
            f"accuracy {info['float_test_accuracy']:.2f}% (cached in {path})")
    save_weights(path, params, info)
    return params, info


# ----------------------------------------------------------------------------- integer model


def calibrate(params, x) -> list[float]:
    """Maximum |input| of every layer over ``x`` (the training set), float model."""
    cal = Calibration(len(ARCH))
    float_forward(params, x, record=cal)
    return cal.amax


@dataclass
class QuantModel:
    """Integer codes of one precision setting (``bits`` base, per-layer precisions)."""
    bits: int
    act_prec: list
    wgt_prec: list
    act_frac: list
    wgt_frac: list
    wq: list            # int64 weight codes (wgt_prec[i]-bit)
    bq: list            # int64 bias at the accumulator scale 2**-(act_frac + wgt_frac)


def quant_model(params, amax, bits=16, act_prec=None, wgt_prec=None) -> QuantModel:
    """Per-layer fixed-point formats (:func:`.quantisation.pow2_formats`' rule: lower
    precisions drop fraction bits) and the integer weights and biases."""
    weights = [params[f"w{i}"] for i in range(len(ARCH))]
    afrac, wfrac, _, _, aprec, wprec = pow2_formats(weights, amax, bits, act_prec, wgt_prec)
    wq = [quantise(params[f"w{i}"], wprec[i], wfrac[i]) for i in range(len(ARCH))]
    bq = [np.rint(params[f"b{i}"].astype(np.float64) * 2.0 ** (afrac[i] + wfrac[i]))
          .astype(np.int64) for i in range(len(ARCH))]
    return QuantModel(bits, list(aprec), list(wprec), afrac, wfrac, wq, bq)


def int_forward(qm: QuantModel, x, record=None) -> np.ndarray:
    """Integer inference on float images ``x`` (quantised to layer 0's format); returns the
    int64 logits (accumulators of the last layer). ``record(i, codes)`` sees every layer's
    integer input."""
    a = quantise(x, qm.act_prec[0], qm.act_frac[0])
    n = len(ARCH)
    for i, spec in enumerate(ARCH):
        if spec[0] == "fc":
            a = a.reshape(a.shape[0], -1)
        if record is not None:
            record(i, a)
        if spec[0] == "conv":
            acc = conv2d_direct(a, qm.wq[i], qm.bq[i], stride=spec[4], padding=spec[5])
        else:
            acc = fc(a, qm.wq[i], qm.bq[i])
        if i == n - 1:
            return acc
        shift = qm.act_frac[i] + qm.wgt_frac[i] - qm.act_frac[i + 1]
        a = requantise(relu(acc), 1, shift, qm.act_prec[i + 1], signed=True)
    raise AssertionError("unreachable")


def int_accuracy(qm, x, y) -> float:
    return float((int_forward(qm, x).argmax(1) == y).mean() * 100)


# ----------------------------------------------------------------------------- profiles


def layer_steps(n_images: int = 1) -> list[int]:
    """Brick steps of each layer on the 16-lane tiles for ``n_images`` images, per window
    and filter group: ``ceil(K/16) * ceil(M/16) * ceil(kg/16)`` (Stripes cycles at
    precision p are ``p`` times this, steady state)."""
    out = []
    h = 8
    for spec in ARCH:
        if spec[0] == "conv":
            _, cin, cout, k, st, pad = spec
            oh = (h + 2 * pad - k) // st + 1
            m, kk = n_images * oh * oh, cin * k * k
            h = oh
        else:
            _, kk, cout = spec
            m = n_images
        out.append(-(-kk // 16) * -(-m // 16) * -(-cout // 16))
    return out


def _search(evaluate, bits, n, cost_w, floor, log, what):
    """Single-layer minima (scanning down from ``bits`` until the first lossy precision,
    the others at ``bits``), then the cheapest lossless combination of minima + 0..3 bits."""
    full = [bits] * n
    single = []
    for i in range(n):
        lo = bits               # smallest p with every precision in [p, bits] lossless
        for p in range(bits - 1, 0, -1):
            prec = list(full)
            prec[i] = p
            if evaluate(prec) < floor:
                break
            lo = p
        single.append(lo)
        if log:
            log(f"  {what} {LAYER_NAMES[i]}: lossless alone down to {lo} bits")
    best = None
    for extra in itertools.product(range(4), repeat=n):
        prec = [min(bits, p + e) for p, e in zip(single, extra)]
        cost = sum(c * p for c, p in zip(cost_w, prec))
        if best is not None and cost > best[0]:
            continue
        acc = evaluate(prec)
        if acc < floor:
            continue
        if best is None or (cost, -acc) < (best[0], -best[1]):
            best = (cost, acc, prec)
    if best is None:          # cannot happen for bits-wide layers, kept for safety
        best = (None, evaluate(full), full)
    return {"per_layer_single": single, "profile": best[2], "accuracy": best[1]}


def act_profile(params, amax, x, y, floor, bits=16, log=None) -> dict:
    return _search(lambda p: int_accuracy(quant_model(params, amax, bits, act_prec=p), x, y),
                   bits, len(ARCH), layer_steps(TEST_IMAGES), floor, log, "act")


def wgt_profile(params, amax, x, y, floor, act_prec, bits=16, log=None) -> dict:
    return _search(lambda p: int_accuracy(quant_model(params, amax, bits, act_prec, p), x, y),
                   bits, len(ARCH), layer_steps(TEST_IMAGES), floor, log, "wgt")


_PROFILES: dict = {}


def profiles(bits=16, seed=SEED, log=None) -> dict:
    """Float accuracy, ``bits``-bit accuracy and the lossless activation and weight
    profiles (the weight profile with the activations at their profile); memoised per
    process and weights file."""
    key = (bits, weights_path(seed))
    if key not in _PROFILES or not os.path.exists(key[1]):
        _PROFILES[key] = _profiles(bits, seed, log)
    return _PROFILES[key]


def _profiles(bits, seed, log) -> dict:
    params, info = trained(seed, log=log)
    xtr, ytr, xte, yte = dataset()
    amax = calibrate(params, xtr)
    facc = accuracy(params, xte, yte)
    floor = facc - LOSSLESS_MARGIN
    full = int_accuracy(quant_model(params, amax, bits), xte, yte)
    ap = act_profile(params, amax, xte, yte, floor, bits, log)
    wp = wgt_profile(params, amax, xte, yte, floor, ap["profile"], bits, log)
    return {"bits": bits, "float_test_accuracy": facc, "quant_test_accuracy": full,
            "lossless_floor": floor, "amax": amax, "act_profile": ap, "wgt_profile": wp,
            "train": info}


# ----------------------------------------------------------------------------- workload


def trace_layers(qm: QuantModel, x, *, act_prec=None, wgt_prec=None,
                 names=LAYER_NAMES) -> list:
    """:class:`Layer` s carrying the integer inputs of every layer of ``qm`` on ``x``.
    ``act_prec`` / ``wgt_prec`` (default: ``qm``'s) become Stripes' ``p`` / Loom's ``Pw``."""
    acts = {}
    int_forward(qm, x, record=lambda i, a: acts.__setitem__(i, a))
    act_prec = qm.act_prec if act_prec is None else act_prec
    wgt_prec = qm.wgt_prec if wgt_prec is None else wgt_prec
    layers = []
    for i, spec in enumerate(ARCH):
        kw = {"stride": spec[4], "padding": spec[5]} if spec[0] == "conv" else {}
        layers.append(Layer(names[i], spec[0], acts[i].astype(np.int64), qm.wq[i], qm.bits,
                            act_precision=act_prec[i], wgt_precision=wgt_prec[i], **kw))
    return layers


def load(bits: int = 16, *, images: int | None = None, profile: bool = True, seed: int = SEED,
         log=print) -> Workload:
    """The ``digits-cnn`` workload: the first ``images`` test images (all 360 by default),
    ``bits``-bit fixed point; with ``profile`` the lossless per-layer profiles (searched at
    ``bits``) set the activation precisions (the codes are requantised to them: Stripes'
    ``p``) and the weight precisions (Loom's ``Pw``); without, both are ``bits``."""
    pr = profiles(bits, seed, log=None)
    params, info = trained(seed)
    xtr, ytr, xte, yte = dataset()
    n = len(xte) if images is None else max(1, min(int(images), len(xte)))
    if profile:
        ap, wp = pr["act_profile"]["profile"], pr["wgt_profile"]["profile"]
        acc = pr["wgt_profile"]["accuracy"]
    else:
        ap, wp = [bits] * len(ARCH), [bits] * len(ARCH)
        acc = pr["quant_test_accuracy"]
    qm = quant_model(params, pr["amax"], bits, ap, wp)
    layers = trace_layers(qm, xte[:n])
    notes = [f"digits-cnn ({ARCH_KEY}) trained in NumPy on scikit-learn digits, seed {seed}; "
             f"float test accuracy {pr['float_test_accuracy']:.2f}% (360 test images)",
             f"{bits}-bit symmetric fixed point, first {n} of the 360 test images traced; "
             f"profile act {ap} / wgt {wp} bits, integer test accuracy {acc:.2f}%"]
    meta = {k: v for k, v in pr.items() if k != "train"}
    meta.update(images=n, train=info, act_prec=ap, wgt_prec=wp, test_accuracy=acc)
    if log:
        log(notes[0])
        log(notes[1])
    return Workload("digits-cnn", bits, layers, notes=notes, meta=meta)
