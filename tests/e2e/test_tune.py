"""`termwise tune` end to end on digits-cnn (8 bits) with tiny candidate sets: find mode
(winner checked against the golden cycle model called directly and the baseline's hand
count), immediate mode from the filled db (same answer, no fallback) and from an empty db
(the analytic model's figures counted by hand), best.toml through `termwise gen --config`,
perf-per-area from a hand-made db, the energy objective from hand-made power reports (the
golden energy model called directly), synthesis of the smallest tile only, and the
refusals."""

import json
import time

import pytest

from termwise_e2e import SYNTH_CACHE, assert_png, assert_usage_error, load_json, ok

GRID = """\
workload = "digits-cnn"
precision = 8

[[grid]]
preset = "baseline-4x4"
lanes = [2, 4]

[[grid]]
preset = "stripes-4x4"
windows = [4, 8]
"""

#: Hand count of baseline-4x4 with 4 lanes on the 8-bit digits CNN (tests/e2e/test_sweep.py):
#: conv1 360*64 windows x 2 filter groups x 9 bricks; conv2 360*16 x 4 x 18; fc 360 x 3 x 64.
BASELINE_4 = 360 * 64 * 2 * 9 + 360 * 16 * 4 * 18 + 360 * 3 * 64
#: MACs of the digits CNN's layers on 360 images: conv1 1->8 3x3 on 8x8; conv2 8->16 3x3/2
#: -> 4x4; fc 256 -> 10.
MACS = [360 * 64 * 8 * 9, 360 * 16 * 16 * 8 * 9, 360 * 10 * 256]


def _points():
    from termwise.gen.config import from_mapping, load_presets
    b, s = ({k: v for k, v in load_presets()[name].items() if k != "description"}
            for name in ("baseline-4x4", "stripes-4x4"))
    return [from_mapping({**b, "lanes": 2}), from_mapping(b),
            from_mapping({**s, "windows": 4}), from_mapping(s)]


def _golden_layers(cfg):
    """Per layer (cycles, rtl_cycles) of the golden model called directly."""
    from termwise.golden.netsim.simulate import simulate_layer
    from termwise.golden.workloads import load_workload
    layers = load_workload("digits-cnn", 8, log=lambda m: None).layers
    out = []
    for layer in layers:
        r = simulate_layer(layer, {"x": cfg}, sample_pairs=1 << 23).designs["x"]
        out.append((r["cycles"], r["rtl_cycles"]))
    return out


@pytest.fixture(scope="module")
def golden():
    return {cfg.top_name: _golden_layers(cfg) for cfg in _points()}


def test_find_then_immediate_then_gen(termwise, tmp_path, golden):
    (tmp_path / "grid.toml").write_text(GRID)
    r = ok(termwise("tune", "--workload", "digits-cnn", "--precision", "8", "--grid",
                    "grid.toml", "--db", "p.sqlite", "-o", "find", "--workers", "1"))
    doc = load_json(tmp_path / "find" / "tune.json")
    totals = {top: sum(c for c, _ in layers) for top, layers in golden.items()}
    assert totals[_points()[1].top_name] == BASELINE_4
    want = min(totals, key=lambda t: (totals[t], t))
    assert doc["best"]["top"] == want and doc["best"]["figure"] == totals[want]
    assert r.stdout.startswith(f"best for cycles: {want} ")
    assert [x["top"] for x in doc["ranking"]] == sorted(totals, key=lambda t: (totals[t], t))
    assert doc["evaluated"]["evaluated"] == {"sim": 4}
    # Per layer: the fewest cycles of any candidate, from the golden model.
    per = [min(golden, key=lambda t: (golden[t][k][0], t)) for k in range(3)]
    assert [x["top"] for x in doc["per_layer"]["layers"]] == per
    switched = sum(golden[t][k][0] for k, t in enumerate(per))
    assert doc["per_layer"]["total"] == switched
    assert doc["per_layer"]["gain"] == pytest.approx(totals[want] / switched)
    md = (tmp_path / "find" / "tune.md").read_text()
    assert "## Per layer (if the tile could switch)" in md and "Fallbacks" in md
    assert_png(tmp_path / "find" / "tune_pareto.png")

    # Immediate mode from the filled db: the same answer, nothing estimated.
    t0 = time.perf_counter()
    r = ok(termwise("tune", "--workload", "digits-cnn", "--precision", "8", "--grid",
                    "grid.toml", "--db", "p.sqlite", "-o", "imm", "--mode", "immediate",
                    "--no-plot"))
    wall = time.perf_counter() - t0
    imm = load_json(tmp_path / "imm" / "tune.json")
    assert imm["best"] == doc["best"] and imm["ranking"] == doc["ranking"]
    assert all(not e["fallback"] for e in imm["candidates"])
    assert "the perf-db has no problem keys" not in r.stderr     # keys cached by find mode
    print(f"tune immediate (4 candidates, digits-cnn): {wall:.2f} s wall")

    # best.toml is a configuration `termwise gen --config` accepts: the chosen tile.
    ok(termwise("gen", "--config", "find/best.toml", "-o", "rtl"))
    manifest = load_json(tmp_path / "rtl" / "manifest.json")
    assert manifest["top"] == want


