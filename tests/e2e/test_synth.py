"""`termwise synth` end to end on the smallest tile (ASIC: Yosys + OSU018 + OpenSTA), through
the shared synthesis cache; bad input refused."""

import hashlib

from termwise_e2e import SMALLEST_TILE, SYNTH_CACHE, assert_usage_error, load_json, ok

TOP = "termwise_baseline_f1w1l2_a4w4_acc11_d4"


def test_synth_smallest_tile(termwise, tmp_path):
    ok(termwise("gen", *SMALLEST_TILE, "-o", "gen"))
    verilog = (tmp_path / "gen" / f"{TOP}.v").read_bytes()

    args = ("synth", *SMALLEST_TILE, "--target", "asic", "--cache-dir", SYNTH_CACHE)
    r = ok(termwise(*args, "-o", "out"))
    rep = load_json(tmp_path / "out" / "synth_report.json")
    md = (tmp_path / "out" / "synth_report.md").read_text()
    assert rep["top"] == TOP and TOP in md
    # The Verilog synthesised is the one `termwise gen` writes for the same options.
    assert rep["verilog_sha256"] == hashlib.sha256(verilog).hexdigest()
    cfg = rep["config"]
    assert (cfg["arch"], cfg["filters"], cfg["windows"], cfg["lanes"], cfg["act_bits"],
            cfg["wgt_bits"], cfg["depth"]) == ("baseline", 1, 1, 2, 4, 4, 4)
    a = rep["asic"]
    assert rep["fpga"] is None and rep["flow"]["target"] == "asic"
    assert a["area_um2"] > 0 and a["flops"] > 0 and a["fmax_mhz"] > 0
    assert 0 < a["area_seq_um2"] < a["area_um2"]
    # Fmax is the register-to-register path: 1 / (clock period - worst negative slack).
    assert abs(a["fmax_mhz"] - 1000 / (rep["flow"]["clock_ns"] - a["wns_ns"])) < 1
    # Design-rule checks ran (OpenSTA + the liberty tables' range): a count and the worst
    # violations; a non-zero count opens the Markdown with the not-signable line.
    drv = a["drv_violations"]
    assert drv["drivers_checked"] > 0 and drv["count"] == sum(drv["by_kind"].values())
    assert set(drv["by_kind"]) == {"max_capacitance", "max_transition", "max_fanout",
                                   "table_range"}
    assert len(drv["violations"]) == drv["listed"] <= drv["count"]
    for v in drv["violations"]:
        assert v["value"] > v["limit"] > 0 and v["kind"] in drv["by_kind"]
    assert ("not signable" in md.splitlines()[2]) == (drv["count"] > 0)
    assert a["fanout_buffers"]["buffers"] >= 0 and "Fanout buffering" in md
    t = rep["throughput"]
    assert t["peak_macs_per_cycle"] == 1 * 1 * 2 and t["precision_bits"] == 4
    assert abs(t["asic_gmacs"] - 2 * a["fmax_mhz"] / 1000) < 1e-2
    assert rep["cache"]["asic"]["dir"].startswith(str(SYNTH_CACHE))
    assert f"{a['area_um2'] / 1e6:.3f} mm2" in r.stdout and "out/synth_report.json" in r.stdout

    # A rerun comes from the cache, with the same figures.
    r2 = ok(termwise(*args, "-o", "again"))
    rep2 = load_json(tmp_path / "again" / "synth_report.json")
    assert rep2["cache"]["asic"]["hit"] is True and "asic cached" in r2.stdout
    assert rep2["asic"]["area_um2"] == a["area_um2"] and rep2["asic"]["fmax_mhz"] == a["fmax_mhz"]


def test_synth_bad_input(termwise, tmp_path):
    r = termwise("synth", *SMALLEST_TILE, "--target", "gds", "--cache-dir", SYNTH_CACHE,
                 "-o", "out")
    assert_usage_error(r, tmp_path / "out", "target: must be one of asic, fpga, both")
    r = termwise("synth", *SMALLEST_TILE, "--clock-ns", "0", "--cache-dir", SYNTH_CACHE,
                 "-o", "out")
    assert_usage_error(r, tmp_path / "out", "clock_ns:")


def test_synth_hierarchical(termwise, tmp_path):
    """`--hierarchical`: each module in a yosys run of its own, its netlist cached across
    runs (a key of its own); the figures are the one-run flow's up to ABC's sizing (the
    smallest tile has one PE: timed whole)."""
    one = ok(termwise("synth", *SMALLEST_TILE, "--cache-dir", SYNTH_CACHE, "-o", "one"))
    cache = tmp_path / "cache"
    args = ("synth", *SMALLEST_TILE, "--hierarchical", "--cache-dir", str(cache))
    ok(termwise(*args, "-o", "per"))
    a = load_json(tmp_path / "one" / "synth_report.json")
    p = load_json(tmp_path / "per" / "synth_report.json")
    assert p["cache"]["asic"]["key"] != a["cache"]["asic"]["key"] and one.stdout
    assert abs(p["asic"]["area_um2"] / a["asic"]["area_um2"] - 1) < 1e-3
    assert abs(p["asic"]["fmax_mhz"] / a["asic"]["fmax_mhz"] - 1) < 0.05
    runs = p["asic"]["module_runs"]
    assert runs["modules"] >= 3 and runs["cached"] == 0
    # another depth: the modules it does not change come from the cache
    ok(termwise(*args, "--depth", "8", "-o", "deeper"))
    d = load_json(tmp_path / "deeper" / "synth_report.json")["asic"]["module_runs"]
    assert d["modules"] == runs["modules"] and 0 < d["cached"] < d["modules"]
