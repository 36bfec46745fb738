"""Amaranth-simulator tests of the floating-point components (rtl/fp.py) against NumPy
float32 arithmetic, bit for bit (any NaN equals any NaN).

Operands: the special values (+-0, the smallest and largest subnormals, the smallest and
largest normals, the largest finite, +-inf, NaNs), every pair of them, rounding ties and
near-cancellations built on purpose, and random bit patterns (uniform over all patterns and
over a narrow exponent band, so that additions interact).
"""

import numpy as np
import pytest
from amaranth.sim import Simulator

from termwise.golden.primitives.bf16 import bf16_to_f32, f32_to_bf16
from termwise.rtl.fp import (BF16Multiplier, FloatAccumulator, FloatAdderTree, FP32Adder,
                             FP32ToBF16)

F32_SPECIALS = np.array([
    0x00000000, 0x80000000,             # +-0
    0x00000001, 0x80000001,             # smallest subnormal
    0x007FFFFF, 0x807FFFFF,             # largest subnormal
    0x00400000, 0x00000003,
    0x00800000, 0x80800000,             # smallest normal
    0x00800001, 0x01000000,
    0x7F7FFFFF, 0xFF7FFFFF,             # largest finite
    0x7F7FFFFE, 0x7F000000,
    0x7F800000, 0xFF800000,             # +-inf
    0x7FC00000, 0xFFC00001, 0x7F800001,  # NaNs (quiet, negative, signalling)
    0x3F800000, 0xBF800000, 0x3F800001, 0x33800000, 0x33800001, 0x34000000, 0xB3800000,
    0x4B800000, 0x4B000001, 0x3FFFFFFF,
], dtype=np.uint32)

BF16_SPECIALS = np.array([
    0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x807F, 0x0040, 0x0080, 0x8080, 0x0081,
    0x7F7F, 0xFF7F, 0x7F00, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x7F81, 0x3F80, 0xBF80, 0x3FFF,
    0x3F81, 0x1F80, 0x2000, 0x5F80, 0x6000, 0x0100, 0x3400, 0x3380,
], dtype=np.uint16)


def _run_comb(dut, ports_in, port_out, columns, latency: int = 0):
    """Drive ``columns`` (arrays of equal length) into ``ports_in`` and collect
    ``port_out`` after each settle, or, for a pipelined ``dut``, ``latency`` clock cycles
    after each input (one input per cycle)."""
    out = np.zeros(len(columns[0]), dtype=np.uint64)

    async def tb(ctx):
        for i in range(len(out) + latency):
            if i < len(out):
                for port, col in zip(ports_in, columns):
                    ctx.set(port, int(col[i]))
            if i >= latency:
                out[i - latency] = ctx.get(port_out)
            if latency:
                await ctx.tick()
    sim = Simulator(dut)
    if latency:
        sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    return out.astype(np.uint32)


def _f32(bits):
    return np.asarray(bits, dtype=np.uint32).view(np.float32)


def _assert_bits_equal(got, want, *operands):
    got = np.asarray(got, dtype=np.uint32)
    want = np.asarray(want, dtype=np.float32).view(np.uint32)
    both_nan = np.isnan(_f32(got)) & np.isnan(_f32(want))
    bad = np.flatnonzero((got != want) & ~both_nan)
    if bad.size:
        i = bad[0]
        ops = ", ".join(f"{int(np.asarray(o)[i]):#x}" for o in operands)
        raise AssertionError(f"{bad.size} mismatches; first: ({ops}) -> {int(got[i]):#010x}, "
                             f"NumPy {int(want[i]):#010x}")
    return got


def _pairs(values):
    a, b = np.meshgrid(values, values, indexing="ij")
    return a.ravel(), b.ravel()


