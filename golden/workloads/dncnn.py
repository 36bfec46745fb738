"""``dncnn``: a mini-DnCNN (residual Gaussian denoiser) trained offline with torch, traced in
NumPy at an HD-like resolution, with the delta statistics that explain Diffy
(:mod:`.deltas`).

Network (:data:`DEPTH` 3x3 convolutions, :data:`FEATURES` channels, padding 1, stride 1):
conv 1->F + ReLU, (DEPTH-2) x [conv F->F + ReLU], conv F->1 (linear). No batch norm. The
network predicts the noise (residual learning, as DnCNN): ``denoised = noisy - net(noisy)``.

Data (offline, shipped with scikit-learn / scikit-image, converted to grayscale in [0, 1]
with ``Y = 0.299 R + 0.587 G + 0.114 B``): training on :data:`TRAIN_IMAGES`; held out
(never seen in training): :data:`HELDOUT_IMAGES`. Noise: additive Gaussian, sigma 25/255.

Training (torch, CPU, one thread, ``torch.use_deterministic_algorithms(True)``):
``torch.manual_seed(seed)`` for the initialisation, ``np.random.default_rng(seed)`` for
the patches (random 40x40 crops with random flips/rotations) and the noise of every
batch; Adam (lr 1e-3, halved at 2/3 of the steps), MSE on the noise, batch 16,
:data:`STEPS` steps. The trained float weights and the PSNR of the held-out images (noisy
vs denoised, peak 1) are cached in ``build/workloads/dncnn_<arch>_seed<seed>_<hash>.npz``.

Trace: the noisy HD frame (:func:`hd_frame`: a 720x1280 mosaic of the held-out photos,
noise from ``default_rng(seed + 1)``) runs through the float model with fake-quantised
weights and inputs (:func:`.quantisation.pow2_formats`' per-layer power-of-two rule:
ranges calibrated as the maximum |input| over the frame), the convolutions in NumPy
(:func:`~termwise.golden.primitives.conv2d_direct`); the pipeline (calibration, tiles,
cache) is :mod:`.trace_builder`'s.
Every layer's full integer input is reduced, deterministically, to :data:`TILES` tiles of
:data:`TILE_H` x :data:`TILE_W` output windows (positions from
``default_rng(crc32(layer name))``; the tile's input includes its halo, zero padded at the
frame border, so the recorded layer has padding 0): the simulated windows are a sample of
the layer, the values are real. Stripes' ``p`` is the lossless precision over the *whole*
frame's layer input (not the sample), Loom's ``Pw`` the widest weight.

16-bit profile (:func:`precision_profile`, :func:`.precision_search.search_profile` on a
:class:`.denoising.PsnrModel`, the search shared with EfficientNet): the smallest per-layer activation precisions, then weight
precisions, such that the mean PSNR of the held-out images (denoised vs clean) stays no
more than :data:`.denoising.PSNR_MARGIN_DB` (0.1 dB) below the full 16-bit fixed-point model's. The
16-bit trace is the *profiled* network run on the frame (each layer's codes are its
profiled precision, in a 16-bit word), so Stripes' ``p`` and Loom's ``Pw`` are at most the
profile; the profile, the criterion and the PSNRs are in the trace's metadata and the
workload notes. Cached traces are named by :data:`TRACE_VERSION` (and, profiled, the
criterion); the metadata also holds Diffy's delta statistics (:func:`.deltas.delta_table`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time

import numpy as np

from ..primitives import gemm_taps
from .base import Workload, cache_dir
from .deltas import delta_table
from .denoising import (PSNR_MARGIN_DB, PsnrModel, float_forward, n_layers,
                        profile_and_delta_notes, psnr)
from .precision_search import search_profile
from .quantisation import pow2_formats, quantise
from .trace_builder import (Calibration, TileSampler, TiledRecorder, TraceFiles, conv_layers,
                            load_or_build, load_weights, save_weights, trace_files)

__all__ = ["DEPTH", "FEATURES", "SEED", "STEPS", "SIGMA", "TRAIN_IMAGES", "HELDOUT_IMAGES",
           "TILES", "TILE_H", "TILE_W", "HD", "tile_sampler",
           "gray_images", "make_model", "train", "trained", "weights_path", "denoise",
           "heldout_pairs", "heldout_psnr", "calibrate", "formats", "precision_profile",
           "TRACE_VERSION", "needs_torch", "trace_paths",
           "hd_frame", "build_trace", "load"]

DEPTH = 7
FEATURES = 32
SEED = 0
STEPS = 600
BATCH = 16
PATCH = 40
LR = 1e-3
SIGMA = 25.0 / 255.0
TILES = 4
TILE_H = 16
TILE_W = 128
HD = (720, 1280)
TRAIN_IMAGES = ("astronaut", "coffee", "chelsea", "camera", "coins", "moon", "brick",
                "grass", "gravel", "immunohistochemistry", "hubble_deep_field", "page",
                "text", "clock")
HELDOUT_IMAGES = ("china", "flower", "rocket")


# ----------------------------------------------------------------------------- data


def _gray(im) -> np.ndarray:
    im = np.asarray(im)
    if im.ndim == 3:
        im = im[..., :3].astype(np.float64) @ np.array([0.299, 0.587, 0.114])
    return (im.astype(np.float64) / 255.0).astype(np.float32)


@functools.lru_cache(maxsize=None)
def _gray_image(name: str) -> np.ndarray:
    if name in ("china", "flower"):
        from sklearn.datasets import load_sample_images
        sk = load_sample_images()
        idx = [os.path.splitext(os.path.basename(f))[0] for f in sk.filenames].index(name)
        im = _gray(sk.images[idx])
    else:
        import skimage.data
        im = _gray(getattr(skimage.data, name)())
    im.setflags(write=False)
    return im


def gray_images(names) -> dict:
    """Grayscale float32 images in [0, 1] by name (sklearn's china/flower, skimage.data);
    read-only, cached per process."""
    return {n: _gray_image(n) for n in names}


def _patches(imgs, n, rng, size=PATCH) -> np.ndarray:
    names = sorted(imgs)
    out = np.empty((n, 1, size, size), np.float32)
    for i in range(n):
        im = imgs[names[rng.integers(len(names))]]
        y = rng.integers(im.shape[0] - size + 1)
        x = rng.integers(im.shape[1] - size + 1)
        p = im[y:y + size, x:x + size]
        p = np.rot90(p, rng.integers(4))
        if rng.integers(2):
            p = p[:, ::-1]
        out[i, 0] = p
    return out


# ----------------------------------------------------------------------------- torch model


def make_model(depth=DEPTH, features=FEATURES):
    import torch.nn as nn
    layers = [nn.Conv2d(1, features, 3, padding=1), nn.ReLU()]
    for _ in range(depth - 2):
        layers += [nn.Conv2d(features, features, 3, padding=1), nn.ReLU()]
    layers += [nn.Conv2d(features, 1, 3, padding=1)]
    return nn.Sequential(*layers)


def _hyper(seed, steps, depth, features, batch, n_images):
    return {"arch": f"dncnn-d{depth}-f{features}", "seed": seed, "steps": steps,
            "batch": batch, "patch": PATCH, "lr": LR, "sigma": SIGMA,
            "train_images": list(TRAIN_IMAGES[:n_images]), "optimizer": "adam",
            "lr_schedule": "x0.5 at 2/3 of the steps", "torch_threads": 1}


def train(seed: int = SEED, steps: int = STEPS, *, depth=DEPTH, features=FEATURES,
          batch=BATCH, n_images=len(TRAIN_IMAGES), log=None) -> dict:
    """Train deterministically; returns the float32 weights ``{"w0", "b0", ...}``."""
    import torch
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(seed)
    model = make_model(depth, features)
    imgs = gray_images(TRAIN_IMAGES[:n_images])
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    t0 = time.perf_counter()
    for step in range(steps):
        if step == (2 * steps) // 3:
            for g in opt.param_groups:
                g["lr"] = LR / 2
        clean = _patches(imgs, batch, rng)
        noise = (rng.standard_normal(clean.shape) * SIGMA).astype(np.float32)
        x = torch.from_numpy(clean + noise)
        loss = torch.mean((model(x) - torch.from_numpy(noise)) ** 2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if log and (step + 1) % 100 == 0:
            log(f"  step {step + 1}/{steps} loss {loss.item():.6f} "
                f"({time.perf_counter() - t0:.0f} s)")
    convs = [m for m in model if hasattr(m, "weight")]
    params = {}
    for i, c in enumerate(convs):
        params[f"w{i}"] = c.weight.detach().numpy().astype(np.float32).copy()
        params[f"b{i}"] = c.bias.detach().numpy().astype(np.float32).copy()
    return params


def denoise(params, noisy, **kw) -> np.ndarray:
    """``noisy - net(noisy)`` for a 2-D image."""
    return noisy - float_forward(params, noisy[None, None].astype(np.float32), **kw)[0, 0]


def weights_path(seed=SEED, steps=STEPS) -> str:
    h = hashlib.sha1(json.dumps(_hyper(seed, steps, DEPTH, FEATURES, BATCH,
                                       len(TRAIN_IMAGES)), sort_keys=True).encode())
    return os.path.join(cache_dir(),
                        f"dncnn_d{DEPTH}f{FEATURES}_seed{seed}_{h.hexdigest()[:10]}.npz")


def heldout_pairs(seed=SEED) -> dict:
    """``{name: (clean, noisy)}`` of the held-out images, Gaussian noise (sigma
    :data:`SIGMA`) drawn from ``default_rng(seed + 1)`` image after image in
    :data:`HELDOUT_IMAGES` order."""
    rng = np.random.default_rng(seed + 1)
    out = {}
    for name, im in gray_images(HELDOUT_IMAGES).items():
        out[name] = (im, (im + rng.standard_normal(im.shape) * SIGMA).astype(np.float32))
    return out


def heldout_psnr(params, seed=SEED) -> dict:
    """Noisy vs denoised PSNR (dB) of every held-out image (noise ``default_rng(seed+1)``)."""
    res = {}
    for name, (im, noisy) in heldout_pairs(seed).items():
        den = denoise(params, noisy)
        res[name] = {"noisy": psnr(im, noisy), "denoised": psnr(im, den)}
    res["mean"] = {k: float(np.mean([v[k] for v in res.values()]))
                   for k in ("noisy", "denoised")}
    return res


def trained(seed: int = SEED, steps: int = STEPS, log=None) -> tuple[dict, dict]:
    """Cached trained weights and their info (training time, held-out PSNR)."""
    path = weights_path(seed, steps)
    cached = load_weights(path)
    if cached is not None:
        return cached
    if log:
        log(f"training dncnn (d{DEPTH} f{FEATURES}, seed {seed}, {steps} steps, 1 thread)")
    t0 = time.perf_counter()
    params = train(seed, steps, log=log)
    sec = time.perf_counter() - t0
    info = dict(_hyper(seed, steps, DEPTH, FEATURES, BATCH, len(TRAIN_IMAGES)),
                train_seconds=sec, heldout_psnr=heldout_psnr(params, seed))
    if log:
        m = info["heldout_psnr"]["mean"]
        log(f"trained in {sec:.0f} s: held-out PSNR noisy {m['noisy']:.2f} dB -> denoised "
            f"{m['denoised']:.2f} dB (cached in {path})")
    save_weights(path, params, info)
    return params, info


# ----------------------------------------------------------------------------- 16-bit profile


def calibrate(params, x) -> tuple[list[float], np.ndarray]:
    """(maximum |input| of every layer over ``x``, the float output): one float pass, whose
    output also serves as the float reference of the frame."""
    cal = Calibration(n_layers(params))
    out = float_forward(params, x, record=cal)
    return cal.amax, out


def formats(params, amax, bits, act_prec=None, wgt_prec=None) -> dict:
    """Per-layer fixed-point formats of one precision setting, by
    :func:`.quantisation.pow2_formats`' rule (ranges from ``amax`` and the widest
    weight; a precision ``p < bits`` drops fraction bits): ``act_frac``, ``wgt_frac``,
    ``act_prec``, ``wgt_prec``, the fake-quantised weights ``wq`` and the activation
    ``hook`` for :func:`.denoising.float_forward`."""
    weights = [params[f"w{i}"] for i in range(n_layers(params))]
    afrac, wfrac, wq, hook, aprec, wprec = pow2_formats(weights, amax, bits, act_prec,
                                                        wgt_prec)
    return {"act_frac": afrac, "wgt_frac": wfrac, "act_prec": aprec, "wgt_prec": wprec,
            "wq": wq, "hook": hook}


def precision_profile(params, amax, pairs, bits: int = 16, margin: float = PSNR_MARGIN_DB,
                      log=None) -> dict:
    """The per-layer activation and weight precisions of the ``bits``-bit model (formats
    calibrated by ``amax``) such that the mean PSNR over ``pairs`` (``{name: (clean,
    noisy)}``, :func:`heldout_pairs`) stays within ``margin`` dB of the full ``bits``-bit
    model. Activations are searched first (weights at ``bits``), then weights with the
    activations at their profile, both against the same floor, so the final profile
    (``act_profile`` with ``wgt_profile``) meets the criterion; ``psnr`` is its value."""
    def fmt(aprec, wprec):
        f = formats(params, amax, bits, aprec, wprec)
        return f["hook"], f["wq"]
    model = PsnrModel(params, pairs, bits, fmt, to_input=lambda noisy: noisy[:, None],
                      from_output=lambda out: out[:, 0], conv=gemm_taps)
    return search_profile(model, bits, margin,
                          f"mean held-out PSNR ({', '.join(pairs)}) within {margin} dB of the "
                          f"full {bits}-bit fixed-point model", "held-out", log)


# ----------------------------------------------------------------------------- trace


def hd_frame(seed=SEED) -> tuple[np.ndarray, np.ndarray]:
    """(clean, noisy) 720x1280 frame: top china | flower (427 rows each), bottom the last
    293 rows of rocket | rocket mirrored left-right; noise ``default_rng(seed + 2)``."""
    im = gray_images(HELDOUT_IMAGES)
    top = np.concatenate([im["china"], im["flower"]], axis=1)
    r = im["rocket"][-(HD[0] - top.shape[0]):]
    frame = np.concatenate([top, np.concatenate([r, r[:, ::-1]], axis=1)], axis=0)
    frame = np.ascontiguousarray(frame[:HD[0], :HD[1]], dtype=np.float32)
    rng = np.random.default_rng(seed + 2)
    noisy = (frame + rng.standard_normal(frame.shape) * SIGMA).astype(np.float32)
    return frame, noisy


#: Version of the trace's content, part of its cache file names: bump it whenever what
#: :func:`build_trace` writes changes (2: per-layer weight precisions, delta statistics,
#: the 16-bit profile).
TRACE_VERSION = 2


def tile_sampler() -> TileSampler:
    """Where the trace samples every layer: :data:`TILES` tiles of :data:`TILE_H` x
    :data:`TILE_W` output windows, positions seeded by the layer name."""
    return TileSampler(TILES, TILE_H, TILE_W)


def trace_paths(bits, seed=SEED, profile=True) -> TraceFiles:
    """The trace's cache files; a profiled 16-bit trace also carries the criterion."""
    stem = os.path.splitext(os.path.basename(weights_path(seed)))[0]
    tag = f"_psnr{PSNR_MARGIN_DB:g}dB" if profile and bits == 16 else ""
    return trace_files(f"{stem}_trace{HD[0]}x{HD[1]}_{bits}b_v{TRACE_VERSION}{tag}")


