"""bfloat16 conversion and bfloat16 convolution with float32 accumulation.

bfloat16 values are represented as ``uint16`` arrays holding the bit pattern (the top
half of the float32 pattern).

float32 -> bfloat16 rounds to nearest, ties to even, on the bit pattern ``u``::

    u += 0x7FFF + ((u >> 16) & 1);  bf16 = u >> 16

which keeps the sign, keeps infinities, keeps subnormals (rounding them like any other
value; the smallest ones round to +-0), and overflows to +-inf when a value at or above
``max_bf16 + ulp/2`` rounds up. NaNs are not rounded (the increment could carry a NaN into
infinity); they keep their sign and top mantissa bits and get the quiet bit (0x0040) set,
so a NaN always stays a NaN.
"""

from __future__ import annotations

import numpy as np

from ._args import normalize_conv, pad_input

__all__ = [
    "BF16_MAX",
    "f32_to_bf16",
    "bf16_to_f32",
    "round_to_bf16",
    "as_bf16_values",
    "conv2d_bf16",
]

#: Largest finite bfloat16 value, (2 - 2**-7) * 2**127, as float32.
BF16_MAX = np.float32(np.array([0x7F7F0000], dtype=np.uint32).view(np.float32)[0])


def f32_to_bf16(x) -> np.ndarray:
    """Round float32 values to bfloat16 (round-to-nearest-even); returns ``uint16`` bits.

    Non-float32 input is first converted to float32 (``np.asarray(x, np.float32)``).
    """
    u = np.asarray(x, dtype=np.float32).view(np.uint32)
    is_nan = (u & 0x7F800000) == 0x7F800000
    is_nan &= (u & 0x007FFFFF) != 0
    # finite and inf patterns are <= 0xFF800000, so adding at most 0x8000 cannot wrap
    rounded = (u + (np.uint32(0x7FFF) + ((u >> 16) & 1))) >> 16
    nan_bits = (u >> 16) | np.uint32(0x0040)
    return np.where(is_nan, nan_bits, rounded).astype(np.uint16)


def bf16_to_f32(b) -> np.ndarray:
    """Exact widening of ``uint16`` bfloat16 bit patterns to float32."""
    b = np.asarray(b)
    if b.dtype != np.uint16:
        raise ValueError(f"bf16_to_f32: expected uint16 bit patterns, got dtype {b.dtype}")
    return (b.astype(np.uint32) << 16).view(np.float32)


def round_to_bf16(x) -> np.ndarray:
    """float32 values rounded to the nearest bfloat16, returned as float32."""
    return bf16_to_f32(f32_to_bf16(x))


def as_bf16_values(a) -> np.ndarray:
    """float32 array of bfloat16 values: ``uint16`` input is taken as bf16 bit patterns,
    anything else is converted to float32 and rounded to bfloat16."""
    a = np.asarray(a)
    if a.dtype == np.uint16:
        return bf16_to_f32(a)
    return round_to_bf16(a)


def conv2d_bf16(x, w, bias=None, *, stride=1, padding=0, dilation=1, groups=1,
                output: str = "fp32") -> np.ndarray:
    """bfloat16 convolution with float32 accumulation in a fixed order.

    Parameters
    ----------
    x, w, bias : array_like
        Shapes as :func:`~termwise.golden.primitives.direct.conv2d_direct`. ``uint16``
        arrays are bf16 bit patterns; other arrays are converted to float32 and rounded
        to bf16 (float64 data is therefore rounded twice: to float32, then to bf16).
    stride, padding, dilation, groups
        As :func:`~termwise.golden.primitives.direct.conv2d_direct`.
    output : {"fp32", "bf16"}
        Return the float32 accumulators, or round them to bf16 (``uint16`` bits).

    Returns
    -------
    numpy.ndarray, shape (N, K, OH, OW)
        float32, or uint16 bf16 bit patterns with ``output="bf16"``.

    Notes
    -----
    Every product of two bf16 values (8-bit significands) has at most 16 significant bits
    and is exact in float32 unless it underflows below 2**-126 or overflows. Each output
    starts from +0.0 and adds, in float32 with one rounding per addition, the products in
    the order ``c = 0..C/groups-1`` (outer), ``r = 0..R-1``, ``s = 0..S-1`` (inner),
    zero-padding taps included; the bias (rounded to bf16) is added last.
    """
    if output not in ("fp32", "bf16"):
        raise ValueError(f"output: expected 'fp32' or 'bf16', got {output!r}")
    xv = as_bf16_values(x)
    wv = as_bf16_values(w)
    bv = None if bias is None else as_bf16_values(bias)
    xv, wv, bv, a, _ = normalize_conv(xv, wv, bv, stride=stride, padding=padding,
                                      dilation=dilation, groups=groups)
    xp = pad_input(xv, a)
    sh, sw = a.stride
    dh, dw = a.dilation
    out = np.empty((a.n, a.k, a.oh, a.ow), dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        for g in range(a.groups):
            ks = slice(g * a.kg, (g + 1) * a.kg)
            acc = np.zeros((a.n, a.kg, a.oh, a.ow), dtype=np.float32)
            for c in range(a.cg):
                plane = xp[:, g * a.cg + c]
                for r in range(a.r):
                    for s in range(a.s):
                        patch = plane[:, r * dh : r * dh + (a.oh - 1) * sh + 1 : sh,
                                      s * dw : s * dw + (a.ow - 1) * sw + 1 : sw]
                        prod = patch[:, None] * wv[ks, c, r, s][None, :, None, None]
                        acc += prod  # float32 add, one rounding
            out[:, ks] = acc
        if bv is not None:
            out += bv.reshape(1, a.k, 1, 1)
    return f32_to_bf16(out) if output == "bf16" else out
