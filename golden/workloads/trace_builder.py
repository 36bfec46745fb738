"""The trace pipeline shared by the traced networks (EfficientNet-Lite0, DnCNN, FFDNet, the
digits CNN): cache files, calibration, the recording of per-layer integer codes (whole or
as sampled tiles) and the layers a cached trace becomes.

A network module supplies only what is its own: its forward pass (which calls a
``record(i, x)`` hook on every layer's input), its data, its hyper-parameters and its
metrics; the formats are :mod:`.quantisation`'s, the profile search
:mod:`.precision_search`'s. Its ``build_trace`` then reads as the pipeline: calibrate
(:class:`Calibration`), profile, quantise, record (:class:`TiledRecorder` or
:func:`record_codes`), save (:meth:`TraceFiles.save`); its ``load`` is
:func:`load_or_build` and the layers of the cached arrays.

Cache: a trace is an ``.npz`` of arrays (``act<i>`` / ``wgt<i>``) and a ``.json`` of its
metadata in :func:`~.base.cache_dir`; trained weights an ``.npz`` of arrays and an
``info`` JSON string. Every write goes to a temporary file renamed into place, so a
concurrent reader never sees half a file.
"""

from __future__ import annotations

import json
import os
import zlib
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ... import BLAS_CORETYPE, blas_kernel_chosen
from ...gen.errors import ConfigError
from .base import Layer, cache_dir

__all__ = ["TraceFiles", "trace_files", "load_or_build", "load_weights", "save_weights",
           "Calibration", "TileSampler", "TiledRecorder", "record_codes", "conv_layers",
           "code_dtype"]


class TraceFiles(NamedTuple):
    """The two cache files of a trace: arrays (``npz``) and metadata (``js``); a pair, so
    ``npz, js = files`` reads as before."""

    npz: str
    js: str

    def exists(self) -> bool:
        return os.path.exists(self.npz) and os.path.exists(self.js)

    def save(self, arrays: dict, meta: dict) -> "TraceFiles":
        """Write both files, each atomically (a temporary file renamed)."""
        os.makedirs(os.path.dirname(self.npz), exist_ok=True)
        tmp = f"{self.npz}.tmp{os.getpid()}.npz"
        np.savez(tmp, **arrays)
        os.replace(tmp, self.npz)
        tmp = f"{self.js}.tmp{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(meta, f, indent=1)
        os.replace(tmp, self.js)
        return self

    def load(self) -> tuple[dict, dict]:
        """``(meta, arrays)``, the arrays read into memory."""
        with open(self.js) as f:
            meta = json.load(f)
        with np.load(self.npz) as data:
            arrays = {k: data[k] for k in data.files}
        return meta, arrays


def trace_files(stem: str, folder: str | None = None) -> TraceFiles:
    """``<folder>/<stem>.npz`` and ``.json``; ``folder`` defaults to :func:`~.base.cache_dir`."""
    base = os.path.join(cache_dir() if folder is None else folder, stem)
    return TraceFiles(base + ".npz", base + ".json")


def load_or_build(files: TraceFiles, build, what: str, log=None) -> tuple[dict, dict]:
    """The cached trace ``(meta, arrays)``, built first by ``build() -> TraceFiles`` when
    either file is missing (the files ``build`` returns are the ones read).

    A process whose OpenBLAS picked its own kernel (NumPy imported before termwise) is
    refused before any work: its trace would not be the pinned one
    (:func:`termwise.blas_kernel_chosen`)."""
    if not files.exists():
        if not blas_kernel_chosen():
            raise ConfigError("OPENBLAS_CORETYPE", f"the {what} trace is computed with "
                              f"OpenBLAS's {BLAS_CORETYPE} kernel, and NumPy was loaded "
                              f"before termwise could choose it: import termwise first or "
                              f"set OPENBLAS_CORETYPE={BLAS_CORETYPE}")
        if log:
            log(f"building the {what} trace (cached in {files.npz})")
        files = build()
    return files.load()


def load_weights(path: str) -> tuple[dict, dict] | None:
    """``(arrays, info)`` of a cached weights file, ``None`` when there is none."""
    if not os.path.exists(path):
        return None
    with np.load(path) as f:
        return {k: f[k] for k in f.files if k != "info"}, json.loads(str(f["info"]))


