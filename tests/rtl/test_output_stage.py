"""The pipelined fused output stage (issue 15) in Amaranth's simulator: a whole tile's rows
leave through the stage under random ``out.ready`` backpressure and random gaps in the
residual stream, each row equal to the golden fused operator, none lost or repeated, and
the first row ``cfg.output_latency`` cycles later than without the stage."""

import numpy as np
import pytest

from termwise.gen.config import TileConfig
from termwise.golden import cycles as cycle_model
from termwise.golden.tile_model import tile_outputs
from termwise.rtl.tile import Tile
from termwise.tb.amaranth_sim import InlineLibrary, run_simulation


def _pack(values, bits):
    return sum((int(v) & ((1 << bits) - 1)) << (i * bits)
               for i, v in enumerate(np.asarray(values).ravel()))


@pytest.mark.parametrize("stage", [
    dict(bias=True, residual=True, activation="relu", out_bits=6),
    dict(activation="relu6", out_bits=5),
    dict(bias=True, residual=True),
])
@pytest.mark.parametrize("seed", [0, 1])
def test_rows_through_the_stage_under_backpressure(stage, seed):
    cfg = TileConfig("stripes", filters=2, windows=3, lanes=2, act_bits=4, wgt_bits=4,
                     depth=4, **stage)
    assert cfg.output_latency == (5 if cfg.out_bits else 2)
    tile = Tile(cfg)
    tile.array.library = InlineLibrary(tile.library.modules)
    rng = np.random.default_rng(seed)
    k = 3 * cfg.lanes
    act = rng.integers(-8, 8, (cfg.windows, k))
    wgt = rng.integers(-8, 8, (cfg.filters, k))
    bias = rng.integers(-40, 40, cfg.filters)
    residual = rng.integers(-40, 40, (cfg.windows, cfg.filters))
    extra = {}
    if cfg.out_bits:
        # A scale below 1, as the golden model's ReLU6 cap (in accumulator units) assumes.
        extra = dict(multiplier=int(rng.integers(1, 1 << 10)), shift=int(rng.integers(10, 13)))
    if cfg.activation == "relu6":
        extra["cap"] = 9
    rt = cfg.runtime_values(act_signed=True, **extra)
    expected = tile_outputs(cfg, act, wgt, rt, bias=bias if cfg.bias else None,
                            residual=residual if cfg.residual else None)
    model = cycle_model.run_cycles(cfg, act, wgt, rt)
    without = cycle_model.run_cycles(TileConfig("stripes", filters=2, windows=3, lanes=2,
                                                act_bits=4, wgt_bits=4, depth=4), act, wgt, rt)
    assert model == without + cfg.output_latency

    async def tb(ctx):
        a = act.reshape(cfg.windows, -1, cfg.lanes)
        w = wgt.reshape(cfg.filters, -1, cfg.lanes)
        if cfg.bias:
            ctx.set(tile.bias.payload.as_value(), _pack(bias, cfg.acc_bits))
            ctx.set(tile.bias.valid, 1)
            await ctx.tick()
            ctx.set(tile.bias.valid, 0)
        for stream, rows, bits in ((tile.wgt, w, cfg.wgt_bits), (tile.act, a, cfg.act_bits)):
            for i in range(rows.shape[1]):
                ctx.set(stream.payload, _pack(rows[:, i, :], bits))
                ctx.set(stream.valid, 1)
                await ctx.tick()
            ctx.set(stream.valid, 0)
        for name, value in rt.items():
            ctx.set(getattr(tile.cmd.payload, name), int(value))
        ctx.set(tile.cmd.payload.bricks, a.shape[1])
        ctx.set(tile.cmd.valid, 1)
        await ctx.tick()
        ctx.set(tile.cmd.valid, 0)
        got, fed, cycles, first = [], 0, 0, None
        while len(got) < cfg.windows:
            cycles += 1
            assert cycles < 500, "rows stopped"
            ready = bool(rng.random() < 0.6)
            ctx.set(tile.out.ready, ready)
            if cfg.residual:
                offer = fed < cfg.windows and bool(rng.random() < 0.7)
                ctx.set(tile.residual.valid, offer)
                if offer:
                    ctx.set(tile.residual.payload.as_value(), _pack(residual[fed], cfg.acc_bits))
            if ctx.get(tile.out.valid) and first is None:
                first = cycles - 1
            if ctx.get(tile.out.valid) and ready:
                got.append([ctx.get(tile.out.payload[f]) for f in range(cfg.filters)])
            if cfg.residual and ctx.get(tile.residual.valid) and ctx.get(tile.residual.ready):
                fed += 1
            await ctx.tick()
        ctx.set(tile.out.ready, 0)
        if cfg.residual:
            ctx.set(tile.residual.valid, 0)
            assert fed == cfg.windows
        for _ in range(3):            # back to idle: no further row
            await ctx.tick()
            assert not ctx.get(tile.out.valid)
        assert ctx.get(tile.cmd.ready)
        assert np.array_equal(np.array(got), expected)
        if not cfg.residual:          # rows wait for nothing but the run and the stage
            assert first == model

    run_simulation(tile, tb)
