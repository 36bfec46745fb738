"""Convolution problem description and its MIOpen-style key.

The key has the form ``C-H-W-RxS-K-OH-OW-N-padHxpadW-strHxstrW-dilHxdilW-bias-layout-dtype-dir``
with an ``_gG`` suffix when ``groups > 1``; for example AlexNet conv1 is
``3-227-227-11x11-96-55-55-1-0x0-4x4-1x1-0-NCHW-FP32-F``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ._args import pair

__all__ = ["ConvProblem", "DTYPE_TAGS", "dtype_tag", "parse_key"]

#: numpy dtype name -> key tag. bfloat16 has no numpy dtype: use ``dtype="BF16"`` explicitly.
DTYPE_TAGS = {
    "float16": "FP16",
    "float32": "FP32",
    "float64": "FP64",
    "int8": "INT8",
    "uint8": "UINT8",
    "int16": "INT16",
    "uint16": "UINT16",
    "int32": "INT32",
    "int64": "INT64",
    "uint32": "UINT32",
    "uint64": "UINT64",
    "bool": "INT1",
}
_VALID_TAGS = frozenset(DTYPE_TAGS.values()) | {"BF16"}
_LAYOUTS = frozenset({"NCHW", "NHWC"})
_DIRECTIONS = frozenset({"F", "B", "W"})  # forward, backward data, backward weights


def dtype_tag(dtype) -> str:
    """Key tag of a numpy dtype (``float32 -> "FP32"``); ``ValueError`` if unknown."""
    name = np.dtype(dtype).name
    try:
        return DTYPE_TAGS[name]
    except KeyError:
        raise ValueError(f"dtype: no problem-key tag for {name}") from None


def _check_pos(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name}: expected a positive int, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class ConvProblem:
    """One forward convolution problem (geometry, bias, layout, dtype, direction).

    Parameters
    ----------
    n, c, h, w : int
        Batch, input channels, input height and width.
    k, r, s : int
        Filters (output channels), filter height and width.
    stride, padding, dilation : int or (int, int)
        Normalised to ``(h, w)`` tuples on construction.
    groups : int
        Channel groups; ``groups == c == k`` is depthwise.
    bias : bool
        Whether a bias is added.
    layout : {"NCHW", "NHWC"}
    dtype : str
        Key tag such as ``"FP32"``, ``"BF16"`` or ``"INT8"`` (numpy dtypes are converted).
    direction : {"F", "B", "W"}

    Attributes
    ----------
    oh, ow : int
        Output height and width.
    key : str
        MIOpen-style problem key.
    """

    n: int
    c: int
    h: int
    w: int
    k: int
    r: int
    s: int
    stride: tuple[int, int] = (1, 1)
    padding: tuple[int, int] = (0, 0)
    dilation: tuple[int, int] = (1, 1)
    groups: int = 1
    bias: bool = False
    layout: str = "NCHW"
    dtype: str = "FP32"
    direction: str = "F"

    def __post_init__(self):
        for name in ("n", "c", "h", "w", "k", "r", "s", "groups"):
            object.__setattr__(self, name, _check_pos(name, getattr(self, name)))
        object.__setattr__(self, "stride", pair(self.stride, "stride", minimum=1))
        object.__setattr__(self, "padding", pair(self.padding, "padding", minimum=0))
        object.__setattr__(self, "dilation", pair(self.dilation, "dilation", minimum=1))
        object.__setattr__(self, "bias", bool(self.bias))
        tag = self.dtype
        if not isinstance(tag, str):
            tag = dtype_tag(tag)
        if tag not in _VALID_TAGS:
            raise ValueError(f"dtype: unknown tag {tag!r} (known: {sorted(_VALID_TAGS)})")
        object.__setattr__(self, "dtype", tag)
        if self.layout not in _LAYOUTS:
            raise ValueError(f"layout: expected one of {sorted(_LAYOUTS)}, got {self.layout!r}")
        if self.direction not in _DIRECTIONS:
            raise ValueError(
                f"direction: expected one of {sorted(_DIRECTIONS)}, got {self.direction!r}"
            )
        if self.c % self.groups:
            raise ValueError(f"groups: C={self.c} is not divisible by groups={self.groups}")
        if self.k % self.groups:
            raise ValueError(f"groups: K={self.k} is not divisible by groups={self.groups}")
        if self.oh < 1 or self.ow < 1:
            raise ValueError(
                f"filter {self.r}x{self.s} (dilation {self.dilation[0]}x{self.dilation[1]}) "
                f"larger than padded input {self.h + 2 * self.padding[0]}x"
                f"{self.w + 2 * self.padding[1]}"
            )

    @property
    def oh(self) -> int:
        """Output height ``(H + 2*padH - dilH*(R-1) - 1) // strH + 1``."""
        return (self.h + 2 * self.padding[0] - self.dilation[0] * (self.r - 1) - 1) // self.stride[0] + 1

    @property
    def ow(self) -> int:
        """Output width ``(W + 2*padW - dilW*(S-1) - 1) // strW + 1``."""
        return (self.w + 2 * self.padding[1] - self.dilation[1] * (self.s - 1) - 1) // self.stride[1] + 1

    @property
    def cg(self) -> int:
        """Input channels per group."""
        return self.c // self.groups

    @property
    def kg(self) -> int:
        """Filters per group."""
        return self.k // self.groups

    @property
    def is_depthwise(self) -> bool:
        """True when every group has one input and one output channel."""
        return self.groups > 1 and self.groups == self.c == self.k

    @property
    def macs(self) -> int:
        """Multiply-accumulates of the direct algorithm."""
        return self.n * self.k * self.oh * self.ow * self.cg * self.r * self.s

    @property
    def key(self) -> str:
        """MIOpen-style key, e.g. ``3-227-227-11x11-96-55-55-1-0x0-4x4-1x1-0-NCHW-FP32-F``."""
        (ph, pw), (sh, sw), (dh, dw) = self.padding, self.stride, self.dilation
        key = (
            f"{self.c}-{self.h}-{self.w}-{self.r}x{self.s}-{self.k}-{self.oh}-{self.ow}-{self.n}-"
            f"{ph}x{pw}-{sh}x{sw}-{dh}x{dw}-{int(self.bias)}-{self.layout}-{self.dtype}-"
            f"{self.direction}"
        )
        if self.groups > 1:
            key += f"_g{self.groups}"
        return key

    def __str__(self) -> str:
        return self.key

    @classmethod
    def from_arrays(cls, x, w, bias=None, *, stride=1, padding=0, dilation=1, groups=1,
                    dtype=None, direction="F") -> "ConvProblem":
        """Problem of ``conv(x, w, bias)`` with NCHW ``x`` and KCRS ``w``.

        ``dtype`` defaults to the tag of ``x.dtype``.
        """
        x = np.asarray(x)
        w = np.asarray(w)
        if x.ndim != 4:
            raise ValueError(f"x: expected 4-D (N, C, H, W), got shape {x.shape}")
        if w.ndim != 4:
            raise ValueError(f"w: expected 4-D (K, C//groups, R, S), got shape {w.shape}")
        n, c, h, wd = x.shape
        k, cw, r, s = w.shape
        g = _check_pos("groups", groups)
        if c % g == 0 and cw != c // g:
            raise ValueError(
                f"w: expected C//groups={c // g} input channels (C={c}, groups={g}), "
                f"got w.shape[1]={cw}"
            )
        return cls(n, c, h, wd, k, r, s, stride, padding, dilation, g, bias is not None,
                   "NCHW", dtype if dtype is not None else dtype_tag(x.dtype), direction)


