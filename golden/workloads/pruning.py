"""Pruned workloads: magnitude pruning of the weights, per layer, for Bit-Tactical's
zero-weight skipping (Delmas Lascorz et al., ASPLOS 2019, evaluate on pruned networks).

Pruning rule (:func:`prune_mask`): in every layer independently, the ``round(s * n)``
weights of smallest magnitude are set to zero (``n`` the layer's weight count, ``s`` the
sparsity, rounding half up); ties in ``|w|`` are broken by the flat (C-order) index, lower
index pruned first (a stable sort), so the mask is deterministic and the pruned fraction is
exact. Quantisation can only add zeros (small weights rounding to 0), so the integer traces
hold at least that fraction of zero weights.

Workloads (registered in :data:`termwise.golden.workloads.WORKLOADS` by :func:`registry`):

``digits-cnn-p50``, ``-p70``, ``-p90``
    The digits CNN (:mod:`.digits`) with its trained float weights pruned per layer, then
    fine-tuned for :data:`FINETUNE_EPOCHS` epochs keeping the mask (Adam on the hand-written
    gradients of :mod:`.digits`, ``default_rng(seed + 1)`` shuffling, masked updates), then
    calibrated, profiled and quantised exactly as ``digits-cnn`` is (the lossless precision
    profile is searched again on the pruned network). The traces come from the integer
    forward pass with the pruned weights, so later layers see the pruned network's
    activations. The notes record the test accuracy right after pruning, after the
    fine-tune, and of the integer model. Fine-tuned weights and profiles are cached in
    ``build/workloads/``.
``efficientnet-lite0-p50``, ``-p70``, ``-p90``
    EfficientNet-Lite0 (:mod:`.efficientnet`, whose network, photos, calibration and
    quantisation helpers are reused): the batch-norm-folded weights of every convolution and
    of the classifier pruned per layer, *no* fine-tune (ImageNet is not available offline),
    recalibrated and traced at ``bits`` bits through the pruned float network, *without*
    per-layer precision profiles (their search takes long; every layer is at ``bits``).
    The notes record how many photos keep the dense float model's top-1 class. Traces are
    cached as ``build/workloads/efficientnet-lite0-p<S>-<bits>b-channel-v<N>.npz``.

:func:`load_pruned` also accepts sparsity 0: the same path without pruning (for the
EfficientNet dense point of a comparison traced exactly like its pruned variants).
"""

from __future__ import annotations

import hashlib
import json
import os
import time

import numpy as np

from .base import Layer, Workload, cache_dir
from .trace_builder import (TraceFiles, code_dtype, load_or_build, load_weights, save_weights,
                            trace_files)

__all__ = ["SPARSITIES", "FINETUNE_EPOCHS", "BASES", "prune_mask", "prune_magnitude",
           "digits_pruned_params", "load_digits", "load_efficientnet", "load_pruned",
           "registry", "workload_name"]

#: Sparsities of the registered workloads (fraction of each layer's weights set to zero).
SPARSITIES = (0.5, 0.7, 0.9)
#: Fine-tune epochs of the pruned digits CNN (each takes about 0.3 s).
FINETUNE_EPOCHS = 10
#: Networks that have pruned variants.
BASES = ("digits-cnn", "efficientnet-lite0")


def _check_sparsity(sparsity) -> float:
    from ...gen.config import ConfigError
    try:
        s = float(sparsity)
    except (TypeError, ValueError):
        s = float("nan")
    if isinstance(sparsity, bool) or not (0.0 <= s < 1.0):
        raise ConfigError("sparsity", f"must be a fraction in [0, 1), got {sparsity!r}")
    return s


def prune_mask(w, sparsity: float) -> np.ndarray:
    """Keep-mask (bool, shape of ``w``) pruning the ``round(sparsity * w.size)`` smallest
    magnitudes; ties broken by flat index (lower first)."""
    s = _check_sparsity(sparsity)
    w = np.asarray(w)
    n = w.size
    drop = int(np.floor(s * n + 0.5))
    order = np.argsort(np.abs(w).ravel(), kind="stable")
    keep = np.ones(n, dtype=bool)
    keep[order[:drop]] = False
    return keep.reshape(w.shape)


def prune_magnitude(w, sparsity: float) -> np.ndarray:
    """``w`` with its :func:`prune_mask` applied (same dtype)."""
    w = np.asarray(w)
    return np.where(prune_mask(w, sparsity), w, np.zeros((), w.dtype)).astype(w.dtype)


