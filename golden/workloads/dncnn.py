"""``dncnn``: a mini-DnCNN (residual Gaussian denoiser) trained offline with torch, traced in
NumPy at an HD-like resolution, plus the delta statistics that explain Diffy.

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
weights and inputs (:mod:`.fixedpoint`, per-layer format rule of
:func:`.efficientnet.quantised_model`: ranges calibrated as the maximum |input| over the
frame), the convolutions in NumPy (:func:`~termwise.golden.primitives.conv2d_direct`).
Every layer's full integer input is reduced, deterministically, to :data:`TILES` tiles of
:data:`TILE_H` x :data:`TILE_W` output windows (positions from
``default_rng(crc32(layer name))``; the tile's input includes its halo, zero padded at the
frame border, so the recorded layer has padding 0): the simulated windows are a sample of
the layer, the values are real. Stripes' ``p`` is the lossless precision over the *whole*
frame's layer input (not the sample), Loom's ``Pw`` the widest weight.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time
import zlib

import numpy as np

from ..primitives import conv2d_direct
from .base import Layer, Workload
from .efficientnet import _cache_dir
from .fixedpoint import fake_quant, frac_bits_for, quantise

__all__ = ["DEPTH", "FEATURES", "SEED", "STEPS", "SIGMA", "TRAIN_IMAGES", "HELDOUT_IMAGES",
           "gray_images", "make_model", "train", "trained", "psnr", "denoise",
           "hd_frame", "build_trace", "load", "delta_term_stats", "delta_table"]

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


def psnr(ref, x, peak: float = 1.0) -> float:
    """Peak signal-to-noise ratio in dB of ``x`` against ``ref`` (``x`` clipped to [0, peak])."""
    ref = np.asarray(ref, np.float64)
    x = np.clip(np.asarray(x, np.float64), 0.0, peak)
    mse = float(np.mean((ref - x) ** 2))
    return float("inf") if mse == 0 else 10.0 * np.log10(peak * peak / mse)


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


def _n_layers(params) -> int:
    return sum(1 for k in params if k.startswith("w"))


def float_forward(params, x, *, act_hook=None, wgts=None, record=None):
    """NumPy forward (``conv2d_direct``) returning the predicted noise of ``x``
    (N, 1, H, W); ``act_hook(i, x)`` transforms (fake-quantises) each layer's input,
    ``wgts[i]`` replaces its weights, ``record(i, x)`` sees the input after the hook."""
    n = _n_layers(params)
    for i in range(n):
        if act_hook is not None:
            x = act_hook(i, x)
        if record is not None:
            record(i, x)
        w = params[f"w{i}"] if wgts is None else wgts[i]
        x = np.asarray(conv2d_direct(x, w, params[f"b{i}"], padding=1), np.float32)
        if i < n - 1:
            x = np.maximum(x, 0)
    return x


def denoise(params, noisy, **kw) -> np.ndarray:
    """``noisy - net(noisy)`` for a 2-D image."""
    return noisy - float_forward(params, noisy[None, None].astype(np.float32), **kw)[0, 0]


def weights_path(seed=SEED, steps=STEPS) -> str:
    h = hashlib.sha1(json.dumps(_hyper(seed, steps, DEPTH, FEATURES, BATCH,
                                       len(TRAIN_IMAGES)), sort_keys=True).encode())
    return os.path.join(_cache_dir(),
                        f"dncnn_d{DEPTH}f{FEATURES}_seed{seed}_{h.hexdigest()[:10]}.npz")


def heldout_psnr(params, seed=SEED) -> dict:
    """Noisy vs denoised PSNR (dB) of every held-out image (noise ``default_rng(seed+1)``)."""
    rng = np.random.default_rng(seed + 1)
    res = {}
    for name, im in gray_images(HELDOUT_IMAGES).items():
        noisy = (im + rng.standard_normal(im.shape) * SIGMA).astype(np.float32)
        den = denoise(params, noisy)
        res[name] = {"noisy": psnr(im, noisy), "denoised": psnr(im, den)}
    res["mean"] = {k: float(np.mean([v[k] for v in res.values()]))
                   for k in ("noisy", "denoised")}
    return res


def trained(seed: int = SEED, steps: int = STEPS, log=None) -> tuple[dict, dict]:
    """Cached trained weights and their info (training time, held-out PSNR)."""
    path = weights_path(seed, steps)
    if os.path.exists(path):
        with np.load(path) as f:
            return {k: f[k] for k in f.files if k != "info"}, json.loads(str(f["info"]))
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
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + f".tmp{os.getpid()}.npz"
    np.savez(tmp, info=np.array(json.dumps(info)), **params)
    os.replace(tmp, path)
    return params, info


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


def _trace_paths(bits, seed=SEED):
    stem = os.path.splitext(os.path.basename(weights_path(seed)))[0]
    d = _cache_dir()
    return (os.path.join(d, f"{stem}_trace{HD[0]}x{HD[1]}_{bits}b.npz"),
            os.path.join(d, f"{stem}_trace{HD[0]}x{HD[1]}_{bits}b.json"))


def _tile_origins(name, oh, ow):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    ys = rng.integers(0, oh - TILE_H + 1, TILES)
    xs = rng.integers(0, ow - TILE_W + 1, TILES)
    return [(int(y), int(x)) for y, x in zip(ys, xs)]


def build_trace(bits: int, seed: int = SEED, log=print) -> tuple[str, str]:
    from ..potential import layer_precision
    t0 = time.perf_counter()
    params, info = trained(seed, log=log)
    n = _n_layers(params)
    clean, noisy = hd_frame(seed)
    x = noisy[None, None]
    amax = [0.0] * n
    out_f = float_forward(params, x, record=lambda i, v: amax.__setitem__(
        i, max(amax[i], float(np.abs(v).max()))))
    afrac = [frac_bits_for(a, bits) for a in amax]
    wfrac = [frac_bits_for(float(np.abs(params[f"w{i}"]).max()), bits) for i in range(n)]
    wq = [fake_quant(params[f"w{i}"], bits, wfrac[i]) for i in range(n)]
    arrays, layers = {}, []

    def rec(i, v):
        q = quantise(v, bits, afrac[i])
        name = f"conv{i + 1}"
        qp = np.pad(q, ((0, 0), (0, 0), (1, 1), (1, 1)))
        tiles = [qp[0, :, y:y + TILE_H + 2, xx:xx + TILE_W + 2]
                 for y, xx in _tile_origins(name, q.shape[2], q.shape[3])]
        arrays[f"act{i}"] = np.stack(tiles).astype(np.int16 if bits <= 16 else np.int32)
        arrays[f"wgt{i}"] = quantise(params[f"w{i}"], bits, wfrac[i]).astype(np.int16)
        layers.append({"name": name, "act_frac": afrac[i], "wgt_frac": wfrac[i],
                       "act_amax": amax[i], "act_precision": layer_precision(q, bits, True),
                       "act_zero_fraction_full": float((q == 0).mean()),
                       "tiles": _tile_origins(name, q.shape[2], q.shape[3])})

    out = float_forward(params, x, act_hook=lambda i, v: fake_quant(v, bits, afrac[i]),
                        wgts=wq, record=rec)
    den_q = noisy - out[0, 0]
    den_f = noisy - out_f[0, 0]
    meta = {"bits": bits, "layers": layers, "train": info, "frame": list(HD),
            "frame_psnr": {"noisy": psnr(clean, noisy), "denoised_float": psnr(clean, den_f),
                           f"denoised_{bits}b": psnr(clean, den_q)},
            "tiles": {"count": TILES, "h": TILE_H, "w": TILE_W}}
    meta["seconds"] = time.perf_counter() - t0
    log(f"dncnn {bits}-bit trace at {HD[0]}x{HD[1]}: PSNR noisy "
        f"{meta['frame_psnr']['noisy']:.2f} dB, float {meta['frame_psnr']['denoised_float']:.2f}"
        f" dB, {bits}-bit {meta['frame_psnr'][f'denoised_{bits}b']:.2f} dB "
        f"({meta['seconds']:.0f} s)")
    npz, js = _trace_paths(bits, seed)
    os.makedirs(os.path.dirname(npz), exist_ok=True)
    np.savez(npz + ".tmp.npz", **arrays)
    os.replace(npz + ".tmp.npz", npz)
    with open(js, "w") as f:
        json.dump(meta, f, indent=1)
    return npz, js


def load(bits: int = 16, *, images: int = 1, seed: int = SEED, log=print, **_) -> Workload:
    """The ``dncnn`` workload (training and tracing on first use, then cached).
    ``images`` is accepted for the sim CLI and ignored: the trace is one HD frame."""
    npz, js = _trace_paths(bits, seed)
    if not (os.path.exists(npz) and os.path.exists(js)):
        log(f"building the dncnn {bits}-bit trace (cached in {npz})")
        build_trace(bits, seed, log=log)
    with open(js) as f:
        meta = json.load(f)
    data = np.load(npz)
    layers = [Layer(info["name"], "conv", data[f"act{i}"].astype(np.int64),
                    data[f"wgt{i}"].astype(np.int64), bits, stride=1, padding=0,
                    act_precision=info["act_precision"])
              for i, info in enumerate(meta["layers"])]
    ps = meta["train"]["heldout_psnr"]["mean"]
    notes = [f"mini-DnCNN (d{DEPTH}, {FEATURES} channels, 3x3, residual) trained with torch "
             f"on skimage/sklearn photos, seed {seed}; held-out PSNR noisy {ps['noisy']:.2f}"
             f" dB -> denoised {ps['denoised']:.2f} dB (sigma 25/255)",
             f"{bits}-bit symmetric fixed point; {HD[0]}x{HD[1]} noisy frame run in NumPy; per "
             f"layer {TILES} tiles of {TILE_H}x{TILE_W} output windows simulated (sampled "
             f"deterministically), Stripes p lossless over the whole frame"]
    return Workload("dncnn", bits, layers, notes=notes, meta=meta)


# ----------------------------------------------------------------------------- Diffy deltas


def _lowered(layer):
    from ..netsim import lowered_operands
    return lowered_operands(layer)


def layer_deltas(layer) -> tuple[np.ndarray, np.ndarray]:
    """(im2col activations, deltas along x) of a conv layer, both shaped (G, N, OH, OW, K):
    ``delta(x) = a(x) - a(x - 1 window)`` (the window ``stride`` input columns to the
    left), predecessor 0 at the start of every output row."""
    a, _ = _lowered(layer)
    n = layer.act.shape[0]
    oh, ow = layer.out_hw
    a = a.reshape(a.shape[0], n, oh, ow, a.shape[-1])
    d = a.copy()
    d[:, :, :, 1:] -= a[:, :, :, :-1]
    return a, d


def delta_term_stats(layer, encoding: str = "booth") -> dict:
    """Mean terms per im2col activation vs per delta (deltas: ``bits + 1``-bit signed);
    fully-connected layers have no x dimension (``None`` deltas)."""
    from ..terms import term_count
    bits = layer.bits
    if layer.kind != "conv":
        a, _ = _lowered(layer)
        ta = float(term_count(a, bits, encoding, signed=True).mean())
        return {"name": layer.name, "act_terms": ta, "delta_terms": None, "ratio": None,
                "act_zero": float((a == 0).mean()), "delta_zero": None}
    a, d = layer_deltas(layer)
    ta = term_count(a, bits, encoding, signed=True)
    td = term_count(d, bits + 1, encoding, signed=True)
    mta, mtd = float(ta.mean()), float(td.mean())
    return {"name": layer.name, "act_terms": mta, "delta_terms": mtd,
            "ratio": mtd / mta if mta else None, "act_zero": float((a == 0).mean()),
            "delta_zero": float((d == 0).mean()), "values": int(a.size)}


def delta_table(workload, encoding: str = "booth") -> dict:
    """Per-layer statistics and two totals over the conv layers: ``total`` weighted by the
    layer's im2col values, ``total_macs`` weighted by its MACs (each im2col value meets
    ``K / groups`` filters: the work of a term-serial design such as Pragmatic / Diffy)."""
    rows = [delta_term_stats(l, encoding) for l in workload.layers]
    for r, l in zip(rows, workload.layers):
        r["macs"] = l.macs
    conv = [r for r in rows if r["delta_terms"] is not None]

    def total(key):
        tw = sum(r[key] for r in conv)
        if not tw:
            return {"act_terms": None, "delta_terms": None, "ratio": None}
        ta = sum(r["act_terms"] * r[key] for r in conv) / tw
        td = sum(r["delta_terms"] * r[key] for r in conv) / tw
        return {"act_terms": ta, "delta_terms": td, "ratio": td / ta if ta else None}
    return {"workload": workload.name, "bits": workload.bits, "encoding": encoding,
            "layers": rows, "total": total("values"), "total_macs": total("macs")}
