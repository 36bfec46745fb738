"""`termwise tune`'s selection on hand-made data: the ranking, the per-layer choice and its
gain, the Pareto front, the area budget, the analytic fallback on a hand-made perf-db, the
workload key cache and the default space (all expected values counted by hand)."""

import pytest

from termwise.gen.config import from_mapping
from termwise.gen.flows.perfdb import PerfDB, PerfDBChain, Record
from termwise.gen.flows.tune.collect import analytic_cycles, collect, layer_macs
from termwise.gen.flows.tune.objectives import figure, network_cost
from termwise.gen.flows.tune.rank import pareto_front, per_layer_choice, rank
from termwise.gen.flows.tune.space import Candidate, default_space, select_designs


def _entry(top, cycles, area=None, energy=None, design="d", fmax=100.0):
    return {"top": top, "design": design, "preset": None, "images": 10,
            "layers": [{"layer": f"l{k}", "cycles": c, "rtl_cycles": c}
                       for k, c in enumerate(cycles)],
            "fallback": [], "area_mm2": area, "fmax_mhz": fmax if area else None,
            "energy": energy, "excluded": None}


ENTRIES = [_entry("a", [100, 50, 10], area=2.0), _entry("b", [60, 80, 20], area=1.0),
           _entry("c", [90, 40, 40], area=None), _entry("d", [100, 50, 10], area=4.0)]


def test_cycles_ranking_ties_by_top_name():
    # totals a 160, b 160, c 170, d 160: a, b, d tie on 160 -> by name.
    ranked, unranked = rank(ENTRIES, "cycles")
    assert [ENTRIES[i]["top"] for i in ranked] == ["a", "b", "d", "c"] and unranked == {}


def test_per_layer_choice_and_gain():
    ranked, _ = rank(ENTRIES, "cycles")
    pl = per_layer_choice(ENTRIES, ranked, "cycles")
    # l0: b 60; l1: c 40; l2: a and d 10 -> a (name).
    assert [x["top"] for x in pl["layers"]] == ["b", "c", "a"]
    assert pl["total"] == 60 + 40 + 10 and pl["one_tile"] == 160
    assert pl["gain"] == pytest.approx(160 / 110)


def test_perf_per_area_needs_areas_and_the_budget_filters():
    ranked, unranked = rank(ENTRIES, "perf-per-area")
    # cycles / 100 MHz x area: a 3.2, b 1.6, d 6.4 us mm2; c has no area.
    assert [ENTRIES[i]["top"] for i in ranked] == ["b", "a", "d"]
    assert unranked == {2: "no synthesised area"}
    # 10 inferences in 1.6 us on 1 mm2.
    assert figure(ENTRIES[1], "perf-per-area") == pytest.approx(10 / 1.6e-6)
    ranked, unranked = rank(ENTRIES, "cycles", area_budget_mm2=2.0)
    assert [ENTRIES[i]["top"] for i in ranked] == ["a", "b"]
    assert unranked[3] == "area 4.0000 mm2 over the budget 2 mm2"


def test_energy_and_edp_need_a_power_record():
    e1 = _entry("x", [10, 10], energy={"per_inference_j": 3e-6, "time_s": 2e-3,
                                       "layers_j": [1e-6, 2e-6], "layers_s": [1.5e-3, 0.5e-3]})
    e2 = _entry("y", [10, 10], energy={"per_inference_j": 4e-6, "time_s": 1e-3,
                                       "layers_j": [2.5e-6, 1.5e-6], "layers_s": [0.5e-3, 0.5e-3]})
    e3 = _entry("z", [1, 1])
    ranked, unranked = rank([e1, e2, e3], "energy")
    assert ranked == [0, 1] and unranked[2].startswith("no power record")
    # EDP: x 6e-9, y 4e-9.
    ranked, _ = rank([e1, e2, e3], "edp")
    assert ranked == [1, 0] and network_cost(e2, "edp") == pytest.approx(4e-9)
    pl = per_layer_choice([e1, e2, e3], ranked, "edp")
    # per layer E x t: l0 x 1.5e-9, y 1.25e-9 -> y; l1 x 1e-9, y 0.75e-9 -> y.
    assert [x["top"] for x in pl["layers"]] == ["y", "y"]
    assert pl["total"] == pytest.approx(4e-6 * 1e-3) and pl["gain"] == pytest.approx(1.0)


