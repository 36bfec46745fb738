"""Issue 14, point 2: fully-connected layers at batch 1 dealt over the window columns
(``fc_columns``): the lowering, the functional model, the cycle model against an
independent cycle-by-cycle schedule, the configuration checks and the network simulator."""

import numpy as np
import pytest

from termwise.gen.config import ConfigError, preset
from termwise.golden.cycles import fc_run_cycles, fc_step_cycles, run_cycles
from termwise.golden.lowering import assemble_fc_columns, lower_fc_columns
from termwise.golden.tile_model import fc_column_outputs

FC_DESIGNS = ("stripes-4x4", "dstripes-4x4", "zstripes-4x4", "loom-4x4")


def fc_cfg(name="stripes-4x4", **changes):
    return preset(name).replace(fc_columns=1, **changes)


@pytest.mark.parametrize("k,n", [(1, 1), (5, 4), (33, 9), (4 * 8 * 8 + 3, 5), (1000, 13)])
def test_lowering_sums_to_the_product(k, n):
    """The columns' shares of every run add up to ``w @ x`` (an independent NumPy product),
    and column c of round r holds input brick r * windows + c."""
    cfg = fc_cfg()
    rng = np.random.default_rng(k)
    x = rng.integers(-128, 128, k)
    w = rng.integers(-128, 128, (n, k))
    runs = lower_fc_columns(cfg, x, w)
    results = [np.einsum("ck,cfk->cf", r.act, r.wgt) for r in runs]
    assert np.array_equal(assemble_fc_columns(runs, results, n), w @ x)
    lanes, cols = cfg.lanes, cfg.windows
    xp = np.pad(x, (0, -k % (lanes * cols)))
    first = runs[0]
    for c in range(cols):
        for r in range(first.k // lanes):
            brick = r * cols + c
            assert np.array_equal(first.act[c, r * lanes:(r + 1) * lanes],
                                  xp[brick * lanes:(brick + 1) * lanes])
    assert all(r.k // lanes <= cfg.fc_rounds for r in runs)
    chunks = -(-k // (lanes * cols * cfg.fc_rounds))
    assert len(runs) == chunks * -(-n // cfg.filters)


def test_outputs_use_each_columns_own_weights():
    cfg = fc_cfg()
    rng = np.random.default_rng(0)
    act = rng.integers(-100, 100, (cfg.windows, 3 * cfg.lanes))
    wgt = rng.integers(-100, 100, (cfg.windows, cfg.filters, 3 * cfg.lanes))
    rt = cfg.runtime_values(fc=True)
    got = fc_column_outputs(cfg, act, wgt, rt)
    assert np.array_equal(got, np.einsum("ck,cfk->cf", act, wgt))
    # The broadcast (conv) model would give column c column 0's weights.
    assert not np.array_equal(got, act @ wgt[0].T)


def schedule_cycles(cfg, costs) -> int:
    """An independent cycle-by-cycle account of an fc run from the protocol of
    rtl/column_stagger.py: the loader reads a round's ``windows`` rows on consecutive
    cycles, round 0's from the command cycle (t = 0), each later round's from the cycle
    column 0 finishes the round before; column 0 works ``costs[k]`` cycles on round k from
    the cycle after the round's first read, but finishes a round (when another follows) only
    on a cycle after the round's reads, else waits on its last cycle; column c does the
    same c cycles later. Results appear RUN_OVERHEAD cycles after the last column's last
    cycle, counted like a conv run (whose first step starts on the cycle after the command
    and ends at sum(costs))."""
    from termwise.golden.arch import model_of
    n, cols = len(costs), cfg.windows
    reads_end = cols - 1        # the last read of round 0's rows
    k, done = 0, 0              # column 0's round and the cycles it has done of it
    t = 0
    while True:
        t += 1
        if done + 1 < costs[k]:
            done += 1
            continue
        if k < n - 1 and t <= reads_end:    # its last cycle, while the reads go on: wait
            continue
        if k == n - 1:
            break
        k, done, reads_end = k + 1, 0, t + cols - 1     # the next round's reads begin
    return t + (cols - 1) + model_of(cfg).RUN_OVERHEAD


@pytest.mark.parametrize("name", FC_DESIGNS)
@pytest.mark.parametrize("seed", range(6))
def test_run_cycles_match_an_independent_schedule(name, seed):
    """``fc_run_cycles`` against :func:`schedule_cycles` on random runs of 1..fc_rounds
    rounds, at precisions below and above the columns' weight-read time."""
    cfg = fc_cfg(name)
    rng = np.random.default_rng(seed)
    rounds = int(rng.integers(1, cfg.fc_rounds + 1))
    signed = bool(seed % 2)
    p = int(rng.integers(1, cfg.act_bits + 1))
    lo, hi = (-(1 << (p - 1)), 1 << (p - 1)) if signed else (0, 1 << p)
    act = rng.integers(lo, hi, (cfg.windows, rounds * cfg.lanes))
    act[:, rng.random(act.shape[1]) < 0.3] = 0
    wgt = rng.integers(-100, 100, (cfg.windows, cfg.filters, rounds * cfg.lanes))
    kw = {"precision": p} if "precision" in cfg.runtime else {}
    if "wgt_precision" in cfg.runtime:
        kw["wgt_precision"] = int(rng.integers(1, cfg.wgt_bits + 1))
    rt = cfg.runtime_values(act_signed=signed, fc=True, **kw)
    costs = [int(c) for c in fc_step_cycles(cfg, act, wgt, rt)]
    assert len(costs) == rounds
    assert fc_run_cycles(cfg, act, wgt, rt) == schedule_cycles(cfg, costs)


def test_one_round_costs_the_weight_reads_and_the_step():
    """The issue's repro at 4x4: one round of Stripes at precision 3 on 8 columns: column
    0 starts on the cycle after the command and takes 3 cycles, column 7 ends 7 cycles
    after it, then Stripes' 2 of overhead; the same bricks on one column (the old mapping)
    take 8 steps of 3 cycles."""
    cfg = fc_cfg()
    act = np.ones((cfg.windows, cfg.lanes), np.int64)
    wgt = np.ones((cfg.windows, cfg.filters, cfg.lanes), np.int64)
    rt = cfg.runtime_values(3, fc=True)
    assert fc_run_cycles(cfg, act, wgt, rt) == 3 + 7 + 2
    one_column = np.zeros((cfg.windows, cfg.windows * cfg.lanes), np.int64)
    one_column[0] = 1
    assert run_cycles(cfg, one_column, np.ones((cfg.filters, one_column.shape[1])),
                      cfg.runtime_values(3)) == 8 * 3 + 2


def test_config_checks():
    with pytest.raises(ConfigError, match="^windows: must be at least 2 with fc_columns"):
        preset("stripes-4x4").replace(fc_columns=1, windows=1)
    with pytest.raises(ConfigError, match=r"^depth: must be at least windows \(8\)"):
        preset("stripes-4x4").replace(fc_columns=1, depth=4)
    with pytest.raises(ConfigError, match="^fc_columns: applies only to arch"):
        preset("baseline-4x4").replace(fc_columns=1)
    with pytest.raises(ConfigError, match=r"^fc_columns: must be one of 0\.\.1 for stripes"):
        preset("stripes-4x4").replace(fc_columns=2)
    with pytest.raises(ConfigError, match="^fc: needs fc_columns = 1"):
        preset("stripes-4x4").runtime_values(fc=True)
    cfg = fc_cfg()
    assert "fc" in cfg.runtime and "fc" not in preset("stripes-4x4").runtime
    assert cfg.runtime_values()["fc"] is False
    # The option adds hardware only when set: a tile without it keeps its Verilog name.
    assert preset("stripes-4x4").top_name == "termwise_stripes_f4w8l4_a8w8_acc24_d64"
    assert cfg.top_name.endswith("_fc1")


def test_netsim_fc_layer():
    """A batch-1 fc layer in the network simulator: exact RTL cycles are the sum of the
    runs' ``fc_run_cycles``; the steady-state cycles cost each round max(step, windows)."""
    from termwise.golden.netsim import fc_layer_cycles, sim_config
    cfg = sim_config("stripes", 16)
    assert cfg.fc_columns == 1 and cfg.depth >= cfg.windows
    assert sim_config("stripes", 16, "window").fc_columns == 0
    assert not sim_config("baseline", 16).has_fc_columns      # a design without the option
    assert sim_config("loom", 16).depth == sim_config("loom", 16).windows == 64
    rng = np.random.default_rng(1)
    k, n = 1280, 40
    x = rng.integers(0, 1 << 7, k)
    w = rng.integers(-128, 128, (n, k))
    rt = cfg.runtime_values(7, act_signed=False, fc=True)
    got = fc_layer_cycles(cfg, x, w, rt)
    runs = lower_fc_columns(cfg, x, w)
    assert got["runs"] == len(runs) == 5 * 3         # 80 bricks = 5 rounds x 3 filter groups
    assert got["rtl_cycles"] == sum(fc_run_cycles(cfg, r.act, r.wgt, rt) for r in runs)
    assert got["cycles"] == 15 * max(7, 16)
