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

16-bit profile (:func:`precision_profile`, as EfficientNet's and the digits CNN's, with the
same per-layer format rule): the smallest per-layer activation precisions, then weight
precisions, such that the mean PSNR of the held-out images (denoised vs clean) stays no
more than :data:`PSNR_MARGIN_DB` (0.1 dB) below the full 16-bit fixed-point model's. The
16-bit trace is the *profiled* network run on the frame (each layer's codes are its
profiled precision, in a 16-bit word), so Stripes' ``p`` and Loom's ``Pw`` are at most the
profile; the profile, the criterion and the PSNRs are in the trace's metadata and the
workload notes. Cached traces are named by :data:`TRACE_VERSION` (and, profiled, the
criterion); the metadata also holds Diffy's delta statistics (:func:`delta_table`).
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
from .base import Layer, Workload, cache_dir, save_trace
from .efficientnet import Conv, Net, quantised_model
from .fixedpoint import fake_quant, frac_bits_for, quantise

__all__ = ["DEPTH", "FEATURES", "SEED", "STEPS", "SIGMA", "TRAIN_IMAGES", "HELDOUT_IMAGES",
           "gray_images", "make_model", "train", "trained", "psnr", "denoise", "conv_gemm",
           "float_forward", "heldout_pairs", "calibrate", "formats", "precision_profile",
           "PSNR_MARGIN_DB", "TRACE_VERSION", "needs_torch", "profile_search",
           "profile_and_delta_notes", "search_profile",
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


def conv_gemm(x, w, bias=None, padding=1) -> np.ndarray:
    """Float32 convolution (stride 1) as one matrix product per image: the same sums as
    :func:`conv2d_direct`, in another order (differences at float32 rounding level), and
    several times cheaper; the precision search runs hundreds of passes with it, the trace
    itself uses :func:`conv2d_direct`."""
    x = np.asarray(x, np.float32)
    w = np.asarray(w, np.float32)
    n, c, h, ww = x.shape
    k, _, r, s = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    oh, ow = h + 2 * padding - r + 1, ww + 2 * padding - s + 1
    wm = w.transpose(0, 2, 3, 1).reshape(k, r * s * c)
    out = np.empty((n, k, oh, ow), np.float32)
    cols = np.empty((r, s, c, oh, ow), np.float32)
    for b in range(n):
        for i in range(r):
            for j in range(s):
                cols[i, j] = xp[b, :, i:i + oh, j:j + ow]
        out[b] = (wm @ cols.reshape(r * s * c, oh * ow)).reshape(k, oh, ow)
    if bias is not None:
        out += np.asarray(bias, np.float32)[:, None, None]
    return out


def float_forward(params, x, *, act_hook=None, wgts=None, record=None, start=0, stop=None,
                  conv=conv2d_direct):
    """NumPy forward (``conv2d_direct``) returning the predicted noise of ``x``
    (N, 1, H, W); ``act_hook(i, x)`` transforms (fake-quantises) each layer's input,
    ``wgts[i]`` replaces its weights, ``record(i, x)`` sees the input after the hook.

    ``start`` / ``stop`` run layers ``start .. stop - 1`` only: ``x`` is then layer
    ``start``'s input (before the hook) and the result layer ``stop``'s input (after the
    ReLU), which lets the profile search resume from a cached prefix. ``conv`` is the
    convolution (``conv(x, w, bias, padding=1)``)."""
    n = _n_layers(params)
    for i in range(start, n if stop is None else stop):
        if act_hook is not None:
            x = act_hook(i, x)
        if record is not None:
            record(i, x)
        w = params[f"w{i}"] if wgts is None else wgts[i]
        x = np.asarray(conv(x, w, params[f"b{i}"], padding=1), np.float32)
        if i < n - 1:
            x = np.maximum(x, 0)
    return x


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


# ----------------------------------------------------------------------------- 16-bit profile

#: Profile criterion (16 bits): the mean held-out PSNR (denoised vs clean, over
#: :data:`HELDOUT_IMAGES`) of the network with lowered per-layer precisions stays within
#: this many dB of the full ``bits``-bit fixed-point model. A denoiser has no top-1 class
#: to keep, so the image quality it delivers is the quantity that must not move.
PSNR_MARGIN_DB = 0.1


def _net(params) -> Net:
    """The layers as an :class:`.efficientnet.Net`, so that the per-layer format rule of
    :func:`.efficientnet.quantised_model` (shared with the digits CNN) applies unchanged."""
    return Net([Conv(f"conv{i + 1}", params[f"w{i}"], params[f"b{i}"])
                for i in range(_n_layers(params))], [])


def calibrate(params, x) -> tuple[list[float], np.ndarray]:
    """(maximum |input| of every layer over ``x``, the float output): one float pass, whose
    output also serves as the float reference of the frame."""
    amax = [0.0] * _n_layers(params)

    def rec(i, v):
        amax[i] = max(amax[i], float(np.abs(v).max()))
    out = float_forward(params, x, record=rec)
    return amax, out


def formats(params, amax, bits, act_prec=None, wgt_prec=None) -> dict:
    """Per-layer fixed-point formats of one precision setting, by
    :func:`.efficientnet.quantised_model`'s rule (ranges from ``amax`` and the widest
    weight; a precision ``p < bits`` drops fraction bits): ``act_frac``, ``wgt_frac``,
    ``act_prec``, ``wgt_prec``, the fake-quantised weights ``wq`` and the activation
    ``hook`` for :func:`float_forward`."""
    afrac, wfrac, wq, hook, aprec, wprec = quantised_model(_net(params), amax, bits,
                                                           act_prec, wgt_prec)
    return {"act_frac": afrac, "wgt_frac": wfrac, "act_prec": aprec, "wgt_prec": wprec,
            "wq": wq, "hook": hook}


class _HeldoutModel:
    """The quantised network on the held-out images (batched by image size), evaluated
    from any layer on: ``inputs`` carries a prefix forward, ``psnr`` finishes it. The
    arithmetic is float32 on fake-quantised values (integer codes times powers of two),
    equal to the integer model up to float rounding, far below a 16-bit code's step; the
    convolutions are :func:`conv_gemm`'s."""

    def __init__(self, params, amax, pairs, bits):
        self.params, self.amax, self.bits = params, amax, bits
        self.n = _n_layers(params)
        shapes = sorted({clean.shape for clean, _ in pairs.values()})
        self.batches = [(np.stack([c for c, _ in pairs.values() if c.shape == sh]),
                         np.stack([z for c, z in pairs.values() if c.shape == sh])[:, None])
                        for sh in shapes]
        self.evaluations = 0

    def _fmt(self, aprec, wprec):
        f = formats(self.params, self.amax, self.bits, aprec, wprec)
        return f["hook"], f["wq"]

    def start(self) -> list:
        """Layer 0's inputs (the noisy images)."""
        return [noisy for _, noisy in self.batches]

    def advance(self, aprec, wprec, xs, i) -> list:
        """Layer ``i + 1``'s inputs from layer ``i``'s ``xs``."""
        hook, wq = self._fmt(aprec, wprec)
        return [float_forward(self.params, x, act_hook=hook, wgts=wq, start=i, stop=i + 1,
                              conv=conv_gemm) for x in xs]

    def psnr(self, aprec, wprec, xs=None, i=0) -> float:
        """Mean held-out PSNR (dB) with layer ``i``'s inputs ``xs`` (default: from the
        images)."""
        hook, wq = self._fmt(aprec, wprec)
        xs = self.start() if xs is None else xs
        vals = []
        for (clean, noisy), x in zip(self.batches, xs):
            out = float_forward(self.params, x, act_hook=hook, wgts=wq, start=i,
                                conv=conv_gemm)
            vals += [psnr(c, z - o) for c, z, o in zip(clean, noisy[:, 0], out[:, 0])]
        self.evaluations += 1
        return float(np.mean(vals))


def profile_search(model, which, act_base, floor, log) -> dict:
    """One operand's profile. Single-layer minima first (the others at their base: ``bits``
    for the searched operand, ``act_base`` for the activations when searching weights),
    by bisection on [1, bits] (PSNR taken as monotone in a layer's precision, as
    :func:`.efficientnet.precision_profile` does for its top-1); then all minima together
    plus ``extra`` bits each, ``extra`` raised until the criterion holds (the EfficientNet
    rule); then, since the single minima each spend up to the whole margin, every layer in
    order gives back as many of its extra bits as the criterion allows. Every accepted
    setting was evaluated whole, so the returned profile meets ``floor``."""
    n, bits = model.n, model.bits
    full = [bits] * n

    def pair(prec):
        return (prec, full) if which == "act" else (act_base, prec)

    single, xs = [], model.start()
    for i in range(n):
        lo, hi = 1, bits
        while lo < hi:
            mid = (lo + hi) // 2
            prec = list(full)
            prec[i] = mid
            if model.psnr(*pair(prec), xs, i) >= floor:
                hi = mid
            else:
                lo = mid + 1
        single.append(lo)
        if log:
            log(f"  {which} conv{i + 1}: {lo} bits alone")
        xs = model.advance(*pair(full), xs, i)
    extra = 0
    while True:
        prec = [min(bits, p + extra) for p in single]
        score = model.psnr(*pair(prec))
        if score >= floor or extra >= bits:
            break
        extra += 1
    if extra:
        xs = model.start()
        for i in range(n):
            while prec[i] > single[i]:
                trial = list(prec)
                trial[i] -= 1
                s = model.psnr(*pair(trial), xs, i)
                if s < floor:
                    break
                prec, score = trial, s
            xs = model.advance(*pair(prec), xs, i)
    if log:
        log(f"  {which} profile {prec}: {score:.3f} dB (floor {floor:.3f} dB)")
    return {"per_layer_single": single, "extra_bits_combined": extra, "profile": prec,
            "psnr": score}


def precision_profile(params, amax, pairs, bits: int = 16, margin: float = PSNR_MARGIN_DB,
                      log=None) -> dict:
    """The per-layer activation and weight precisions of the ``bits``-bit model (formats
    calibrated by ``amax``) such that the mean PSNR over ``pairs`` (``{name: (clean,
    noisy)}``, :func:`heldout_pairs`) stays within ``margin`` dB of the full ``bits``-bit
    model. Activations are searched first (weights at ``bits``), then weights with the
    activations at their profile, both against the same floor, so the final profile
    (``act_profile`` with ``wgt_profile``) meets the criterion; ``psnr`` is its value."""
    model = _HeldoutModel(params, amax, pairs, bits)
    return search_profile(model, bits, margin,
                          f"mean held-out PSNR ({', '.join(pairs)}) within {margin} dB of the "
                          f"full {bits}-bit fixed-point model", "held-out", log)


def search_profile(model, bits: int, margin: float, criterion: str, what: str,
                   log=None) -> dict:
    """The two-pass profile search on ``model`` (activations first, weights at ``bits``;
    then weights with the activations at their profile, both against the floor ``margin``
    dB under the full ``bits``-bit model's PSNR) and its record; ``criterion`` describes
    what the PSNR is measured on, ``what`` names it in the log."""
    full = [bits] * model.n
    ref = model.psnr(full, full)
    floor = ref - margin
    if log:
        log(f"  full {bits}-bit model: {what} PSNR {ref:.3f} dB")
    act = profile_search(model, "act", None, floor, log)
    wgt = profile_search(model, "wgt", act["profile"], floor, log)
    return {"bits": bits, "margin_db": margin, "criterion": criterion,
            "reference_psnr": ref, "floor": floor, "act": act, "wgt": wgt,
            "act_profile": act["profile"], "wgt_profile": wgt["profile"],
            "psnr": wgt["psnr"], "evaluations": model.evaluations}


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


def _trace_paths(bits, seed=SEED, profile=True):
    """(npz, json) cache paths; a profiled 16-bit trace also carries the criterion."""
    stem = os.path.splitext(os.path.basename(weights_path(seed)))[0]
    tag = f"_psnr{PSNR_MARGIN_DB:g}dB" if profile and bits == 16 else ""
    base = os.path.join(cache_dir(),
                        f"{stem}_trace{HD[0]}x{HD[1]}_{bits}b_v{TRACE_VERSION}{tag}")
    return base + ".npz", base + ".json"


def needs_torch(bits: int, seed: int = SEED, profile: bool = True) -> bool:
    """Whether :func:`load` would have to train (torch): neither the trace nor the
    trained weights are cached."""
    npz, js = _trace_paths(bits, seed, profile)
    cached = os.path.exists(npz) and os.path.exists(js)
    return not cached and not os.path.exists(weights_path(seed))


def _tile_origins(name, oh, ow):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    ys = rng.integers(0, oh - TILE_H + 1, TILES)
    xs = rng.integers(0, ow - TILE_W + 1, TILES)
    return [(int(y), int(x)) for y, x in zip(ys, xs)]


def _trace_layers(arrays, meta) -> list:
    """The :class:`Layer` s of a trace (arrays ``act<i>`` / ``wgt<i>``, ``meta["layers"]``)."""
    return [Layer(info["name"], "conv", np.asarray(arrays[f"act{i}"]).astype(np.int64),
                  np.asarray(arrays[f"wgt{i}"]).astype(np.int64), meta["bits"], stride=1,
                  padding=0, act_precision=info["act_precision"],
                  wgt_precision=info.get("wgt_precision"))
            for i, info in enumerate(meta["layers"])]


def build_trace(bits: int, seed: int = SEED, log=print, profile: bool = True
                ) -> tuple[str, str]:
    """Train (or load) the network, profile it (16 bits, ``profile``:
    :func:`precision_profile` on the held-out images) and write the integer trace of the HD
    frame (see the module doc) with its metadata; returns the cache paths."""
    from ..potential import layer_precision
    say = log or (lambda *_: None)
    t0 = time.perf_counter()
    params, info = trained(seed, log=log)
    n = _n_layers(params)
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
    afrac, wfrac = fmt["act_frac"], fmt["wgt_frac"]
    aprec, wprec = fmt["act_prec"], fmt["wgt_prec"]
    arrays, layers = {}, []

    def rec(i, v):
        q = quantise(v, aprec[i], afrac[i])        # aprec[i]-bit codes in a bits-wide word
        wcodes = quantise(params[f"w{i}"], wprec[i], wfrac[i])
        name = f"conv{i + 1}"
        qp = np.pad(q, ((0, 0), (0, 0), (1, 1), (1, 1)))
        tiles = [qp[0, :, y:y + TILE_H + 2, xx:xx + TILE_W + 2]
                 for y, xx in _tile_origins(name, q.shape[2], q.shape[3])]
        arrays[f"act{i}"] = np.stack(tiles).astype(np.int16 if bits <= 16 else np.int32)
        arrays[f"wgt{i}"] = wcodes.astype(np.int16)
        # Stripes' p / Loom's Pw: lossless over the whole frame's (profiled) codes, so at
        # most the profile's precision.
        layers.append({"name": name, "act_frac": afrac[i], "wgt_frac": wfrac[i],
                       "act_amax": amax[i], "act_profile": aprec[i], "wgt_profile": wprec[i],
                       "act_precision": layer_precision(q, bits, True),
                       "wgt_precision": layer_precision(wcodes, bits, True),
                       "act_zero_fraction_full": float((q == 0).mean()),
                       "tiles": _tile_origins(name, q.shape[2], q.shape[3])})

    out = float_forward(params, x, act_hook=fmt["hook"], wgts=fmt["wq"], record=rec)
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
    meta["deltas"] = delta_table(Workload("dncnn", bits, _trace_layers(arrays, meta)))
    meta["seconds"] = time.perf_counter() - t0
    say(f"dncnn {bits}-bit trace at {HD[0]}x{HD[1]}: PSNR "
        + ", ".join(f"{k} {v:.2f} dB" for k, v in meta["frame_psnr"].items())
        + f" ({meta['seconds']:.0f} s)")
    npz, js = _trace_paths(bits, seed, profile)
    save_trace(npz, js, arrays, meta)
    return npz, js


def load(bits: int = 16, *, images: int = 1, seed: int = SEED, profile: bool = True,
         log=print, **_) -> Workload:
    """The ``dncnn`` workload (training, profiling and tracing on first use, then cached).
    ``images`` is accepted for the sim CLI and ignored: the trace is one HD frame. At 16
    bits with ``profile`` every layer runs at its profiled precisions (the codes are those
    of the profiled model; Stripes' ``p`` / Loom's ``Pw`` their lossless widths)."""
    npz, js = _trace_paths(bits, seed, profile)
    if not (os.path.exists(npz) and os.path.exists(js)):
        if log:
            log(f"building the dncnn {bits}-bit trace (cached in {npz})")
        build_trace(bits, seed, log=log, profile=profile)
    with open(js) as f:
        meta = json.load(f)
    with np.load(npz) as data:
        layers = _trace_layers(data, meta)
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


def profile_and_delta_notes(meta: dict, bits: int, n_layers: int) -> list[str]:
    """The notes an imaging trace carries about its precision profile (when it has one) and
    its Diffy delta statistics."""
    notes = []
    prof = meta.get("profile")
    if prof:
        notes.append(f"{bits}-bit per-layer profile (criterion: {prof['criterion']}; "
                     f"{prof['reference_psnr']:.3f} -> {prof['psnr']:.3f} dB): activations "
                     f"{prof['act_profile']} bits, weights {prof['wgt_profile']} bits "
                     f"(conv1..conv{n_layers}); Stripes p "
                     f"{[info['act_precision'] for info in meta['layers']]}, Loom Pw "
                     f"{[info['wgt_precision'] for info in meta['layers']]}")
    tot = meta["deltas"]["total_macs"]
    notes.append(f"Diffy deltas along x (Booth, MAC-weighted over the simulated tiles): "
                 f"{tot['act_terms']:.2f} terms per activation, {tot['delta_terms']:.2f} per "
                 f"delta (ratio {tot['ratio']:.2f})")
    return notes


# ----------------------------------------------------------------------------- Diffy deltas


def _lowered(layer):
    """The layer's im2col values (channel-major rows, no brick padding: these are
    statistics of the values, not of the tile's bricks)."""
    from ..netsim import lowered_operands
    return lowered_operands(layer, order="channel")


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
