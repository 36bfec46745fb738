"""`termwise power` end to end on baseline-4x4: cached synthesis, the gate-level model under
Verilator driven through tile runs of random operands and of the digits CNN's layers
(``--workload``, the same executable), liberty power, the OpenSTA cross-check; bad input
and a design the generic lowering cannot drive refused.

Cost: ~20 s per run with warm caches (the synthesis in SYNTH_CACHE, the Verilated gate-level
model in the power-cache beside it: most of the time is reading the 71k-cell netlist), three
runs. Cold, the synthesis takes ~1 min and compiling the gate-level model ~4 min on 2 cores
(once per netlist and harness), hence the longer timeout.
"""

import math

import pytest

from termwise.gen.config import preset
from termwise.golden.cycles import run_cycles
from termwise.golden.lowering import lower_layer
from termwise.golden.netsim import layer_runtime
from termwise.golden.workloads import load_workload
from termwise_e2e import SYNTH_CACHE, assert_usage_error, load_json, ok

TOP = "termwise_baseline_f4w1l4_a8w8_acc24_d64"
COLD_TIMEOUT = 1500


def test_power_baseline_4x4(termwise, tmp_path):
    r = ok(termwise("power", "--preset", "baseline-4x4", "--cycles", "600", "--cache-dir",
                    SYNTH_CACHE, "-o", "out", timeout=COLD_TIMEOUT))
    rep = load_json(tmp_path / "out" / "power_report.json")
    md = (tmp_path / "out" / "power_report.md").read_text()
    assert rep["top"] == TOP and TOP in md and "out/power_report.json" in r.stdout
    p = rep["power_w"]
    assert p["total"] > 0 and p["leakage"] > 0 and p["internal"] > 0 and p["switching"] > 0
    assert math.isclose(p["total"], p["dynamic"] + p["leakage"], rel_tol=1e-9)
    assert math.isclose(p["dynamic"], p["internal"] + p["switching"], rel_tol=1e-9)
    kinds = rep["by_kind_w"]
    assert {"pe_lanes", "buffers", "io_wrapper"} <= set(kinds)
    assert math.isclose(sum(k["total_w"] for k in kinds.values()), p["total"], rel_tol=1e-9)
    assert math.isclose(p["tile"], p["total"] - kinds["io_wrapper"]["total_w"], rel_tol=1e-9)
    assert rep["unmapped_modules"] == []
    e = rep["energy"]
    assert e["peak_macs_per_cycle"] == 16
    for key in ("per_cycle_pj", "per_mac_at_peak_pj", "per_mac_issued_pj"):
        assert e[key] > 0 and math.isfinite(e[key]), key
    f = rep["clock"]["mhz"]
    assert f == rep["synthesis"]["fmax_mhz"] and "Fmax" in rep["clock"]["source"]
    assert math.isclose(e["per_cycle_pj"], p["total"] / (f * 1e6) * 1e12, rel_tol=1e-9)
    assert math.isclose(e["per_mac_at_peak_pj"], e["tile_per_cycle_pj"] / 16, rel_tol=1e-9)
    # The stimulus ran tile runs to completion (64 + 64 rows, a command, its output).
    a = rep["activity_source"]
    assert a["cycles"] == 600 and a["runs_completed"] >= 2 and a["timeouts"] == 0
    assert 0 < a["busy_fraction"] < 1 and a["macs_issued"] == a["runs_completed"] * 64 * 16
    assert 0 < a["average_activity_per_cycle"] < 1 and a["nets_without_activity"] == 0
    assert "weight rows" in a["stimulus"] and "random" in a["operands"]
    act = rep["activity"]
    assert act["source"] == "random" and act["layers"] == [] and act["cycles_simulated"] == 600
    assert act["real_macs"] == act["macs_issued"] == a["macs_issued"]
    assert e["per_real_mac_pj"] == e["per_mac_issued_pj"]
    # OpenSTA at the measured average activity: same order of magnitude.
    s = rep["opensta"]
    assert s["activity_per_cycle"] == round(a["average_activity_per_cycle"], 6)
    assert s["total_w"] > 0 and 0.1 < s["ratio_termwise_to_opensta"] < 10 and s["why"]
    assert any("glitch" in x for x in rep["not_modelled"])
    assert any("clock" in x for x in rep["not_modelled"])
    for heading in ("## By kind", "## Energy", "## Activity source", "OpenSTA",
                    "## What is not modelled"):
        assert heading in md
    # a 4x4 tile is simulated whole under --part auto (the default)
    assert rep["method"]["mode"] == "whole" and rep["method"]["requested"] == "auto"
    assert "Method: whole tile" in md

    # The same run again: the cached report, the same figures.
    ok(termwise("power", "--preset", "baseline-4x4", "--cycles", "600", "--cache-dir",
                SYNTH_CACHE, "-o", "again", timeout=COLD_TIMEOUT))
    again = load_json(tmp_path / "again" / "power_report.json")
    assert again["cached"] is True and again["cache"]["key"] == rep["cache"]["key"]
    # no synthesis, no simulation (those take minutes); ~0.2 s when no source changed
    assert again["cache"]["lookup_s"] < 10
    for field in ("power_w", "by_kind_w", "energy", "activity", "opensta", "method"):
        assert again[field] == rep[field], field
    assert "Cached report" in (tmp_path / "again" / "power_report.md").read_text()

    # --clock-mhz: the same toggles per cycle, rates scaled to the given clock.
    r2 = ok(termwise("power", "--preset", "baseline-4x4", "--cycles", "600", "--clock-mhz",
                     "50", "--cache-dir", SYNTH_CACHE, "-o", "slow", timeout=COLD_TIMEOUT))
    rep2 = load_json(tmp_path / "slow" / "power_report.json")
    assert rep2["clock"] == {"mhz": 50.0, "source": "--clock-mhz"}
    assert rep2["model_cache"]["hit"] is True
    assert math.isclose(rep2["power_w"]["dynamic"] / 50, p["dynamic"] / f, rel_tol=1e-6)
    assert math.isclose(rep2["energy"]["per_cycle_pj"] - rep2["power_w"]["leakage"] / 50e6 * 1e12,
                        e["per_cycle_pj"] - p["leakage"] / (f * 1e6) * 1e12, rel_tol=1e-6)
    del r2

    # --workload: the digits CNN's layers lowered onto the tile, from the same model.
    r3 = ok(termwise("power", "--preset", "baseline-4x4", "--workload", "digits-cnn",
                     "--cycles", "600", "--cache-dir", SYNTH_CACHE, "-o", "wl",
                     timeout=COLD_TIMEOUT))
    rep3 = load_json(tmp_path / "wl" / "power_report.json")
    md3 = (tmp_path / "wl" / "power_report.md").read_text()
    assert rep3["model_cache"]["key"] == rep["model_cache"]["key"]
    if not (rep["cached"] or rep3["cached"]):
        # a cached report carries the model facts of the run that made it (a warm cache may
        # hold a workload run that built the model before any random one)
        assert rep3["model_cache"] == {"key": rep["model_cache"]["key"], "hit": True,
                                       "build_s": 0.0}
    act = rep3["activity"]
    assert act["source"] == "digits-cnn" and act["bits"] == 8
    # the trace it came from, cached or not (termwise report reuses it only on that trace)
    assert act["trace_sha256"] == load_workload("digits-cnn", 8, log=None).trace_sha256()
    assert [d["name"] for d in act["layers"]] == ["conv1", "conv2", "fc"]
    for d in act["layers"]:
        assert d["runs_completed"] == d["runs"] == len(d["run_indices"])
        assert d["runtime"]["act_signed"] is False
        assert 0 <= d["real_macs"] <= d["macs_issued"] and (d["real_macs"] > 0) == (d["runs"] > 0)
    assert act["runs_completed"] == act["runs_in_stimulus"] == \
        sum(d["runs"] for d in act["layers"]) >= 2
    assert act["timeouts"] == 0 and act["cycles_requested"] == 600
    assert 0 < act["cycles_simulated"] <= 600
    assert act["real_macs"] <= act["macs_issued"]
    # busy, load and idle cycles apart: the harness's counts against the golden cycle
    # model (busy from the command to the output transfer: run_cycles + 1 per run; an
    # empty run 1 + the pipeline registers) and the rows of the lowering
    cfg = preset("baseline-4x4")
    layers = {layer.name: layer for layer in load_workload("digits-cnn", 8, log=None).layers}
    busy = rows = 0
    for d in act["layers"]:
        runs, rt = lower_layer(cfg, layers[d["name"]])[0], layer_runtime(cfg, layers[d["name"]])
        for i in d["run_indices"]:
            busy += run_cycles(cfg, runs[i].act, runs[i].wgt, rt) + 1
            rows += 2 * runs[i].k // cfg.lanes
    ph = rep3["phases"]
    work, loads, empty, idle = ph["runs"]
    n = act["runs_completed"]
    assert (work["busy_cycles"], work["load_cycles"]) == (busy, rows)
    assert (loads["busy_cycles"], loads["load_cycles"]) == \
        (n * (2 + cfg.pipeline_latency), rows)
    assert (empty["busy_cycles"], empty["load_cycles"]) == (n * (2 + cfg.pipeline_latency), n)
    assert idle["busy_cycles"] == idle["load_cycles"] == 0 and idle["other_cycles"] > 0
    # the workload run is the report's own simulation
    assert math.isclose(work["tile_j"], rep3["power_w"]["tile"] * act["cycles_simulated"]
                        / (f * 1e6), rel_tol=1e-9)
    assert ph["busy_w"] > rep3["power_w"]["tile"] > ph["idle_w"] > 0
    # a cycle of every sort costs energy (flow 3 gave empty-run cycles a negative one)
    assert min(ph["per_cycle_pj"]["tile"].values()) > 0
    assert ph["load_row_pj"] > 0 and "Busy, load and idle cycles" in md3
    p3, e3, f3 = rep3["power_w"], rep3["energy"], rep3["clock"]["mhz"]
    assert f3 == f and rep3["activity_source"]["cycles"] == act["cycles_simulated"]
    assert math.isclose(e3["per_real_mac_pj"], p3["tile"] * act["cycles_simulated"]
                        / (f * 1e6) / act["real_macs"] * 1e12, rel_tol=1e-9)
    assert e3["per_real_mac_pj"] > e3["per_mac_issued_pj"] > 0
    assert math.isclose(e3["per_mac_at_peak_pj"], e3["tile_per_cycle_pj"] / 16, rel_tol=1e-9)
    # real (unsigned, low-precision, often zero) operands toggle less than random ones
    assert p3["dynamic"] < 0.95 * p["dynamic"]
    assert "digits-cnn" in rep3["activity_source"]["operands"]
    assert "per real MAC of digits-cnn" in r3.stdout
    for text in ("## Activity", "| conv1 |", "| fc |", "workload digits-cnn", "per real MAC"):
        assert text in md3, text