def needs_torch(bits: int, seed: int = SEED, profile: bool = True) -> bool:
    """Whether :func:`load` would have to train (torch): neither the trace nor the
    trained weights are cached."""
    return not trace_paths(bits, seed, profile).exists() and not os.path.exists(
        weights_path(seed))


def _record_frame(params, x, amax, fmt, bits) -> tuple[dict, list, np.ndarray]:
    """The quantised network on the frame ``x``: (trace arrays, per-layer metadata, the
    output). Each layer's codes are its (profiled) precision in a ``bits``-wide word."""
    n = n_layers(params)
    afrac, wfrac, aprec, wprec = fmt["act_frac"], fmt["wgt_frac"], fmt["act_prec"], fmt["wgt_prec"]
    tiles = TiledRecorder(n, bits, tile_sampler())
    out = float_forward(params, x, act_hook=fmt["hook"], wgts=fmt["wq"],
                        record=lambda i, v: tiles.record(i, quantise(v, aprec[i], afrac[i]),
                                                         f"conv{i + 1}"))
    from ..work import layer_precision
    arrays, layers = {}, []
    for i in range(n):
        wcodes = quantise(params[f"w{i}"], wprec[i], wfrac[i])
        arrays[f"act{i}"] = tiles.act_array(i)
        arrays[f"wgt{i}"] = wcodes.astype(np.int16)
        # Stripes' p / Loom's Pw: lossless over the whole frame's (profiled) codes, so at
        # most the profile's precision.
        layers.append({"name": f"conv{i + 1}", "act_frac": afrac[i], "wgt_frac": wfrac[i],
                       "act_amax": amax[i], "act_profile": aprec[i], "wgt_profile": wprec[i],
                       "act_precision": tiles.stats(i)["act_precision"],
                       "wgt_precision": layer_precision(wcodes, bits, True),
                       "act_zero_fraction_full": tiles.stats(i)["act_zero_fraction_full"],
                       "tiles": tiles.origins[i][0]})
    return arrays, layers, out


