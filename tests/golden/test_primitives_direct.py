"""Tests for the reference direct convolution and fc (termwise.golden.primitives.direct)."""

import numpy as np
import pytest

from termwise.golden.primitives import conv2d_direct, fc


def naive_conv(x, w, bias, stride, padding, dilation, groups):
    """Scalar-loop convolution with Python ints: independent of conv2d_direct."""
    n, c, h, wd = x.shape
    k, cg, r, s = w.shape
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    oh = (h + 2 * ph - dh * (r - 1) - 1) // sh + 1
    ow = (wd + 2 * pw - dw * (s - 1) - 1) // sw + 1
    kg = k // groups
    out = np.zeros((n, k, oh, ow), dtype=object)
    for b in range(n):
        for f in range(k):
            g = f // kg
            for y in range(oh):
                for z in range(ow):
                    acc = 0 if bias is None else int(bias[f])
                    for ci in range(cg):
                        for i in range(r):
                            for j in range(s):
                                iy = y * sh - ph + i * dh
                                iz = z * sw - pw + j * dw
                                if 0 <= iy < h and 0 <= iz < wd:
                                    acc += int(x[b, g * cg + ci, iy, iz]) * int(w[f, ci, i, j])
                    out[b, f, y, z] = acc
    return out


CASES = [
    # (N, C, H, W, K, R, S, stride, padding, dilation, groups, bias)
    (1, 1, 5, 5, 1, 3, 3, (1, 1), (0, 0), (1, 1), 1, False),
    (2, 3, 7, 6, 4, 3, 2, (2, 1), (1, 2), (1, 1), 1, True),
    (1, 4, 9, 9, 6, 3, 3, (1, 2), (2, 1), (2, 3), 2, True),
    (2, 6, 8, 7, 6, 3, 3, (1, 1), (1, 1), (1, 1), 6, True),  # depthwise
    (1, 2, 4, 4, 3, 1, 1, (1, 1), (0, 0), (1, 1), 1, False),  # 1x1
    (1, 3, 11, 11, 2, 5, 5, (3, 3), (2, 2), (1, 1), 1, True),
]


@pytest.mark.parametrize("idx", range(len(CASES)))
def test_direct_matches_naive_int(idx):
    n, c, h, wd, k, r, s, st, pd, dl, g, has_b = CASES[idx]
    rng = np.random.default_rng(100 + idx)
    x = rng.integers(-128, 128, (n, c, h, wd), dtype=np.int8)
    w = rng.integers(-128, 128, (k, c // g, r, s), dtype=np.int8)
    b = rng.integers(-(2**20), 2**20, k) if has_b else None
    got = conv2d_direct(x, w, b, stride=st, padding=pd, dilation=dl, groups=g)
    assert got.dtype == np.int64
    ref = naive_conv(x, w, b, st, pd, dl, g)
    assert got.shape == ref.shape
    assert (got.astype(object) == ref).all()


def test_direct_int_large_values_exact():
    # 2**40 * 2**20 * 8 = 2**63 would overflow; 2**40 * 2**20 * 4 terms fits.
    x = np.full((1, 1, 2, 2), 2**40, dtype=np.int64)
    w = np.full((1, 1, 2, 2), 2**20 - 1, dtype=np.int64)
    got = conv2d_direct(x, w)
    assert int(got[0, 0, 0, 0]) == 4 * 2**40 * (2**20 - 1)
    with pytest.raises(OverflowError):
        conv2d_direct(x * 2**2, w + 1)


def test_direct_float_dtypes():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    assert conv2d_direct(x, w).dtype == np.float32
    assert conv2d_direct(x.astype(np.float64), w).dtype == np.float64
    # naive_conv uses Python ints: integer-valued float data gives an exact check
    xi = np.round(x * 8).astype(np.float32)
    wi = np.round(w * 8).astype(np.float32)
    ref = naive_conv(xi.astype(np.int64), wi.astype(np.int64), None, (1, 1), (0, 0), (1, 1), 1)
    assert np.array_equal(conv2d_direct(xi, wi), ref.astype(np.float32))


def test_direct_hand_example():
    x = np.arange(16).reshape(1, 1, 4, 4)
    w = np.array([[[[1, 0], [0, -1]]]])
    got = conv2d_direct(x, w, np.array([10]), stride=2)
    # x[i,j] - x[i+1,j+1] = -5 everywhere, plus bias 10
    assert got.tolist() == [[[[5, 5], [5, 5]]]]


@pytest.mark.parametrize(
    "kwargs, xshape, wshape, msg",
    [
        ({"groups": 4}, (1, 6, 5, 5), (4, 1, 3, 3), "groups: C=6 is not divisible by groups=4"),
        ({"groups": 2}, (1, 6, 5, 5), (3, 3, 3, 3), "K=3 is not divisible by groups=2"),
        ({"groups": 2}, (1, 6, 5, 5), (4, 6, 3, 3), "C//groups=3"),
        ({}, (1, 6, 5), (4, 6, 3, 3), "x: expected 4-D"),
        ({}, (1, 6, 5, 5), (4, 6, 3), "w: expected 4-D"),
        ({"stride": 0}, (1, 1, 5, 5), (1, 1, 3, 3), "stride"),
        ({"padding": (1, -1)}, (1, 1, 5, 5), (1, 1, 3, 3), "padding"),
        ({"dilation": (1, 2, 3)}, (1, 1, 5, 5), (1, 1, 3, 3), "dilation"),
        ({}, (1, 1, 2, 2), (1, 1, 3, 3), "larger than padded input"),
        ({"groups": 0}, (1, 1, 5, 5), (1, 1, 3, 3), "groups"),
    ],
)
def test_direct_validation(kwargs, xshape, wshape, msg):
    with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        conv2d_direct(np.zeros(xshape, np.int8), np.zeros(wshape, np.int8), **kwargs)


def test_direct_bias_shape():
    with pytest.raises(ValueError, match="bias"):
        conv2d_direct(np.zeros((1, 1, 3, 3)), np.zeros((2, 1, 1, 1)), np.zeros(3))


def test_fc_exact_and_validation():
    rng = np.random.default_rng(2)
    x = rng.integers(-(2**15), 2**15, (3, 50))
    w = rng.integers(-(2**15), 2**15, (4, 50))
    b = rng.integers(-100, 100, 4)
    got = fc(x, w, b)
    ref = [[sum(int(x[i, c]) * int(w[j, c]) for c in range(50)) + int(b[j]) for j in range(4)]
           for i in range(3)]
    assert got.dtype == np.int64 and got.tolist() == ref
    assert fc(x.astype(np.float32), w.astype(np.float32)).dtype == np.float32
    with pytest.raises(ValueError, match="C=50"):
        fc(x, w[:, :49])
    with pytest.raises(ValueError, match="bias"):
        fc(x, w, b[:3])
    with pytest.raises(ValueError, match="2-D"):
        fc(x[0], w)
