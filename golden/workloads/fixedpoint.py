"""Symmetric per-tensor fixed-point quantisation (power-of-two scales).

A ``bits``-wide signed fixed-point number with ``frac`` fraction bits represents
``q * 2**-frac``, ``|q| <= 2**(bits-1) - 1`` (symmetric: the most negative code is unused).
The integer bits (sign included) are ``bits - frac``. Calibration picks the largest
``frac`` whose range holds the calibrated maximum magnitude.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["frac_bits_for", "quantise", "dequantise", "fake_quant"]


def frac_bits_for(amax: float, bits: int) -> int:
    """Fraction bits of a ``bits``-wide format whose range holds ``amax`` (``2**(bits-1) - 1``
    codes above zero); may be negative for huge ranges or exceed ``bits`` for tiny ones."""
    if not amax > 0:
        return bits - 1
    return int(math.floor(math.log2(((1 << (bits - 1)) - 1) / amax)))


def quantise(x, bits: int, frac: int) -> np.ndarray:
    """Round half to even, saturate symmetrically, as int64 codes."""
    hi = (1 << (bits - 1)) - 1
    return np.clip(np.rint(np.asarray(x, dtype=np.float64) * 2.0 ** frac), -hi, hi).astype(
        np.int64)


def dequantise(q, frac: int) -> np.ndarray:
    return np.asarray(q, dtype=np.float32) * np.float32(2.0 ** -frac)


def fake_quant(x, bits: int, frac: int) -> np.ndarray:
    """``dequantise(quantise(x))`` in float32."""
    return dequantise(quantise(x, bits, frac), frac)
