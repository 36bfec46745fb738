"""Reference term encodings shared by the value-based designs (pure NumPy).

These functions are the golden model of :mod:`termwise.rtl.encoders` and of the ideal-work
model in :mod:`.potential`. They are written independently of the RTL (arithmetic on
integers, not a transcription of the gates).

Three quantities describe how much work a value costs a value-based design:

* **precision** -- the bits needed by a value or by the widest value of a group: Dynamic
  Stripes (Delmas et al., "Dynamic Stripes: Exploiting the Dynamic Precision Requirements
  of Activation Values in Neural Networks", arXiv 1706.00504) and Loom (Sharify et al.,
  "Loom: Exploiting Weight and Activation Precisions to Accelerate Convolutional Neural
  Networks", DAC 2018) process only these bits.
* **oneffsets / essential bits** -- the positions of the non-zero bits of a value (or of its
  magnitude). Bit-Pragmatic (Albericio et al., "Bit-Pragmatic Deep Neural Network
  Computing", MICRO 2017) processes one oneffset per cycle.
* **signed-digit terms** -- the value written as a sum of signed powers of two, with fewer
  terms than plain binary: radix-4 modified Booth (optional in Bit-Pragmatic, used for both
  operands by Laconic: Sharify et al., "Laconic Deep Learning Inference Acceleration",
  ISCA 2019) or canonical signed digit (CSD, the non-adjacent form, which is minimal).

Encodings
---------
``'plain'``
    The oneffsets of ``|x|`` (sign-magnitude): every term has the value's sign.
``'booth'``
    Radix-4 modified Booth recoding of the two's complement value. Digit ``i`` is
    ``d_i = -2 b[2i+1] + b[2i] + b[2i-1]`` (``b[-1] = 0``) in ``{-2, -1, 0, 1, 2}`` with
    weight ``4**i``; a digit ``+-1`` is the term ``+-2**(2i)`` and ``+-2`` is ``+-2**(2i+1)``.
    A ``bits``-wide signed value uses ``ceil(bits / 2)`` digits (sign-extended to an even
    width); an unsigned one is zero-extended by one bit first (``ceil((bits + 1) / 2)``
    digits) so that its top bit is not read as a sign.
``'csd'``
    The non-adjacent form (NAF) of the value: digits in ``{-1, 0, 1}``, no two adjacent
    digits non-zero, the minimal number of non-zero digits of any signed-binary form. At
    most ``bits`` positions for signed values, ``bits + 1`` for unsigned ones.

About 10-12% more terms per 8-bit value come out of Booth than of CSD, and Laconic multiplies
the counts of both operands: always state the encoding next to a result.

A term is a pair ``(sign, exponent)`` with ``sign`` in ``{+1, -1}``; the value is
``sum(sign * 2**exponent)``. Term lists are ordered lowest exponent first, the order in
which the serial encoders of the RTL emit them.
"""

import numpy as np

__all__ = [
    "ENCODINGS",
    "value_range", "check_range",
    "precision_needed", "group_precision",
    "oneffsets", "essential_bits",
    "booth_digit_count", "booth_digits", "booth_terms", "booth_term_count",
    "csd_digits", "csd_terms", "csd_term_count",
    "terms", "term_count", "terms_value",
]

ENCODINGS = ("plain", "booth", "csd")


def value_range(bits: int, signed: bool) -> tuple[int, int]:
    """Inclusive ``(lo, hi)`` range of a ``bits``-wide integer."""
    if bits < 1:
        raise ValueError(f"bits must be >= 1, got {bits}")
    if signed:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def check_range(values, bits: int, signed: bool) -> np.ndarray:
    """``values`` as an int64 array; raises ``ValueError`` if any is out of range."""
    if bits > 62:
        raise ValueError(f"bits must be <= 62, got {bits}")
    arr = np.asarray(values)
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"values must be integers, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    lo, hi = value_range(bits, signed)
    if arr.size and (arr.min() < lo or arr.max() > hi):
        kind = "signed" if signed else "unsigned"
        raise ValueError(f"values out of the {bits}-bit {kind} range [{lo}, {hi}]")
    return arr