def workload_name(base: str, sparsity: float) -> str:
    """``<base>-p<percent>`` (``base`` itself for sparsity 0)."""
    pct = int(round(_check_sparsity(sparsity) * 100))
    return base if pct == 0 else f"{base}-p{pct}"


# ----------------------------------------------------------------------------- digits CNN


def _finetune(params, masks, data, epochs: int, seed: int) -> dict:
    """Adam (the digits module's hyper-parameters and gradients) with the pruned weights
    held at zero: the gradient and the update of a pruned weight are masked."""
    # Here and below: names from .digits / .efficientnet, not `from . import digits`, which
    # reads the package and closes the cycle workloads -> registry -> pruning -> workloads
    # (issue 39). Imported when called, as before: registry imports this module eagerly.
    from .digits import ADAM_EPS, BATCH, BETAS, LR, loss_and_grads
    xtr, ytr = data[0], data[1]
    rng = np.random.default_rng(seed + 1)
    params = {k: v.copy() for k, v in params.items()}
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v2 = {k: np.zeros_like(v) for k, v in params.items()}
    b1, b2 = BETAS
    t = 0
    for _ in range(epochs):
        order = rng.permutation(len(xtr))
        for s in range(0, len(order), BATCH):
            idx = order[s:s + BATCH]
            _, grads = loss_and_grads(params, xtr[idx], ytr[idx])
            t += 1
            for k in params:
                g = grads[k].astype(np.float32)
                if k in masks:
                    g = g * masks[k]
                m[k] = np.float32(b1) * m[k] + np.float32(1 - b1) * g
                v2[k] = np.float32(b2) * v2[k] + np.float32(1 - b2) * g * g
                mh = m[k] / np.float32(1 - b1 ** t)
                vh = v2[k] / np.float32(1 - b2 ** t)
                step = np.float32(LR) * mh / (np.sqrt(vh) + np.float32(ADAM_EPS))
                params[k] = (params[k] - step).astype(np.float32)
                if k in masks:       # Adam's momentum must not revive a pruned weight
                    params[k] = params[k] * masks[k]
    return params


def _digits_cache_path(sparsity, epochs, seed, bits) -> str:
    from .digits import weights_path
    key = json.dumps({"weights": os.path.basename(weights_path(seed)),
                      "sparsity": sparsity, "finetune_epochs": epochs, "bits": bits,
                      "rule": "magnitude per layer, ties by flat index"}, sort_keys=True)
    h = hashlib.sha1(key.encode()).hexdigest()[:10]
    return os.path.join(cache_dir(), f"digits-cnn-p{int(round(sparsity * 100))}"
                                      f"_seed{seed}_ft{epochs}_{bits}b_{h}.npz")


def digits_pruned_params(sparsity: float, *, epochs: int = FINETUNE_EPOCHS,
                         seed: int | None = None, log=None) -> tuple[dict, dict]:
    """Pruned (and fine-tuned, unless ``epochs`` is 0) float parameters of the digits CNN
    and ``{"pruned_float_accuracy", "finetuned_float_accuracy", "dense_float_accuracy",
    "weight_zero_fraction", "finetune_seconds"}``."""
    from .digits import ARCH, SEED, accuracy, dataset, trained
    s = _check_sparsity(sparsity)
    seed = SEED if seed is None else seed
    params, _ = trained(seed)
    data = dataset()
    masks = {f"w{i}": prune_mask(params[f"w{i}"], s).astype(np.float32)
             for i in range(len(ARCH))}
    pruned = {k: (v * masks[k] if k in masks else v.copy()) for k, v in params.items()}
    t0 = time.perf_counter()
    tuned = _finetune(pruned, masks, data, epochs, seed) if epochs and s > 0 else pruned
    info = {"sparsity": s, "finetune_epochs": epochs if s > 0 else 0,
            "dense_float_accuracy": accuracy(params, data[2], data[3]),
            "pruned_float_accuracy": accuracy(pruned, data[2], data[3]),
            "finetuned_float_accuracy": accuracy(tuned, data[2], data[3]),
            "weight_zero_fraction": [float(np.mean(tuned[f"w{i}"] == 0))
                                     for i in range(len(ARCH))],
            "finetune_seconds": time.perf_counter() - t0}
    if log:
        log(f"digits-cnn pruned to {s:.0%}: float test accuracy "
            f"{info['pruned_float_accuracy']:.2f}% pruned, {info['finetuned_float_accuracy']:.2f}% after a {info['finetune_epochs']}"
            f"-epoch masked fine-tune ({info['finetune_seconds']:.1f} s)")
    return tuned, info


