"""amaranth.sim tests of the Laconic array (rtl/laconic.py) against pure-Python references.

* :class:`LaconicPE`: every cycle's accumulator value checked against a reference that
  enumerates, per lane, the (weight term, activation term) pairs of radix-4 Booth terms
  (:func:`termwise.golden.terms.booth_terms`), weight terms outer, one pair per cycle; steps
  back to back (the next step taken on the last cycle of the current one), as the array
  drives it.
* :class:`PairCountDetector`: against the brute-force ``max(1, max terms(a) * terms(w))``.
* The whole tile on a tiny configuration (PEs simulated inline instead of as Verilog
  instances): outputs against ``a @ w.T`` and cycles against the golden cycle model.
"""

import numpy as np
import pytest
from amaranth.sim import Simulator

from termwise.gen.config import TileConfig
from termwise.golden import cycles as cycle_model
from termwise.golden.fixedpoint import to_unsigned, wrap
from termwise.golden.terms import booth_digits, booth_terms
from termwise.rtl.laconic import LaconicPE, PairCountDetector
from termwise.rtl.library import ModuleLibrary
from termwise.rtl.tile import Tile


def _sim(dut, testbench, clocked=True):
    sim = Simulator(dut)
    if clocked:
        sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()


def _cfg(signed=True, **kw):
    base = dict(filters=1, windows=1, lanes=3, act_bits=8, wgt_bits=8, act_signed=signed)
    base.update(kw)
    return TileConfig("laconic", **base)


def _masks(value, bits, is_signed):
    """(nonzero, neg, shift) digit masks of one value, from the NumPy Booth digits."""
    nz = neg = shift = 0
    for i, d in enumerate(int(x) for x in booth_digits(value, bits, is_signed)):
        nz |= (d != 0) << i
        neg |= (d < 0) << i
        shift |= (abs(d) == 2) << i
    return nz, neg, shift


def _set_masks(ctx, port, values, bits, is_signed):
    for lane, v in enumerate(values):
        nz, neg, shift = _masks(v, bits, is_signed)
        ctx.set(port[lane].nonzero, nz)
        ctx.set(port[lane].neg, neg)
        ctx.set(port[lane].shift, shift)


def _lane_pairs(a, w, act_bits, wgt_bits, act_signed):
    """The products a lane emits, one per cycle: for each weight term, each activation
    term (both lowest first)."""
    return [sw * sa * (1 << (ew + ea))
            for sw, ew in booth_terms(w, wgt_bits, True)
            for sa, ea in booth_terms(a, act_bits, act_signed)]


def _random_operands(rng, n, bits, is_signed):
    """Random values at random widths, some zeros, the range ends."""
    lo, hi = (-(1 << bits - 1), (1 << bits - 1) - 1) if is_signed else (0, (1 << bits) - 1)
    vals = rng.integers(lo, hi + 1, n)
    vals = vals >> rng.integers(0, bits, n)
    vals[rng.random(n) < 0.2] = 0
    return [int(v) for v in vals]


