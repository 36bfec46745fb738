"""``termwise tune``'s run: the candidates through the perf-db (find mode: what it lacks
evaluated by the sweep engine first), ranked under the objective.

Everything the user gave is checked before anything is written (the perf-db included): the
objective, mode, designs, grid, area budget, power reports, and whether the objective can
be answered at all (energy without any power record, an area-based question in immediate
mode without any synthesised area in the perf-db).
"""

from __future__ import annotations

import math

from ...progress import note
from ...spec import ConfigError
from .collect import ANALYTIC, add_energy, collect
from .objectives import OBJECTIVES, figure, network_cost
from .rank import per_layer_choice, rank

__all__ = ["MODES", "run_tune", "check_area_budget"]

MODES = ("find", "immediate")


def check_area_budget(value) -> float | None:
    """The area budget of ``termwise tune --area-budget``.

    Parameters
    ----------
    value : float or None
        mm2; None for no budget.

    Returns
    -------
    float or None

    Raises
    ------
    ConfigError
        When ``value`` is not a finite positive number.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value <= 0:
        raise ConfigError("area_budget", f"must be a positive area in mm2, got {value!r}")
    return float(value)


def _space(workload, bits, designs, grid_path, presets_only=False):
    candidates, text, grid = _candidates(workload, bits, designs, grid_path)
    if not presets_only:
        return candidates, text, grid
    kept = [c for c in candidates if c.preset is not None]
    if not kept:
        raise ConfigError("presets_only", "no candidate is a design's equal-peak preset "
                                          "as termwise sim runs it")
    return kept, text + " Only the equal-peak presets (--presets-only).", grid


def _candidates(workload, bits, designs, grid_path):
    from ..sweep.grid import parse_grid, read_grid_table
    from .space import default_space, grid_space, select_designs, space_text
    if grid_path is None:
        return select_designs(default_space(bits), designs), space_text(bits), None
    data = read_grid_table(grid_path)
    if data.get("workload", workload) != workload:
        raise ConfigError("grid", f"{grid_path} is of workload {data['workload']!r}, not "
                                  f"--workload {workload!r}")
    if data.get("precision", bits) != bits:
        raise ConfigError("grid", f"{grid_path} has precision {data['precision']!r}, not "
                                  f"--precision {bits}")
    data = {**data, "workload": workload, "precision": bits}
    data.pop("jobs", None)
    grid = parse_grid(data, jobs=["sim"])
    text = (f"The {len(grid.points)} points of the grid {grid_path} (termwise sweep's "
            "format).")
    return select_designs(grid_space(grid), designs), text, grid


def run_tune(workload: str, bits: int, objective: str, *, designs=None, grid_path=None,
             presets_only: bool = False, area_budget=None, mode: str = "find", db=None,
             system_db: bool = True,
             power_reports=None, workers=None, cache_root=None, clock_ns: float = 10.0,
             log=None) -> dict:
    """Choose the best tile for ``workload`` at ``bits`` bits under ``objective``; returns
    the tune document (:mod:`.report` writes it). See :mod:`termwise.gen.commands.tune`."""
    from ....golden.lowering import DEFAULT_DEPTHWISE, DEFAULT_ORDER
    from ..perfdb import synth_key
    from ..sweep.engine import SYNTH_TARGET, sim_method, synth_method
    from ..sweep.jobs import versions, workload_layers
    # From .power itself, not `from . import power`: reading the package (whose __init__
    # imports this module) would be the cycle tune -> tune.run -> tune (issue 39).
    from .power import read_reports
    log = log or note
    budget = _check_arguments(workload, bits, objective, mode, area_budget)
    candidates, space_text, grid = _space(workload, bits, designs, grid_path, presets_only)
    sim = grid.sim if grid else {"order": DEFAULT_ORDER, "depthwise": DEFAULT_DEPTHWISE,
                                 "sample_pairs": 1 << 23}
    clock = grid.clock_ns if grid else clock_ns
    needs = set(OBJECTIVES[objective].needs)
    need_synth = "synth" in needs or budget is not None
    reports = read_reports(power_reports) if power_reports is not None else {}
    method, cversions = sim_method(sim), versions("cycles")
    skey, smethod = synth_key(SYNTH_TARGET, clock), synth_method(clock)
    sversions = versions("synth") if need_synth or mode == "immediate" else None
    synth = (skey, smethod, sversions)
    power = _check_answerable(db, system_db, candidates, reports, workload, objective, mode,
                              budget, need_synth, synth, log)
    entries, dbs, layers, evaluated, recorded = _evaluate(
        db, system_db, candidates, workload, bits, mode, need_synth, sim, clock, workers,
        cache_root, reports, method, cversions, synth if sversions else None, log)
    if power and any(c.top in power for c in candidates):
        if layers is None:
            log("tune: energy needs the workload's layers (memory accesses): loading it")
            layers = workload_layers(workload, bits)
        add_energy(entries, candidates, layers, power, bits=bits, order=sim["order"],
                   depthwise=sim["depthwise"])
    return _document(entries, workload, bits, objective, mode, budget, space_text, dbs,
                     method, cversions, sversions, evaluated, recorded, need_synth)


def _check_arguments(workload, bits, objective, mode, area_budget) -> float | None:
    """The objective, mode, workload and width checked; returns the area budget
    (:func:`check_area_budget`)."""
    from ....golden.workloads import check_workload
    if objective not in OBJECTIVES:
        raise ConfigError("objective", f"must be one of {', '.join(OBJECTIVES)}, got "
                                       f"{objective!r}")
    if mode not in MODES:
        raise ConfigError("mode", f"must be find or immediate, got {mode!r}")
    check_workload(workload)
    if isinstance(bits, bool) or bits not in (8, 16):
        raise ConfigError("precision", f"must be 8 or 16, got {bits!r}")
    return check_area_budget(area_budget)


def _check_answerable(db, system_db, candidates, reports, workload, objective, mode, budget,
                      need_synth, synth, log) -> dict:
    """Whether the objective can be answered, read from the perf-db without creating or
    changing it (a refusal writes nothing); returns ``{top: power record}`` of the
    candidates with a tile power for ``workload``.

    In find mode an objective that needs power takes what the perf-db and ``reports`` lack
    from the measurements shipped with termwise: they are added to ``reports`` (recorded in
    the perf-db later, with the others)."""
    from .power import choose, db_records, shipped_reports
    needs = set(OBJECTIVES[objective].needs)
    skey, smethod, sversions = synth
    chain = _readonly_chain(db, system_db)
    try:
        known_power = db_records(chain, candidates)
        for top, acts in reports.items():
            for act, (_, rec) in acts.items():
                known_power.setdefault(top, {}).setdefault(act, rec)
        lacking = {c.top for c in candidates} - set(known_power)
        if "power" in needs and lacking:
            # Read through the measured store, in either mode, and never copied into the
            # perf-db: a shipped report is used only while its key is current.
            shipped = shipped_reports(lacking, log)
            if shipped:
                log(f"tune: the tile power of {len(shipped)} candidates from the "
                    "measurements shipped with termwise (termwise measured list)")
            for top, acts in shipped.items():
                for act, (_, rec) in acts.items():
                    known_power.setdefault(top, {}).setdefault(act, rec)
        power = {top: choose(acts, workload) for top, acts in known_power.items()}
        if "power" in needs and not any(c.top in power for c in candidates):
            raise ConfigError("objective", f"{objective} needs the tile power of the "
                              f"candidates (termwise power reports): none of the "
                              f"{len(candidates)} has a power record in the perf-db, "
                              "--power-reports or the shipped measurements; "
                              "memory energy alone is not an energy objective")
        if need_synth and mode == "immediate" and not any(
                chain.lookup(skey, c.cfg, "synth", smethod, sversions) for c in candidates):
            what = "area_budget" if budget is not None else "objective"
            raise ConfigError(what, f"needs synthesised areas and the perf-db has none of the "
                                    f"{len(candidates)} candidates: run --mode find "
                                    "(synthesis) first")
    finally:
        chain.close()
    return power


def _evaluate(db, system_db, candidates, workload, bits, mode, need_synth, sim, clock,
              workers, cache_root, reports, method, cversions, synth, log) -> tuple:
    """The candidates' figures from the perf-db (find mode: what it lacks evaluated first,
    the power ``reports`` recorded); returns ``(entries, db paths, the workload's layers or
    None when not loaded, the sweep's counts or None, power records recorded)``."""
    from ..perfdb import open_chain
    from ..perfdb.workload_keys import cached_layers, record_layers
    from ..sweep.jobs import workload_layers
    from .power import record_all
    chain = open_chain(db, system=system_db)
    try:
        evaluated, failures, layers, recorded = None, {}, None, 0
        if mode == "find":
            evaluated, failures = _find(chain, candidates, workload, bits, need_synth, sim,
                                        clock, workers, cache_root, log)
            layers = workload_layers(workload, bits)
            wl = cached_layers(chain, workload, bits) or record_layers(chain, workload, bits,
                                                                       layers)
            recorded = record_all(chain, reports)
        else:
            wl = cached_layers(chain, workload, bits)
            if wl is None:
                log(f"tune: the perf-db has no problem keys of {workload} at {bits} bits yet: "
                    "loading it once to compute them (recorded for the next run)")
                layers = workload_layers(workload, bits)
                wl = record_layers(chain, workload, bits, layers)
        entries = collect(chain, candidates, wl, bits=bits, method=method,
                          versions=cversions, synth=synth, failures=failures)
        dbs = [d.path for d in chain.dbs]
    finally:
        chain.close()
    return entries, dbs, layers, evaluated, recorded


def _readonly_chain(db, system_db: bool):
    """The user db (when its file exists) and the system db, read-only."""
    import os
    from ..perfdb import PerfDB, PerfDBChain, system_db_path, user_db_path
    path = db or user_db_path()
    dbs = [PerfDB(path, readonly=True)] if os.path.isfile(path) else []
    if system_db and os.path.isfile(system_db_path()):
        dbs.append(PerfDB(system_db_path(), readonly=True))
    return PerfDBChain(dbs)


def _find(chain, candidates, workload, bits, need_synth, sim, clock, workers, cache_root,
          log):
    from ..sweep import connect, run_sweep
    from ..sweep.grid import Grid
    from ..sweep.jobs import tool_failure_line
    jobs = ("sim", "synth") if need_synth else ("sim",)
    grid = Grid(tuple(c.cfg for c in candidates), workload, bits, jobs, float(clock), sim)
    executor = connect(None, workers)
    log(f"tune: {len(candidates)} candidates x {', '.join(jobs)} on {executor.name}, "
        f"perf-db {chain.dbs[0].path}")
    try:
        doc = run_sweep(grid, executor, chain, cache_root=cache_root)
    finally:
        executor.close()
    failures = {}
    for p in doc["points"]:
        for job in jobs:
            if p[job]["status"] != "ok":
                failures.setdefault(p["top"], f"{job} failed: {p[job]['error']}")
    evaluated = {k: doc[k] for k in ("jobs", "evaluated", "reused", "failed")}
    evaluated["tool_failure"] = tool_failure_line(doc["points"], jobs, "tune.md")
    return evaluated, failures


def _vs_presets(entries, ranked, name) -> dict:
    if not ranked:
        return {"best": None}
    b = entries[ranked[0]]
    best_cost = network_cost(b, name)
    vs = [{"preset": entries[i]["preset"], "design": entries[i]["design"],
           "figure": figure(entries[i], name),
           "ratio": network_cost(entries[i], name) / best_cost}
          for i in ranked if entries[i]["preset"]]
    return {"best": b["top"], "design": b["design"], "figure": figure(b, name),
            "vs_presets": vs}


def _document(entries, workload, bits, objective, mode, budget, space_text, dbs, method,
              cversions, sversions, evaluated, recorded, need_synth) -> dict:
    ranked, unranked = rank(entries, objective, budget)
    ranking = [{"rank": n + 1, "index": i, "top": entries[i]["top"],
                "figure": figure(entries[i], objective),
                "cycles": sum(x["cycles"] for x in entries[i]["layers"])}
               for n, i in enumerate(ranked)]
    best = None
    if ranked:
        e = entries[ranked[0]]
        best = {k: e[k] for k in ("top", "design", "preset", "config")}
        best["figure"] = figure(e, objective)
    objectives = {}
    for name in OBJECTIVES:
        r, why = rank(entries, name, budget)
        o = _vs_presets(entries, r, name)
        if o["best"] is None:
            reasons = sorted(set(why.values()))
            o["why"] = reasons[0] if len(reasons) == 1 else "; ".join(reasons[:3])
        objectives[name] = o
    return {"workload": workload, "bits": bits, "objective": objective, "mode": mode,
            "area_budget_mm2": budget, "space_text": space_text, "dbs": dbs,
            "sim_method": method, "versions": {"cycles": cversions, "synth": sversions},
            "analytic_model": ANALYTIC, "evaluated": evaluated,
            "power_recorded": recorded, "needs_synth": need_synth,
            "candidates": entries, "ranking": ranking,
            "unranked": [{"top": entries[i]["top"], "reason": why}
                         for i, why in sorted(unranked.items())],
            "best": best, "per_layer": per_layer_choice(entries, ranked, objective),
            "objectives": objectives}
