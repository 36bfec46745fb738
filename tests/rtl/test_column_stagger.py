"""Staggered fc columns (``rtl/column_stagger.py``): the loader reads each weight row once,
round by round, and column ``c`` sees row ``c`` of a round from the cycle it starts the
round (``c`` cycles after column 0) until it starts the next; the delays are ``c`` cycles
in an fc run and none outside one, one chain per value. The tiles' cycle-exact fc
regressions (stripes, dstripes, zstripes, loom with ``fc_columns``) are registered with
their specs (``tb/test_tiles.py``)."""

import pytest
from amaranth import Module, Signal
from amaranth.hdl import Fragment
from amaranth.sim import Simulator

from termwise.gen.config import preset
from termwise.rtl.column_stagger import ColumnDelays, ColumnRegister, StaggeredColumnWeights


def _rows(cfg, rounds):
    """A distinct value per weight row: row ``r``'s value ``r + 1``, spread over the row."""
    return [(r + 1) * 0x10001 for r in range(rounds * cfg.windows)]


@pytest.mark.parametrize("costs", [[3, 3, 3], [9, 2, 12, 1], [1]])
def test_each_column_holds_its_row_from_its_start_to_its_next(costs):
    """A reference that works ``costs[k]`` cycles on round ``k`` and finishes only when
    ``reading`` allows; each column's weights checked against the row it must hold,
    from the schedule alone (column 0's round starts, shifted by the column)."""
    cfg = preset("stripes-4x4").replace(fc_columns=1)
    cols, rounds = cfg.windows, len(costs)
    rows = _rows(cfg, rounds)
    dut = StaggeredColumnWeights(cfg)
    m = Module()
    m.submodules.dut = dut
    registers = []          # the array's: one per column, loaded on its bit of `load`
    for c in range(cols):
        m.submodules[f"column{c}"] = reg = ColumnRegister(cfg)
        m.d.comb += [reg.row.eq(dut.row), reg.load.eq(dut.load[c]), reg.fc.eq(1)]
        registers.append(reg)
    reads, starts, seen = [], [], []
    sim = Simulator(m)
    sim.add_clock(1e-6)

    async def bench(ctx):
        ctx.set(dut.enable, 1)
        ctx.set(dut.rounds, rounds)
        ctx.set(dut.start, 1)
        addr = None                     # the row read on the previous cycle
        k, done, t = 0, 0, 0
        while t < 200:
            ctx.set(dut.row, rows[addr] if addr is not None else 0)
            if t == 1:
                starts.append(1)
            take = 0
            if t >= 1 and k < rounds:
                if done + 1 < costs[k]:
                    done += 1
                elif k == rounds - 1 or not ctx.get(dut.reading):
                    take, k, done = 1, k + 1, 0
                    if k < rounds:
                        starts.append(t + 1)
            ctx.set(dut.take, take)
            addr = ctx.get(dut.read_addr) if ctx.get(dut.read) else None
            if addr is not None:
                reads.append(addr)
            seen.append([ctx.get(reg.weights) for reg in registers])
            await ctx.tick()
            ctx.set(dut.start, 0)
            t += 1

    sim.add_testbench(bench)
    sim.run()
    assert reads == list(range(rounds * cols))          # every row once, in order
    assert len(starts) == rounds
    for k, s in enumerate(starts):
        end = starts[k + 1] if k + 1 < rounds else s + costs[k] + cols
        for c in range(cols):
            for t in range(s + c, end + c):
                assert seen[t][c] == rows[k * cols + c], (k, c, t)


def test_a_column_reads_its_register_only_in_fc_runs():
    """A column register gives the buffer's row outside fc runs and on its load cycle, and
    the row it loaded otherwise."""
    cfg = preset("stripes-4x4").replace(fc_columns=1)
    dut = ColumnRegister(cfg)
    seen = []
    sim = Simulator(dut)
    sim.add_clock(1e-6)

    async def bench(ctx):
        for t, (fc, load, row) in enumerate([(1, 1, 0x55), (1, 0, 0x66), (0, 0, 0x77),
                                             (0, 0, 0x78), (1, 0, 0x79), (0, 1, 0x7a),
                                             (1, 0, 0x7b)]):
            ctx.set(dut.fc, fc)
            ctx.set(dut.load, load)
            ctx.set(dut.row, row)
            seen.append(ctx.get(dut.weights))
            await ctx.tick()

    sim.add_testbench(bench)
    sim.run()
    # loaded 0x55 at t=0, held through fc-less cycles, reloaded (0x7a) at t=5 with fc low
    assert seen == [0x55, 0x55, 0x77, 0x78, 0x55, 0x7a, 0x7a]


def test_delays_are_column_deep_in_fc_runs_and_shared():
    """Column ``c`` reads a value ``c`` cycles late in an fc run, as it is outside one; the
    chains shift only in fc runs (so a column's first taps hold what was there before: zero
    after reset for a control chain); one chain per value, tapped per column."""
    m = Module()
    fc = Signal()
    counter = Signal(8)
    m.d.sync += counter.eq(counter + 1)
    stagger = ColumnDelays(m, fc)
    late = {c: stagger.delayed(counter, c, name="count", control=True) for c in (0, 1, 3)}
    busy = stagger.any_late(counter)
    assert late[0] is counter
    # one chain, as deep as the deepest column, tapped per column
    assert len(stagger._chains) == 1 and len(stagger._chains[id(counter)][1]) == 3
    on_from = 6
    seen = []
    sim = Simulator(m)
    sim.add_clock(1e-6)

    async def bench(ctx):
        for t in range(14):
            ctx.set(fc, int(t >= on_from))
            seen.append((t, ctx.get(counter), {c: ctx.get(v) for c, v in late.items()},
                         ctx.get(busy)))
            await ctx.tick()

    sim.add_testbench(bench)
    sim.run()
    for t, count, got, any_late in seen:
        for c, value in got.items():
            if t < on_from or c == 0:
                assert value == count
            else:       # shifted in from cycle `on_from` on; before that, the reset zero
                assert value == (count - c if t - c >= on_from else 0), (t, c)
        assert any_late == (t > on_from)


def test_delays_take_signals_only():
    m = Module()
    stagger = ColumnDelays(m, Signal())
    with pytest.raises(TypeError):
        stagger.delayed(Signal(2) + 1, 1, name="x")
    Fragment.get(m, None)       # elaborated: no warning of an unused module
