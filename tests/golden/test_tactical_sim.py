"""Bit-Tactical in the network simulator: the vectorised whole-layer cycle model equals the
per-run model (greedy schedule + kept_step_cycles) exactly, the batched schedule equals the
per-run scheduler, the ideal work equals a per-MAC brute force, and ``termwise tactical``
rejects bad input and writes a tiny report."""

import json

import numpy as np
import pytest

from termwise.gen.config import ConfigError, TileConfig, preset
from termwise.golden import potential
from termwise.golden.arch import tactical
from termwise.golden.cycles import run_cycles
from termwise.golden.lowering import lower_matmul
from termwise.golden.netsim import (PRESETS, layer_cycles, layer_potential, layer_runtime,
                                    lowered_operands)
from termwise.golden.tactical_schedule import involved, schedule, sources
from termwise.golden.workloads import Layer


def _sparse(rng, shape, lo, hi, zero):
    """Integers in [lo, hi] with about ``zero`` of them forced to zero."""
    v = rng.integers(lo, hi + 1, size=shape)
    return v * (rng.random(shape) >= zero)


def _cfg(backend, shape="T", h=2, d=5, **kw):
    base = dict(arch="tactical", backend=backend, shape=shape, lookahead=h, lookaside=d,
                filters=3, windows=4, lanes=4, act_bits=8, wgt_bits=8, depth=3)
    base.update(kw)
    return TileConfig(**base)


# (configuration, the runs' act_signed)
CONFIGS = [
    (_cfg("tclp"), True),
    (_cfg("tcle"), True),
    (_cfg("tcle", encoding="plain", first_stage_bits=0), True),
    (_cfg("tclp", "L", 2, 1), True),
    (_cfg("tcle", "L", 4, 3, depth=5), True),
    (_cfg("tclp", "L", 1, 0), False),
    (_cfg("tcle", "L", 3, 7, lanes=8, filters=2, windows=3, depth=2), True),
    (_cfg("tcle", "L", 2, 1), False),
]


def _reference(cfg, a, wm, rt, groups=None):
    """Independent path: lower each group with lower_matmul and sum the per-run model
    (tactical_schedule.schedule + kept_step_cycles through golden.cycles.run_cycles)."""
    total, runs = 0, 0
    for g in range(a.shape[0]):
        for run in lower_matmul(cfg, a[g], wm[g]):
            if groups is not None and int(run.rows[0]) // cfg.windows not in groups:
                continue
            total += run_cycles(cfg, run.act, run.wgt, rt) - tactical.RUN_OVERHEAD
            runs += 1
    return total, runs


@pytest.mark.parametrize("cfg,signed", CONFIGS, ids=lambda c: f"{c.backend}-{c.shape}"
                         f"{c.lookahead}{c.lookaside}-{c.encoding}-L{c.lanes}"
                         if isinstance(c, TileConfig) else ("s" if c else "u"))