def save_weights(path: str, params: dict, info: dict) -> None:
    """Cache ``params`` (name -> array) and ``info`` (JSON) atomically in ``path``."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + f".tmp{os.getpid()}.npz"
    np.savez(tmp, info=np.array(json.dumps(info)), **params)
    os.replace(tmp, path)


class Calibration:
    """Activation ranges: the maximum |input| of every layer over every pass it records.

    Pass the instance as a forward pass's ``record`` hook (``(i, x, *state)``); read
    :attr:`amax` after the calibration passes."""

    def __init__(self, n_layers: int):
        self.amax = [0.0] * n_layers

    def __call__(self, i, v, *_):
        self.amax[i] = max(self.amax[i], float(np.abs(v).max()))


def code_dtype(bits: int):
    """The array dtype of ``bits``-wide activation codes in a trace file."""
    return np.int16 if bits <= 16 else np.int32


@dataclass(frozen=True)
class TileSampler:
    """``count`` tiles of ``h`` x ``w`` output windows of a stride-1 3x3 layer: positions
    drawn from ``default_rng(crc32(key))`` (deterministic per layer and frame), the input
    tile with its one-pixel halo, zero padded at the frame border (so the recorded layer
    has padding 0)."""

    count: int
    h: int
    w: int

    def origins(self, key: str, oh: int, ow: int) -> list:
        rng = np.random.default_rng(zlib.crc32(key.encode()))
        ys = rng.integers(0, oh - self.h + 1, self.count)
        xs = rng.integers(0, ow - self.w + 1, self.count)
        return [(int(y), int(x)) for y, x in zip(ys, xs)]

    def cut(self, q, origins) -> list:
        """The input tiles (C, h + 2, w + 2) of image 0 of ``q`` at ``origins``: copies, so
        that a recorder holding them does not hold every layer's whole padded frame."""
        qp = np.pad(q, ((0, 0), (0, 0), (1, 1), (1, 1)))
        return [qp[0, :, y:y + self.h + 2, x:x + self.w + 2].copy() for y, x in origins]


class TiledRecorder:
    """Per-layer integer inputs of one or more frames, reduced to sampled tiles.

    :meth:`record` takes a layer's full integer input codes of one frame: the tiles are
    kept, and Stripes' ``p`` (the lossless precision, :func:`~termwise.golden.work.
    layer_precision`) and the zero fraction are taken over the *whole* frame, not the
    sample."""

    def __init__(self, n_layers: int, bits: int, sampler: TileSampler):
        self.bits, self.sampler = bits, sampler
        self.tiles = [[] for _ in range(n_layers)]
        self.precision = [1] * n_layers
        self.zeros = [[] for _ in range(n_layers)]
        self.origins = [[] for _ in range(n_layers)]

    def record(self, i: int, q, key: str) -> None:
        """Layer ``i``'s codes ``q`` (1, C, H, W) of one frame; ``key`` seeds the tiles."""
        from ..work import layer_precision
        org = self.sampler.origins(key, q.shape[2], q.shape[3])
        self.origins[i].append(org)
        self.tiles[i] += self.sampler.cut(q, org)
        self.precision[i] = max(self.precision[i], layer_precision(q, self.bits, True))
        self.zeros[i].append(float((q == 0).mean()))

    def act_array(self, i: int) -> np.ndarray:
        """Layer ``i``'s tiles (frames x tiles, C, h + 2, w + 2) as trace codes."""
        return np.stack(self.tiles[i]).astype(code_dtype(self.bits))

    def stats(self, i: int) -> dict:
        """``act_precision`` and ``act_zero_fraction_full`` of layer ``i``."""
        return {"act_precision": self.precision[i],
                "act_zero_fraction_full": float(np.mean(self.zeros[i]))}


def record_codes(arrays: dict, i: int, act_codes, wgt_codes, dtype) -> None:
    """Store layer ``i``'s whole integer input and weight codes as ``act<i>`` / ``wgt<i>``."""
    arrays[f"act{i}"] = np.asarray(act_codes).astype(dtype)
    arrays[f"wgt{i}"] = np.asarray(wgt_codes).astype(dtype)


def conv_layers(arrays, meta, tiles: int | None = None) -> list:
    """The stride-1, padding-0 conv :class:`Layer` s of a tiled trace (``act<i>`` /
    ``wgt<i>``, ``meta["layers"]`` with each layer's precisions); ``tiles`` keeps the first
    tiles of every layer only."""
    return [Layer(info["name"], "conv", np.asarray(arrays[f"act{i}"][:tiles]).astype(np.int64),
                  np.asarray(arrays[f"wgt{i}"]).astype(np.int64), meta["bits"], stride=1,
                  padding=0, act_precision=info["act_precision"],
                  wgt_precision=info.get("wgt_precision"))
            for i, info in enumerate(meta["layers"])]
