"""The tap-major convolutions (golden/primitives/taps.py) against a plain NumPy reference
written here (one multiply-add per output, input tap and channel), and their registration."""

import numpy as np
import pytest

from termwise.golden.primitives import ALGORITHMS, NotApplicable, conv2d
from termwise.golden.primitives.taps import (BAND_ROWS, depthwise_taps, gemm_taps,
                                              gemm_taps_bands)


def _reference(x, w, bias, stride, padding, groups):
    """float64 convolution by explicit sums (independent of every algorithm)."""
    x = np.asarray(x, np.float64)
    w = np.asarray(w, np.float64)
    n, c, h, wd = x.shape
    k, cg, r, s = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    oh = (h + 2 * padding - r) // stride + 1
    ow = (wd + 2 * padding - s) // stride + 1
    out = np.zeros((n, k, oh, ow))
    kg = k // groups
    for f in range(k):
        g = f // kg
        for y in range(oh):
            for xx in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg, y * stride:y * stride + r,
                           xx * stride:xx * stride + s]
                out[:, f, y, xx] = (patch * w[f]).sum(axis=(1, 2, 3))
    if bias is not None:
        out += np.asarray(bias, np.float64)[None, :, None, None]
    return out


@pytest.mark.parametrize("padding", [0, 1, 2])
def test_gemm_taps_is_the_convolution(padding):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 5, 7, 9)).astype(np.float32)
    w = rng.standard_normal((3, 5, 3, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    got = gemm_taps(x, w, b, padding=padding)
    ref = _reference(x, w, b, 1, padding, 1)
    assert got.dtype == np.float32 and got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_gemm_taps_integers_exact():
    rng = np.random.default_rng(2)
    x = rng.integers(-2 ** 15, 2 ** 15, (1, 4, 6, 5))
    w = rng.integers(-2 ** 15, 2 ** 15, (2, 4, 3, 3))
    got = gemm_taps(x, w, padding=1, dtype=np.int64)
    assert got.dtype == np.int64
    assert np.array_equal(got, _reference(x, w, None, 1, 1, 1).astype(np.int64))


def test_bands_are_the_whole_gemm():
    """Banding changes which outputs share a GEMM, never an output's own sum."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 3, 21, 10)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    whole = gemm_taps(x, w, b)
    for rows in (4, 5, 21, BAND_ROWS):
        got = gemm_taps_bands(x, w, b, rows=rows)
        assert got.shape == whole.shape
        np.testing.assert_allclose(got, _reference(x, w, b, 1, 1, 1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("stride,padding", [(1, 1), (2, 0), (2, 1), (1, 2)])
def test_depthwise_taps(stride, padding):
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 5, 9, 8))
    w = rng.normal(size=(5, 1, 3, 3))
    b = rng.normal(size=5)
    np.testing.assert_allclose(depthwise_taps(x, w, b, stride, padding),
                               _reference(x, w, b, stride, padding, 5), atol=1e-12)


def test_registered_after_direct_and_dispatched_by_name():
    names = list(ALGORITHMS)
    for name in ("tap_gemm", "tap_gemm_bands", "depthwise_taps"):
        assert names.index(name) > names.index("direct")     # "auto" never picks them
    rng = np.random.default_rng(5)
    x = rng.integers(-9, 9, (1, 4, 6, 7))
    w = rng.integers(-9, 9, (4, 1, 3, 3))
    got = conv2d(x, w, stride=2, padding=1, groups=4, algorithm="depthwise_taps")
    assert got.dtype == np.int64
    assert np.array_equal(got, _reference(x, w, None, 2, 1, 4).astype(np.int64))
    with pytest.raises(NotApplicable, match="stride 1"):
        conv2d(x, w[:, :1].repeat(4, 1), stride=2, algorithm="tap_gemm")
    with pytest.raises(NotApplicable, match="groups = C = K"):
        conv2d(x, rng.integers(-9, 9, (3, 4, 3, 3)), algorithm="depthwise_taps")
