"""`termwise power` end to end on baseline-4x4: cached synthesis, the gate-level model under
Verilator driven through tile runs, liberty power, the OpenSTA cross-check; bad input
refused.

Cost: ~25 s with warm caches (the synthesis in SYNTH_CACHE, the Verilated gate-level model in
the power-cache beside it: most of the time is reading the 71k-cell netlist). Cold, the
synthesis takes ~1 min and compiling the gate-level model ~4 min on 2 cores (once per
netlist), hence the longer timeout.
"""

import math

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
    # OpenSTA at the measured average activity: same order of magnitude.
    s = rep["opensta"]
    assert s["activity_per_cycle"] == round(a["average_activity_per_cycle"], 6)
    assert s["total_w"] > 0 and 0.1 < s["ratio_termwise_to_opensta"] < 10 and s["why"]
    assert any("glitch" in x for x in rep["not_modelled"])
    assert any("clock" in x for x in rep["not_modelled"])
    for heading in ("## By kind", "## Energy", "## Activity source", "OpenSTA",
                    "## What is not modelled"):
        assert heading in md

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


def test_power_bad_input(termwise, tmp_path):
    r = termwise("power", "--preset", "baseline-4x4", "--cycles", "0", "--cache-dir",
                 SYNTH_CACHE, "-o", "out")
    assert_usage_error(r, tmp_path / "out", "cycles: must be a positive integer")
    r = termwise("power", "--preset", "baseline-4x4", "--clock-mhz", "-5", "--cache-dir",
                 SYNTH_CACHE, "-o", "out")
    assert_usage_error(r, tmp_path / "out", "clock_mhz:")
    r = termwise("power", "--preset", "baseline-4x4", "--seed", "x", "--cache-dir",
                 SYNTH_CACHE, "-o", "out")
    assert_usage_error(r, tmp_path / "out", "seed:")