def _bit_length(u: np.ndarray, bits: int) -> np.ndarray:
    """Position of the top one + 1 (0 for zero) of non-negative ``u < 2**bits``."""
    length = np.zeros(u.shape, dtype=np.int64)
    for k in range(bits):
        length[(u >> k) != 0] = k + 1
    return length


def precision_needed(values, bits: int, signed: bool = False) -> np.ndarray:
    """Bits needed to hold each value, at least 1.

    Unsigned: position of the top one + 1. Signed (two's complement): the minimal width
    holding the value including its sign bit, i.e. the top one of the sign-folded value
    ``v ^ (v >> (bits - 1))`` (``v`` for ``v >= 0``, ``~v`` otherwise) + 1, plus one sign
    bit: 0 -> 1, -1 -> 1, 1 -> 2, -2 -> 2, 3 -> 3, -128 -> 8.

    Parameters
    ----------
    values : array_like of int
    bits : int
        Width of the values (for range checking).
    signed : bool

    Returns
    -------
    numpy.ndarray of int64, same shape as ``values``.
    """
    v = check_range(values, bits, signed)
    if signed:
        folded = np.where(v < 0, ~v, v)
        return _bit_length(folded, bits) + 1
    return np.maximum(_bit_length(v, bits), 1)


def group_precision(values, axis=-1, *, bits: int = 16, signed: bool = False,
                    keepdims: bool = False) -> np.ndarray:
    """Precision of the widest value of each group: ``max(precision_needed)`` over ``axis``.

    This is what Dynamic Stripes' precision detector reports for a group of concurrently
    processed values (at least 1, also for an all-zero group).

    Parameters
    ----------
    values : array_like of int
    axis : int or tuple of int or None
        Axis (axes) spanning a group; ``None`` for the whole array.
    bits, signed
        As for :func:`precision_needed`.
    keepdims : bool
    """
    return np.max(precision_needed(values, bits, signed), axis=axis, keepdims=keepdims)


def oneffsets(value: int, bits: int) -> list[int]:
    """Positions of the non-zero bits of ``|value|``, lowest first (Bit-Pragmatic's
    oneffsets). Negative values are taken in sign-magnitude form; ``bits`` bounds the
    magnitude (``|value| < 2**bits``). Zero has no oneffsets."""
    mag = abs(int(value))
    if mag >> bits:
        raise ValueError(f"|{value}| does not fit in {bits} bits")
    return [k for k in range(bits) if (mag >> k) & 1]


def essential_bits(values, bits: int) -> np.ndarray:
    """Vectorised popcount of ``|values|`` (the number of oneffsets), ``|v| < 2**bits``."""
    mag = np.abs(np.asarray(values).astype(np.int64))
    if mag.size and mag.max() >> bits:
        raise ValueError(f"magnitudes out of the {bits}-bit range")
    count = np.zeros(mag.shape, dtype=np.int64)
    for k in range(bits):
        count += (mag >> k) & 1
    return count


def booth_digit_count(bits: int, signed: bool = True) -> int:
    """Number of radix-4 Booth digits of a ``bits``-wide value (see module docstring)."""
    return (bits + 1) // 2 if signed else (bits + 2) // 2


def booth_digits(values, bits: int, signed: bool = True) -> np.ndarray:
    """Radix-4 modified Booth digits, shape ``values.shape + (ndigits,)``, digit ``i`` of
    weight ``4**i``, each in ``{-2, -1, 0, 1, 2}``."""
    v = check_range(values, bits, signed)
    nd = booth_digit_count(bits, signed)
    width = 2 * nd
    u = v & ((1 << width) - 1)          # two's complement pattern, sign- or zero-extended
    digits = np.empty(v.shape + (nd,), dtype=np.int8)
    prev = np.zeros(v.shape, dtype=np.int64)   # b[2i - 1], with b[-1] = 0
    for i in range(nd):
        lo = (u >> (2 * i)) & 1
        hi = (u >> (2 * i + 1)) & 1
        digits[..., i] = -2 * hi + lo + prev
        prev = hi
    return digits


