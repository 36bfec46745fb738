"""Amaranth-simulator test of the pipelined bf16 PE (rtl/baseline_bf16.py: BF16PE): bricks
with gaps in ``en``, a clear between two runs, and the accumulator compared bit for bit
with the golden model's order (golden/arch/baseline_bf16.py) ``latency`` cycles after each
brick; the latency is the one the spec derives (gen/designs/baseline_bf16.py: pipeline)."""

import numpy as np
import pytest
from amaranth.sim import Simulator

from termwise.gen.config import preset
from termwise.gen.designs.baseline_bf16 import pipeline, tree_levels
from termwise.golden.arch.baseline_bf16 import run_overhead, tree_sum
from termwise.golden.primitives.bf16 import bf16_to_f32, f32_to_bf16
from termwise.rtl.baseline_bf16 import BF16PE


def test_pipeline_depth_is_derived_from_lanes():
    assert [tree_levels(n) for n in (1, 2, 3, 4, 5, 8, 9, 16)] == [0, 1, 2, 2, 3, 3, 4, 4]
    cfg = preset("baseline-bf16-4x4")
    p = pipeline(cfg)
    assert (p.multiplier_stages, p.tree_register_levels, p.latency) == (2, (0, 1), 4)
    assert run_overhead(cfg) == 4
    assert pipeline(cfg.replace(lanes=1)).latency == 2
    assert run_overhead(cfg.replace(lanes=1)) == 2


@pytest.mark.parametrize("lanes", [1, 3, 4])
def test_pipelined_pe_matches_the_golden_order(lanes):
    cfg = preset("baseline-bf16-4x4").replace(lanes=lanes)
    rng = np.random.default_rng(lanes)
    steps = 60
    vals = (rng.standard_normal((steps, 2, lanes))
            * 2.0 ** rng.integers(-12, 12, (steps, 2, lanes))).astype(np.float32)
    bits = f32_to_bf16(vals)
    en = rng.random(steps) < 0.75
    clear = np.zeros(steps, dtype=bool)
    clear[30] = True                     # a new run: the tile clears with the pipeline empty
    en[30 - 8:31] = False
    dut = BF16PE(cfg)
    lat = dut.latency
    assert lat == pipeline(cfg).latency
    sums = tree_sum(bf16_to_f32(bits[:, 0]) * bf16_to_f32(bits[:, 1]))   # (steps,)
    total = steps + lat + 1
    got = np.zeros(total, dtype=np.uint32)
    want = np.zeros(total, dtype=np.float32)
    acc = np.float32(0.0)
    with np.errstate(all="ignore"):
        for t in range(total):
            # the accumulator after cycle t's edge holds brick t - lat (presented on cycle
            # t - lat, in the last pipeline register on cycle t)
            s = t - lat
            if t < steps and clear[t]:
                acc = np.float32(0.0)
            elif 0 <= s < steps and en[s]:
                acc = np.float32(acc + sums[s])
            want[t] = acc

    async def tb(ctx):
        for t in range(total):
            if t < steps:
                for lane in range(lanes):
                    ctx.set(dut.act[lane], int(bits[t, 0, lane]))
                    ctx.set(dut.wgt[lane], int(bits[t, 1, lane]))
            ctx.set(dut.en, int(t < steps and en[t]))
            ctx.set(dut.clear, int(t < steps and clear[t]))
            await ctx.tick()
            got[t] = ctx.get(dut.acc)
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(tb)
    sim.run()
    want_bits = want.view(np.uint32)
    bad = np.flatnonzero(got != want_bits)
    assert not bad.size, (f"cycle {bad[0]}: {int(got[bad[0]]):#010x}, "
                          f"model {int(want_bits[bad[0]]):#010x}")