@pytest.mark.parametrize("args, expected", [
    (("--cycles", "0"), ("cycles: must be a positive integer",)),
    (("--clock-mhz", "-5"), ("clock_mhz:",)),
    (("--seed", "x"), ("seed:",)),
    (("--workload", "no-such-net"), ("workload: must be one of", "digits-cnn")),
    (("--workload", "digits-cnn", "--layers", "conv1,conv9"),
     ("layers:", "'conv9'", "conv1, conv2, fc")),
    (("--part", "half"), ("--part", "half")),
    (("--part", "slice"), ("part:", "divisible by 4", "got 1")),   # one window: no quarter
    (("--samples", "2"), ("samples: needs --part sampled",)),
    (("--part", "sampled", "--samples", "0"), ("samples: must be a positive integer",)),
    (("--layers", "fc"), ("layers: needs --workload",)),
    (("--workload", "digits-cnn", "--cycles", "8"), ("cycles:", "do not hold one run")),
    (("--simulator", "icarus"), ("simulator: one of verilator, levelsim",)),
    (("--simulator", "levelsim", "--part", "sampled"), ("simulator:", "needs verilator")),
])
def test_power_bad_input(termwise, tmp_path, args, expected):
    r = termwise("power", "--preset", "baseline-4x4", *args, "--cache-dir", SYNTH_CACHE,
                 "-o", "out")
    assert_usage_error(r, tmp_path / "out", *expected)


