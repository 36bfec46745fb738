"""Tests for requantisation, activations and the fused convolution operators."""

from fractions import Fraction

import numpy as np
import pytest

from termwise.golden.primitives.activation import activate, dyadic, leaky_relu, relu, relu6
from termwise.golden.primitives.direct import conv2d_direct
from termwise.golden.primitives.fused import (
    conv_bias_act,
    conv_bias_add_act,
    conv_bn_act,
    fold_batchnorm,
)
from termwise.golden.primitives.quant import (
    Requant,
    quantize_multiplier,
    requantise,
    requantise_float,
    saturate,
    saturation_range,
    shift_round_half_even,
)
from termwise.golden.primitives.verify import (
    FP32_THRESHOLD,
    FP64_THRESHOLD,
    assert_close,
    assert_exact,
)


def ref_round(p, s):
    """Python-int round-half-even of p / 2**s (s >= 0) via divmod."""
    q, r = divmod(p, 1 << s)  # floor quotient, 0 <= r < 2**s
    if 2 * r > (1 << s) or (2 * r == (1 << s) and q % 2 == 1):
        q += 1
    return q


def ref_requant(a, m, s, bits, signed):
    """Python-int reference (negative shifts multiply)."""
    p = int(a) * int(m)
    v = ref_round(p, int(s)) if s >= 0 else p << -int(s)
    lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    return min(max(v, lo), hi)


# ---------------------------------------------------------------- requantise


@pytest.mark.parametrize("multiplier", [1, 3, 5, 7, -3, 12345])
def test_requantise_exhaustive_small(multiplier):
    acc = np.arange(-1024, 1025)
    for shift in range(0, 9):
        exact = np.array([ref_round(a * multiplier, shift) for a in acc.tolist()])
        # cross-check the divmod reference against Fraction rounding (half-even) on a subset
        assert all(round(Fraction(a * multiplier, 2**shift)) == e
                   for a, e in zip(acc[::37].tolist(), exact[::37].tolist()))
        for bits, signed in ((8, True), (4, True), (8, False), (3, False), (16, True)):
            got = requantise(acc, multiplier, shift, bits, signed)
            lo, hi = saturation_range(bits, signed)
            assert got.dtype == np.int64
            assert got.tolist() == np.clip(exact, lo, hi).tolist(), (shift, bits, signed)


def test_round_half_even_ties():
    # exact halves: x.5 -> nearest even
    acc = np.array([-7, -5, -3, -1, 1, 3, 5, 7])  # /2 -> -3.5 -2.5 -1.5 -0.5 0.5 1.5 2.5 3.5
    assert shift_round_half_even(acc, 1).tolist() == [-4, -2, -2, 0, 0, 2, 2, 4]
    assert shift_round_half_even(acc * 4, 3).tolist() == [-4, -2, -2, 0, 0, 2, 2, 4]
    # just off the tie
    assert shift_round_half_even(np.array([5, 3]), 1).tolist() == [2, 2]
    assert shift_round_half_even(np.array([9, 7]), 2).tolist() == [2, 2]  # 2.25, 1.75
    # negative shift is an exact left shift
    assert shift_round_half_even(np.array([-3, 5]), -4).tolist() == [-48, 80]


def test_requantise_large_values_use_exact_path():
    rng = np.random.default_rng(11)
    acc = rng.integers(-(2**62), 2**62, 200)
    for m, s in ((2**31 - 1, 31), (1717986918, 34), (3, 70), (5, -1)):
        got = requantise(acc, m, s, 48, True)
        assert got.tolist() == [ref_requant(a, m, s, 48, True) for a in acc]


def test_requantise_per_channel_broadcast():
    rng = np.random.default_rng(12)
    acc = rng.integers(-(2**20), 2**20, (2, 3, 4, 4))
    m = np.array([1 << 30, 1717986918, 1500000000]).reshape(3, 1, 1)
    s = np.array([42, 43, 42]).reshape(3, 1, 1)
    got = requantise(acc, m, s, 8, True)
    for k in range(3):
        ref = [ref_requant(a, m[k, 0, 0], s[k, 0, 0], 8, True) for a in acc[:, k].ravel()]
        assert got[:, k].ravel().tolist() == ref
    assert (got == 127).any() and (got == -128).any() and ((got > -128) & (got < 127)).any()


def test_requantise_validation():
    with pytest.raises(ValueError, match="out_bits"):
        requantise(np.arange(3), 1, 0, 0)
    with pytest.raises(ValueError, match="out_bits"):
        saturation_range(64, True)
    with pytest.raises(ValueError, match="integer"):
        requantise(np.arange(3.0), 1, 0, 8)
    assert saturation_range(8, False) == (0, 255)
    assert saturate(np.array([-300, 5, 300]), 8, True).tolist() == [-128, 5, 127]


