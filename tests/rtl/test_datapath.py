"""Unit tests of the shared datapath pieces and both PEs, in Amaranth's simulator, each
against a pure-Python reference written beside it (Glasgow style)."""

import numpy as np
import pytest
from amaranth import Elaboratable, Module, Signal, signed

from termwise.gen.config import TileConfig
from termwise.golden.twos_complement import wrap
from termwise.rtl.accumulator import Accumulator, ShiftAccumulator
from termwise.rtl.adder_tree import AdderTree
from termwise.rtl.pe import BitParallelPE, BitSerialPE
from termwise.rtl.rows import act_brick_layout, act_value
from termwise.rtl.stripes import SerialSequencer
from termwise.tb.amaranth_sim import run_simulation as _sim


@pytest.mark.parametrize("n,width,is_signed", [(1, 4, True), (3, 5, True), (16, 8, True),
                                               (7, 3, False)])
def test_adder_tree_sums_without_overflow(n, width, is_signed):
    dut = AdderTree(n, width, is_signed=is_signed)
    rng = np.random.default_rng(n)
    lo, hi = (-(1 << width - 1), (1 << width - 1) - 1) if is_signed else (0, (1 << width) - 1)
    vectors = [np.full(n, lo), np.full(n, hi)] + [rng.integers(lo, hi + 1, n) for _ in range(50)]

    async def tb(ctx):
        for vec in vectors:
            for i, v in enumerate(vec):
                ctx.set(dut.inputs[i], int(v))
            assert ctx.get(dut.sum) == int(vec.sum())
    _sim(dut, tb, clocked=False)


def test_accumulator_clear_wins_and_wraps():
    dut = Accumulator(8, 10)
    ref = 0
    rng = np.random.default_rng(0)

    async def tb(ctx):
        nonlocal ref
        for step in range(300):
            addend, en, clear = int(rng.integers(-128, 128)), int(rng.random() < .8), \
                int(rng.random() < .05)
            ctx.set(dut.addend, addend)
            ctx.set(dut.en, en)
            ctx.set(dut.clear, clear)
            await ctx.tick()
            ref = 0 if clear else int(wrap(ref + (addend if en else 0), 10))
            assert ctx.get(dut.value) == ref, step
    _sim(dut, tb)


def _serial_reference(values, weights, precision, is_signed):
    """MSB-first bit-serial dot product: the definition Stripes implements."""
    acc = 0
    for bit in range(precision - 1, -1, -1):
        term = sum(w for v, w in zip(values, weights) if (v >> bit) & 1)
        acc = 2 * acc + (-term if (is_signed and bit == precision - 1) else term)
    return acc


def test_shift_accumulator_evaluates_msb_first():
    dut = ShiftAccumulator(10, 16)
    rng = np.random.default_rng(1)

    async def tb(ctx):
        for _ in range(40):
            p = int(rng.integers(1, 6))
            terms = rng.integers(-512, 512, p)
            for i, t in enumerate(terms):
                ctx.set(dut.term, int(t))
                ctx.set(dut.en, 1)
                ctx.set(dut.first, int(i == 0))
                ctx.set(dut.negate, int(i == 0))
                await ctx.tick()
            expected = 0
            for i, t in enumerate(terms):
                expected = 2 * expected + (-int(t) if i == 0 else int(t))
            assert ctx.get(dut.value) == int(wrap(expected, 16))
    _sim(dut, tb)


def test_serial_sequencer_walks_bits_and_commits():
    dut = SerialSequencer(8)

    async def tb(ctx):
        for p in (1, 3, 8):
            ctx.set(dut.precision, p)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            ctx.set(dut.valid, 1)
            seen = []
            for _ in range(2 * p):
                seen.append((ctx.get(dut.bitpos), ctx.get(dut.first), ctx.get(dut.last)))
                await ctx.tick()
                assert ctx.get(dut.commit) == seen[-1][2]
            expected = [(b, int(b == p - 1), int(b == 0)) for b in range(p - 1, -1, -1)] * 2
            assert seen == expected
            ctx.set(dut.valid, 0)
    _sim(dut, tb)