def build_trace(bits: int, seed: int = SEED, log=print, profile: bool = True) -> TraceFiles:
    """Train (or load) the network, profile it (16 bits, ``profile``:
    :func:`precision_profile` on the held-out images) and write the integer trace of the HD
    frame (see the module doc) with its metadata; returns the cache files."""
    say = log or (lambda *_: None)
    t0 = time.perf_counter()
    params, info = trained(seed, log=log)
    clean, noisy = hd_frame(seed)
    x = noisy[None, None]
    # Formats are calibrated on the frame (the held-out photos, noisy): the profile search
    # and the trace use the same ranges.
    amax, out_f = calibrate(params, x)
    meta = {"bits": bits, "trace_version": TRACE_VERSION}
    prof = None
    if profile and bits == 16:
        say(f"profiling dncnn's per-layer precisions at {bits} bits (criterion: mean "
            f"held-out PSNR within {PSNR_MARGIN_DB} dB of the full {bits}-bit model)")
        tp = time.perf_counter()
        prof = precision_profile(params, amax, heldout_pairs(seed), bits, log=log)
        prof["seconds"] = time.perf_counter() - tp
        meta["profile"] = prof
    fmt = formats(params, amax, bits, prof and prof["act_profile"],
                  prof and prof["wgt_profile"])
    arrays, layers, out = _record_frame(params, x, amax, fmt, bits)
    key = f"denoised_{bits}b" + ("_profile" if prof else "")
    meta.update(layers=layers, train=info, frame=list(HD),
                frame_psnr={"noisy": psnr(clean, noisy),
                            "denoised_float": psnr(clean, noisy - out_f[0, 0]),
                            key: psnr(clean, noisy - out[0, 0])},
                tiles={"count": TILES, "h": TILE_H, "w": TILE_W})
    if prof:        # the frame through the full bits-wide model too, for the report
        full = formats(params, amax, bits)
        out_full = float_forward(params, x, act_hook=full["hook"], wgts=full["wq"])
        meta["frame_psnr"][f"denoised_{bits}b"] = psnr(clean, noisy - out_full[0, 0])
    meta["deltas"] = delta_table(Workload("dncnn", bits, conv_layers(arrays, meta)))
    meta["seconds"] = time.perf_counter() - t0
    say(f"dncnn {bits}-bit trace at {HD[0]}x{HD[1]}: PSNR "
        + ", ".join(f"{k} {v:.2f} dB" for k, v in meta["frame_psnr"].items())
        + f" ({meta['seconds']:.0f} s)")
    return trace_paths(bits, seed, profile).save(arrays, meta)


