"""Activation functions for float and integer (accumulator-domain) tensors.

For integer tensors every activation is exact: ReLU6's cap must be an integer (in the
tensor's own units) and leaky ReLU's slope is a fixed-point ``(multiplier, shift)`` pair
(or a float that is exactly dyadic, such as 0.125), applied with round-half-even.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .quant import shift_round_half_even

__all__ = ["ACTIVATIONS", "relu", "relu6", "leaky_relu", "activate", "dyadic"]

#: Names accepted by :func:`activate`.
ACTIVATIONS = ("identity", "relu", "relu6", "leaky_relu")


def _is_int(x: np.ndarray) -> bool:
    return x.dtype.kind in "iub" or x.dtype == object


def relu(x) -> np.ndarray:
    """``max(x, 0)`` (dtype preserved)."""
    x = np.asarray(x)
    return np.maximum(x, x.dtype.type(0) if x.dtype != object else 0)


def relu6(x, cap=6) -> np.ndarray:
    """``min(max(x, 0), cap)``; ``cap`` defaults to 6 and must be an int for integer ``x``."""
    x = np.asarray(x)
    if _is_int(x) and not isinstance(cap, (int, np.integer)):
        raise ValueError(f"relu6: integer input needs an integer cap, got {cap!r}")
    return np.minimum(relu(x), np.asarray(cap).astype(x.dtype))


def dyadic(alpha) -> tuple[int, int]:
    """``(multiplier, shift)`` with ``alpha == multiplier / 2**shift`` exactly.

    ``alpha`` is a ``(multiplier, shift)`` pair, or a float/Fraction whose exact value has a
    power-of-two denominator of at most ``2**31`` (e.g. 0.125, 0.375); ``ValueError``
    otherwise (e.g. the float 0.01 is 5764607523034235/2**59: pass a fixed-point pair).
    """
    if isinstance(alpha, tuple):
        if len(alpha) != 2 or not all(isinstance(v, (int, np.integer)) for v in alpha):
            raise ValueError(f"alpha: expected (multiplier, shift) ints, got {alpha!r}")
        return int(alpha[0]), int(alpha[1])
    if isinstance(alpha, float) and not math.isfinite(alpha):
        raise ValueError(f"alpha: not finite: {alpha!r}")
    f = Fraction(alpha)
    den = f.denominator
    if den & (den - 1) or den > 1 << 31:
        raise ValueError(
            f"alpha={alpha!r} is not dyadic; give integer leaky ReLU a (multiplier, shift) pair"
        )
    return f.numerator, den.bit_length() - 1


def leaky_relu(x, alpha=0.01) -> np.ndarray:
    """``x`` if ``x >= 0`` else ``alpha * x``.

    Floats: ``alpha`` is a float. Integers: ``alpha`` is ``(multiplier, shift)`` or a dyadic
    float, and the negative branch is ``round_half_even(x * multiplier / 2**shift)``.
    """
    x = np.asarray(x)
    if _is_int(x):
        m, s = dyadic(alpha)
        neg = shift_round_half_even(x.astype(np.int64) * np.int64(m), s)
        return np.where(x >= 0, x.astype(np.int64), neg.astype(np.int64))
    if isinstance(alpha, tuple):
        alpha = math.ldexp(alpha[0], -alpha[1])
    return np.where(x >= 0, x, x * x.dtype.type(alpha))


def activate(x, activation: str | None, *, alpha=0.01, cap=6) -> np.ndarray:
    """Apply the named activation (``None`` or ``"identity"`` returns ``x``)."""
    if activation in (None, "identity"):
        return np.asarray(x)
    if activation == "relu":
        return relu(x)
    if activation == "relu6":
        return relu6(x, cap)
    if activation == "leaky_relu":
        return leaky_relu(x, alpha)
    raise ValueError(f"activation: expected one of {ACTIVATIONS}, got {activation!r}")
