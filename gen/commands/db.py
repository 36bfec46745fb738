"""``termwise db``: the perf-db (:mod:`termwise.gen.flows.perfdb`).

    termwise db list   [--db PATH | --system] [--what results|problems|configs]
    termwise db show   KEY [--db PATH | --system]
    termwise db export -o FILE.json [--db PATH | --system]
    termwise db import FILE.json [--db PATH]
    termwise db build-system [-o PATH] [--workloads W,...] [--precisions 8,16]
                             [--designs D,...] [--workers N]

``--db`` defaults to the user db (``$TERMWISE_PERFDB``, else
``$XDG_CACHE_HOME/termwise/perfdb.sqlite``, else ``~/.cache/termwise/perfdb.sqlite``);
``--system`` reads the system db shipped in the package. ``show`` takes a problem key or a
tile's top name and prints its results as JSON. ``export`` writes every row as one JSON
document (deterministic order, no ids); ``import`` merges such a document into the db (a
recorded ``ok`` result is kept, a ``failed`` one replaced). A missing, corrupt or foreign db
file, or a malformed document, is one line ``error: db: ...`` / ``error: import: ...``,
exit 2, nothing written.

``build-system`` builds the system db (default: ``system.sqlite`` in the package, the file
that ships) from the bundled workloads: ``termwise tune``'s find mode (cycles, the default
candidates) per workload and width into a fresh working db, frozen for read-only use
(:mod:`termwise.gen.flows.perfdb.system_build`, :mod:`termwise.gen.flows.perfdb.freeze`).
"""

from __future__ import annotations

import json
import sys

from ..spec import ConfigError
from .args import UsageError

__all__ = ["register"]

#: Position in ``termwise --help``.
ORDER = 86

WHAT = ("results", "problems", "configs")


def _path(args) -> str:
    from ..flows.perfdb import system_db_path, user_db_path
    if getattr(args, "system", False):
        if args.db:
            raise UsageError("give --db or --system, not both")
        return system_db_path()
    return args.db or user_db_path()


def _cmd_list(args) -> int:
    from ..flows.perfdb import PerfDB
    from ..flows.perfdb.transfer import result_summary
    path = _path(args)
    with PerfDB(path, readonly=True) as db:
        counts = db.counts()
        rows = {"results": db.results, "problems": db.problems, "configs": db.configs}[
            args.what]()
    print(f"# {path}: {counts['problems']} problems, {counts['configs']} configurations, "
          f"{counts['results']} results ({counts['results_ok']} ok, "
          f"{counts['results_failed']} failed)")
    for r in rows:
        if args.what == "results":
            print(f"{r['problem']}  {r['top']}  {r['kind']}  {result_summary(r)}")
        elif args.what == "problems":
            print(f"{r['key']}  {r['kind']}")
        else:
            print(f"{r['top']}  {json.dumps(r['fields'], sort_keys=True)}")
    return 0


def _cmd_show(args) -> int:
    from ..flows.perfdb import PerfDB
    path = _path(args)
    with PerfDB(path, readonly=True) as db:
        rows = db.results(problem=args.key) or db.results(top=args.key)
        known = any(p["key"] == args.key for p in db.problems()) or any(
            c["top"] == args.key for c in db.configs())
    if not known:
        raise ConfigError("key", f"no problem key or tile top name {args.key!r} in {path} "
                                 "(see `termwise db list --what problems|configs`)")
    print(json.dumps({"db": path, "key": args.key, "results": rows}, indent=2))
    return 0


def _cmd_export(args) -> int:
    from ..flows.perfdb.transfer import export_db
    doc = export_db(_path(args), args.output)
    print(f"wrote {args.output}: {len(doc['results'])} results of {len(doc['problems'])} "
          "problems", file=sys.stderr)
    return 0


def _cmd_import(args) -> int:
    from ..flows.perfdb.transfer import import_export, read_export
    doc = read_export(args.file)            # checked before the db is opened or created
    path = _path(args)
    done = import_export(path, doc, args.file)
    print(f"imported {done['results']} results into {path} ({done['added_ok']} new ok)",
          file=sys.stderr)
    return 0


def _cmd_build_system(args) -> int:
    from ..flows.perfdb import system_db_path
    from ..flows.perfdb.system_build import build_system
    out = args.output or system_db_path()
    done = build_system(out, args.workloads, args.precisions, designs=args.designs,
                        workers=args.workers)
    for r in done["runs"]:
        print(f"{r['workload']} {r['bits']}-bit: {r['candidates']} candidates, "
              f"{r['evaluated']} evaluated, {r['seconds']:g} s")
    print(f"wrote {done['output']}: {done['results']} cycles results of "
          f"{done['problems']} layer problems and {done['configs']} configurations, "
          f"{done['bytes']} bytes, in {done['seconds']:g} s")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("db", help="the perf-db of evaluated configurations: list, "
                                         "show, export, import, build-system")
    sub = p.add_subparsers(dest="db_command", required=True, parser_class=type(p))

    def common(q, system=True):
        q.add_argument("--db", default=None, metavar="PATH",
                       help="perf-db file (default: the user db, $TERMWISE_PERFDB or "
                            "$XDG_CACHE_HOME/termwise/perfdb.sqlite)")
        if system:
            q.add_argument("--system", action="store_true",
                           help="read the system db shipped in the package")

    q = sub.add_parser("list", help="results, problems or configurations in the db")
    common(q)
    q.add_argument("--what", choices=WHAT, default="results")
    q.set_defaults(func=_cmd_list)
    q = sub.add_parser("show", help="the results of one problem key or tile top name (JSON)")
    q.add_argument("key")
    common(q)
    q.set_defaults(func=_cmd_show)
    q = sub.add_parser("export", help="every row as one JSON document")
    common(q)
    q.add_argument("-o", "--output", required=True, metavar="FILE.json")
    q.set_defaults(func=_cmd_export)
    q = sub.add_parser("import", help="merge an exported JSON document into the db")
    q.add_argument("file", metavar="FILE.json")
    common(q, system=False)
    q.set_defaults(func=_cmd_import)
    from ..flows.perfdb.system_build import BUNDLED
    q = sub.add_parser("build-system", help="build the system db shipped in the package "
                                            "from the bundled workloads (tune's find mode)")
    q.add_argument("-o", "--output", default=None, metavar="PATH",
                   help="the file to write (default: system.sqlite in the package)")
    q.add_argument("--workloads", default=",".join(BUNDLED), metavar="W,...",
                   help=f"workloads (default {','.join(BUNDLED)})")
    q.add_argument("--precisions", default="8,16", metavar="8,16",
                   help="widths to evaluate each workload at (default 8,16)")
    q.add_argument("--designs", default=None, metavar="D,...",
                   help="keep these designs' candidates of the default space (default all)")
    q.add_argument("--workers", type=int, default=None, metavar="N",
                   help="processes of the local pool (default one per core)")
    q.set_defaults(func=_cmd_build_system)
