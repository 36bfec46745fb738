"""Energy per busy, per load and per idle cycle, from three simulations of one gate-level
model (issue 41: "power consistent with time").

The network model (:mod:`termwise.golden.netsim.energy`) charges a tile's compute energy to
the cycles its runs compute (``rtl_cycles``: the papers' model, where loading the next
run's operands overlaps the current run) and its operand loads to the rows loaded. One
average power over a stimulus that reloads every run's weights does not describe those
cycles: the tile computes 30-86% of them, by design. So the power flow simulates the same
model three times (:mod:`.measure`):

* ``workload``: the stimulus (loads, command, compute, outputs), ``B_w`` busy cycles,
  ``L_w`` load cycles, ``O_w`` other cycles (reset, command, output drain, gaps);
* ``loads``: the same runs with every command's ``bricks`` 0
  (:func:`.stimulus.without_bricks`): the same rows loaded, an empty run each;
* ``idle``: reset, then the clock alone (the harness's ``idle`` mode).

With each run's energy by kind of module ``E = P x cycles / f`` and its cycle counts (the
harness's ``busy_cycles`` and ``load_cycles``, the rest ``other``), the three equations
``E_r = B_r e_busy + L_r e_load + O_r e_idle`` give every kind's energy per cycle of each
sort exactly (a 3 x 3 solve). What the energy model uses: ``busy_w = e_busy x f`` (the
tile's power while it computes) and ``load_row_pj = e_load - e_idle`` (what loading a row
adds to a cycle whose clock runs anyway: in the papers' tiles the loads overlap compute).

Assumed: a cycle's energy depends only on its sort (busy, load, other), not on which run it
belongs to; the output drain and the command cycles of the workload's runs are ``other``
cycles priced at the idle energy, and what they cost beyond it lands in ``e_busy`` (the
empty runs drain zero outputs).
"""

from __future__ import annotations

import numpy as np

__all__ = ["SORTS", "RUNS", "counts", "solve", "phase_record"]

#: The sorts of cycle, in the solve's order.
SORTS = ("busy", "load", "idle")
#: The three simulations, in the solve's order.
RUNS = ("workload", "loads", "idle")


def counts(stats: dict) -> tuple[int, int, int]:
    """``(busy, load, other)`` cycles of a harness run's counts (:func:`.measure.run_model`);
    ``ValueError`` when they do not add up."""
    c, b = int(stats["cycles"]), int(stats["busy_cycles"])
    ld = int(stats.get("load_cycles", 0))
    if b < 0 or ld < 0 or b + ld > c:
        raise ValueError(f"harness counts: {b} busy + {ld} load cycles > {c} cycles")
    return b, ld, c - b - ld


def solve(runs: list[tuple[tuple[int, int, int], dict[str, float]]]) -> dict[str, dict]:
    """Energy per cycle of each sort, per kind.

    Parameters
    ----------
    runs : list
        Three ``(counts, energy_j)`` in :data:`RUNS` order: each run's ``(busy, load,
        other)`` cycles and its energy in joules by kind.

    Returns
    -------
    dict
        ``{kind: {"busy": J, "load": J, "idle": J}}`` per cycle of each sort.

    Raises
    ------
    ValueError
        Not three runs, or runs whose cycle counts do not separate the sorts (a singular
        system: the loads run computed as much as the workload, say).
    """
    if len(runs) != len(RUNS):
        raise ValueError(f"{len(RUNS)} runs ({', '.join(RUNS)}), got {len(runs)}")
    a = np.array([r[0] for r in runs], dtype=float)
    if abs(np.linalg.det(a)) < 1e-9 * max(1.0, float(np.abs(a).max())) ** 3:
        raise ValueError(f"cycle counts {a.astype(int).tolist()} do not separate busy, "
                         "load and idle cycles")
    kinds = sorted({k for _, e in runs for k in e})
    rhs = np.array([[e.get(k, 0.0) for k in kinds] for _, e in runs], dtype=float)
    x = np.linalg.solve(a, rhs)                 # (sorts, kinds)
    return {k: {s: float(x[i, j]) for i, s in enumerate(SORTS)} for j, k in enumerate(kinds)}


def _energy_by_kind(by_kind: dict, cycles: int, f_hz: float) -> dict[str, float]:
    """Joules by kind over ``cycles`` at ``f_hz``, ``tile`` = every kind but the IO
    wrapper's."""
    out = {k: v["total_w"] * cycles / f_hz for k, v in by_kind.items()}
    out["tile"] = sum(v for k, v in out.items() if k != "io_wrapper")
    return out


def phase_record(sims: list[tuple[dict, dict]], f_hz: float) -> dict:
    """The power report's ``phases`` record.

    Parameters
    ----------
    sims : list
        Three ``(stats, by_kind)`` in :data:`RUNS` order: the harness's counts and the
        power by kind (:func:`.measure.power_by_kind`, scaled to the whole tile for a part).
    f_hz : float
        The clock the power is stated at.

    Returns
    -------
    dict
        ``runs`` (their counts), ``per_cycle_pj`` (per kind and ``tile``: busy, load and
        idle), ``busy_w`` / ``idle_w`` (the tile's power in such cycles), ``load_row_pj``
        (a loaded row over an idle cycle), the same for kind ``buffers`` (the flop or macro
        operand buffers the energy model prices as its tile-buffer level), and ``how``.
    """
    rows = [(counts(st), _energy_by_kind(bk, st["cycles"], f_hz)) for st, bk in sims]
    per = solve(rows)
    pj = {k: {s: v * 1e12 for s, v in e.items()} for k, e in per.items()}
    tile, buf = pj["tile"], pj.get("buffers", dict.fromkeys(SORTS, 0.0))
    return {
        "runs": [{"run": name, "busy_cycles": c[0], "load_cycles": c[1], "other_cycles": c[2],
                  "tile_j": e["tile"]} for name, (c, e) in zip(RUNS, rows)],
        "per_cycle_pj": pj,
        "busy_w": tile["busy"] * 1e-12 * f_hz,
        "idle_w": tile["idle"] * 1e-12 * f_hz,
        "load_row_pj": tile["load"] - tile["idle"],
        "busy_buffers_w": buf["busy"] * 1e-12 * f_hz,
        "load_row_buffers_pj": buf["load"] - buf["idle"],
        "how": "three simulations of the same model (the workload; its runs with empty "
               "commands, loading the same rows; the clock alone), each run's energy by kind "
               "solved for the energy of a busy, a load and an idle cycle "
               "(termwise.synth.power.phases)",
    }