def test_pareto_front():
    pts = [(1, 10), (2, 5), (3, 7), (4, 1), (2, 6), (5, 1)]
    assert pareto_front(pts) == [0, 1, 3]


def test_layer_macs_and_analytic_cycles():
    conv = {"N": 2, "C": 8, "H": 8, "W": 8, "R": 3, "S": 3, "K": 16, "OH": 4, "OW": 4,
            "groups": 1}
    assert layer_macs(conv) == 2 * 16 * 16 * 8 * 9
    dw = dict(conv, K=8, groups=8)
    assert layer_macs(dw) == 2 * 16 * 8 * 1 * 9
    cfg = from_mapping({"arch": "baseline", "filters": 4, "windows": 1, "lanes": 4,
                        "act_bits": 8, "wgt_bits": 8})
    assert analytic_cycles(conv, cfg, 8) == -(-(2 * 16 * 16 * 8 * 9) // 16)


def test_collect_from_a_hand_made_db(tmp_path):
    cfg = from_mapping({"arch": "baseline", "filters": 4, "windows": 1, "lanes": 4,
                        "act_bits": 8, "wgt_bits": 8})
    narrow = from_mapping({"arch": "baseline", "filters": 1, "windows": 1, "lanes": 2,
                           "act_bits": 4, "wgt_bits": 4, "depth": 4})
    method, versions = {"m": 1}, {"v": 1}
    d1 = {"N": 1, "C": 16, "H": 1, "W": 1, "R": 1, "S": 1, "K": 8, "OH": 1, "OW": 1,
          "groups": 1}
    d2 = dict(d1, C=32)
    db = PerfDB(str(tmp_path / "p.sqlite"), create=True)
    db.record([Record("k1", "layer", d1, cfg, "cycles", method, versions, "ok",
                      {"cycles": 7, "rtl_cycles": 9, "work": 5}, 0.1)])
    chain = PerfDBChain([db])
    wl = {"images": 1, "layers": [{"name": "fc1", "key": "k1", "detail": d1},
                                  {"name": "fc2", "key": "k2", "detail": d2}]}
    cands = [Candidate("baseline", cfg), Candidate("baseline", narrow)]
    e, n = collect(chain, cands, wl, bits=8, method=method, versions=versions)
    assert [x["cycles"] for x in e["layers"]] == [7, 32 * 8 // 16]     # db, then MACs / peak
    assert [x["source"] for x in e["layers"]] == ["db", "analytic"] and e["fallback"] == ["fc2"]
    assert n["excluded"] == "act_bits = 4 is narrower than the workload's 8-bit values"
    # Another method finds nothing: every layer falls back.
    e, _ = collect(chain, cands, wl, bits=8, method={"m": 2}, versions=versions)
    assert e["fallback"] == ["fc1", "fc2"]
    db.close()


def test_workload_keys_cache_changes_with_the_trace_files(tmp_path, monkeypatch):
    from termwise.gen.flows.perfdb.workload_keys import (cached_layers, fingerprint,
                                                   workload_problem_key)
    monkeypatch.setenv("TERMWISE_WORKLOADS", str(tmp_path / "wl"))
    (tmp_path / "wl").mkdir()
    first = fingerprint("digits-cnn")
    (tmp_path / "wl" / "other_net.npz").write_bytes(b"x")
    assert fingerprint("digits-cnn") == first               # another family: no change
    (tmp_path / "wl" / "digits-cnn_w.npz").write_bytes(b"x")
    assert fingerprint("digits-cnn") != first
    db = PerfDB(str(tmp_path / "p.sqlite"), create=True)
    chain = PerfDBChain([db])
    assert cached_layers(chain, "digits-cnn", 8) is None
    db.put_problem(workload_problem_key("digits-cnn", 8), "workload", {"layers": []})
    assert cached_layers(chain, "digits-cnn", 8) == {"layers": []}
    (tmp_path / "wl" / "digits-cnn_w.npz").write_bytes(b"xy")     # retrained: stale
    assert cached_layers(chain, "digits-cnn", 8) is None
    db.close()


def test_default_space_at_equal_peak():
    space = default_space(8)
    loom = {c.cfg.serial_bits: c.cfg.windows for c in space if c.design == "loom"}
    # loom-16x16-8b: 32 windows at 2 bits a cycle (4 x 8 = 32 cycles a dense 8-bit brick);
    # 1 bit: 64 cycles -> 64 windows; 4 bits: 16 cycles -> 16 windows.
    assert loom == {2: 32, 1: 64, 4: 16}
    # 16 filters x windows x 16 lanes / cycles per dense brick = 256 MAC/cycle, by hand for
    # a few: stripes 8 windows / 8 cycles; pragmatic-booth 4 windows / 4 Booth digits.
    stripes = [c for c in space if c.design == "stripes"]
    assert [c.cfg.windows for c in stripes] == [8]
    assert {c.cfg.windows for c in space if c.design == "pragmatic-booth"} == {4}
    assert len([c for c in space if c.design == "pragmatic"]) == 6
    assert len({c.top for c in space}) == len(space)
    assert [c.design for c in select_designs(space, "loom,diffy")] == ["loom"] * 3 + ["diffy"] * 3


def test_grid_points_that_are_presets_count_as_presets():
    """A grid point with the tile termwise sim runs for a design (the 8-bit Stripes preset
    with its per-column fc weights) is that design's preset candidate; the bare preset
    (no fc_columns) and another width are plain grid points of their architecture."""
    from termwise.gen.flows.sweep.grid import parse_grid
    from termwise.gen.flows.tune.space import grid_space
    grid = parse_grid({"workload": "digits-cnn", "precision": 8, "grid": [
        {"preset": "stripes-16x16-8b", "fc_columns": 1},
        {"preset": "stripes-16x16-8b"},
        {"preset": "stripes-16x16-8b", "fc_columns": 1, "windows": 4}]})
    got = [(c.design, c.preset) for c in grid_space(grid)]
    assert got == [("stripes", "stripes-16x16-8b"), ("stripes", None), ("stripes", None)]


def test_perf_per_area_runs_each_tile_at_its_own_fmax():
    """a: 160 RTL cycles at 200 MHz on 2 mm2 = 1.6 us mm2; b: 160 at 50 MHz on 1 mm2 =
    3.2 us mm2: a wins although its cycles x area is twice b's; per layer, the time. The
    RTL cycles count, not the steady-state ones."""
    a = _entry("a", [100, 60], area=2.0, fmax=200.0)
    b = _entry("b", [60, 100], area=1.0, fmax=50.0)
    for x in b["layers"]:
        x["cycles"] = 1                   # steady state: b far ahead; in RTL cycles, not
    ranked, _ = rank([a, b], "perf-per-area")
    assert ranked == [0, 1]
    assert figure(a, "perf-per-area") == pytest.approx(10 / 1.6e-6)
    pl = per_layer_choice([a, b], ranked, "perf-per-area")
    # l0: a 0.5 us, b 1.2 us; l1: a 0.3 us, b 2.0 us.
    assert [x["top"] for x in pl["layers"]] == ["a", "a"]
    assert pl["total"] == pytest.approx(0.8) and pl["one_tile"] == pytest.approx(0.8)
    no_fmax = dict(b, fmax_mhz=None)
    assert rank([a, no_fmax], "perf-per-area")[1] == {1: "no Fmax in its synthesis"}
