"""`termwise report` end to end: the PPA table from given synth and power reports (so that it
runs in `make test` without synthesis), every ratio recomputed here by hand from those
reports and the simulation's own sim.json; bad input refused; the real thing (synthesis and
gate-level power of two 16x16 designs) in `make test-all`."""

import json

import pytest

from termwise_e2e import assert_png, assert_usage_error, load_json, ok

from termwise.gen.flows.ppa import DEFAULT_FLOW
from termwise.golden.netsim import sim_config

# Hand-made reports: tile area, operand-buffer area, Fmax, tile power (W).
FIXTURE = {"baseline": (40e6, 10e6, 100.0, 3.0), "stripes": (60e6, 12e6, 150.0, 2.0)}
# The share of each tile's power in its flip-flop operand buffers (which the energy model
# prices as SRAM macros instead).
BUFFER_SHARE = 0.25
# Power budgets other than the report's default (20,000): a design slower per run gets the
# smallest that holds one run of each layer (gen/flows/ppa/budget.py:budget_for).
BUDGET = {"stripes": 26000}


def _write_reports(root, workload="digits-cnn"):
    for design, (area, buffers, fmax, watts) in FIXTURE.items():
        cfg = sim_config(design, 16, buffers=DEFAULT_FLOW["buffers"],    # the default tiles
                         clock_gating=DEFAULT_FLOW["clock_gating"])
        d = root / design
        d.mkdir(parents=True)
        synth = {"top": cfg.top_name, "preset": cfg.name, "config": cfg.to_dict(),
                 "derived": {"pe_stages": cfg.pe_stages},
                 "asic": {"area_um2": area, "fmax_mhz": fmax,
                          "drv_violations": {"count": 0},
                          "modules": {cfg.top_name: {"instances": 1,
                                                     "area_um2": area - buffers},
                                      f"{cfg.top_name}.wgt_buffer": {"instances": 1,
                                                                     "area_um2": buffers}}},
                 "throughput": {"peak_macs_per_cycle": 256.0}}
        power = {"top": cfg.top_name, "preset": cfg.name, "power_w": {"tile": watts},
                 "by_kind_w": {"buffers": {"total_w": BUFFER_SHARE * watts}},
                 "clock": {"mhz": fmax},
                 "activity": {"source": workload, "runs_completed": 6,
                              "cycles_requested": BUDGET.get(design, 20000),
                              "cycles_simulated": 1000, "layers": [{}, {}, {}]}}
        (d / "synth_report.json").write_text(json.dumps(synth))
        (d / "power_report.json").write_text(json.dumps(power))