_KEY_RE = re.compile(
    r"^(\d+)-(\d+)-(\d+)-(\d+)x(\d+)-(\d+)-(\d+)-(\d+)-(\d+)-(\d+)x(\d+)-(\d+)x(\d+)-(\d+)x(\d+)"
    r"-([01])-([A-Z]+)-([A-Z0-9]+)-([FBW])(?:_g(\d+))?$"
)


def parse_key(key: str) -> ConvProblem:
    """Inverse of :attr:`ConvProblem.key`.

    Raises ``ValueError`` if the key is malformed or its OH/OW disagree with the geometry.
    """
    m = _KEY_RE.match(key)
    if not m:
        raise ValueError(f"malformed convolution key: {key!r}")
    v = m.groups()
    c, h, w, r, s, k, oh, ow, n, ph, pw, sh, sw, dh, dw = (int(t) for t in v[:15])
    p = ConvProblem(n, c, h, w, k, r, s, (sh, sw), (ph, pw), (dh, dw),
                    int(v[19]) if v[19] else 1, v[15] == "1", v[16], v[17], v[18])
    if (p.oh, p.ow) != (oh, ow):
        raise ValueError(f"key {key!r}: OH-OW {oh}-{ow} disagree with geometry ({p.oh}-{p.ow})")
    return p