def test_quantize_multiplier():
    for scale in (1.0, 0.5, 0.75, 2.0**-20, 3.0, 12.5):
        m, s = quantize_multiplier(scale)
        assert 2**30 <= m < 2**31
        assert Fraction(m, 1) / Fraction(2) ** s == Fraction(scale)  # dyadic: exact
    rng = np.random.default_rng(13)
    for scale in rng.uniform(1e-6, 4.0, 200):
        m, s = quantize_multiplier(scale)
        assert abs(Fraction(m) / Fraction(2) ** s - Fraction(scale)) <= Fraction(scale) * 2**-31
    m, s = quantize_multiplier(1 - 2**-40)  # rounds up to 2**31: renormalised
    assert (m, s) == (2**30, 30)
    assert quantize_multiplier(0.0) == (0, 0)
    with pytest.raises(ValueError):
        quantize_multiplier(-1.0)


def test_requantise_matches_float_reference_for_dyadic_scales():
    rng = np.random.default_rng(14)
    acc = rng.integers(-(2**24), 2**24, 5000)
    acc[:8] = [2**10, 3 * 2**9, -(2**10), -3 * 2**9, 5 * 2**9, -5 * 2**9, 0, 1]  # exact ties
    for scale in (2.0**-10, 3 * 2.0**-14, 0.75 * 2**-8):
        rq = Requant.from_scale(scale, out_bits=8, signed=True)
        assert rq.scale == scale
        got = rq(acc)
        assert_exact(got, requantise_float(acc, scale, 8, True))
        assert_exact(got, rq(acc.astype(np.float64)))


# ---------------------------------------------------------------- activations


def test_float_activations():
    x = np.array([-8.0, -1.5, -0.0, 0.0, 2.5, 6.0, 7.25], np.float32)
    assert relu(x).tolist() == [0, 0, 0, 0, 2.5, 6, 7.25]
    assert relu6(x).tolist() == [0, 0, 0, 0, 2.5, 6, 6]
    assert leaky_relu(x, 0.25).tolist() == [-2, -0.375, 0, 0, 2.5, 6, 7.25]
    assert leaky_relu(x, 0.25).dtype == np.float32
    assert activate(x, None) is not None and np.array_equal(activate(x, "identity"), x)
    with pytest.raises(ValueError, match="activation"):
        activate(x, "gelu")


def test_integer_activations():
    x = np.arange(-40, 41)
    assert relu6(x, 20).tolist() == np.clip(x, 0, 20).tolist()
    with pytest.raises(ValueError, match="integer cap"):
        relu6(x, 6.5)
    got = leaky_relu(x, (13, 7))  # ~0.1
    ref = [v if v >= 0 else round(Fraction(v * 13, 128)) for v in x.tolist()]
    assert got.tolist() == ref
    assert leaky_relu(x, 0.125).tolist() == leaky_relu(x, (1, 3)).tolist()
    assert dyadic(0.375) == (3, 3)
    with pytest.raises(ValueError, match="not dyadic"):
        leaky_relu(x, 0.01)


# ---------------------------------------------------------------- fused operators

INT_ACTS = [("relu", {}), ("relu6", {"cap": 3000}), ("leaky_relu", {"alpha": (13, 7)}),
            ("identity", {})]