class _ExtendedPE(Elaboratable):
    """A :class:`BitParallelPE` fed as an array feeds it: the stored ``act_bits``-bit
    patterns go through :func:`termwise.rtl.rows.act_value` with the run's ``act_signed``."""

    def __init__(self, cfg):
        self.pe = BitParallelPE(cfg)
        self.pattern = Signal(act_brick_layout(cfg))
        self.is_signed = Signal()

    def elaborate(self, platform):
        m = Module()
        m.submodules.pe = self.pe
        for lane in range(len(self.pattern)):
            m.d.comb += self.pe.act[lane].eq(act_value(self.pattern[lane], self.is_signed))
        return m


@pytest.mark.parametrize("act_signed", [True, False])
def test_bit_parallel_pe(act_signed):
    cfg = TileConfig("baseline", 1, 1, 4, 6, 5, depth=8)
    top = _ExtendedPE(cfg)
    dut = top.pe
    assert dut.act.shape().elem_shape == signed(cfg.act_bits + 1)   # holds both kinds
    rng = np.random.default_rng(2)
    lo = -32 if act_signed else 0
    hi = 31 if act_signed else 63
    bricks = [(rng.integers(lo, hi + 1, 4), rng.integers(-16, 16, 4)) for _ in range(8)]
    bricks.append((np.full(4, lo), np.full(4, -16)))          # the range ends
    bricks.append((np.full(4, hi), np.full(4, -16)))

    async def tb(ctx):
        ctx.set(top.is_signed, int(act_signed))               # the run's act_signed
        ctx.set(dut.clear, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        ctx.set(dut.en, 1)
        for a, w in bricks:
            for lane in range(4):
                ctx.set(top.pattern[lane], int(a[lane]) & 0x3F)   # the stored 6-bit pattern
                ctx.set(dut.wgt[lane], int(w[lane]))
            await ctx.tick()
        expected = sum(int(np.dot(a, w)) for a, w in bricks)
        assert ctx.get(dut.acc) == expected
    _sim(top, tb)


@pytest.mark.parametrize("act_signed,precision", [(True, 6), (True, 2), (False, 6), (False, 1)])
def test_bit_serial_pe(act_signed, precision):
    # The run's act_signed reaches the PE as ``negate`` on the top bit (feed_serial_pe).
    cfg = TileConfig("stripes", 1, 1, 4, 6, 5, depth=8)
    dut = BitSerialPE(cfg)
    rng = np.random.default_rng(3)
    lo, hi = (-(1 << precision - 1), (1 << precision - 1) - 1) if act_signed else \
        (0, (1 << precision) - 1)
    bricks = [(rng.integers(lo, hi + 1, 4), rng.integers(-16, 16, 4)) for _ in range(5)]

    async def tb(ctx):
        ctx.set(dut.clear, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        commit = 0
        for a, w in bricks:
            bits = [int(v) & ((1 << precision) - 1) for v in a]
            for lane in range(4):
                ctx.set(dut.wgt[lane], int(w[lane]))
            for bit in range(precision - 1, -1, -1):
                ctx.set(dut.act_bit, sum(((b >> bit) & 1) << lane for lane, b in enumerate(bits)))
                ctx.set(dut.en, 1)
                ctx.set(dut.first, int(bit == precision - 1))
                ctx.set(dut.negate, int(act_signed and bit == precision - 1))
                ctx.set(dut.commit, commit)
                await ctx.tick()
                commit = int(bit == 0)
        ctx.set(dut.en, 0)
        ctx.set(dut.commit, commit)
        await ctx.tick()
        expected = sum(_serial_reference([int(v) & ((1 << precision) - 1) for v in a], w,
                                         precision, act_signed) for a, w in bricks)
        assert expected == sum(int(np.dot(a, w)) for a, w in bricks)  # the reference itself
        assert ctx.get(dut.acc) == expected
    _sim(dut, tb)
