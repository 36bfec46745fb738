"""amaranth.sim tests of the Laconic array (rtl/laconic.py) against pure-Python references.

* :class:`LaconicPE`: every cycle's accumulator value against the sum of the lanes'
  signed pair products ``+-2**(ew + ea)``.
* :class:`PairCountDetector`: against the brute-force ``max(1, max terms(a) * terms(w))``.
* The whole tile on a tiny configuration (PEs simulated inline instead of as Verilog
  instances): outputs against ``a @ w.T`` and cycles against the golden cycle model.
"""

import numpy as np
from amaranth import Cat, Signal
import pytest

from termwise.gen.config import TileConfig
from termwise.golden import cycles as cycle_model
from termwise.golden.twos_complement import wrap
from termwise.rtl.laconic import ColumnPairCount, LaconicPE, PairCountDetector
from termwise.rtl.tile import Tile
from termwise.golden.packing import pack_row as _pack
from termwise.tb.amaranth_sim import InlineLibrary as _InlineLibrary
from termwise.tb.amaranth_sim import run_command
from termwise.tb.amaranth_sim import run_simulation as _sim


def _cfg(**kw):
    base = dict(filters=1, windows=1, lanes=3, act_bits=8, wgt_bits=8)
    base.update(kw)
    return TileConfig("laconic", **base)


@pytest.mark.parametrize("reduction, lanes, act_bits", [
    ("histogram", 4, 8), ("histogram", 4, 7), ("histogram", 16, 8), ("histogram", 3, 8),
    ("histogram", 1, 8), ("onehot", 4, 8), ("onehot", 4, 7)])