def int_operands(seed, shape=(2, 4, 9, 9), k=6, r=3, groups=1):
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, shape, dtype=np.int8)
    w = rng.integers(-128, 128, (k, shape[1] // groups, r, r), dtype=np.int8)
    b = rng.integers(-5000, 5000, k).astype(np.int32)
    return rng, x, w, b


@pytest.mark.parametrize("algorithm", ["direct", "im2col_gemm", "winograd_f4x3"])
@pytest.mark.parametrize("act, extra", INT_ACTS, ids=[a for a, _ in INT_ACTS])
@pytest.mark.parametrize("signed", [True, False])
def test_conv_bias_act_requant_int(algorithm, act, extra, signed):
    _, x, w, b = int_operands(20, groups=2)
    rq = Requant.from_scale(1 / 300.0, out_bits=8, signed=signed)
    kw = dict(padding=1, groups=2)
    fused = conv_bias_act(x, w, b, activation=act, requant=rq, algorithm=algorithm, **kw,
                          **extra)
    # unfused: conv, + bias, activation, requantise
    acc = conv2d_direct(x, w, **kw) + b.reshape(1, -1, 1, 1)
    unfused = requantise(activate(acc, act, **extra), rq.multiplier, rq.shift, 8, signed)
    assert fused.dtype == np.int64
    assert_exact(fused, unfused)
    lo, hi = rq.range
    assert ((fused > lo) & (fused < hi)).any()  # not all saturated


def test_conv_bias_act_float_and_no_requant():
    rng = np.random.default_rng(21)
    x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    for act, extra in (("relu", {}), ("relu6", {"cap": 1.5}), ("leaky_relu", {"alpha": 0.1})):
        for alg in ("direct", "winograd_f2x3", "fft"):
            fused = conv_bias_act(x, w, b, activation=act, padding=1, algorithm=alg, **extra)
            unfused = activate(conv2d_direct(x, w, padding=1) + b.reshape(1, -1, 1, 1), act,
                               **extra)
            assert fused.dtype == np.float32
            assert_close(fused, unfused, FP32_THRESHOLD)
    # integer accumulators without requantisation
    _, xi, wi, bi = int_operands(22)
    acc = conv2d_direct(xi, wi, bi, stride=2)
    assert_exact(conv_bias_act(xi, wi, bi, activation="relu", stride=2), relu(acc))


def test_conv_bias_act_float_requant():
    rng = np.random.default_rng(23)
    x = rng.integers(-20, 20, (1, 3, 6, 6)).astype(np.float64)
    w = rng.integers(-20, 20, (2, 3, 3, 3)).astype(np.float64)
    rq = Requant.from_scale(2.0**-6, out_bits=6, signed=True)
    got = conv_bias_act(x, w, None, activation="relu", requant=rq)
    ref = requantise(relu(conv2d_direct(x.astype(int), w.astype(int))), rq.multiplier,
                     rq.shift, 6, True)
    assert_exact(got, ref)


@pytest.mark.parametrize("act, extra", INT_ACTS, ids=[a for a, _ in INT_ACTS])
def test_conv_bias_add_act_int(act, extra):
    rng, x, w, b = int_operands(30)
    residual = rng.integers(-20000, 20000, (2, 6, 9, 9))
    rq = Requant.from_scale(1 / 250.0, out_bits=8, signed=True)
    for algorithm in ("direct", "winograd_f2x3", "implicit_gemm"):
        fused = conv_bias_add_act(x, w, b, residual, activation=act, requant=rq, padding=1,
                                  algorithm=algorithm, **extra)
        acc = conv2d_direct(x, w, padding=1) + b.reshape(1, -1, 1, 1) + residual
        unfused = requantise(activate(acc, act, **extra), rq.multiplier, rq.shift, 8, True)
        assert_exact(fused, unfused)
    # without requantisation: exact accumulator-domain result
    got = conv_bias_add_act(x, w, None, residual, activation=act, padding=1, **extra)
    assert_exact(got, activate(conv2d_direct(x, w, padding=1) + residual, act, **extra))


def test_conv_bias_add_act_float_and_shape_check():
    rng = np.random.default_rng(31)
    x = rng.standard_normal((2, 4, 7, 7)).astype(np.float32)
    w = rng.standard_normal((4, 1, 3, 3)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    res = rng.standard_normal((2, 4, 7, 7)).astype(np.float32)
    fused = conv_bias_add_act(x, w, b, res, activation="relu", padding=1, groups=4,
                              algorithm="fft")
    unfused = relu(conv2d_direct(x, w, b, padding=1, groups=4) + res)
    assert_close(fused, unfused, FP32_THRESHOLD)
    with pytest.raises(ValueError, match="residual"):
        conv_bias_add_act(x, w, b, res[:, :, :6], padding=1, groups=4)


def test_conv_bn_act():
    rng = np.random.default_rng(40)
    x = rng.standard_normal((2, 3, 8, 8))
    w = rng.standard_normal((5, 3, 3, 3))
    b = rng.standard_normal(5)
    mean, beta = rng.standard_normal(5), rng.standard_normal(5)
    var, gamma = rng.uniform(0.5, 2.0, 5), rng.uniform(0.5, 2.0, 5)
    y = conv2d_direct(x, w, b, padding=1)
    bn = (y - mean.reshape(1, -1, 1, 1)) / np.sqrt(var.reshape(1, -1, 1, 1) + 1e-5) \
        * gamma.reshape(1, -1, 1, 1) + beta.reshape(1, -1, 1, 1)
    for act in ("relu", "relu6", "leaky_relu"):
        unfused = activate(bn, act)
        fused = conv_bn_act(x, w, b, mean, var, gamma, beta, activation=act, padding=1,
                            algorithm="winograd_f4x3")
        assert_close(fused, unfused, FP64_THRESHOLD)
        fused32 = conv_bn_act(x.astype(np.float32), w, b, mean, var, gamma, beta,
                              activation=act, padding=1)
        assert fused32.dtype == np.float32
        assert_close(fused32, unfused, FP32_THRESHOLD)
    with pytest.raises(ValueError, match="float input"):
        conv_bn_act(x.astype(int), w, b, mean, var, gamma, beta)
    with pytest.raises(ValueError, match="gamma"):
        fold_batchnorm(w, b, mean, var, gamma[:4], beta)