def load_digits(sparsity: float, bits: int = 16, *, images: int | None = None,
                profile: bool = True, epochs: int = FINETUNE_EPOCHS, seed: int | None = None,
                log=print) -> Workload:
    """The pruned digits CNN workload (``digits-cnn-p<S>``); see the module docstring."""
    from .digits import (ARCH, ARCH_KEY, LOSSLESS_MARGIN, SEED, act_profile, calibrate,
                         dataset, int_accuracy, load, quant_model, trace_layers, wgt_profile)
    s = _check_sparsity(sparsity)
    if s == 0:
        return load(bits, images=images, profile=profile, log=log)
    seed = SEED if seed is None else seed
    path = _digits_cache_path(s, epochs, seed, bits)
    cached = load_weights(path)
    if cached is not None:
        params, info = cached
    else:
        params, info = digits_pruned_params(s, epochs=epochs, seed=seed, log=log)
        xtr, ytr, xte, yte = dataset()
        amax = calibrate(params, xtr)
        # The lossless profile of the pruned network, searched as digits-cnn's is: within
        # LOSSLESS_MARGIN of its own (fine-tuned) float accuracy.
        floor = info["finetuned_float_accuracy"] - LOSSLESS_MARGIN
        info["amax"] = amax
        info["lossless_floor"] = floor
        info["quant_test_accuracy"] = int_accuracy(
            quant_model(params, amax, bits), xte, yte)
        ap = act_profile(params, amax, xte, yte, floor, bits)
        wp = wgt_profile(params, amax, xte, yte, floor, ap["profile"], bits)
        info["act_profile"], info["wgt_profile"] = ap, wp
        save_weights(path, params, info)
    xtr, ytr, xte, yte = dataset()
    n = len(xte) if images is None else max(1, min(int(images), len(xte)))
    if profile:
        ap, wp = info["act_profile"]["profile"], info["wgt_profile"]["profile"]
        acc = info["wgt_profile"]["accuracy"]
    else:
        ap = wp = [bits] * len(ARCH)
        acc = info["quant_test_accuracy"]
    qm = quant_model(params, info["amax"], bits, ap, wp)
    layers = trace_layers(qm, xte[:n])
    zero = [float(np.mean(layer.wgt == 0)) for layer in layers]
    name = workload_name("digits-cnn", s)
    notes = [f"{name}: digits-cnn ({ARCH_KEY}, seed {seed}) magnitude-pruned to "
             f"{s:.0%} per layer (ties by index); float test accuracy "
             f"{info['dense_float_accuracy']:.2f}% dense, {info['pruned_float_accuracy']:.2f}% "
             f"pruned, {info['finetuned_float_accuracy']:.2f}% after a "
             f"{info['finetune_epochs']}-epoch masked fine-tune (360 test images)",
             f"{bits}-bit symmetric fixed point, first {n} of the 360 test images traced "
             f"through the pruned integer network; profile act {ap} / wgt {wp} bits, integer "
             f"test accuracy {acc:.2f}%; integer weight zero fraction per layer "
             f"{', '.join(f'{z:.3f}' for z in zero)}"]
    if log:
        for note in notes:
            log(note)
    meta = {k: v for k, v in info.items()}
    meta.update(images=n, act_prec=ap, wgt_prec=wp, test_accuracy=acc,
                weight_zero_fraction_int=zero)
    return Workload(name, bits, layers, notes=notes, meta=meta)


# ----------------------------------------------------------------------------- EfficientNet


def _effnet_paths(s: float, bits: int) -> TraceFiles:
    from .efficientnet import TRACE_VERSION
    return trace_files(f"efficientnet-lite0-p{int(round(s * 100))}-{bits}b-channel-"
                       f"v{TRACE_VERSION}")


