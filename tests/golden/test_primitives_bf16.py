"""Tests for bfloat16 rounding and the bf16 convolution (termwise.golden.primitives.bf16)."""

import numpy as np
import pytest

from termwise.golden.primitives.bf16 import (
    BF16_MAX,
    bf16_to_f32,
    conv2d_bf16,
    f32_to_bf16,
    round_to_bf16,
)
from termwise.golden.primitives.direct import conv2d_direct
from termwise.golden.primitives.verify import (
    BF16_THRESHOLD,
    FP32_THRESHOLD,
    assert_close,
    assert_exact,
    checkerboard_ints,
    normalized_rms_error,
)

ALL_HI = np.arange(1 << 16, dtype=np.uint32)


def f32(bits):
    return np.asarray(bits, dtype=np.uint32).view(np.float32)


def is_nan_hi(h):
    return ((h & 0x7F80) == 0x7F80) & ((h & 0x007F) != 0)


def is_nan_f32(u):
    return ((u & 0x7F800000) == 0x7F800000) & ((u & 0x007FFFFF) != 0)


@pytest.mark.parametrize("low", [0x0000, 0x0001, 0x4000, 0x7FFF, 0x8000, 0x8001, 0xC000, 0xFFFF])
def test_rounding_exhaustive_over_high_half(low):
    """Every bf16 pattern h with a given low half: truncate below the tie, round up above,
    ties to even. Infinities and NaNs handled separately."""
    u = (ALL_HI << 16) | np.uint32(low)
    got = f32_to_bf16(f32(u)).astype(np.uint32)
    h = ALL_HI
    if low < 0x8000:
        want = h
    elif low > 0x8000:
        want = h + 1
    else:
        want = h + (h & 1)
    nan = is_nan_f32(u)
    assert np.array_equal(got[~nan], want[~nan])
    # NaN in -> NaN out, sign and top mantissa bits kept, quiet bit set
    assert is_nan_hi(got[nan]).all()
    assert np.array_equal(got[nan], h[nan] | 0x40)


def test_rounding_matches_value_reference_on_random_patterns():
    """Independent reference: choose the nearer of the two neighbouring bf16 values by
    exact float64 arithmetic, ties to the even pattern; 2**-1 ulp above max rounds to inf."""
    rng = np.random.default_rng(5)
    u = rng.integers(0, 1 << 32, 1 << 20, dtype=np.uint64).astype(np.uint32)
    u = u[~is_nan_f32(u)]
    x = f32(u).astype(np.float64)
    mag = np.abs(x)
    lo_bits = (u >> 16) & 0x7FFF  # magnitude truncated toward zero
    lo = bf16_to_f32((lo_bits).astype(np.uint16)).astype(np.float64)
    hi_bits = lo_bits + 1
    hi = np.where(hi_bits == 0x7F80, 2.0**128,  # the rounding boundary value beyond max
                  bf16_to_f32(np.minimum(hi_bits, 0x7F80).astype(np.uint16)).astype(np.float64))
    exact = mag == lo
    d_lo, d_hi = mag - lo, hi - mag
    pick_hi = ~exact & ((d_hi < d_lo) | ((d_hi == d_lo) & (lo_bits % 2 == 1)))
    want = np.where(pick_hi, hi_bits, lo_bits) | ((u >> 16) & 0x8000)
    got = f32_to_bf16(f32(u)).astype(np.uint32)
    assert np.array_equal(got, want)


def test_round_trip_all_bf16_values():
    h = ALL_HI.astype(np.uint16)
    back = f32_to_bf16(bf16_to_f32(h))
    nan = is_nan_hi(ALL_HI)
    assert np.array_equal(back[~nan], h[~nan])
    assert is_nan_hi(back[nan].astype(np.uint32)).all()
    assert (back[nan] & 0x8000).tolist() == (h[nan] & 0x8000).tolist()


