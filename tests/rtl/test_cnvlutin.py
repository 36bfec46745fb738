"""amaranth.sim tests of the Cnvlutin zero-free encoder, lane stores and array
(rtl/cnvlutin.py), each against a pure-Python reference written from the paper's rule
(Albericio et al., ISCA 2016): lane ``l`` keeps the non-zero values of its column of bricks
with their brick indices as offsets (:func:`termwise.golden.arch.cnvlutin.pack_zero_free`),
and each cycle every lane takes its next pair, the offset selecting its weight."""

import numpy as np
import pytest

from termwise.gen.config import TileConfig
from termwise.golden import cycles as cycle_model
from termwise.golden.arch.cnvlutin import pack_zero_free
from termwise.golden.twos_complement import value_range
from termwise.rtl.cnvlutin import ZeroFreeEncoder, ZeroFreeStore
from termwise.rtl.tile import Tile
from termwise.golden.packing import pack_row as _pack
from termwise.tb.amaranth_sim import InlineLibrary as _InlineLibrary
from termwise.tb.amaranth_sim import run_command
from termwise.tb.amaranth_sim import run_simulation as _sim


def _cfg(**kw):
    base = dict(arch="cnvlutin", filters=2, windows=1, lanes=4, act_bits=6, wgt_bits=5,
                depth=8)
    base.update(kw)
    return TileConfig(**base)


def _dense(cfg, rng, n, density, signed=True):
    """Bricks of values of the run's signedness (``signed``: its act_signed)."""
    lo, hi = value_range(cfg.act_bits, signed)
    bricks = rng.integers(lo, hi + 1, (n, cfg.lanes))
    bricks[rng.random(bricks.shape) >= density] = 0
    return bricks


def test_pack_zero_free_by_hand():
    assert pack_zero_free([[0, 3], [5, 0], [7, -1]]) == [([5, 7], [1, 2]), ([3, -1], [0, 2])]
    assert pack_zero_free([[0, 0]]) == [([], []), ([], [])]
    assert pack_zero_free([]) == []


@pytest.mark.parametrize("signed", [True, False])
def test_encoder_against_packer(signed):
    """Dense bricks through the encoder: the writes it issues, replayed into per-lane lists,
    equal the pure-Python packer's streams; counts follow; rewind empties them."""
    cfg = _cfg()
    dut = ZeroFreeEncoder(cfg)
    rng = np.random.default_rng(3 + signed)
    runs = [_dense(cfg, rng, n, d, signed) for n, d in
            ((8, .5), (3, 0.), (8, 1.), (1, 1.), (5, .2), (8, .7))]
    mask = (1 << cfg.act_bits) - 1      # the encoder stores and packs bit patterns

    async def tb(ctx):
        for bricks in runs:
            got = [([], []) for _ in range(cfg.lanes)]
            for b, brick in enumerate(bricks):
                if rng.random() < .3:           # an idle cycle: a brick but no valid
                    for lane in range(cfg.lanes):
                        ctx.set(dut.brick[lane], 1)
                    ctx.set(dut.valid, 0)
                    assert ctx.get(dut.write) == 0
                    await ctx.tick()
                for lane in range(cfg.lanes):
                    ctx.set(dut.brick[lane], int(brick[lane]) & mask)
                ctx.set(dut.index, b)
                ctx.set(dut.valid, 1)
                for lane in range(cfg.lanes):
                    assert ctx.get(dut.write[lane]) == (brick[lane] != 0)
                    if ctx.get(dut.write[lane]):
                        assert ctx.get(dut.addr[lane]) == len(got[lane][0])
                        got[lane][0].append(ctx.get(dut.entry[lane].value))
                        got[lane][1].append(ctx.get(dut.entry[lane].offset))
                await ctx.tick()
            ctx.set(dut.valid, 0)
            want = pack_zero_free(bricks)
            assert got == [([v & mask for v in values], offsets) for values, offsets in want]
            assert [ctx.get(dut.count[lane]) for lane in range(cfg.lanes)] == \
                [len(v) for v, _ in want]
            ctx.set(dut.rewind, 1)
            await ctx.tick()
            ctx.set(dut.rewind, 0)
            assert all(ctx.get(dut.count[lane]) == 0 for lane in range(cfg.lanes))

    _sim(dut, tb)


@pytest.mark.parametrize("signed", [True, False])
def test_store_streams_against_packer(signed):
    """Write dense bricks, then walk the shared stream position: every lane presents its
    packed pairs in order, ``has`` drops at its count and at offsets >= ``bricks``."""
    cfg = _cfg(lanes=3)
    dut = ZeroFreeStore(cfg)
    rng = np.random.default_rng(5 + signed)
    runs = [(_dense(cfg, rng, 8, .5, signed), 8), (_dense(cfg, rng, 6, .8, signed), 4),
            (np.zeros((2, 3), np.int64), 2), (_dense(cfg, rng, 8, 1., signed), 8)]
    mask = (1 << cfg.act_bits) - 1      # the store holds bit patterns

    async def tb(ctx):
        for bricks, limit in runs:
            for b, brick in enumerate(bricks):
                for lane in range(cfg.lanes):
                    ctx.set(dut.brick[lane], int(brick[lane]) & mask)
                ctx.set(dut.index, b)
                ctx.set(dut.valid, 1)
                await ctx.tick()
            ctx.set(dut.valid, 0)
            ctx.set(dut.bricks, limit)
            want = pack_zero_free(bricks)
            ctx.set(dut.read_addr, 0)
            await ctx.tick()
            for step in range(cfg.depth + 1):
                ctx.set(dut.step, step)
                ctx.set(dut.read_addr, (step + 1) % cfg.depth)
                for lane, (values, offsets) in enumerate(want):
                    live = step < len(values) and offsets[step] < limit
                    assert ctx.get(dut.has[lane]) == live, (step, lane)
                    if live:
                        assert ctx.get(dut.value[lane]) == values[step] & mask
                        assert ctx.get(dut.offset[lane]) == offsets[step]
                await ctx.tick()
            ctx.set(dut.rewind, 1)
            await ctx.tick()
            ctx.set(dut.rewind, 0)

    _sim(dut, tb)