@pytest.mark.parametrize("zero", [0.0, 0.5, 0.9])
def test_layer_run_cycles_equal_per_run_model(cfg, signed, zero):
    rng = np.random.default_rng(int(zero * 10) + cfg.lanes)
    lo, hi = (-60, 120) if signed else (0, 250)
    rt = cfg.runtime_values(act_signed=signed)
    for g, m, kg, k in [(1, 9, 7, 29), (2, 5, 3, 50), (3, 13, 1, 9), (1, 1, 4, 1)]:
        a = _sparse(rng, (g, m, k), lo, hi, 0.4)
        wm = _sparse(rng, (g, kg, k), -100, 100, zero)
        ref, _ = _reference(cfg, a, wm, rt)
        wgc = -(-m // cfg.windows)
        got = tactical.layer_run_cycles(cfg, a, wm, rt, range(wgc))
        assert got == ref, (g, m, kg, k)
        # many tiny blocks, and a subset of the window groups
        assert tactical.layer_run_cycles(cfg, a, wm, rt, range(wgc), block_elems=1) == ref
        sub = [0, wgc - 1] if wgc > 1 else [0]
        assert tactical.layer_run_cycles(cfg, a, wm, rt, sub) == \
            _reference(cfg, a, wm, rt, set(sub))[0]


@pytest.mark.parametrize("signed", [True, False])
def test_all_zero_weights_cost_nothing(signed):
    cfg = _cfg("tcle")
    a = np.ones((1, 8, 20), dtype=np.int64)
    rt = cfg.runtime_values(act_signed=signed)
    assert tactical.layer_run_cycles(cfg, a, np.zeros((1, 5, 20), np.int64), rt, range(2)) == 0


@pytest.mark.parametrize("srcs", [sources("T"), sources("L", 2, 1), sources("L", 4, 7),
                                  sources("L", 1, 0)])
def test_batch_involved_equals_scheduler(srcs):
    rng = np.random.default_rng(len(srcs))
    lanes = 8
    w = _sparse(rng, (12, 3, 9, lanes), -5, 5, 0.7)
    kept, inv = tactical.batch_involved(w != 0, srcs)
    for b in range(w.shape[0]):
        sched = schedule(w[b], srcs)
        np.testing.assert_array_equal(np.flatnonzero(kept[b]), sched.steps)
        np.testing.assert_array_equal(inv[b][sched.steps], involved(sched, lanes))
        assert not inv[b][~kept[b]].any()


@pytest.mark.parametrize("design", ["tactical-tclp", "tactical-tcle"])
def test_netsim_layer_cycles_through_hook(design):
    """The netsim path (PRESETS design, hook, rtl_cycles) on a small tile of the preset."""
    full = preset(PRESETS[design])
    cfg = full.replace(filters=4, windows=4, lanes=4, depth=2)
    rng = np.random.default_rng(7)
    x = _sparse(rng, (1, 5, 6, 6), -30, 200, 0.5)
    layer = Layer("c", "conv", x, _sparse(rng, (6, 5, 3, 3), -200, 200, 0.7), 16, padding=1)
    a, wm = lowered_operands(layer)
    rt = layer_runtime(cfg, layer)
    assert rt["act_signed"] is True            # x holds negative values
    ref, nruns = _reference(cfg, a, wm, rt)
    got = layer_cycles(cfg, a, wm, rt)
    assert got["runs"] == nruns and got["cycles"] == ref and not got["sampled"]
    assert got["rtl_cycles"] == ref + tactical.RUN_OVERHEAD * nruns


@pytest.mark.parametrize("design,back", [("tactical-tclp", "dstripes"),
                                         ("tactical-tcle", "pragmatic")])
def test_potential_brute_force(design, back):
    """Ideal work = the back end's per-MAC work (potential.mac_work) on the MACs whose
    weight is non-zero, summed over every (m, n, k) of every group."""
    cfg = preset(PRESETS[design])
    rng = np.random.default_rng(11)
    x = _sparse(rng, (1, 6, 5, 5), -300, 3000, 0.5)
    layer = Layer("c", "conv", x, _sparse(rng, (4, 3, 3, 3), -900, 900, 0.6), 16, padding=1,
                  groups=2)
    a, wm = lowered_operands(layer)
    rt = layer_runtime(cfg, layer)
    got = layer_potential(cfg, a, wm, rt)
    ref = 0
    for g in range(a.shape[0]):
        work = potential.mac_work(a[g][:, None, :], wm[g][None, :, :], back, act_bits=16,
                                  wgt_bits=16, act_signed=True, encoding=cfg.encoding,
                                  group=cfg.lanes)
        ref += int((work * (wm[g][None, :, :] != 0)).sum())
    assert got == ref
    # shares the cached activation factors with the front-end-less design
    cache = {}
    layer_potential(cfg, a, wm, rt, cache)
    assert any(key[0] in ("gp", "ta") for key in cache)


# ----------------------------------------------------------------------------- report CLI


def test_cli_rejects_bad_input(capsys):
    from termwise.gen.cli import main as _cli_main
    for argv, field in [(["--workload", "nope", "-o", "x"], "workload"),
                        (["--sparsity", "50,abc", "-o", "x"], "sparsity"),
                        (["--sparsity", "100", "-o", "x"], "sparsity"),
                        (["--precision", "12", "-o", "x"], "precision"),
                        (["--connectivity", "L<9,1>", "-o", "x"], "connectivity"),
                        (["--connectivity", "Q<2,1>", "-o", "x"], "connectivity"),
                        (["--max-window-groups", "0", "-o", "x"], "max_window_groups")]:
        assert _cli_main(["tactical", *argv]) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and field in err[0], (argv, err)


def test_parse_connectivity():
    from termwise.gen.flows.reports.tactical import parse_connectivity
    assert parse_connectivity("T<2,5>,L<4,3>") == [("T", 2, 5), ("L", 4, 3)]
    with pytest.raises(ConfigError):
        parse_connectivity("T<2,4>")


def test_tiny_report_end_to_end(tmp_path):
    """A two-layer synthetic network through the whole report: the figures are recomputed
    here from the layer-level models."""
    from termwise.golden.netsim import simulate_layers
    from termwise.gen.flows.reports.tactical import build_report, write_report
    from termwise.golden.workloads import Workload
    from termwise.golden.workloads.pruning import prune_magnitude
    rng = np.random.default_rng(3)
    x = _sparse(rng, (1, 16, 6, 6), 0, 4000, 0.5)
    w1 = rng.integers(-3000, 3000, size=(16, 16, 3, 3))
    w2 = rng.integers(-3000, 3000, size=(10, 16 * 36))

    def workload(s):
        layers = [Layer("conv", "conv", x, prune_magnitude(w1, s), 16, padding=1),
                  Layer("fc", "fc", x.reshape(1, -1)[:, :16 * 36], prune_magnitude(w2, s), 16)]
        return Workload(f"tiny-p{round(s * 100)}", 16, layers, notes=["synthetic"])
    doc = build_report("tiny", [0.0, 0.7], [("T", 2, 5), ("L", 2, 1)], loader=workload,
                       log=lambda m: None)
    paths = write_report(str(tmp_path), doc)
    assert {p.rsplit("/", 1)[1] for p in paths} == {"tactical.json", "tactical.csv",
                                                    "tactical.md"}
    back = json.loads((tmp_path / "tactical.json").read_text())
    assert [r["sparsity"] for r in back["rows"]] == [0.0, 0.7]
    row = back["rows"][1]
    res = simulate_layers(workload(0.7).layers, ["baseline", "dstripes", "tactical-tclp"])
    cyc = {d: sum(r.designs[d]["cycles"] for r in res) for d in res[0].designs}
    assert row["cycles"]["tactical-tclp"] == cyc["tactical-tclp"]
    assert row["speedup"]["tactical-tclp"] == pytest.approx(cyc["baseline"] /
                                                            cyc["tactical-tclp"])
    assert row["over_back_end"]["tactical-tclp"] == pytest.approx(cyc["dstripes"] /
                                                                  cyc["tactical-tclp"])
    eff = row["schedule"]["L<2,1>"]
    assert 0 < eff["efficiency"] <= 1 and eff["metadata_bits"] == 2
    assert row["schedule"]["T<2,5>"]["metadata_bits"] == 3
    # dense row: no zero weights to skip
    assert back["rows"][0]["weight_zero_fraction"] < 0.01
    md = (tmp_path / "tactical.md").read_text()
    assert "11.3x" in md and "6.7x" in md and "equal peak" in md
    assert (tmp_path / "tactical.csv").read_text().count("\n") == 3