def test_immediate_on_empty_db_falls_back_to_the_analytic_model(termwise, tmp_path):
    (tmp_path / "grid.toml").write_text(GRID)
    r = ok(termwise("tune", "--workload", "digits-cnn", "--precision", "8", "--grid",
                    "grid.toml", "--db", "empty.sqlite", "-o", "out", "--mode", "immediate"))
    doc = load_json(tmp_path / "out" / "tune.json")
    assert "4 candidates estimated with the analytic model" in r.stdout
    # Peaks at 8 bits, by hand: baseline 4 filters x lanes (2: 8, 4: 16 MAC/cycle); stripes
    # 4 filters x windows x 4 lanes over 8 cycles a brick (4 windows: 8, 8 windows: 16).
    peak = dict(zip([p.top_name for p in _points()], [8, 16, 8, 16]))
    for e in doc["candidates"]:
        assert e["fallback"] == ["conv1", "conv2", "fc"]
        assert [x["cycles"] for x in e["layers"]] == [-(-m // peak[e["top"]]) for m in MACS]
    md = (tmp_path / "out" / "tune.md").read_text()
    assert "Estimated with the analytic model" in md


def _synth_versions():
    from termwise.gen.flows.sweep.jobs import versions
    return versions("synth")


def test_perf_per_area_and_budget_from_a_hand_made_db(termwise, tmp_path, golden):
    (tmp_path / "grid.toml").write_text(GRID)
    ok(termwise("tune", "--workload", "digits-cnn", "--precision", "8", "--grid", "grid.toml",
                "--db", "p.sqlite", "-o", "find", "--workers", "1"))
    areas = [0.05, 0.08, 0.30, 0.50]            # mm2, made up for the test
    method = {"target": "asic", "clock_ns": 10.0}
    doc = {"format": "termwise-perfdb", "schema_version": 1,
           "problems": [{"key": "synth-asic-clk10", "kind": "synth", "detail": method}],
           "configs": [], "results": [
               {"problem": "synth-asic-clk10", "config": cfg.to_dict(), "kind": "synth",
                "method": method, "versions": _synth_versions(), "status": "ok",
                "value": {"area_um2": a * 1e6, "area_compute_um2": a * 5e5, "fmax_mhz": 100.0,
                          "cell_count": 10, "clock_ns": 10.0}, "seconds": 1.0}
               for cfg, a in zip(_points(), areas)]}
    (tmp_path / "areas.json").write_text(json.dumps(doc))
    ok(termwise("db", "import", "areas.json", "--db", "p.sqlite"))
    ok(termwise("tune", "--workload", "digits-cnn", "--precision", "8", "--grid", "grid.toml",
                "--db", "p.sqlite", "-o", "ppa", "--mode", "immediate",
                "--objective", "perf-per-area"))
    out = load_json(tmp_path / "ppa" / "tune.json")
    tops = [p.top_name for p in _points()]
    # RTL cycles at the synthesis' 100 MHz (us) x area
    cost = {t: sum(r for _, r in golden[t]) / 100.0 * a for t, a in zip(tops, areas)}
    assert [x["top"] for x in out["ranking"]] == sorted(cost, key=lambda t: (cost[t], t))
    best = out["ranking"][0]
    assert best["figure"] == pytest.approx(360 * 1e6 / cost[best["top"]])
    # A budget of 0.1 mm2 leaves the two baselines.
    ok(termwise("tune", "--workload", "digits-cnn", "--precision", "8", "--grid", "grid.toml",
                "--db", "p.sqlite", "-o", "budget", "--mode", "immediate",
                "--area-budget", "0.1"))
    out = load_json(tmp_path / "budget" / "tune.json")
    assert sorted(x["top"] for x in out["ranking"]) == sorted(tops[:2])
    assert sum("over the budget 0.1 mm2" in u["reason"] for u in out["unranked"]) == 2


def _power_report(path, cfg, tile_w, mhz):
    path.mkdir(parents=True)
    (path / "power_report.json").write_text(json.dumps({
        "top": cfg.top_name, "preset": None, "config": cfg.to_dict(),
        "clock": {"mhz": mhz}, "activity": {"source": "random"},
        "power_w": {"tile": tile_w, "total": tile_w},
        "by_kind_w": {"buffers": {"total_w": tile_w / 2}}}))


def test_energy_objective_from_power_reports(termwise, tmp_path, golden):
    from termwise.golden.netsim.energy import design_energy
    from termwise.golden.workloads import load_workload
    (tmp_path / "grid.toml").write_text(GRID)
    pts = _points()
    power = {pts[1].top_name: (0.02, 100.0), pts[3].top_name: (0.05, 125.0)}
    for n, p in enumerate(pts):
        if p.top_name in power:
            _power_report(tmp_path / "power" / f"p{n}", p, *power[p.top_name])
    r = termwise("tune", "--workload", "digits-cnn", "--precision", "8", "--grid",
                 "grid.toml", "--db", "p.sqlite", "-o", "out", "--objective", "energy")
    assert_usage_error(r, tmp_path / "out", "error: objective: energy needs the tile power")
    ok(termwise("tune", "--workload", "digits-cnn", "--precision", "8", "--grid", "grid.toml",
                "--db", "p.sqlite", "-o", "out", "--objective", "energy", "--power-reports",
                "power", "--workers", "1"))
    doc = load_json(tmp_path / "out" / "tune.json")
    layers = load_workload("digits-cnn", 8, log=lambda m: None).layers
    want = {}
    for p in pts:
        if p.top_name in power:
            w, mhz = power[p.top_name]
            e = design_energy(layers, p, [rc for _, rc in golden[p.top_name]], out_bits=8,
                              images=360, power={"preset": "x", "tile_w": w,
                                                 "buffers_w": w / 2, "clock_mhz": mhz,
                                                 "source": "test"})
            want[p.top_name] = e["per_inference_j"]
    assert [x["top"] for x in doc["ranking"]] == sorted(want, key=want.get)
    for x in doc["ranking"]:
        assert x["figure"] == pytest.approx(want[x["top"]] * 1e6)
    assert sum(u["reason"].startswith("no power record") for u in doc["unranked"]) == 2
    assert doc["power_recorded"] == 2
    # tune.md names each tile power used: value, clock and the report it came from.
    md = (tmp_path / "out" / "tune.md").read_text()
    for top, (w, mhz) in power.items():
        line = next(x for x in md.splitlines() if x.startswith(f"- `{top}`: "))
        assert line.startswith(f"- `{top}`: {w * 1e3:.1f} mW at {mhz:g} MHz; termwise power ")
        assert line.endswith("activity of random operands; no clock-network estimate in "
                             "this report (none added)")
    # Recorded in the perf-db: immediate mode answers without the reports.
    ok(termwise("tune", "--workload", "digits-cnn", "--precision", "8", "--grid", "grid.toml",
                "--db", "p.sqlite", "-o", "imm", "--objective", "edp", "--mode", "immediate"))
    imm = load_json(tmp_path / "imm" / "tune.json")
    assert {x["top"] for x in imm["ranking"]} == set(want)


def test_area_budget_synthesises_only_the_smallest_tile(termwise, tmp_path):
    (tmp_path / "grid.toml").write_text(
        'workload = "digits-cnn"\nprecision = 8\n[[grid]]\narch = "baseline"\nfilters = 1\n'
        'windows = 1\nlanes = 2\nact_bits = 4\nwgt_bits = 4\ndepth = 4\n')
    r = termwise("tune", "--workload", "digits-cnn", "--precision", "8", "--grid", "grid.toml",
                 "--db", "p.sqlite", "-o", "out", "--area-budget", "1", "--cache-dir",
                 SYNTH_CACHE, "--workers", "1")
    assert r.returncode == 1 and "Traceback" not in r.stderr       # nothing rankable
    assert r.stdout == "no candidate could be ranked (see tune.md)\n"
    doc = load_json(tmp_path / "out" / "tune.json")
    assert doc["evaluated"]["evaluated"] == {"sim": 1, "synth": 1}
    (e,) = doc["candidates"]
    assert e["excluded"] == "act_bits = 4 is narrower than the workload's 8-bit values"
    ok(termwise("synth", "--arch", "baseline", "--filters", "1", "--windows", "1", "--lanes",
                "2", "--act-bits", "4", "--wgt-bits", "4", "--depth", "4", "--cache-dir",
                SYNTH_CACHE, "-o", "synth"))
    want = load_json(tmp_path / "synth" / "synth_report.json")["asic"]["area_um2"]
    assert e["area_mm2"] == pytest.approx(want / 1e6)
    r = termwise("tune", "--workload", "digits-cnn", "--precision", "8", "--grid", "grid.toml",
                 "--db", "p.sqlite", "-o", "again", "--area-budget", "1", "--cache-dir",
                 SYNTH_CACHE)
    again = load_json(tmp_path / "again" / "tune.json")
    assert again["evaluated"]["reused"]["synth"] == 1


@pytest.mark.parametrize("args, words", [
    (("--objective", "speed"), "error: objective: must be one of cycles, perf-per-area"),
    (("--designs", "warp"), "error: designs: must be one or more of baseline"),
    (("--mode", "fast"), "error: mode: must be find or immediate"),
    (("--area-budget", "-1"), "error: area_budget: must be a positive area in mm2"),
    (("--area-budget", "0.5", "--mode", "immediate"),
     "error: area_budget: needs synthesised areas and the perf-db has none"),
    (("--objective", "perf-per-area", "--mode", "immediate"),
     "error: objective: needs synthesised areas"),
    # laconic-16x16: no power in the perf-db, none given, none shipped (synth/measured)
    (("--objective", "edp", "--designs", "laconic"), "error: objective: edp needs the tile power"),
    (("--precision", "12"), "error: precision: must be 8 or 16"),
    (("--workload", "mnist"), "error: workload: must be one of"),
    (("--power-reports", "nowhere", "--objective", "energy"),
     "error: power_reports: must be a directory"),
])
def test_refusals(termwise, tmp_path, args, words):
    base = {"--workload": "digits-cnn", "--designs": "baseline,stripes"}
    argv = []
    for k, v in base.items():
        if k not in args:
            argv += [k, v]
    r = termwise("tune", *argv, *args, "--db", "p.sqlite", "-o", "out")
    assert_usage_error(r, tmp_path / "out", words)


def test_grid_of_another_workload_refused(termwise, tmp_path):
    (tmp_path / "grid.toml").write_text(GRID.replace("digits-cnn", "dncnn"))
    r = termwise("tune", "--workload", "digits-cnn", "--precision", "8", "--grid", "grid.toml",
                 "--db", "p.sqlite", "-o", "out")
    assert_usage_error(r, tmp_path / "out", "error: grid: ", "is of workload 'dncnn'")
    assert not (tmp_path / "p.sqlite").exists()


def test_corrupt_db_refused(termwise, tmp_path):
    (tmp_path / "p.sqlite").write_bytes(b"garbage" * 1000)
    r = termwise("tune", "--workload", "digits-cnn", "--designs", "baseline", "--db",
                 "p.sqlite", "-o", "out", "--mode", "immediate")
    assert_usage_error(r, tmp_path / "out", "error: db: ", "is not a termwise perf-db")
    assert (tmp_path / "p.sqlite").read_bytes() == b"garbage" * 1000


def test_presets_only_answers_from_the_system_db(termwise, tmp_path):
    """--presets-only keeps each termwise sim design's equal-peak preset (digits-cnn 8-bit:
    the presets of sim_designs(8)), answered in immediate mode from the shipped system db
    with no fallback; a grid without a preset leaves no candidate."""
    from termwise.gen.designs import sim_designs
    ok(termwise("tune", "--workload", "digits-cnn", "--precision", "8", "--presets-only",
                "--mode", "immediate", "--db", "p.sqlite", "--no-plot", "-o", "out"))
    doc = load_json(tmp_path / "out" / "tune.json")
    assert sorted(c["preset"] for c in doc["candidates"]) == sorted(sim_designs(8).values())
    assert not any(c["fallback"] for c in doc["candidates"])
    (tmp_path / "grid.toml").write_text(GRID)
    r = termwise("tune", "--workload", "digits-cnn", "--precision", "8", "--grid", "grid.toml",
                 "--presets-only", "--db", "p.sqlite", "-o", "none")
    assert_usage_error(r, tmp_path / "none", "error: presets_only: no candidate is a design's "
                                             "equal-peak preset")
