"""``termwise sweep``: every point of a grid of tile configurations through the cycle model
and/or synthesis, answered from the perf-db where it can be.

    termwise sweep GRID.toml -o DIR [--jobs sim,synth] [--workers N]
                   [--scheduler tcp://HOST:PORT] [--db PATH] [--no-system-db]
                   [--cache-dir DIR]

The grid format is in :mod:`termwise.gen.flows.sweep.grid`. Jobs run on a local process pool
(``--workers``, default one per core) or on the Dask distributed scheduler at
``--scheduler`` (the ``scale`` extra). Every finished job is recorded in the perf-db at once
(``--db``, default the user db), so a rerun after an interrupt evaluates only what was not
finished. A point that fails is recorded and listed, and the others go on; the exit status
is then 1. Writes DIR/sweep.json and DIR/sweep.md. A bad grid, db or scheduler: one line,
exit 2, nothing written.
"""

from __future__ import annotations

import os
import sys

from ..spec import ConfigError

__all__ = ["register"]

#: Position in ``termwise --help``.
ORDER = 84


def _cmd(args) -> int:
    from ..flows.perfdb import open_chain
    from ..flows.sweep import connect, load_grid, run_sweep
    from ..flows.sweep.jobs import tool_failure_line
    from ..flows.sweep.report import write_reports
    grid = load_grid(args.grid, jobs=args.jobs)
    if os.path.exists(args.output) and not os.path.isdir(args.output):
        raise ConfigError("output", f"{args.output} exists and is not a folder")
    executor = connect(args.scheduler, args.workers)
    try:
        chain = open_chain(args.db, system=not args.no_system_db)
        try:
            print(f"sweep: {len(grid.points)} configurations x {', '.join(grid.jobs)} on "
                  f"{executor.name}, perf-db {chain.dbs[0].path}", file=sys.stderr, flush=True)
            doc = run_sweep(grid, executor, chain, cache_root=args.cache_dir)
        finally:
            chain.close()
    finally:
        executor.close()
    paths = write_reports(args.output, doc)
    for job in doc["jobs"]:
        print(f"{job}: {doc['evaluated'][job]} evaluated, {doc['reused'][job]} from the "
              f"perf-db, {doc['failed'][job]} failed")
    print(f"wrote {', '.join(paths)} in {doc['seconds']:.1f} s", file=sys.stderr)
    failed_tool = tool_failure_line(doc["points"], doc["jobs"])
    if failed_tool:
        print(f"error: {failed_tool}", file=sys.stderr)
    return 1 if any(doc["failed"].values()) else 0


def register(subparsers) -> None:
    p = subparsers.add_parser("sweep", help="a grid of configurations through sim and/or "
                                            "synthesis, cached in the perf-db")
    p.add_argument("grid", metavar="GRID.toml", help="the grid (see termwise.gen.flows.sweep.grid)")
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.add_argument("--jobs", default=None, metavar="sim,synth",
                   help="what every point goes through (default: the grid's jobs, else sim)")
    p.add_argument("--workers", type=int, default=None,
                   help="local pool processes (default: one per core)")
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="run the jobs on this Dask distributed scheduler (pip install "
                        "'termwise[scale]')")
    p.add_argument("--db", default=None, metavar="PATH",
                   help="perf-db (default: the user db, $TERMWISE_PERFDB or "
                        "$XDG_CACHE_HOME/termwise/perfdb.sqlite)")
    p.add_argument("--no-system-db", action="store_true",
                   help="do not answer from the system db shipped in the package")
    p.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="synthesis cache (default build/synth-cache)")
    p.set_defaults(func=_cmd)
    return p