@pytest.mark.parametrize("stages", [0, 1])
def test_bf16_multiplier_matches_numpy(stages):
    rng = np.random.default_rng(1)
    sa, sb = _pairs(BF16_SPECIALS)
    ra = rng.integers(0, 1 << 16, 1500).astype(np.uint16)
    rb = rng.integers(0, 1 << 16, 1500).astype(np.uint16)
    # Small exponents: products that underflow into float32 subnormals (ties included).
    ua = (rng.integers(0, 2, 800) << 15 | rng.integers(0, 0x2000, 800)).astype(np.uint16)
    ub = (rng.integers(0, 2, 800) << 15 | rng.integers(0x0, 0x2000, 800)).astype(np.uint16)
    # Large exponents: products around the overflow threshold.
    oa = (rng.integers(0x5E00, 0x6100, 500)).astype(np.uint16)
    ob = (rng.integers(0x5E00, 0x6100, 500)).astype(np.uint16)
    a = np.concatenate([sa, ra, ua, oa]).astype(np.uint16)
    b = np.concatenate([sb, rb, ub, ob]).astype(np.uint16)
    dut = BF16Multiplier(stages)
    assert dut.latency == stages
    got = _run_comb(dut, [dut.a, dut.b], dut.product, [a, b], latency=dut.latency)
    with np.errstate(all="ignore"):
        want = bf16_to_f32(a) * bf16_to_f32(b)
    got = _assert_bits_equal(got, want, a, b)
    # Coverage: the vectors reach subnormal products, zeros from underflow and infinities.
    finite = np.isfinite(want)
    assert np.any(finite & (np.abs(want) < np.float32(2.0 ** -126)) & (want != 0))
    assert np.any((want == 0) & (bf16_to_f32(a) != 0) & (bf16_to_f32(b) != 0))
    assert np.any(np.isinf(want) & np.isfinite(bf16_to_f32(a)) & np.isfinite(bf16_to_f32(b)))
    assert set(got[np.isnan(want)].tolist()) == {0x7FC00000}


def _adder_vectors(rng):
    sa, sb = _pairs(F32_SPECIALS)
    ra = rng.integers(0, 1 << 32, 1500, dtype=np.uint64)
    rb = rng.integers(0, 1 << 32, 1500, dtype=np.uint64)
    # Nearby exponents (alignment by 0..30 bits), both signs: cancellations and carries.
    ea = rng.integers(100, 130, 2000, dtype=np.uint64)
    na = rng.integers(0, 2, 2000, dtype=np.uint64) << 31 | ea << 23 | \
        rng.integers(0, 1 << 23, 2000, dtype=np.uint64)
    nb = rng.integers(0, 2, 2000, dtype=np.uint64) << 31 | \
        (ea + rng.integers(-30, 31, 2000).astype(np.uint64)) << 23 | \
        rng.integers(0, 1 << 23, 2000, dtype=np.uint64)
    # Subnormal and tiny normal operands.
    ta = rng.integers(0, 2, 600, dtype=np.uint64) << 31 | rng.integers(0, 0x01800000, 600,
                                                                          dtype=np.uint64)
    tb = rng.integers(0, 2, 600, dtype=np.uint64) << 31 | rng.integers(0, 0x01800000, 600,
                                                                          dtype=np.uint64)
    # Exact ties: 1.0 + k * 2**-24 for odd k and even mantissas (ties to even both ways),
    # x + (-x), and 1 - 2**-25 style near-cancellations.
    ka = np.full(300, 0x3F800000, dtype=np.uint64) + rng.integers(0, 1 << 22, 300,
                                                                 dtype=np.uint64)
    kb = np.full(300, 0x33800000, dtype=np.uint64) | (rng.integers(0, 2, 300,
                                                                   dtype=np.uint64) << 31)
    xa = rng.integers(0, 1 << 32, 100, dtype=np.uint64)
    xb = xa ^ (1 << 31)
    ca = np.full(200, 0x3F800000, dtype=np.uint64)
    cb = (np.uint64(0xB3000000) + (rng.integers(0, 8, 200, dtype=np.uint64) << 23)
          + rng.integers(0, 4, 200, dtype=np.uint64))
    a = np.concatenate([sa, ra, na, ta, ka, xa, ca]).astype(np.uint32)
    b = np.concatenate([sb, rb, nb, tb, kb, xb, cb]).astype(np.uint32)
    return a, b


def test_fp32_adder_matches_numpy():
    rng = np.random.default_rng(2)
    a, b = _adder_vectors(rng)
    dut = FP32Adder()
    got = _run_comb(dut, [dut.a, dut.b], dut.sum, [a, b])
    with np.errstate(all="ignore"):
        want = _f32(a) + _f32(b)
    got = _assert_bits_equal(got, want, a, b)
    assert set(got[np.isnan(want)].tolist()) == {0x7FC00000}
    # Signed zeros: x + (-x) = +0, -0 + -0 = -0.
    assert np.any((got == 0) & (a != 0) & (a == (b ^ 0x80000000)))
    assert np.any((got == 0x80000000) & (a == 0x80000000) & (b == 0x80000000))


