"""Argument normalisation and validation shared by every convolution routine.

Every algorithm in :mod:`termwise.golden.primitives` accepts the same arguments as
:func:`~termwise.golden.primitives.direct.conv2d_direct`; this module turns them into
arrays of a known compute dtype and a :class:`ConvArgs` record, raising ``ValueError``
with a message that names the offending argument.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "ConvArgs", "pair", "normalize_conv", "compute_dtype", "check_int64_range", "pad_input",
    "INT64_MAX",
]

INT64_MAX = int(np.iinfo(np.int64).max)


def pair(value, name: str, *, minimum: int) -> tuple[int, int]:
    """Return ``value`` as an ``(h, w)`` pair of Python ints, each ``>= minimum``.

    Parameters
    ----------
    value : int or sequence of two ints
        An int applies to both dimensions.
    name : str
        Argument name used in error messages.
    minimum : int
        Smallest allowed value.
    """
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        h = w = int(value)
    else:
        try:
            items = tuple(value)
        except TypeError:
            raise ValueError(f"{name}: expected an int or an (h, w) pair, got {value!r}") from None
        if len(items) != 2 or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items
        ):
            raise ValueError(f"{name}: expected an int or an (h, w) pair of ints, got {value!r}")
        h, w = int(items[0]), int(items[1])
    if h < minimum or w < minimum:
        raise ValueError(f"{name}: values must be >= {minimum}, got ({h}, {w})")
    return h, w


@dataclass(frozen=True)
class ConvArgs:
    """Validated convolution geometry (all values Python ints)."""

    n: int
    c: int
    h: int
    w: int
    k: int
    r: int
    s: int
    oh: int
    ow: int
    stride: tuple[int, int]
    padding: tuple[int, int]
    dilation: tuple[int, int]
    groups: int
    has_bias: bool

    @property
    def cg(self) -> int:
        """Input channels per group."""
        return self.c // self.groups

    @property
    def kg(self) -> int:
        """Output channels (filters) per group."""
        return self.k // self.groups


def compute_dtype(*arrays) -> np.dtype:
    """Dtype in which a convolution over ``arrays`` is computed.

    All integer (or bool) operands -> ``int64`` (exact). Otherwise ``float64`` if any operand
    is float64 or longer, else ``float32`` (float16 and integer operands mixed with float32
    are computed in float32). Complex operands are rejected.
    """
    present = [a for a in arrays if a is not None]
    kinds = {a.dtype.kind for a in present}
    if kinds & {"c", "O", "U", "S", "V", "M", "m"}:
        raise ValueError(f"unsupported dtype(s): {sorted(str(a.dtype) for a in present)}")
    if kinds <= {"i", "u", "b"}:
        return np.dtype(np.int64)
    if any(a.dtype.kind == "f" and a.dtype.itemsize >= 8 for a in present):
        return np.dtype(np.float64)
    return np.dtype(np.float32)


def _as_array(a, name: str) -> np.ndarray:
    arr = np.asarray(a)
    if arr.dtype.kind not in "iubf":
        raise ValueError(f"{name}: unsupported dtype {arr.dtype}")
    return arr


def check_int64_range(x: np.ndarray, w: np.ndarray, bias, terms: int) -> None:
    """Raise ``OverflowError`` unless every int64 accumulation is provably exact.

    The bound is ``max|x| * max|w| * terms + max|bias| <= 2**63 - 1`` computed with
    Python ints, where ``terms`` is the number of products summed per output.
    """

    def amax(a) -> int:
        if a is None or a.size == 0:
            return 0
        return max(abs(int(a.max())), abs(int(a.min())))

    for name, a in (("x", x), ("w", w), ("bias", bias)):
        if amax(a) > INT64_MAX:
            raise OverflowError(f"{name}: values do not fit in int64")
    bound = amax(x) * amax(w) * terms + amax(bias)
    if bound > INT64_MAX:
        raise OverflowError(
            f"integer convolution may exceed int64: bound {bound} > {INT64_MAX} "
            f"(max|x|={amax(x)}, max|w|={amax(w)}, terms={terms})"
        )


def normalize_conv(x, w, bias=None, *, stride=1, padding=0, dilation=1, groups=1):
    """Validate convolution operands and return ``(x, w, bias, args, dtype)``.

    ``x``, ``w`` and ``bias`` are returned cast to the compute dtype (see
    :func:`compute_dtype`); ``args`` is a :class:`ConvArgs`.

    Raises
    ------
    ValueError
        On any shape, dtype or parameter inconsistency.
    OverflowError
        If integer operands could overflow int64 accumulation.
    """
    x = _as_array(x, "x")
    w = _as_array(w, "w")
    if bias is not None:
        bias = _as_array(bias, "bias")
    if x.ndim != 4:
        raise ValueError(f"x: expected 4-D (N, C, H, W), got shape {x.shape}")
    if w.ndim != 4:
        raise ValueError(f"w: expected 4-D (K, C//groups, R, S), got shape {w.shape}")
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 1:
        raise ValueError(f"groups: expected a positive int, got {groups!r}")
    groups = int(groups)
    n, c, h, wd = (int(v) for v in x.shape)
    k, cw, r, s = (int(v) for v in w.shape)
    if min(n, c, h, wd) < 1:
        raise ValueError(f"x: all dimensions must be >= 1, got shape {x.shape}")
    if min(k, cw, r, s) < 1:
        raise ValueError(f"w: all dimensions must be >= 1, got shape {w.shape}")
    if c % groups:
        raise ValueError(f"groups: C={c} is not divisible by groups={groups}")
    if k % groups:
        raise ValueError(f"groups: K={k} is not divisible by groups={groups}")
    if cw != c // groups:
        raise ValueError(
            f"w: expected C//groups={c // groups} input channels (C={c}, groups={groups}), "
            f"got w.shape[1]={cw}"
        )
    if bias is not None and bias.shape != (k,):
        raise ValueError(f"bias: expected shape ({k},), got {bias.shape}")
    sh, sw = pair(stride, "stride", minimum=1)
    ph, pw = pair(padding, "padding", minimum=0)
    dh, dw = pair(dilation, "dilation", minimum=1)
    eff_r = dh * (r - 1) + 1
    eff_s = dw * (s - 1) + 1
    if h + 2 * ph < eff_r or wd + 2 * pw < eff_s:
        raise ValueError(
            f"filter {r}x{s} (dilated extent {eff_r}x{eff_s}) larger than padded input "
            f"{h + 2 * ph}x{wd + 2 * pw}"
        )
    oh = (h + 2 * ph - eff_r) // sh + 1
    ow = (wd + 2 * pw - eff_s) // sw + 1
    dtype = compute_dtype(x, w, bias)
    if dtype == np.int64:
        check_int64_range(x, w, bias, (c // groups) * r * s)
    x = x.astype(dtype, copy=False)
    w = w.astype(dtype, copy=False)
    if bias is not None:
        bias = bias.astype(dtype, copy=False)
    args = ConvArgs(n, c, h, wd, k, r, s, oh, ow, (sh, sw), (ph, pw), (dh, dw), groups,
                    bias is not None)
    return x, w, bias, args, dtype


def pad_input(x: np.ndarray, args: ConvArgs) -> np.ndarray:
    """Zero-pad ``x`` (N, C, H, W) by ``args.padding`` on both sides of H and W."""
    ph, pw = args.padding
    if ph == 0 and pw == 0:
        return x
    return np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