def test_special_values():
    def conv(bits):
        return int(f32_to_bf16(f32([bits]))[0])

    # NaNs stay NaN (signalling NaN would carry into inf under naive rounding)
    assert conv(0x7F800001) == 0x7FC0
    assert conv(0xFF800001) == 0xFFC0
    assert conv(0x7FFFFFFF) == 0x7FFF
    assert conv(0x7FC00000) == 0x7FC0
    assert np.isnan(round_to_bf16(np.float32(np.nan)))
    # infinities kept
    assert conv(0x7F800000) == 0x7F80 and conv(0xFF800000) == 0xFF80
    # signed zeros
    assert conv(0x00000000) == 0x0000 and conv(0x80000000) == 0x8000
    assert np.signbit(round_to_bf16(np.float32(-0.0)))
    # subnormals kept (and rounded like any value)
    assert conv(0x00010000) == 0x0001 and conv(0x807F0000) == 0x807F
    assert bf16_to_f32(np.array([1], np.uint16))[0] == np.float32(2.0**-133)
    assert conv(0x00000001) == 0x0000  # smallest fp32 subnormal rounds to +0
    assert conv(0x80008000) == 0x8000  # tie to even (0) keeps the sign: -0
    assert conv(0x00018000) == 0x0002  # tie, odd -> up
    assert conv(0x007FFFFF) == 0x0080  # largest subnormal rounds up to min normal
    # max finite and overflow on round-up
    assert float(BF16_MAX) == (2 - 2**-7) * 2.0**127
    assert conv(0x7F7F0000) == 0x7F7F
    assert conv(0x7F7F7FFF) == 0x7F7F
    assert conv(0x7F7F8000) == 0x7F80  # tie, 0x7F7F odd -> +inf
    assert conv(0x7F7FFFFF) == 0x7F80  # fp32 max -> +inf
    assert conv(0xFF7FFFFF) == 0xFF80
    assert conv(0x7F7E8000) == 0x7F7E  # tie, even -> stays finite
    # one ordinary value: 1 + 2**-8 is a tie between 1 and 1 + 2**-7 -> 1 (even)
    assert conv(0x3F808000) == 0x3F80 and conv(0x3F818000) == 0x3F82


def test_bf16_to_f32_requires_uint16():
    with pytest.raises(ValueError, match="uint16"):
        bf16_to_f32(np.array([1.0]))


# ---------------------------------------------------------------- bf16 convolution

CONV_CASES = [
    ((2, 4, 9, 8), (6, 2, 3, 3), dict(padding=1, groups=2)),
    ((1, 5, 10, 10), (5, 1, 3, 3), dict(stride=2, padding=1, groups=5)),
    ((1, 3, 12, 11), (4, 3, 5, 3), dict(padding=(2, 1), dilation=(1, 2))),
    ((1, 16, 6, 6), (8, 16, 1, 1), dict()),
]


@pytest.mark.parametrize("xs, ws, kw", CONV_CASES)
def test_bf16_conv_exact_on_checkerboard_ints(xs, ws, kw):
    rng = np.random.default_rng(50)
    x, w = checkerboard_ints(xs, rng), checkerboard_ints(ws, rng)
    b = checkerboard_ints((ws[0],), rng)
    ref = conv2d_direct(x.astype(np.int64), w.astype(np.int64), b.astype(np.int64), **kw)
    got = conv2d_bf16(x, w, b, **kw)
    assert got.dtype == np.float32
    assert_exact(got, ref.astype(np.float32))


@pytest.mark.parametrize("xs, ws, kw", CONV_CASES)
def test_bf16_conv_error_metric(xs, ws, kw):
    rng = np.random.default_rng(51)
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    b = rng.standard_normal(ws[0]).astype(np.float32)
    got = conv2d_bf16(x, w, b, **kw)
    # against float64 on the bf16-rounded inputs: only fp32 accumulation error remains
    ref_rounded = conv2d_direct(round_to_bf16(x).astype(np.float64),
                                round_to_bf16(w).astype(np.float64),
                                round_to_bf16(b).astype(np.float64), **kw)
    assert_close(got, ref_rounded, FP32_THRESHOLD)
    # against float64 on the original float32 inputs: bf16 input rounding dominates
    ref = conv2d_direct(x.astype(np.float64), w.astype(np.float64), b.astype(np.float64), **kw)
    err = assert_close(got, ref, BF16_THRESHOLD)
    assert err > 1e-4  # the inputs really were rounded to 8 significant bits


