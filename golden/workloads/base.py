"""Layer and workload records, synthetic values and the trace cache folder (the registry of
workloads is :mod:`.registry`, the trace pipeline and its cache files :mod:`.trace_builder`)."""

from __future__ import annotations

import hashlib
import json
import zlib
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Layer", "Workload", "synthetic_values", "PRECISIONS", "cache_dir"]

#: Base fixed-point widths a workload can be quantised to.
PRECISIONS = (8, 16)


@dataclass
class Layer:
    """One convolution or fully-connected layer with integer operands.

    ``act`` is (N, C, H, W) for a convolution, (N, C) for a fully-connected layer; ``wgt``
    is (K, C // groups, R, S) or (K, C). Both are ``bits``-wide integers on the quantiser's
    two's complement grid. ``act_precision`` (Stripes' runtime ``p``) and ``wgt_precision``
    (Loom's ``Pw``) are the per-layer precisions; ``None`` means "lossless on this data"
    (the widest value).

    ``act_signed`` is the layer's ``act_signed`` runtime register: whether its input
    activations are two's complement or unsigned (a ReLU's outputs, a picture's pixels), so
    precision detectors and serial PEs spend no bit on an always-0 sign. ``None`` (the
    default) derives it from the data, as an offline profile would: unsigned when no input
    activation is negative. Then a given ``act_precision`` is read as the quantiser's
    two's complement width (the convention of every profile here) and becomes the unsigned
    width of the same values, one bit less; an explicit ``act_signed`` keeps
    ``act_precision`` as given.
    """

    name: str
    kind: str                      # "conv" | "fc"
    act: np.ndarray
    wgt: np.ndarray
    bits: int
    stride: int = 1
    padding: int = 0
    dilation: int = 1
    groups: int = 1
    act_precision: int | None = None
    wgt_precision: int | None = None
    act_signed: bool | None = None
    synthetic: bool = False

    def __post_init__(self):
        if self.act_signed is None:
            self.act_signed = bool(np.asarray(self.act).size and np.asarray(self.act).min() < 0)
            if not self.act_signed and self.act_precision is not None:
                self.act_precision = max(1, self.act_precision - 1)
        else:
            self.act_signed = bool(self.act_signed)

    @property
    def depthwise(self) -> bool:
        return self.kind == "conv" and self.groups > 1 and self.groups == self.act.shape[1]

    @property
    def out_hw(self) -> tuple[int, int]:
        if self.kind == "fc":
            return (1, 1)
        from ..lowering import conv_output_size
        _, _, h, w = self.act.shape
        _, _, r, s = self.wgt.shape
        return (conv_output_size(h, r, self.stride, self.padding, self.dilation),
                conv_output_size(w, s, self.stride, self.padding, self.dilation))

    @property
    def macs(self) -> int:
        """Multiply-accumulates of the layer (no padding)."""
        n = self.act.shape[0]
        if self.kind == "fc":
            return int(n * self.wgt.shape[0] * self.wgt.shape[1])
        oh, ow = self.out_hw
        k, cg, r, s = self.wgt.shape
        return int(n * oh * ow * k * cg * r * s)

    def shape_text(self) -> str:
        if self.kind == "fc":
            return f"fc {self.wgt.shape[1]}->{self.wgt.shape[0]}"
        n, c, h, w = self.act.shape
        k, cg, r, s = self.wgt.shape
        g = f" g{self.groups}" if self.groups > 1 else ""
        return f"{c}x{h}x{w} {r}x{s}/{self.stride} p{self.padding}{g} -> {k}"


@dataclass
class Workload:
    name: str
    bits: int
    layers: list[Layer]
    synthetic: bool = False
    notes: list[str] = field(default_factory=list)
    meta: dict = field(default_factory=dict)

    @property
    def macs(self) -> int:
        return sum(layer.macs for layer in self.layers)

    #: The fields of a :class:`Layer` that its trace hash covers besides its two arrays.
    _LAYER_FIELDS = ("name", "kind", "bits", "stride", "padding", "dilation", "groups",
                     "act_precision", "wgt_precision", "act_signed", "synthetic")

    def trace_sha256(self) -> str:
        """sha256 of what a measurement reads of this workload: every layer's fields and
        its activations' and weights' dtype, shape and values, in order.

        Results measured on a workload (a power report's activity) are keyed on this, not
        on the text of the code that built the trace: the same trace gives the same
        stimulus whatever code made it, and a trace that moved (another BLAS kernel, a new
        quantisation) is another key."""
        h = hashlib.sha256(json.dumps([self.name, self.bits]).encode())
        for layer in self.layers:
            fields = [getattr(layer, f) for f in self._LAYER_FIELDS]
            h.update(json.dumps(fields, default=int).encode())
            for a in (layer.act, layer.wgt):
                a = np.ascontiguousarray(a)
                h.update(json.dumps([a.dtype.str, list(a.shape)]).encode())
                h.update(a.tobytes())
        return h.hexdigest()


def synthetic_values(shape, bits: int, kind: str, seed_text: str) -> np.ndarray:
    """Deterministic synthetic operands (labelled "synthetic" in every report).

    Activations (``kind='act'``): ReLU of a normal with sigma ``2**(bits-4)`` (about half
    zeros, the rest mostly within ``bits - 2`` bits); weights: a normal with sigma
    ``2**(bits-5)``; both rounded and clipped to the signed ``bits`` range. The seed is the
    CRC32 of ``seed_text`` (the layer's name), so every run sees the same values.
    """
    rng = np.random.default_rng(zlib.crc32(seed_text.encode()))
    lo, hi = -(1 << (bits - 1)) + 1, (1 << (bits - 1)) - 1
    if kind == "act":
        v = np.maximum(rng.standard_normal(shape, dtype=np.float32), 0) * 2.0 ** (bits - 4)
    elif kind == "wgt":
        v = rng.standard_normal(shape, dtype=np.float32) * 2.0 ** (bits - 5)
    else:
        raise ValueError(f"kind must be 'act' or 'wgt', got {kind!r}")
    return np.clip(np.rint(v), lo, hi).astype(np.int64)


def cache_dir() -> str:
    """Where traces are cached: ``$TERMWISE_WORKLOADS``, else ``build/workloads`` of the
    checkout (:func:`termwise.gen.results.locations.workload_cache_dir`, beside every other
    store's root)."""
    from ...gen.results.locations import workload_cache_dir
    return workload_cache_dir()

