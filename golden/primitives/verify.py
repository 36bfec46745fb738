"""Verification metric and thresholds (MIOpen style) and checkerboard test data.

Integer results must be exact. Float results are compared by the normalised RMS error

    err = sqrt(sum (a - b)**2) / (sqrt(n) * max|ref|)

which must stay under a stated threshold; the reference and the result must be finite
and not all zero (an all-zero pair would pass any metric vacuously).

Thresholds
----------
FP32_THRESHOLD = 1e-5
    float32 unit roundoff is 2**-24 ~ 6e-8. A sum of T products accumulates a relative
    RMS error of order sqrt(T) * 6e-8 (random-walk rounding), ~1.5e-6 for T = 600; the
    Winograd and FFT transforms amplify rounding by their norms. Measured worst cases on
    the test problems (5 seeds, standard-normal data, reference = direct in float32):
    Winograd F(4x4,3x3) 2.0e-6, F(2x2,3x3) 1.3e-6, FFT 8.3e-7, im2col 1.7e-7. 1e-5 leaves
    a margin of 5x while a single wrong tap (an error of order 1/sqrt(n) of max|ref| or
    more) still fails.
FP64_THRESHOLD = 1e-12
    Same reasoning with unit roundoff 2**-53 ~ 1.1e-16 (measured worst 1.4e-15, FFT).
BF16_THRESHOLD = 1e-2
    bfloat16 inputs carry 8 significant bits: each input has relative error <= 2**-9, a
    product <= ~2**-8 ~ 3.9e-3, and the normalised RMS of the sum is of that order or less.
    Applies when comparing a bf16 convolution with a float64 reference on the original
    (unrounded) float32 data; against a reference on the bf16-rounded inputs only fp32
    accumulation error remains and FP32_THRESHOLD applies.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "FP32_THRESHOLD",
    "FP64_THRESHOLD",
    "BF16_THRESHOLD",
    "normalized_rms_error",
    "assert_close",
    "assert_exact",
    "checkerboard_ints",
]

FP32_THRESHOLD = 1e-5
FP64_THRESHOLD = 1e-12
BF16_THRESHOLD = 1e-2


def _check_operand(name: str, a: np.ndarray) -> None:
    if a.size == 0:
        raise ValueError(f"{name}: empty array")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name}: contains non-finite values")
    if not np.any(a):
        raise ValueError(f"{name}: all zero (the comparison would be vacuous)")


def normalized_rms_error(result, reference) -> float:
    """``sqrt(sum (a-b)^2) / (sqrt(n) * max|ref|)``, computed in float64.

    Raises
    ------
    ValueError
        If shapes differ, or either operand is empty, non-finite or all zero.
    """
    a = np.asarray(result, dtype=np.float64)
    b = np.asarray(reference, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"shape mismatch: result {a.shape} vs reference {b.shape}")
    _check_operand("reference", b)
    _check_operand("result", a)
    return float(np.sqrt(np.sum((a - b) ** 2)) / (np.sqrt(b.size) * np.max(np.abs(b))))


def assert_close(result, reference, threshold: float) -> float:
    """Assert ``normalized_rms_error(result, reference) < threshold``; return the error."""
    err = normalized_rms_error(result, reference)
    if not err < threshold:
        raise AssertionError(f"normalised RMS error {err:.3e} >= threshold {threshold:.1e}")
    return err


def assert_exact(result, reference) -> None:
    """Assert equal shapes and values, with the reference not all zero."""
    a = np.asarray(result)
    b = np.asarray(reference)
    if a.shape != b.shape:
        raise AssertionError(f"shape mismatch: result {a.shape} vs reference {b.shape}")
    if not np.any(b):
        raise AssertionError("reference is all zero (the comparison would be vacuous)")
    if not np.array_equal(a, b):
        bad = np.argwhere(a != b)
        i = tuple(bad[0])
        raise AssertionError(f"{len(bad)} mismatches; first at {i}: {a[i]} != {b[i]}")


def checkerboard_ints(shape, rng=None, dtype=np.float32) -> np.ndarray:
    """Integers 1..17 times a checkerboard sign ``(-1)**(sum of indices)``.

    Convolutions of such data are exact in float32 as long as every partial sum stays
    below 2**24 (17 * 17 * terms < 2**24, i.e. up to ~58000 products per output).
    Values are random in 1..17 when ``rng`` is given, else ``1 + (flat index mod 17)``.
    """
    shape = tuple(shape)
    if rng is None:
        mag = 1 + np.arange(int(np.prod(shape))).reshape(shape) % 17
    else:
        mag = rng.integers(1, 18, shape)
    sign = 1 - 2 * (np.indices(shape).sum(axis=0) % 2)
    return (mag * sign).astype(dtype)
