"""The split of a tile's energy into busy, load and idle cycles (:mod:`termwise.synth.power.
phases`): three runs made up from known energies per cycle of each sort are solved back
exactly, kind by kind; runs that cannot separate the sorts and counts that do not add up
are refused; the record's derived figures (power while busy, a loaded row over an idle
cycle) from hand arithmetic. The harness's counts against the cycle model: tests/e2e/
test_power.py."""

import math

import pytest

from termwise.synth.power.phases import RUNS, counts, phase_record, solve

F_HZ = 100e6
#: Made-up energies per cycle (J): per kind, busy / load / idle.
TRUE = {"buffers": (30e-12, 12e-12, 10e-12), "pe_lanes": (50e-12, 1e-12, 0.5e-12),
        "io_wrapper": (4e-12, 4e-12, 4e-12)}
#: (busy, load, other) cycles of the workload, loads and idle runs.
CYCLES = [(1624, 2840, 412), (204, 2840, 412), (0, 0, 1000)]


def _by_kind(c):
    """Power by kind (W at F_HZ) of a run of ``c`` cycles, from TRUE."""
    n = sum(c)
    return {k: {"total_w": sum(x * e for x, e in zip(c, v)) / n * F_HZ}
            for k, v in TRUE.items()}


def _stats(c):
    return {"cycles": sum(c), "busy_cycles": c[0], "load_cycles": c[1]}


def test_solve_recovers_the_energies_per_sort():
    runs = [(c, {k: sum(x * e for x, e in zip(c, v)) for k, v in TRUE.items()})
            for c in CYCLES]
    got = solve(runs)
    for k, (b, ld, i) in TRUE.items():
        assert math.isclose(got[k]["busy"], b, rel_tol=1e-9)
        assert math.isclose(got[k]["load"], ld, rel_tol=1e-9)
        assert math.isclose(got[k]["idle"], i, rel_tol=1e-9)


def test_record_by_hand():
    rec = phase_record([(_stats(c), _by_kind(c)) for c in CYCLES], F_HZ)
    assert [r["run"] for r in rec["runs"]] == list(RUNS)
    assert [(r["busy_cycles"], r["load_cycles"], r["other_cycles"]) for r in rec["runs"]] \
        == CYCLES
    # the tile: every kind but the IO wrapper
    assert math.isclose(rec["busy_w"], (30e-12 + 50e-12) * F_HZ, rel_tol=1e-9)
    assert math.isclose(rec["idle_w"], (10e-12 + 0.5e-12) * F_HZ, rel_tol=1e-9)
    assert math.isclose(rec["load_row_pj"], (12 + 1) - (10 + 0.5), rel_tol=1e-9)
    assert math.isclose(rec["busy_buffers_w"], 30e-12 * F_HZ, rel_tol=1e-9)
    assert math.isclose(rec["load_row_buffers_pj"], 12 - 10, rel_tol=1e-9)
    assert math.isclose(rec["per_cycle_pj"]["io_wrapper"]["busy"], 4, rel_tol=1e-9)


def test_refusals():
    same = [(c, {"x": 1.0}) for c in [(10, 20, 5), (20, 40, 10), (0, 0, 7)]]
    with pytest.raises(ValueError, match="do not separate"):
        solve(same)
    with pytest.raises(ValueError, match="3 runs"):
        solve(same[:2])
    with pytest.raises(ValueError, match="busy"):
        counts({"cycles": 10, "busy_cycles": 8, "load_cycles": 5})
