"""The split of a tile's energy into busy, load, idle and empty-run cycles
(:mod:`termwise.synth.power.phases`): four runs made up from known energies per cycle of
each sort are solved back exactly, kind by kind; runs that cannot separate the sorts and
counts that do not add up are refused; the record's derived figures (power while busy, a
loaded row over an idle cycle) from hand arithmetic. The harness's counts against the cycle
model: tests/e2e/test_power.py."""

import math

import pytest

from termwise.synth.power.phases import RUNS, SORTS, by_sort, counts, phase_record, solve

F_HZ = 100e6
#: Made-up energies per cycle (J): per kind, busy / load / idle / empty-run.
TRUE = {"buffers": (30e-12, 12e-12, 10e-12, 20e-12), "pe_lanes": (50e-12, 1e-12, 0.5e-12, 2e-12),
        "io_wrapper": (4e-12, 4e-12, 4e-12, 4e-12)}
#: (busy, load, other) cycles the harness counts in the workload, loads, empty and idle runs.
CYCLES = [(1624, 2840, 412), (204, 2840, 412), (204, 102, 412), (0, 0, 1000)]


def _energy(run, c, kind):
    return sum(x * e for x, e in zip(by_sort(run, c), TRUE[kind]))


def _stats(c):
    return {"cycles": sum(c), "busy_cycles": c[0], "load_cycles": c[1]}


def test_solve_recovers_the_energies_per_sort():
    runs = [(by_sort(r, c), {k: _energy(r, c, k) for k in TRUE}) for r, c in zip(RUNS, CYCLES)]
    got = solve(runs)
    for k, want in TRUE.items():
        for s, w in zip(SORTS, want):
            assert math.isclose(got[k][s], w, rel_tol=1e-9), (k, s)


def test_record_by_hand():
    sims = [(_stats(c), {k: {"total_w": _energy(r, c, k) / sum(c) * F_HZ} for k in TRUE})
            for r, c in zip(RUNS, CYCLES)]
    rec = phase_record(sims, F_HZ)
    assert [r["run"] for r in rec["runs"]] == list(RUNS)
    assert [(r["busy_cycles"], r["load_cycles"], r["other_cycles"]) for r in rec["runs"]] \
        == CYCLES
    # the loads and empty runs' busy cycles are empty-run cycles
    assert rec["runs"][1]["by_sort"] == {"busy": 0, "load": 2840, "idle": 412, "empty": 204}
    # the tile: every kind but the IO wrapper
    assert math.isclose(rec["busy_w"], (30e-12 + 50e-12) * F_HZ, rel_tol=1e-9)
    assert math.isclose(rec["idle_w"], (10e-12 + 0.5e-12) * F_HZ, rel_tol=1e-9)
    assert math.isclose(rec["load_row_pj"], (12 + 1) - (10 + 0.5), rel_tol=1e-9)
    assert math.isclose(rec["busy_buffers_w"], 30e-12 * F_HZ, rel_tol=1e-9)
    assert math.isclose(rec["load_row_buffers_pj"], 12 - 10, rel_tol=1e-9)
    assert math.isclose(rec["per_cycle_pj"]["tile"]["empty"], 22, rel_tol=1e-9)


def test_refusals():
    same = [(c, {"x": 1.0}) for c in [(10, 20, 5, 0), (20, 40, 10, 0), (0, 0, 7, 0),
                                      (0, 1, 3, 4)]]
    with pytest.raises(ValueError, match="do not separate"):
        solve(same)
    with pytest.raises(ValueError, match="4 runs"):
        solve(same[:3])
    with pytest.raises(ValueError, match="busy"):
        counts({"cycles": 10, "busy_cycles": 8, "load_cycles": 5})