def test_power_workload_refused_design(termwise, tmp_path):
    """A bfloat16 tile has no workload activity (the workloads are integer traces, with no
    float values to round): refused before any synthesis. (Bit-Tactical and Diffy are
    driven as their regressions drive them: tests/synth/test_power_workload.py.)"""
    r = termwise("power", "--preset", "baseline-bf16-4x4", "--workload", "digits-cnn",
                 "--cache-dir", SYNTH_CACHE, "-o", "out")
    assert_usage_error(r, tmp_path / "out", "workload: not available", "bf16")


def test_macro_accesses_are_the_rows_each_run_writes_and_reads(termwise, tmp_path):
    """SRAM macro buffers (``--buffers macros``) under digits-cnn: every macro of a buffer
    is written once per row loaded and read once per row a run steps through, as the
    energy model charges them (golden/netsim/energy.py: a run writes its rows once and
    reads each once); the expected counts from the lowering of the runs simulated."""
    ok(termwise("power", "--preset", "baseline-4x4", "--buffers", "macros", "--clock-gating",
                "--workload", "digits-cnn", "--cycles", "600", "--cache-dir", SYNTH_CACHE,
                "-o", "out", timeout=COLD_TIMEOUT))
    rep = load_json(tmp_path / "out" / "power_report.json")
    act = rep["activity"]
    assert act["runs_completed"] == act["runs_in_stimulus"] >= 2
    cfg = preset("baseline-4x4")
    layers = {layer.name: layer for layer in load_workload("digits-cnn", 8, log=None).layers}
    rows = 0
    for d in act["layers"]:
        runs = lower_layer(cfg, layers[d["name"]])[0]
        rows += sum(runs[i].k // cfg.lanes for i in d["run_indices"])
    buffers = rep["macro_accesses"]["buffers"]
    assert sorted(b.rsplit("/", 1)[-1] for b in buffers) == ["act_buffer", "wgt_buffer"]
    for name, b in buffers.items():
        assert b["macros"] >= 1, name
        assert b["writes"] == [rows], name
        assert b["reads"] == [rows], name


def test_levelsim_report_equals_the_verilated_models(termwise, tmp_path):
    """``--simulator levelsim`` (termwise.synth.power.levelsim: no model build) gives the
    Verilated model's report on baseline-4x4 with macros and gating under digits-cnn:
    power, kinds, phases, macro accesses, energy, every count exact and every figure to
    1e-9 (the PEs' power is summed per cell type over the instances, group_power.py, not
    leaf by leaf: the last digits of a sum move); it says which simulator ran, under a key
    of its own."""
    run = ("power", "--preset", "baseline-4x4", "--buffers", "macros", "--clock-gating",
           "--workload", "digits-cnn", "--cycles", "600", "--cache-dir", SYNTH_CACHE)
    ok(termwise(*run, "-o", "verilator", timeout=COLD_TIMEOUT))
    ok(termwise(*run, "--simulator", "levelsim", "-o", "levelsim", timeout=COLD_TIMEOUT))
    v, n = (load_json(tmp_path / d / "power_report.json") for d in ("verilator", "levelsim"))
    for field in ("power_w", "by_kind_w", "phases", "macro_accesses", "energy", "activity"):
        _same(n[field], v[field], field)
    assert n["simulator"]["name"] == "levelsim" and "simulator" not in v
    assert n["model_cache"]["simulator"] == "levelsim"
    assert n["activity_source"]["simulator"] == n["simulator"]["how"]
    assert v["activity_source"]["simulator"].startswith("Verilator")
    assert n["cache"]["key"] != v["cache"]["key"]
    assert "Simulator: levelsim" in (tmp_path / "levelsim" / "power_report.md").read_text()


def _same(got, want, where: str) -> None:
    """``got`` equals ``want``: the same structure and integers, floats to 1e-9."""
    if isinstance(want, dict):
        assert got.keys() == want.keys(), where
        for k in want:
            _same(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list):
        assert len(got) == len(want), where
        for i, (a, b) in enumerate(zip(got, want)):
            _same(a, b, f"{where}[{i}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-9, abs=1e-15), where
    else:
        assert got == want, where


def _pe_dynamic(rep: dict, pe_kinds) -> float:
    return sum(rep["by_kind_w"][k]["internal_w"] + rep["by_kind_w"][k]["switching_w"]
               for k in pe_kinds)


def test_sampled_power_against_the_whole_tile(termwise, tmp_path):
    """``--part sampled`` (termwise.synth.power.sampled) against the whole tile's
    gate-level figures on baseline-4x4 with macros under digits-cnn: with every PE sampled
    the report is the whole tile's exactly; with 2 of the 4 PEs at gate level (the others
    RTL) the shared logic's power is exact, the PEs' is within the report's own 95% bound
    of the whole tile's, and the total within 5%."""
    run = ("power", "--preset", "baseline-4x4", "--buffers", "macros", "--clock-gating",
           "--workload", "digits-cnn", "--cycles", "600", "--cache-dir", SYNTH_CACHE)
    ok(termwise(*run, "-o", "whole", timeout=COLD_TIMEOUT))
    ok(termwise(*run, "--part", "sampled", "--samples", "4", "-o", "all", timeout=COLD_TIMEOUT))
    r = ok(termwise(*run, "--part", "sampled", "--samples", "2", "-o", "two",
                    timeout=COLD_TIMEOUT))
    assert "replicated modules sampled (2 of 4" in r.stdout
    whole, every, two = (load_json(tmp_path / d / "power_report.json")
                         for d in ("whole", "all", "two"))
    assert every["power_w"] == whole["power_w"] and every["by_kind_w"] == whole["by_kind_w"]
    assert every["phases"] == whole["phases"]
    (pe, rec), = two["sampling"]["modules"].items()
    assert pe.endswith("__pe") and rec["instances"] == 4 and len(rec["sampled"]) == 2
    pe_kinds = ("pe_lanes", "adder_tree", "accumulators")
    for kind, w in whole["by_kind_w"].items():
        t = two["by_kind_w"][kind]
        assert t["leakage_w"] == pytest.approx(w["leakage_w"], rel=1e-12), kind
        assert t["cells"] == w["cells"], kind
        if kind not in pe_kinds:
            assert t["total_w"] == pytest.approx(w["total_w"], rel=1e-12), kind
    assert abs(_pe_dynamic(two, pe_kinds) - _pe_dynamic(whole, pe_kinds)) <= rec["bound95_w"]
    assert two["power_w"]["total"] == pytest.approx(whole["power_w"]["total"], rel=0.05)
    assert "Method: whole tile, replicated modules sampled" in \
        (tmp_path / "two" / "power_report.md").read_text()