@pytest.mark.parametrize("n, register_levels", [(1, ()), (3, ()), (4, ()), (3, (0, 1)),
                                                (4, (1,)), (5, (0, 1, 2))])
def test_float_adder_tree_order(n, register_levels):
    """The tree's pairwise order, bit for bit; with pipeline registers after some levels
    the same sums come out ``len(register_levels)`` cycles later."""
    rng = np.random.default_rng(n)
    count = 300
    vals = rng.standard_normal((count, n)).astype(np.float32) * \
        np.float32(2.0) ** rng.integers(-20, 20, (count, n)).astype(np.float32)
    vals[:40] = _f32(rng.choice(F32_SPECIALS, (40, n)))
    bits = vals.view(np.uint32)
    dut = FloatAdderTree(n, register_levels=register_levels)
    assert dut.latency == len(register_levels)
    got = np.zeros(count, dtype=np.uint32)

    async def tb(ctx):
        for i in range(count + dut.latency):
            if i < count:
                for j in range(n):
                    ctx.set(dut.inputs[j], int(bits[i, j]))
            if i >= dut.latency:
                got[i - dut.latency] = ctx.get(dut.sum)
            if dut.latency:
                await ctx.tick()
    sim = Simulator(dut)
    if dut.latency:
        sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    with np.errstate(all="ignore"):
        level = [vals[:, j] for j in range(n)]
        while len(level) > 1:
            paired = [x + y for x, y in zip(level[0::2], level[1::2])]
            level = paired + ([level[-1]] if len(level) % 2 else [])
    _assert_bits_equal(got, level[0], bits[:, 0])


def test_float_adder_tree_rejects_a_missing_level():
    with pytest.raises(ValueError, match="register_levels"):
        FloatAdderTree(4, register_levels=(2,))


def test_float_accumulator_sequence():
    rng = np.random.default_rng(5)
    steps = 400
    addends = (rng.standard_normal(steps) * 10.0 ** rng.integers(-3, 4, steps)).astype(np.float32)
    addends[50] = -0.0
    addends[200] = np.inf
    addends[230] = -np.inf          # inf - inf = NaN, until the next clear
    en = rng.random(steps) < 0.8
    clear = rng.random(steps) < 0.03
    clear[0] = True
    clear[240] = True
    dut = FloatAccumulator()
    got = np.zeros(steps, dtype=np.uint32)
    want = np.zeros(steps, dtype=np.float32)

    async def tb(ctx):
        ref = np.float32(0.0)
        for i in range(steps):
            ctx.set(dut.addend, int(addends[i:i + 1].view(np.uint32)[0]))
            ctx.set(dut.en, int(en[i]))
            ctx.set(dut.clear, int(clear[i]))
            await ctx.tick()
            with np.errstate(all="ignore"):
                ref = np.float32(0.0) if clear[i] else (ref + addends[i] if en[i] else ref)
            want[i] = ref
            got[i] = ctx.get(dut.value)
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    _assert_bits_equal(got, want, np.arange(steps))


def test_fp32_to_bf16_matches_golden():
    rng = np.random.default_rng(6)
    u = np.concatenate([
        F32_SPECIALS,
        rng.integers(0, 1 << 32, 1500, dtype=np.uint64).astype(np.uint32),
        # ties: low half exactly 0x8000, odd and even upper halves
        (rng.integers(0, 1 << 16, 300, dtype=np.uint64) << 16 | 0x8000).astype(np.uint32),
        np.array([0x7F7F8000, 0x7F7FFFFF, 0x7F7F7FFF, 0x00008000, 0x80018000, 0x7FFF8000],
                 dtype=np.uint32),
    ])
    dut = FP32ToBF16()
    got = _run_comb(dut, [dut.f32], dut.bf16, [u]).astype(np.uint16)
    want = f32_to_bf16(_f32(u))
    assert np.array_equal(got, want), np.flatnonzero(got != want)[:5]
