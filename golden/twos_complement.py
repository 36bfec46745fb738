"""Two's complement helpers shared by the golden models."""

from __future__ import annotations

import numpy as np

__all__ = ["wrap", "value_range", "to_unsigned"]


def value_range(bits: int, signed: bool) -> tuple[int, int]:
    """Inclusive range of a ``bits``-wide integer."""
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def wrap(x, bits: int, signed: bool = True) -> np.ndarray:
    """Keep the ``bits`` least significant bits of ``x``, read as signed or unsigned."""
    x = np.asarray(x, dtype=np.int64)
    u = x & ((1 << bits) - 1)
    if signed:
        u = np.where(u >= (1 << (bits - 1)), u - (1 << bits), u)
    return u.astype(np.int64)


def to_unsigned(x, bits: int) -> np.ndarray:
    """The raw ``bits``-wide bit pattern of ``x`` (two's complement for negatives)."""
    return np.asarray(x, dtype=np.int64) & ((1 << bits) - 1)