def _effnet_trace(s: float, bits: int, log) -> TraceFiles:
    """Prune the folded weights, recalibrate, and trace the pruned network at ``bits`` with
    the dense trace's default integer model (per-output-channel weight scales, per-tensor
    activation scales: :func:`.quantisation.quant_format`)."""
    from dataclasses import replace
    from .efficientnet import Net, calibrate, forward, load_network, photos, record_layer_codes
    from .quantisation import fake_quant_model, quant_format
    t0 = time.perf_counter()
    dense = load_network()
    names, x = photos()
    ref_top1 = forward(dense, x).argmax(1)
    net = Net([replace(c, w=prune_magnitude(c.w, s)) for c in dense.convs], dense.ops)
    top1 = forward(net, x).argmax(1)
    amax = calibrate(net, x)
    fmt = quant_format(net.weights, amax, bits, "channel")
    wq, hook = fake_quant_model(net.weights, fmt)
    arrays, layers = {}, []
    dtype = code_dtype(bits)

    def rec(i, v, _):
        # As efficientnet.build_trace records a layer: the integer input of the quantised
        # pruned network (v is already on the layer's grid), "same" padding, the codes.
        conv = net.convs[i]
        pad = record_layer_codes(arrays, i, conv, fmt, v, dtype)
        layers.append({"name": conv.name, "kind": conv.kind, "stride": conv.stride,
                       "padding": pad, "groups": conv.groups})
    qtop1 = forward(net, x, act_hook=hook, wgts=wq, record=rec).argmax(1)
    meta = {"images": names, "sparsity": s, "bits": bits, "layers": layers,
            "scales": "channel", "dense_float_top1": ref_top1.tolist(),
            "pruned_float_top1": top1.tolist(), "pruned_quant_top1": qtop1.tolist(),
            "seconds": time.perf_counter() - t0}
    files = _effnet_paths(s, bits).save(arrays, meta)
    if log:
        log(f"traced EfficientNet-Lite0 pruned to {s:.0%} in {meta['seconds']:.0f} s "
            f"(cached in {files.npz})")
    return files


def load_efficientnet(sparsity: float, bits: int = 16, *, images: int = 1,
                      log=print) -> Workload:
    """The pruned EfficientNet-Lite0 workload (``efficientnet-lite0-p<S>``; sparsity 0: the
    same unprofiled path without pruning); see the module docstring."""
    s = _check_sparsity(sparsity)
    meta, data = load_or_build(_effnet_paths(s, bits), lambda: _effnet_trace(s, bits, log),
                               f"pruned EfficientNet-Lite0 {bits}-bit ({s:.0%})", log)
    layers = [Layer(info["name"], info["kind"], data[f"act{i}"][:images].astype(np.int64),
                    data[f"wgt{i}"].astype(np.int64), bits, stride=info["stride"],
                    padding=info["padding"], groups=info["groups"])
              for i, info in enumerate(meta["layers"])]
    keep = sum(a == b for a, b in zip(meta["dense_float_top1"], meta["pruned_quant_top1"]))
    zero = sum(int(np.count_nonzero(layer.wgt == 0)) for layer in layers) / \
        sum(layer.wgt.size for layer in layers)
    name = f"efficientnet-lite0-p{int(round(s * 100))}" if s else "efficientnet-lite0-p0"
    notes = [f"{name}: EfficientNet-Lite0 folded weights magnitude-pruned to {s:.0%} per "
             f"layer (ties by index), no fine-tune; {bits}-bit symmetric fixed point "
             f"(per-output-channel weight scales), no precision profile; {images} of the "
             f"photos "
             f"({', '.join(meta['images'][:images])}) traced through the pruned network",
             f"pruned {bits}-bit model keeps the dense float top-1 class on {keep} of "
             f"{len(meta['images'])} photos; integer weight zero fraction {zero:.3f}"]
    if log:
        for note in notes:
            log(note)
    return Workload(name, bits, layers, notes=notes, meta=meta)


def load_pruned(base: str, sparsity: float, bits: int = 16, **kw) -> Workload:
    """``base`` (one of :data:`BASES`) pruned to ``sparsity``."""
    from ...gen.config import ConfigError
    if base == "digits-cnn":
        return load_digits(sparsity, bits, **kw)
    if base in ("efficientnet-lite0", "effnet-lite0"):
        return load_efficientnet(sparsity, bits, **kw)
    raise ConfigError("workload", f"must be one of {', '.join(BASES)}, got {base!r}")


def registry() -> dict:
    """``{name: loader(bits, **options)}`` of the pruned workloads."""
    out = {}
    for base in BASES:
        for s in SPARSITIES:
            out[workload_name(base, s)] = (
                lambda bits, _b=base, _s=s, **kw: load_pruned(_b, _s, bits, **kw))
    return out