def _digit_terms(digits: np.ndarray, radix_log2: int) -> list[tuple[int, int]]:
    out = []
    for i, d in enumerate(int(x) for x in digits):
        if d:
            mag = abs(d)
            exp = radix_log2 * i + (mag.bit_length() - 1)
            out.append((1 if d > 0 else -1, exp))
    return out


def booth_terms(value: int, bits: int, signed: bool = True) -> list[tuple[int, int]]:
    """Non-zero radix-4 Booth terms ``(sign, exponent)`` of one value, lowest first."""
    return _digit_terms(booth_digits(int(value), bits, signed), 2)


def booth_term_count(values, bits: int, signed: bool = True) -> np.ndarray:
    """Vectorised number of non-zero Booth digits."""
    v = check_range(values, bits, signed)
    nd = booth_digit_count(bits, signed)
    u = v & ((1 << (2 * nd)) - 1)
    count = np.zeros(v.shape, dtype=np.int64)
    prev = np.zeros(v.shape, dtype=np.int64)
    for i in range(nd):
        lo = (u >> (2 * i)) & 1
        hi = (u >> (2 * i + 1)) & 1
        count += ~((hi == lo) & (lo == prev)) & 1   # 000 and 111 are the zero digits
        prev = hi
    return count


def _csd_positions(bits: int, signed: bool) -> int:
    return bits if signed else bits + 1


def csd_digits(values, bits: int, signed: bool = True) -> np.ndarray:
    """Non-adjacent-form digits in ``{-1, 0, 1}``, shape ``values.shape + (positions,)``,
    digit ``j`` of weight ``2**j``."""
    x = check_range(values, bits, signed).copy()
    npos = _csd_positions(bits, signed)
    digits = np.empty(x.shape + (npos,), dtype=np.int8)
    for j in range(npos):
        d = np.where(x & 1, 2 - (x & 3), 0)     # x = 1 mod 4 -> +1, x = 3 mod 4 -> -1
        digits[..., j] = d
        x = (x - d) >> 1
    assert not np.any(x), "NAF did not terminate within the expected positions"
    return digits


def csd_terms(value: int, bits: int, signed: bool = True) -> list[tuple[int, int]]:
    """Non-zero CSD (NAF) terms ``(sign, exponent)`` of one value, lowest first."""
    return _digit_terms(csd_digits(int(value), bits, signed), 1)


def csd_term_count(values, bits: int, signed: bool = True) -> np.ndarray:
    """Vectorised number of non-zero NAF digits (the minimal signed-digit weight):
    the popcount of ``x ^ 3x`` over bits 1 and up, for ``x >= 0``; NAF(-x) = -NAF(x)."""
    x = np.abs(check_range(values, bits, signed))
    y = (3 * x) ^ x
    return essential_bits(y >> 1, bits + 2)


def terms(value: int, bits: int, encoding: str = "booth", *,
          signed: bool = True) -> list[tuple[int, int]]:
    """Terms ``(sign, exponent)`` of one value under ``encoding`` (see module docstring)."""
    if encoding == "plain":
        check_range(value, bits, signed)
        sign = -1 if value < 0 else 1
        return [(sign, k) for k in oneffsets(value, bits)]
    if encoding == "booth":
        return booth_terms(value, bits, signed)
    if encoding == "csd":
        return csd_terms(value, bits, signed)
    raise ValueError(f"unknown encoding {encoding!r}; expected one of {ENCODINGS}")


def term_count(values, bits: int, encoding: str = "booth", *,
               signed: bool = True) -> np.ndarray:
    """Vectorised number of terms of each value under ``encoding``."""
    if encoding == "plain":
        return essential_bits(check_range(values, bits, signed), bits)
    if encoding == "booth":
        return booth_term_count(values, bits, signed)
    if encoding == "csd":
        return csd_term_count(values, bits, signed)
    raise ValueError(f"unknown encoding {encoding!r}; expected one of {ENCODINGS}")


def terms_value(term_list) -> int:
    """``sum(sign * 2**exponent)`` of a term list."""
    return sum(s * (1 << e) for s, e in term_list)