def test_report_from_given_reports(termwise, tmp_path):
    _write_reports(tmp_path / "in")
    r = ok(termwise("report", "--workload", "digits-cnn", "--designs", "stripes",
                    "--images", "2", "--reports", "in", "--jobs", "2", "-o", "out"))
    assert "jobs on local pool, 2 workers" in r.stderr
    # loaded once, before any synthesis, and handed to the simulation: its notes once
    assert r.stderr.count("trained in NumPy on scikit-learn digits") == 1, r.stderr
    out = tmp_path / "out"
    doc = load_json(out / "report.json")
    sim = load_json(out / "sim" / "sim.json")
    rows = {row["design"]: row for row in doc["rows"]}
    assert list(rows) == ["baseline", "stripes"]
    images = 2
    time = {}
    energy = {}
    for design, (area, buffers, fmax, watts) in FIXTURE.items():
        row = rows[design]
        assert row["area_mm2"] == pytest.approx(area / 1e6)
        assert row["area_without_buffers_mm2"] == pytest.approx((area - buffers) / 1e6)
        assert row["fmax_mhz"] == fmax and row["power_mw"] == pytest.approx(watts * 1e3)
        rtl = sim["total"][design]["rtl_cycles"]
        time[design] = rtl / (fmax * 1e6)
        mem = sim["energy"]["designs"][design]
        memory_j = mem["tile_buffer_j"] + mem["chip_memory_j"] + mem["offchip_j"]
        logic_w = watts * (1 - BUFFER_SHARE)
        energy[design] = (logic_w * time[design] + memory_j) / images
        assert row["energy_per_inference_uj"] == pytest.approx(energy[design] * 1e6)
        assert row["compute_uj"] == pytest.approx(logic_w * time[design] / images * 1e6)
        assert row["inferences_per_s_per_mm2"] == pytest.approx(
            images / time[design] / (area / 1e6))
    s = rows["stripes"]
    assert s["speedup_cycles"] == pytest.approx(sim["total"]["stripes"]["speedup"])
    assert s["speedup_time"] == pytest.approx(time["baseline"] / time["stripes"])
    # speedup (time) decomposed: RTL cycles x Fmax, and each run's overhead
    rtl_b, rtl_s = (sim["total"][d]["rtl_cycles"] for d in ("baseline", "stripes"))
    assert s["speedup_rtl_cycles"] == pytest.approx(rtl_b / rtl_s)
    assert s["fmax_over_baseline"] == pytest.approx(150.0 / 100.0)
    assert s["speedup_time"] == pytest.approx(s["speedup_rtl_cycles"] * 1.5)
    runs = sim["total"]["stripes"]["runs"]
    per_run = (rtl_s - sim["total"]["stripes"]["cycles"]) / runs
    assert f"| stripes | {runs:,} | {sim['total']['stripes']['cycles']:,} | {rtl_s:,} | " \
           f"{per_run:.2f} |" in (tmp_path / "out" / "report.md").read_text()
    assert s["energy_efficiency"] == pytest.approx(energy["baseline"] / energy["stripes"])
    # the paper's claim beside it, with the reason the figures differ
    assert s["paper"]["speedup"] == 1.92 and s["paper"]["energy_efficiency"] == 1.57
    assert "1.92x in the paper" in s["vs_paper"] and "precision" in s["vs_paper"]
    md = (out / "report.md").read_text()
    # the fixtures' reports have no busy cycles measured apart: averages, marked
    assert "| stripes | 60.00 | 48.00 | 150.0 | 2000.0+ |" in md
    assert "+ power averaged over the power run's stimulus" in md
    assert all(r["power_while_busy"] is False for r in doc["rows"])
    assert "Beside the papers" in md and "Every row also differs" in md
    # the footings: one clock (the cycle speedup, each tile's PE input stages), iso-area
    # (A_base / A copies of the tile: throughput x A_base / A, energy per inference as is)
    iso = time["baseline"] / time["stripes"] * FIXTURE["baseline"][0] / FIXTURE["stripes"][0]
    stages = sim_config("stripes", 16).pe_stages
    assert (f"| stripes | {stages} | 150.0 | {s['speedup_cycles']:.2f}x | "
            f"{time['baseline'] / time['stripes']:.2f}x | {iso:.2f}x | "
            f"{energy['stripes'] * 1e6:.3g} |") in md
    assert "| baseline | 0 | 100.0 | 1.00x | 1.00x | 1.00x |" in md
    assert "* laconic" not in md and "* stripes: " in md
    for png in ("report_speedup_area.png", "report_energy.png", "report_perf_area.png"):
        assert_png(out / png)
    assert (out / "designs" / "stripes" / "power_report.json").is_file()
    # the page (its browser test: tests/gen/test_report_html.py) and each row's drill-down
    page = (out / "report.html").read_text()
    assert "report.html" in doc["files"]
    assert all(f'<tr data-design="{d}">' in page and f'id="detail-{d}"' in page
               for d in FIXTURE)
    assert page.count("data:image/png;base64,") == 3
    assert s["detail"]["power_by_kind_mw"] == {"buffers": pytest.approx(BUFFER_SHARE * 2e3)}
    assert s["detail"]["area_by_kind_mm2"]["buffers"] == pytest.approx(12.0)
    # a row whose activity had another budget says so; the baseline's had the default
    assert "a 26000-cycle budget, not 20000" in s["power_activity"]
    assert "budget" not in rows["baseline"]["power_activity"]
    assert "stripes" in r.stdout and "report.md" in r.stdout


@pytest.mark.parametrize("args, field", [
    (("--workload", "nope"), "workload"),
    (("--workload", "digits-cnn", "--precision", "12"), "precision"),
    (("--workload", "digits-cnn", "--designs", "stripes,nope"), "designs"),
    (("--workload", "digits-cnn", "--reports", "missing-dir"), "reports"),
    (("--workload", "digits-cnn", "--power-cycles", "0"), "power_cycles"),
    (("--workload", "digits-cnn", "--images", "0"), "images"),
    (("--workload", "digits-cnn", "--workers", "0"), "workers"),
    (("--workload", "digits-cnn", "--scheduler", "localhost:8786"), "scheduler"),
    (("--workload", "digits-cnn", "--simulator", "icarus"), "simulator"),
])
def test_report_refuses_bad_input(termwise, tmp_path, args, field):
    r = termwise("report", *args, "-o", "out")
    assert_usage_error(r, tmp_path / "out", field)


def test_power_budget_for_a_slow_design():
    from termwise.gen.flows.ppa import budget_for, needed_cycles
    from termwise.gen.spec import ConfigError
    assert needed_cycles(ConfigError("layers", "(about 5 cycles by the cycle model)")) is None
    assert needed_cycles(ConfigError("cycles", "must be a positive integer")) is None
    assert budget_for(25858) == 26000 and budget_for(26000) == 26000
    assert budget_for(1) == 1000
    with pytest.raises(ConfigError) as e:
        budget_for(10_000_001)
    assert e.value.field == "power_cycles"


