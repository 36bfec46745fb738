"""Energy per busy, load, idle and empty-run cycle, from four simulations of one gate-level
model (issue 41: "power consistent with time").

The network model (:mod:`termwise.golden.netsim.energy`) charges a tile's compute energy to
the cycles its runs compute (``rtl_cycles``: the papers' model, where loading the next
run's operands overlaps the current run) and its operand loads to the rows loaded. One
average power over a stimulus that reloads every run's weights does not describe those
cycles: the tile computes 30-86% of them, by design. So the power flow simulates the same
model four times (:mod:`.measure`):

* ``workload``: the stimulus (loads, command, compute, outputs): ``B`` busy cycles, ``L``
  load cycles, ``O`` other cycles (reset, command, output drain, gaps);
* ``loads``: the same runs with every command's ``bricks`` 0
  (:func:`.stimulus.without_bricks`): the same rows loaded, an empty run each;
* ``empty``: the same empty runs, each loading only its run's first activation row (a
  run needs one; the real row, as the loads run loads it, so that the two differ by real
  rows only);
* ``idle``: reset, then the clock alone (the harness's ``idle`` mode).

An empty run's busy cycles (its one cycle and pipeline registers; Pragmatic's fixed
overhead) are a sort of their own: they compute nothing, yet cost more than an idle cycle
on some tiles (baseline-4x4: like a busy cycle) and far less than a computing one on others
(pragmatic-4x4). With each run's energy by kind of module ``E = P x cycles / f`` and its
cycle counts (the harness's ``busy_cycles`` and ``load_cycles``, the rest ``other``; a
busy cycle of the loads and empty runs is an *empty* one), the four equations ``E_r = B_r
e_busy + L_r e_load + O_r e_idle + X_r e_empty`` give every kind's energy per cycle of
each sort exactly (a 4 x 4 solve). What the energy model uses: ``busy_w = e_busy x f``
(the tile's power while it computes) and ``load_row_pj = e_load - e_idle`` (what loading
a row adds to a cycle whose clock runs anyway: in the papers' tiles the loads overlap
compute).

Assumed: a cycle's energy depends only on its sort, not on which run it belongs to; the
output drain and the command cycles of the workload's runs are ``other`` cycles priced at
the idle energy, and what they cost beyond it lands in ``e_busy``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SORTS", "RUNS", "counts", "solve", "phase_record"]

#: The sorts of cycle, in the solve's order.
SORTS = ("busy", "load", "idle", "empty")
#: The four simulations, in the solve's order.
RUNS = ("workload", "loads", "empty", "idle")


def counts(stats: dict) -> tuple[int, int, int]:
    """``(busy, load, other)`` cycles of a harness run's counts (:func:`.measure.run_model`);
    ``ValueError`` when they do not add up."""
    c, b = int(stats["cycles"]), int(stats["busy_cycles"])
    ld = int(stats.get("load_cycles", 0))
    if b < 0 or ld < 0 or b + ld > c:
        raise ValueError(f"harness counts: {b} busy + {ld} load cycles > {c} cycles")
    return b, ld, c - b - ld


def by_sort(run: str, c: tuple[int, int, int]) -> tuple[int, int, int, int]:
    """A run's cycles of each of :data:`SORTS`: the busy cycles of the ``loads`` and
    ``empty`` runs are empty-run cycles."""
    b, ld, o = c
    return (b, ld, o, 0) if run == "workload" else (0, ld, o, b)


def solve(runs: list[tuple[tuple[int, ...], dict[str, float]]]) -> dict[str, dict]:
    """Energy per cycle of each sort, per kind.

    Parameters
    ----------
    runs : list
        One ``(cycles, energy_j)`` per sort (:data:`RUNS` order): each run's cycles of each
        of :data:`SORTS` and its energy in joules by kind.

    Returns
    -------
    dict
        ``{kind: {sort: J}}`` per cycle of each sort.

    Raises
    ------
    ValueError
        Not one run per sort, or runs whose cycle counts do not separate the sorts (a
        singular system: the loads run computed as much as the workload, say).
    """
    if len(runs) != len(SORTS):
        raise ValueError(f"{len(SORTS)} runs ({', '.join(RUNS)}), got {len(runs)}")
    a = np.array([r[0] for r in runs], dtype=float)
    scale = max(1.0, float(np.abs(a).max()))
    if abs(np.linalg.det(a / scale)) < 1e-9:
        raise ValueError(f"cycle counts {a.astype(int).tolist()} do not separate "
                         f"{', '.join(SORTS)} cycles")
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
        ``(stats, by_kind)`` of each of :data:`RUNS`, in order: the harness's counts and
        the power by kind (:func:`.measure.power_by_kind`, scaled to the whole tile for a
        part).
    f_hz : float
        The clock the power is stated at.

    Returns
    -------
    dict
        ``runs`` (their counts and cycles by sort), ``per_cycle_pj`` (per kind and
        ``tile``: each of :data:`SORTS`), ``busy_w`` / ``idle_w`` (the tile's power in such
        cycles), ``load_row_pj`` (a loaded row over an idle cycle), the same for kind
        ``buffers`` (the flop or macro operand buffers the energy model prices as its
        tile-buffer level), and ``how``.
    """
    rows = [(name, counts(st), _energy_by_kind(bk, st["cycles"], f_hz))
            for name, (st, bk) in zip(RUNS, sims)]
    per = solve([(by_sort(name, c), e) for name, c, e in rows])
    pj = {k: {s: v * 1e12 for s, v in e.items()} for k, e in per.items()}
    tile, buf = pj["tile"], pj.get("buffers", dict.fromkeys(SORTS, 0.0))
    return {
        "runs": [{"run": name, "busy_cycles": c[0], "load_cycles": c[1], "other_cycles": c[2],
                  "by_sort": dict(zip(SORTS, by_sort(name, c))), "tile_j": e["tile"]}
                 for name, c, e in rows],
        "per_cycle_pj": pj,
        "busy_w": tile["busy"] * 1e-12 * f_hz,
        "idle_w": tile["idle"] * 1e-12 * f_hz,
        "load_row_pj": tile["load"] - tile["idle"],
        "busy_buffers_w": buf["busy"] * 1e-12 * f_hz,
        "load_row_buffers_pj": buf["load"] - buf["idle"],
        "how": "four simulations of the same model (the workload; its runs with empty "
               "commands, loading the same rows; the empty runs alone; the clock alone), "
               "each run's energy by kind solved for the energy of a busy, a load, an idle "
               "and an empty-run cycle (termwise.synth.power.phases)",
    }