def _lane_reference(cfg, act, wgt):
    """Pure-Python Cnvlutin schedule: per cycle every lane takes its next pair; returns
    (outputs, step cycles)."""
    k = act.shape[1]
    pad = (-k) % cfg.lanes
    a = np.pad(act, ((0, 0), (0, pad))).reshape(cfg.windows, -1, cfg.lanes)
    w = np.pad(wgt, ((0, 0), (0, pad)))
    out = [[0] * cfg.filters for _ in range(cfg.windows)]
    steps = 0
    for win in range(cfg.windows):
        streams = pack_zero_free(a[win])
        cycle = 0
        while any(cycle < len(v) for v, _ in streams):
            for lane, (values, offsets) in enumerate(streams):
                if cycle < len(values):
                    for f in range(cfg.filters):
                        out[win][f] += values[cycle] * int(w[f, offsets[cycle] * cfg.lanes + lane])
            cycle += 1
        steps = max(steps, cycle)
    return np.array(out), max(steps, 1)


@pytest.mark.parametrize("changes,signed", [({}, True), ({}, False),
                                            ({"windows": 3, "lanes": 3}, True),
                                            ({"windows": 3, "lanes": 3}, "alternate")])
def test_tile_against_lane_reference(changes, signed):
    """Whole tile in the simulator: outputs equal the lane-by-lane reference (and the dot
    product), cycles equal the golden model and the reference's step count + 2; weights
    kept between runs; all-zero, dense and single-busy-lane runs. ``signed``: the runs'
    act_signed register (``"alternate"``: the first random runs switch between both, on
    one tile)."""
    cfg = _cfg(**changes)
    tile = Tile(cfg)
    tile.array.library = _InlineLibrary(tile.library.modules)
    rng = np.random.default_rng(7)
    run_signed = signed if signed != "alternate" else True
    lo, hi = value_range(cfg.act_bits, run_signed)
    full = cfg.depth * cfg.lanes
    runs = []
    for i, (k, density) in enumerate(((1, 1.), (5, .5), (full, .6), (full - 1, .6),
                                      (17, 0.3))):
        sign = run_signed if signed != "alternate" else i % 2 == 0
        act = rng.integers(*value_range(cfg.act_bits, sign), (cfg.windows, k))
        act[rng.random(act.shape) >= density] = 0
        runs.append((act, rng.integers(-16, 16, (cfg.filters, k)), True, sign))
    # Rows beyond the command's bricks are written but ignored (outputs and cycles).
    runs.append((runs[2][0], runs[2][1], True, runs[2][3], 3))
    runs.append((rng.integers(lo, hi + 1, (cfg.windows, full)),          # no zeros
                 rng.integers(-16, 16, (cfg.filters, full)), True, run_signed))
    runs.append((np.zeros((cfg.windows, 12), np.int64), rng.integers(-16, 16, (cfg.filters, 12)),
                 True, run_signed))
    busy = np.zeros((cfg.windows, full), np.int64)
    busy[-1, 1::cfg.lanes] = hi                          # lane 1 of the last window only
    runs.append((busy, rng.integers(-16, 16, (cfg.filters, full)), True, run_signed))
    runs.append((np.full((cfg.windows, full), lo or hi), runs[-1][1], False,   # weights kept
                 run_signed))

    async def tb(ctx):
        ctx.set(tile.out.ready, 1)
        for act, wgt, load_weights, sign, *limit in runs:
            k = act.shape[1]
            pad = (-k) % cfg.lanes
            a = np.pad(act, ((0, 0), (0, pad))).reshape(cfg.windows, -1, cfg.lanes)
            w = np.pad(wgt, ((0, 0), (0, pad))).reshape(cfg.filters, -1, cfg.lanes)
            bricks = a.shape[1]
            streams = [(tile.act, a, cfg.act_bits)]
            if load_weights:
                streams.insert(0, (tile.wgt, w, cfg.wgt_bits))
            for stream, rows, bits in streams:
                for i in range(bricks):
                    ctx.set(stream.payload, _pack(rows[:, i, :], bits))
                    ctx.set(stream.valid, 1)
                    await ctx.tick()
                ctx.set(stream.valid, 0)
            if limit:
                bricks = limit[0]
                act, wgt = act[:, :bricks * cfg.lanes], wgt[:, :bricks * cfg.lanes]
            measured, got = await run_command(ctx, tile, cfg, bricks, act_signed=sign)
            ref, steps = _lane_reference(cfg, act, wgt)
            assert np.array_equal(np.array(got), ref)
            assert np.array_equal(ref, act @ wgt.T)
            rt = cfg.runtime_values(act_signed=bool(sign))
            assert measured == cycle_model.run_cycles(cfg, act, wgt, rt) == steps + 2

    _sim(tile, tb)
