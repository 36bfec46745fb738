"""Tests for the verification helpers and the package's public surface."""

import numpy as np
import pytest

import termwise.golden.primitives as prim
from termwise.golden.primitives.verify import (
    assert_close,
    assert_exact,
    checkerboard_ints,
    normalized_rms_error,
)


def test_metric_value():
    ref = np.array([1.0, -2.0, 4.0, 0.0])
    got = ref + np.array([0.0, 0.0, 0.0, 0.4])
    # sqrt(0.16) / (sqrt(4) * 4) = 0.4 / 8
    assert normalized_rms_error(got, ref) == pytest.approx(0.05)
    assert assert_close(got, ref, 0.051) == pytest.approx(0.05)
    with pytest.raises(AssertionError, match="threshold"):
        assert_close(got, ref, 0.05)


@pytest.mark.parametrize(
    "a, b, msg",
    [
        (np.zeros(3), np.zeros(3), "all zero"),
        (np.ones(3), np.zeros(3), "reference: all zero"),
        (np.zeros(3), np.ones(3), "result: all zero"),
        (np.array([1.0, np.nan]), np.ones(2), "result: contains non-finite"),
        (np.ones(2), np.array([1.0, np.inf]), "reference: contains non-finite"),
        (np.ones(2), np.ones(3), "shape mismatch"),
    ],
)
def test_metric_rejects_vacuous_or_nonfinite(a, b, msg):
    with pytest.raises(ValueError, match=msg):
        normalized_rms_error(a, b)


def test_assert_exact():
    assert_exact(np.array([1, 2]), np.array([1, 2]))
    with pytest.raises(AssertionError, match="1 mismatches; first at"):
        assert_exact(np.array([1, 3]), np.array([1, 2]))
    with pytest.raises(AssertionError, match="all zero"):
        assert_exact(np.zeros(2), np.zeros(2))
    with pytest.raises(AssertionError, match="shape"):
        assert_exact(np.zeros(2), np.ones(3))


def test_checkerboard_ints():
    a = checkerboard_ints((2, 3))
    assert a.dtype == np.float32
    assert a.tolist() == [[1, -2, 3], [-4, 5, -6]]
    b = checkerboard_ints((4, 5, 6), np.random.default_rng(0), dtype=np.int64)
    mag, sign = np.abs(b), np.sign(b)
    assert mag.min() >= 1 and mag.max() <= 17
    assert np.array_equal(sign, 1 - 2 * (np.indices(b.shape).sum(axis=0) % 2))


def test_public_names_exist():
    for name in prim.__all__:
        assert hasattr(prim, name), name
    assert len(prim.ALGORITHMS) >= 7
    for alg in prim.ALGORITHMS.values():
        assert alg.summary and alg.__doc__
