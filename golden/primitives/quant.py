"""Requantisation: the golden model of an integer output stage.

``requantise(acc, multiplier, shift, out_bits, signed)`` computes

    y = saturate(round_half_even(acc * multiplier / 2**shift))

exactly, with the scale represented in fixed point as an integer ``multiplier`` and a
right ``shift`` (a negative shift is an exact left shift). Rounding is round-half-to-even
on the bits shifted out; saturation clamps to the signed two's-complement range
``[-2**(b-1), 2**(b-1) - 1]`` or the unsigned range ``[0, 2**b - 1]``.

Computation is in int64 when ``max|acc| * max|multiplier| * 2**max(0, -shift)`` fits in
62 bits and the right shift is at most 62; otherwise it falls back to Python integers
(object arrays), so the result is always exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "saturation_range",
    "saturate",
    "shift_round_half_even",
    "requantise",
    "requantise_float",
    "quantize_multiplier",
    "Requant",
]


def saturation_range(out_bits: int, signed: bool) -> tuple[int, int]:
    """``(lo, hi)`` representable in ``out_bits`` bits (1..63), signed or unsigned."""
    if isinstance(out_bits, bool) or not isinstance(out_bits, (int, np.integer)) or not 1 <= out_bits <= 63:
        raise ValueError(f"out_bits: expected an int in 1..63, got {out_bits!r}")
    if signed:
        return -(1 << (out_bits - 1)), (1 << (out_bits - 1)) - 1
    return 0, (1 << out_bits) - 1


def saturate(x, out_bits: int, signed: bool = True) -> np.ndarray:
    """Clamp integer ``x`` to the ``out_bits`` range; returns int64."""
    lo, hi = saturation_range(out_bits, signed)
    x = np.asarray(x)
    if x.dtype == object:
        return np.array(np.clip(x, lo, hi), dtype=np.int64)
    return np.clip(x.astype(np.int64, copy=False), lo, hi)


def _int_array(a, name: str) -> np.ndarray:
    arr = np.asarray(a)
    if arr.dtype == object:
        if not all(isinstance(v, (int, np.integer)) for v in arr.flat):
            raise ValueError(f"{name}: expected integers")
        return arr
    if arr.dtype.kind not in "iub":
        raise ValueError(f"{name}: expected an integer array, got dtype {arr.dtype}")
    return arr


def _amax(a: np.ndarray) -> int:
    if a.size == 0:
        return 0
    return max(abs(int(a.max())), abs(int(a.min())))


def shift_round_half_even(p, shift) -> np.ndarray:
    """``round_half_even(p / 2**shift)`` for integer ``p`` and ``shift`` (arrays broadcast).

    A negative ``shift`` multiplies by ``2**-shift`` exactly. Returns int64 when the
    computation fits in int64, else an object array of Python ints.
    """
    p = _int_array(p, "p")
    sh = _int_array(shift, "shift")
    left = np.maximum(-sh, 0)
    right = np.maximum(sh, 0)
    use_obj = (p.dtype == object or sh.dtype == object or _amax(right) > 62
               or _amax(p) * (1 << _amax(left)) > (1 << 62))
    if use_obj:
        p = p.astype(object)
        left = left.astype(object)
        right = right.astype(object)
        one = 1
    else:
        p = p.astype(np.int64)
        left = left.astype(np.int64)
        right = right.astype(np.int64)
        one = np.int64(1)
    p = p << left
    q = p >> right  # floor division by 2**right (arithmetic shift)
    rem = p - (q << right)
    half = (one << right) >> 1
    odd = (q & 1) == 1
    up = (right > 0) & ((rem > half) | ((rem == half) & odd))
    return q + up.astype(q.dtype if q.dtype != object else object)


def requantise(acc, multiplier, shift, out_bits: int, signed: bool = True) -> np.ndarray:
    """Requantise integer accumulators with a fixed-point scale.

    Parameters
    ----------
    acc : array_like of int
        Accumulators (e.g. int32 / int64 convolution outputs).
    multiplier : int or array_like of int
        Fixed-point multiplier; arrays broadcast against ``acc`` (e.g. shape (K, 1, 1) for
        per-channel scales).
    shift : int or array_like of int
        Right shift applied with round-half-even; negative values shift left exactly.
    out_bits : int
        Output width in bits (1..63).
    signed : bool
        Signed (two's complement) or unsigned output range.

    Returns
    -------
    numpy.ndarray of int64
        ``saturate(round_half_even(acc * multiplier / 2**shift))``.
    """
    acc = _int_array(acc, "acc")
    m = _int_array(multiplier, "multiplier")
    saturation_range(out_bits, signed)  # validate before computing
    if acc.dtype != object and m.dtype != object and _amax(acc) * _amax(m) <= (1 << 62):
        p = acc.astype(np.int64) * m.astype(np.int64)
    else:
        p = acc.astype(object) * m.astype(object)
    q = shift_round_half_even(p, shift)
    return saturate(q, out_bits, signed)


def requantise_float(acc, scale: float, out_bits: int, signed: bool = True) -> np.ndarray:
    """Float reference: ``saturate(rint(acc * scale))`` in float64 (``rint`` is half-even).

    Exact (and equal to :func:`requantise`) when ``scale = multiplier / 2**shift`` is
    representable and ``|acc * multiplier| < 2**53``.
    """
    lo, hi = saturation_range(out_bits, signed)
    y = np.rint(np.asarray(acc, dtype=np.float64) * float(scale))
    return np.clip(y, lo, hi).astype(np.int64)


def quantize_multiplier(scale: float, bits: int = 31) -> tuple[int, int]:
    """Fixed-point form of a positive ``scale``: ``scale ~= multiplier / 2**shift``.

    ``multiplier`` is in ``[2**(bits-1), 2**bits)`` (rounded to nearest, ties to even), as
    in gemmlowp / TFLite with ``bits = 31``. ``scale == 0`` gives ``(0, 0)``. Dyadic scales
    (``k / 2**j`` with ``k`` of at most ``bits`` bits) are represented exactly.
    """
    if not 1 <= bits <= 62:
        raise ValueError(f"bits: expected 1..62, got {bits}")
    scale = float(scale)
    if not math.isfinite(scale) or scale < 0:
        raise ValueError(f"scale: expected a finite non-negative number, got {scale}")
    if scale == 0:
        return 0, 0
    frac, exp = math.frexp(scale)  # scale = frac * 2**exp, frac in [0.5, 1)
    m = round(math.ldexp(frac, bits)) if bits <= 53 else int(math.ldexp(frac, 53)) << (bits - 53)
    if m == 1 << bits:
        m >>= 1
        exp += 1
    return int(m), int(bits - exp)


@dataclass(frozen=True)
class Requant:
    """A requantisation stage ``(multiplier, shift, out_bits, signed)``.

    Calling it on integer accumulators applies :func:`requantise`; on float values it
    applies :func:`requantise_float` with ``scale = multiplier / 2**shift``.
    """

    multiplier: int
    shift: int
    out_bits: int = 8
    signed: bool = True

    def __post_init__(self):
        saturation_range(self.out_bits, self.signed)

    @classmethod
    def from_scale(cls, scale: float, out_bits: int = 8, signed: bool = True,
                   bits: int = 31) -> "Requant":
        """Build from a float scale via :func:`quantize_multiplier`."""
        m, s = quantize_multiplier(scale, bits)
        return cls(m, s, out_bits, signed)

    @property
    def scale(self) -> float:
        """The represented scale ``multiplier / 2**shift``."""
        return math.ldexp(self.multiplier, -self.shift)

    @property
    def range(self) -> tuple[int, int]:
        """Output ``(lo, hi)``."""
        return saturation_range(self.out_bits, self.signed)

    def __call__(self, acc) -> np.ndarray:
        acc = np.asarray(acc)
        if acc.dtype.kind == "f":
            return requantise_float(acc, self.scale, self.out_bits, self.signed)
        return requantise(acc, self.multiplier, self.shift, self.out_bits, self.signed)