def test_pe_sums_signed_pair_products(reduction, lanes, act_bits):
    """Each cycle: sum over lanes of +-2**(ew + ea) for the lanes whose two terms are valid,
    added when ``en`` is set; ``clear`` wins. Random terms over the full exponent ranges:
    the Booth digits of an ``act_bits + 1``-bit activation value (which holds a signed or an
    unsigned activation; 5 digits at 8 bits, 4 at 7). Both reductions; the histogram's
    count width (and so its groups) changes with the lanes: 16 lanes give 5-bit counts
    whose largest value (all 16 lanes on one exponent, the first cycles) needs every bit."""
    cfg = _cfg(lanes=lanes, act_bits=act_bits, reduction=reduction)
    dut = LaconicPE(cfg)
    assert dut.reduction == reduction
    rng = np.random.default_rng(5 + act_bits + 100 * lanes)
    nda, ndw = dut.nda, dut.ndw
    assert (nda, ndw) == ((act_bits + 2) // 2, 4)

    async def tb(ctx):
        ref = 0
        for cycle in range(250):
            en, clear = int(rng.random() < .85), int(rng.random() < .03)
            total = 0
            for lane in range(cfg.lanes):
                wv, av = int(rng.random() < .8), int(rng.random() < .8)
                wn, an = int(rng.integers(2)), int(rng.integers(2))
                we, ae = int(rng.integers(2 * ndw)), int(rng.integers(2 * nda))
                if cycle < 8:           # the extremes: largest exponents, both signs
                    we, ae, wn, an, wv, av = 2 * ndw - 1, 2 * nda - 1, cycle & 1, 0, 1, 1
                for port, v, n, e in ((dut.wgt, wv, wn, we), (dut.act, av, an, ae)):
                    ctx.set(port[lane].valid, v)
                    ctx.set(port[lane].neg, n)
                    ctx.set(port[lane].exp, e)
                if wv and av:
                    total += (-1) ** (wn ^ an) * (1 << (we + ae))
            ctx.set(dut.en, en)
            ctx.set(dut.clear, clear)
            await ctx.tick()
            ref = 0 if clear else ref + (total if en else 0)
            assert ctx.get(dut.acc) == wrap(ref, cfg.acc_bits), cycle

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


def test_pair_count_detector_with_per_column_weights():
    """``columns``: a column's activations pair with its own weights only; each column's
    longest lane from a ``ColumnPairCount`` on the detector's ``column_pairs``, wired as
    the array wires them; the cycles against the formula."""
    from amaranth import Module
    from amaranth.lib import data
    windows, filters, lanes, nda, ndw = 3, 2, 4, 5, 4
    det = PairCountDetector(windows, filters, lanes, nda, ndw, columns=True)
    act_count = det.act_count
    dut = Module()
    dut.submodules.det = det
    wgt_count = [Signal(data.ArrayLayout(range(ndw + 1), filters * lanes))
                 for _ in range(windows)]
    for w in range(windows):
        dut.submodules[f"column{w}"] = column = ColumnPairCount(filters, lanes, nda, ndw)
        dut.d.comb += [column.act_count.as_value().eq(
                           Cat(det.act_count[w * lanes + l] for l in range(lanes))),
                       column.wgt_count.eq(wgt_count[w]),
                       det.column_pairs[w].eq(column.pairs)]
    rng = np.random.default_rng(2)
    cases = [(np.zeros((windows, lanes), int), np.zeros((windows, filters, lanes), int)),
             (np.full((windows, lanes), nda), np.full((windows, filters, lanes), ndw))]
    for _ in range(200):
        a = rng.integers(0, nda + 1, (windows, lanes)) * (rng.random((windows, lanes)) < .6)
        w = rng.integers(0, ndw + 1, (windows, filters, lanes)) * (
            rng.random((windows, filters, lanes)) < .6)
        cases.append((a, w))

    async def tb(ctx):
        for a, w in cases:
            for (i, l), v in np.ndenumerate(a):
                ctx.set(act_count[i * lanes + l], int(v))
            for (c, f, l), v in np.ndenumerate(w):
                ctx.set(wgt_count[c][f * lanes + l], int(v))
            want = max(1, max(int(a[x, l]) * int(w[x, f, l]) for x in range(windows)
                              for f in range(filters) for l in range(lanes)))
            assert ctx.get(det.cycles) == want

    _sim(dut, tb, clocked=False)


@pytest.mark.parametrize("signed", [True, False, "alternate"])
def test_tile_outputs_and_cycles(signed):
    """``signed``: the runs' act_signed register (``"alternate"``: runs of both kinds, one
    after the other, on one tile)."""
    cfg = TileConfig("laconic", filters=2, windows=3, lanes=2, act_bits=6, wgt_bits=5,
                     depth=6)
    tile = Tile(cfg)
    tile.array.library = _InlineLibrary(tile.library.modules)
    rng = np.random.default_rng(11 + (signed is True) + 2 * (signed == "alternate"))
    runs = []
    for i, k in enumerate((1, 3, 12, 7, 12, 4, 12)):
        sign = signed if signed != "alternate" else i % 2 == 1
        alo, ahi = (-32, 31) if sign else (0, 63)
        if i == 5:
            act, wgt = np.zeros((3, k), np.int64), np.zeros((2, k), np.int64)
        elif i == 6:
            act, wgt = np.full((3, k), alo if sign else ahi), np.full((2, k), -16)
        else:
            act = rng.integers(alo, ahi + 1, (cfg.windows, k))
            wgt = rng.integers(-16, 16, (cfg.filters, k))
            act[rng.random(act.shape) < 0.3] = 0
        runs.append((act, wgt, sign))
    if signed == "alternate":      # the extreme run in the other signedness too
        runs.append((np.full((3, 12), -32), np.full((2, 12), -16), True))

    async def tb(ctx):
        ctx.set(tile.out.ready, 1)
        for act, wgt, sign in runs:
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
            measured, got = await run_command(ctx, tile, cfg, bricks, act_signed=sign)
            assert np.array_equal(np.array(got), act @ wgt.T), (act, wgt, sign)
            rt = cfg.runtime_values(act_signed=bool(sign))
            assert measured == cycle_model.run_cycles(cfg, act, wgt, rt), (act, wgt, sign)

    _sim(tile, tb)


def test_every_detector_port_fits_amaranth_at_laconic_16x16_with_column_weights():
    """laconic-16x16 with ``fc_columns``: 64 columns x 16 filters x 16 lanes of 4-bit
    weight term counts are 65,536 bits, which Amaranth 0.5 cannot build as one port (the
    tile's emission ended in an assertion in ``_nir.Net.from_cell`` after half an hour).
    Since RTL version 7 each column's counts go to a ``ColumnPairCount`` of their own (one
    column's, every count there) and the detector takes one product per column."""
    from amaranth import Shape
    from termwise.rtl.encoders import booth_digit_count
    nda, ndw = booth_digit_count(17), booth_digit_count(16)
    det = PairCountDetector(64, 16, 16, nda, ndw, columns=True)
    column = ColumnPairCount(16, 16, nda, ndw)
    for c in (det, column):
        c._MustUse__silence = True        # only its signature is looked at
        widths = [Shape.cast(m.shape).width for _, m in c.signature.members.items()]
        assert max(widths) < 1 << 16
    assert "wgt_count" not in det.signature.members
    assert det.signature.members["column_pairs"].dimensions == (64,)
    assert Shape.cast(column.signature.members["wgt_count"].shape).width == 16 * 16 * 4
