"""``termwise tune``: the best tile configuration of a workload, from the perf-db.

    termwise tune --workload W -o DIR [--precision 8|16] [--designs D,...] [--grid GRID.toml]
                  [--presets-only] [--objective cycles|energy|edp|perf-per-area] [--area-budget MM2]
                  [--mode find|immediate] [--power-reports DIR] [--db PATH]
                  [--no-system-db] [--workers N] [--cache-dir DIR] [--no-plot]

The candidates are the default space (:mod:`termwise.gen.flows.tune.space`: every ``termwise
sim`` design's equal-peak preset for the workload's width and a small grid of its options
around it at the same peak), narrowed by ``--designs`` or replaced by a sweep grid
(``--grid``); ``--presets-only`` keeps the equal-peak presets alone (the tiles
``termwise report`` measures, so their shipped syntheses answer an area question).
``find`` mode (the default) first evaluates what the perf-db lacks through the sweep
engine (the cycle model per layer; synthesis of each configuration when the objective or
the area budget needs areas) and records it; ``immediate`` mode answers from the perf-db
alone, estimating what it lacks with the analytic peak model and saying so. For the energy
objectives both modes also read the power reports shipped with termwise
(``synth/measured``) of the candidates without one, if current (never copied into the
perf-db).
Writes DIR/tune.json, tune.md, best.toml (``termwise gen --config`` reads it) and
tune_pareto.png. Bad input: one line, exit 2, nothing written.
"""

from __future__ import annotations

import os
import sys
import time

from ..spec import ConfigError

__all__ = ["register"]

#: Position in ``termwise --help``.
ORDER = 85


def _cmd(args) -> int:
    from ..flows.tune import run_tune
    from ..flows.tune.objectives import OBJECTIVES
    from ..flows.tune.report import write_reports
    t0 = time.perf_counter()
    if os.path.exists(args.output) and not os.path.isdir(args.output):
        raise ConfigError("output", f"{args.output} exists and is not a folder")
    try:
        bits = int(args.precision)
    except ValueError:
        raise ConfigError("precision", f"must be 8 or 16, got {args.precision!r}") from None
    doc = run_tune(args.workload, bits, args.objective, designs=args.designs,
                   grid_path=args.grid, presets_only=args.presets_only,
                   area_budget=args.area_budget, mode=args.mode,
                   db=args.db, system_db=not args.no_system_db,
                   power_reports=args.power_reports, workers=args.workers,
                   cache_root=args.cache_dir)
    answered = time.perf_counter() - t0
    paths = write_reports(args.output, doc, plot=not args.no_plot)
    best = doc["best"]
    unit = OBJECTIVES[args.objective].unit
    if best is None:
        print("no candidate could be ranked (see tune.md)")
    else:
        fb = sum(bool(e["fallback"]) for e in doc["candidates"])
        print(f"best for {args.objective}: {best['top']} ({best['design']}), "
              f"{best['figure']:.6g} {unit}"
              + (f"; {fb} candidates estimated with the analytic model" if fb else ""))
    print(f"answered in {answered:.2f} s; wrote {', '.join(paths)} in "
          f"{time.perf_counter() - t0:.2f} s", file=sys.stderr)
    failed_tool = (doc["evaluated"] or {}).get("tool_failure")
    if failed_tool:
        print(f"error: {failed_tool}", file=sys.stderr)
        return 1
    return 0 if best is not None else 1


def _area(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ConfigError("area_budget", f"must be a positive area in mm2, got "
                                         f"{text!r}") from None


def register(subparsers) -> None:
    p = subparsers.add_parser("tune", help="the best tile configuration of a workload per "
                                           "layer and for the whole network, from the "
                                           "perf-db")
    p.add_argument("--workload", required=True)
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.add_argument("--precision", default="16", metavar="8|16",
                   help="the workload's fixed-point bits (default 16, as termwise sim)")
    p.add_argument("--designs", default=None, metavar="D,...",
                   help="keep the candidates of these designs (default: every design)")
    p.add_argument("--grid", default=None, metavar="GRID.toml",
                   help="the candidates: a termwise sweep grid instead of the default space")
    p.add_argument("--presets-only", action="store_true",
                   help="keep only the designs' equal-peak presets as termwise sim runs "
                        "them (the tiles termwise report measures)")
    p.add_argument("--objective", default="cycles",
                   help="cycles (default), energy, edp or perf-per-area")
    p.add_argument("--area-budget", type=_area, default=None, metavar="MM2",
                   help="only candidates whose synthesised area is at most this")
    p.add_argument("--mode", default="find",
                   help="find (evaluate what the perf-db lacks; default) or immediate "
                        "(answer from the perf-db alone)")
    p.add_argument("--power-reports", default=None, metavar="DIR",
                   help="power_report.json files of termwise power (the energy objectives)")
    p.add_argument("--db", default=None, metavar="PATH",
                   help="perf-db (default: the user db, $TERMWISE_PERFDB or "
                        "$XDG_CACHE_HOME/termwise/perfdb.sqlite)")
    p.add_argument("--no-system-db", action="store_true",
                   help="do not answer from the system db shipped in the package")
    p.add_argument("--workers", type=int, default=None,
                   help="find mode: local pool processes (default: one per core)")
    p.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="synthesis cache (default build/synth-cache)")
    p.add_argument("--no-plot", action="store_true", help="do not draw tune_pareto.png")
    p.set_defaults(func=_cmd)
    return p