@pytest.mark.parametrize("fc", ["columns", "window"])
@pytest.mark.parametrize("bits", [8, 16])
def test_power_part_per_design(bits, fc):
    """Every design's row, except the 64-window 16-bit rows (262,144 activation-buffer bits
    or more, 2x the largest row that built): those are measured by a slice. At 8 bits with
    per-column fc weights (the 8-bit table's tiles) Loom's row is 32 rows deep, 131,072
    bits: the row that built, whose report is shipped (a slice would miss it)."""
    from termwise.gen.config import storage_variant
    from termwise.gen.flows.ppa import power_part
    from termwise.gen.flows.simulation import parse_archs
    sliced = {"laconic", "loom"} if bits == 16 else set()
    designs = parse_archs("all")
    assert len(designs) == 12
    for design in designs:
        cfg = sim_config(design, bits, fc)
        assert power_part(cfg) == ("slice" if design in sliced else "row"), design
        # with SRAM macros the whole tile is simulated, its PEs sampled (flip-flop
        # buffers, where a design keeps its own stores, stay as above)
        stored = storage_variant(cfg, "macros", True)
        assert power_part(stored) == ("sampled" if stored.buffers == "macros" else
                                      power_part(cfg)), design


def test_report_refuses_a_malformed_report(termwise, tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "power_report.json").write_text("{not json")
    r = termwise("report", "--workload", "digits-cnn", "--reports", "in", "-o", "out")
    assert_usage_error(r, tmp_path / "out", "reports")


@pytest.mark.synth
@pytest.mark.slow
def test_report_measures_everything(termwise, tmp_path):
    """The whole chain on baseline-16x16 and stripes-16x16 (with its per-column fc
    weights): synthesis, gate-level power under digits-cnn, simulation."""
    r = ok(termwise("report", "--workload", "digits-cnn", "--designs", "stripes",
                    "--images", "2", "-o", "out", timeout=6 * 3600))
    doc = load_json(tmp_path / "out" / "report.json")
    for row in doc["rows"]:
        assert row["power_mw"] > 0 and row["energy_per_inference_uj"] > 0
        assert row["power_error"] is None
    assert "report.md" in r.stdout


def test_a_failed_power_tool_keeps_the_row(tmp_path, monkeypatch):
    """The gate-level power flow's tool dies (Verilator killed for memory: exit 137): the
    report keeps every row with the reason, no traceback; the other rows are unchanged."""
    import termwise.synth.power.flow as power_flow
    from termwise.gen.flows.ppa import run_report
    from termwise.gen.errors import ToolError

    _write_reports(tmp_path / "in")
    for design in FIXTURE:                       # synthesis given, power to be measured
        (tmp_path / "in" / design / "power_report.json").unlink()

    def dies(*args, **kwargs):
        raise ToolError("verilator", 137, "build/x/verilator.log")
    monkeypatch.setattr(power_flow, "power_report", dies)
    doc = run_report("digits-cnn", 16, str(tmp_path / "out"), designs="stripes", images=2,
                     reports=str(tmp_path / "in"), plots=False, log=lambda m: None)
    rows = {row["design"]: row for row in doc["rows"]}
    want = ("the gate-level power flow failed: verilator killed by SIGKILL (exit 137): "
            "probably out of memory: see build/x/verilator.log")
    assert [rows[d]["power_error"] for d in ("baseline", "stripes")] == [want, want]
    assert rows["stripes"]["area_mm2"] == pytest.approx(FIXTURE["stripes"][0] / 1e6)


@pytest.mark.parametrize("returncode, text", [
    (1, "verilator exited 1"),
    (-7, "verilator killed by SIGBUS (exit -7)"),          # subprocess's way
    (135, "verilator killed by SIGBUS (exit 135)"),        # a shell's way (128 + 7)
    (-9, "verilator killed by SIGKILL (exit -9): probably out of memory"),
])
def test_a_failed_tool_is_one_line_exit_1(capsys, monkeypatch, returncode, text):
    """Any command (gen/cli.py:main): a tool that dies is one line naming it, how it ended
    and its log, exit 1; any other error stays an error."""
    from termwise.gen import cli
    from termwise.gen.errors import ToolError

    def killed(args):
        raise ToolError("verilator", returncode, "build/x/verilator.log")
    monkeypatch.setattr(cli, "build_parser", lambda: _Parsed(killed))
    assert cli.main([]) == 1
    assert capsys.readouterr().err == f"error: {text}: see build/x/verilator.log\n"

    def bug(args):
        raise RuntimeError("an internal error")
    monkeypatch.setattr(cli, "build_parser", lambda: _Parsed(bug))
    with pytest.raises(RuntimeError):
        cli.main([])


class _Parsed:
    """A parser whose one command is ``func`` (for :func:`cli.main`)."""

    def __init__(self, func):
        self.func = func

    def parse_args(self, argv):
        import argparse
        return argparse.Namespace(func=self.func)