def test_bf16_conv_accumulation_order_is_as_stated():
    """Bit-exact against scalar float32 accumulation in (c, r, s) order, bias last."""
    rng = np.random.default_rng(52)
    x = (rng.standard_normal((1, 3, 5, 5)) * 10.0 ** rng.integers(-3, 4, (1, 3, 5, 5))).astype(np.float32)
    w = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(2).astype(np.float32)
    got = conv2d_bf16(x, w, b, padding=1)
    xr, wr, br = round_to_bf16(x), round_to_bf16(w), round_to_bf16(b)
    xp = np.pad(xr, ((0, 0), (0, 0), (1, 1), (1, 1)))
    for k in range(2):
        for i in range(5):
            for j in range(5):
                acc = np.float32(0.0)
                for c in range(3):
                    for r in range(3):
                        for s in range(3):
                            acc = np.float32(acc + np.float32(xp[0, c, i + r, j + s] * wr[k, c, r, s]))
                acc = np.float32(acc + br[k])
                assert got[0, k, i, j] == acc, (k, i, j)


def test_bf16_conv_inputs_as_bits_and_bf16_output():
    rng = np.random.default_rng(53)
    x = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    a = conv2d_bf16(x, w)
    b = conv2d_bf16(f32_to_bf16(x), f32_to_bf16(w))
    assert np.array_equal(a, b)
    bits = conv2d_bf16(x, w, output="bf16")
    assert bits.dtype == np.uint16 and np.array_equal(bits, f32_to_bf16(a))
    with pytest.raises(ValueError, match="output"):
        conv2d_bf16(x, w, output="fp16")


def test_bf16_conv_nonfinite_propagates_and_metric_rejects_it():
    x = np.ones((1, 1, 4, 4), np.float32)
    x[0, 0, 0, 0] = np.inf
    w = np.ones((1, 1, 2, 2), np.float32)
    got = conv2d_bf16(x, w)
    assert np.isinf(got[0, 0, 0, 0]) and np.isfinite(got[0, 0, 1:, 1:]).all()
    with pytest.raises(ValueError, match="non-finite"):
        normalized_rms_error(got, conv2d_direct(x, w))
    with pytest.raises(ValueError, match="all zero"):
        normalized_rms_error(np.ones(3), np.zeros(3))


def test_f32_assembly_of_a_packed_depthwise_lowering():
    """assemble_conv2d_f32 drops the padding filters of a channel-diagonal depthwise
    lowering exactly as the integer assembly does (small integers are exact in float32)."""
    from termwise.gen.config import preset
    from termwise.golden.arch.baseline_bf16 import assemble_conv2d_f32
    from termwise.golden.lowering import assemble_conv2d, lower_conv2d
    from termwise.golden.primitives import conv2d_direct
    cfg = preset("baseline-4x4")
    rng = np.random.default_rng(3)
    x = rng.integers(-8, 8, (1, 6, 5, 5))
    w = rng.integers(-8, 8, (6, 1, 3, 3))
    low = lower_conv2d(cfg, x, w, padding=1, groups=6)
    assert low.packed
    results = [r.act @ r.wgt.T for r in low.runs]
    want = conv2d_direct(x, w, padding=1, groups=6)
    assert np.array_equal(assemble_conv2d(low, results), want)
    got = assemble_conv2d_f32(low, [r.astype(np.float32) for r in results])
    assert got.dtype == np.float32 and np.array_equal(got, want.astype(np.float32))


def test_cycle_model_of_a_bf16_tile_is_its_pipelined_one():
    """golden.cycles picks the model by arch and dtype: a bf16 baseline run of N bricks
    takes N + its pipeline latency (4 at 4 lanes), not the integer baseline's N + 1."""
    from termwise.gen.config import preset
    from termwise.golden import cycles
    cfg = preset("baseline-bf16-4x4")
    act = np.zeros((cfg.windows, 5 * cfg.lanes), np.int64)
    wgt = np.zeros((cfg.filters, 5 * cfg.lanes), np.int64)
    assert cycles.run_cycles(cfg, act, wgt) == 5 + 4
    assert cycles.run_cycles(cfg.twin("baseline", dtype="int", acc_bits=None),
                             act, wgt) == 5 + 1