@pytest.mark.parametrize("signed", [True, False])
def test_pe_enumerates_term_pairs_cycle_by_cycle(signed):
    cfg = _cfg(signed)
    dut = LaconicPE(cfg)
    rng = np.random.default_rng(7 + signed)
    lo = -128 if signed else 0
    steps = [([85, 0, -86 if signed else 170], [85, -86, 51]),     # 4 x 4 pairs
             ([0, 0, 0], [0, 0, 0]),                               # empty step: 1 cycle
             ([lo, 255 if not signed else 127, 1], [-128, 127, -1])]
    steps += [(_random_operands(rng, 3, 8, signed), _random_operands(rng, 3, 8, True))
              for _ in range(25)]

    async def tb(ctx):
        ctx.set(dut.clear, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        acc = 0
        current_act = None
        for index, (act, wgt) in enumerate(steps):
            pairs = [_lane_pairs(a, w, 8, 8, signed) for a, w in zip(act, wgt)]
            length = max(1, max(len(p) for p in pairs))
            # Take: on the previous step's last cycle (en still set), as the array does.
            _set_masks(ctx, dut.act, act, 8, signed)
            _set_masks(ctx, dut.wgt, wgt, 8, True)
            ctx.set(dut.take, 1)
            ctx.set(dut.en, int(current_act is not None))
            await ctx.tick()
            if current_act is not None:
                assert ctx.get(dut.acc) == wrap(acc, cfg.acc_bits), (index, "take cycle")
            ctx.set(dut.take, 0)
            ctx.set(dut.en, 1)
            current_act = act
            for cycle in range(length):
                acc += sum(p[cycle] for p in pairs if cycle < len(p))
                if cycle == length - 1:
                    break           # the last cycle is the next step's take cycle
                await ctx.tick()
                assert ctx.get(dut.acc) == wrap(acc, cfg.acc_bits), (index, cycle, act, wgt)
        # Drain the last step.
        ctx.set(dut.take, 0)
        await ctx.tick()
        assert ctx.get(dut.acc) == wrap(acc, cfg.acc_bits)
        assert acc == sum(a * w for act, wgt in steps for a, w in zip(act, wgt))
        # Idle (en low): nothing more is added.
        ctx.set(dut.en, 0)
        await ctx.tick()
        assert ctx.get(dut.acc) == wrap(acc, cfg.acc_bits)

    _sim(dut, tb)


def test_pair_count_detector():
    windows, filters, lanes, nda, ndw = 3, 2, 4, 5, 4
    dut = PairCountDetector(windows, filters, lanes, nda, ndw)
    rng = np.random.default_rng(1)
    cases = [(np.zeros((windows, lanes), int), np.zeros((filters, lanes), int)),
             (np.full((windows, lanes), nda), np.full((filters, lanes), ndw))]
    for _ in range(200):
        a = rng.integers(0, nda + 1, (windows, lanes)) * (rng.random((windows, lanes)) < .6)
        w = rng.integers(0, ndw + 1, (filters, lanes)) * (rng.random((filters, lanes)) < .6)
        cases.append((a, w))

    async def tb(ctx):
        for a, w in cases:
            for (i, l), v in np.ndenumerate(a):
                ctx.set(dut.act_count[i * lanes + l], int(v))
            for (i, l), v in np.ndenumerate(w):
                ctx.set(dut.wgt_count[i * lanes + l], int(v))
            want = max(1, max(int(a[x, l]) * int(w[f, l]) for x in range(windows)
                              for f in range(filters) for l in range(lanes)))
            assert ctx.get(dut.cycles) == want

    _sim(dut, tb, clocked=False)


class _InlineLibrary(ModuleLibrary):
    """Instantiates leaf modules as Amaranth submodules (a fresh component each), so the
    simulator can run a tile whose PEs are otherwise Verilog instances."""

    def __init__(self, modules):
        super().__init__()
        self.modules.update(modules)
        self.used = set()

    def instantiate(self, m, name, instance_name, *, clocked=True):
        template = self.modules[name]
        component = type(template)(template.cfg) if name in self.used else template
        self.used.add(name)
        m.submodules[instance_name] = component
        return component


def _pack(values, bits):
    word = 0
    for v in reversed(to_unsigned(np.asarray(values).ravel(), bits).tolist()):
        word = (word << bits) | v
    return word


@pytest.mark.parametrize("signed", [True, False])
def test_tile_outputs_and_cycles(signed):
    cfg = TileConfig("laconic", filters=2, windows=3, lanes=2, act_bits=6, wgt_bits=5,
                     act_signed=signed, depth=6)
    tile = Tile(cfg)
    tile.array.library = _InlineLibrary(tile.library.modules)
    rng = np.random.default_rng(11 + signed)
    alo, ahi = (-32, 31) if signed else (0, 63)
    runs = []
    for k in (1, 3, 12, 7, 12):
        act = rng.integers(alo, ahi + 1, (cfg.windows, k))
        wgt = rng.integers(-16, 16, (cfg.filters, k))
        act[rng.random(act.shape) < 0.3] = 0
        runs.append((act, wgt))
    runs.append((np.zeros((3, 4), np.int64), np.zeros((2, 4), np.int64)))
    runs.append((np.full((3, 12), alo if signed else ahi), np.full((2, 12), -16)))

    async def tb(ctx):
        ctx.set(tile.out.ready, 1)
        for act, wgt in runs:
            k = act.shape[1]
            pad = (-k) % cfg.lanes
            a = np.pad(act, ((0, 0), (0, pad))).reshape(cfg.windows, -1, cfg.lanes)
            w = np.pad(wgt, ((0, 0), (0, pad))).reshape(cfg.filters, -1, cfg.lanes)
            bricks = a.shape[1]
            for stream, rows, bits in ((tile.wgt, w, cfg.wgt_bits), (tile.act, a, cfg.act_bits)):
                for i in range(bricks):
                    ctx.set(stream.payload, _pack(rows[:, i, :], bits))
                    ctx.set(stream.valid, 1)
                    await ctx.tick()
                ctx.set(stream.valid, 0)
            ctx.set(tile.cmd.payload.bricks, bricks)
            ctx.set(tile.cmd.valid, 1)
            await ctx.tick()
            ctx.set(tile.cmd.valid, 0)
            measured = 0
            while not ctx.get(tile.out.valid):
                await ctx.tick()
                measured += 1
                assert measured < 1000
            got = []
            for _ in range(cfg.windows):
                assert ctx.get(tile.out.valid)
                got.append([ctx.get(tile.out.payload[f]) for f in range(cfg.filters)])
                await ctx.tick()
            assert np.array_equal(np.array(got), act @ wgt.T), (act, wgt)
            assert measured == cycle_model.run_cycles(cfg, act, wgt), (act, wgt)

    _sim(tile, tb)