def load(bits: int = 16, *, images: int = 1, seed: int = SEED, profile: bool = True,
         log=print, **_) -> Workload:
    """The ``dncnn`` workload (training, profiling and tracing on first use, then cached).
    ``images`` is accepted for the sim CLI and ignored: the trace is one HD frame. At 16
    bits with ``profile`` every layer runs at its profiled precisions (the codes are those
    of the profiled model; Stripes' ``p`` / Loom's ``Pw`` their lossless widths)."""
    meta, arrays = load_or_build(trace_paths(bits, seed, profile),
                                 lambda: build_trace(bits, seed, log=log, profile=profile),
                                 f"dncnn {bits}-bit", log)
    layers = conv_layers(arrays, meta)
    ps = meta["train"]["heldout_psnr"]["mean"]
    fp = meta["frame_psnr"]
    notes = [f"mini-DnCNN (d{DEPTH}, {FEATURES} channels, 3x3, residual) trained with torch "
             f"on skimage/sklearn photos, seed {seed}; held-out PSNR noisy {ps['noisy']:.2f}"
             f" dB -> denoised {ps['denoised']:.2f} dB (sigma 25/255)",
             f"{bits}-bit symmetric fixed point; {HD[0]}x{HD[1]} noisy frame run in NumPy "
             f"(PSNR " + ", ".join(f"{k} {v:.2f} dB" for k, v in fp.items()) + f"); per "
             f"layer {TILES} tiles of {TILE_H}x{TILE_W} output windows simulated (sampled "
             f"deterministically), Stripes p lossless over the whole frame"]
    notes += profile_and_delta_notes(meta, bits, len(layers))
    return Workload("dncnn", bits, layers, notes=notes, meta=meta)


# ----------------------------------------------------------------------------- Diffy deltas
