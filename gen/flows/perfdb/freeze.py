"""Freezing a perf-db for read-only use: the file shipped as the system db.

:func:`freeze` copies the ``ok`` cycles results of layer problems of a working perf-db into
a new file and converts it for reading from a read-only place (site-packages):

* only what a lookup of the system db can use: layer problems, their ``ok`` ``cycles``
  results and the configurations those name (no ``failed`` rows, no synthesis or power
  results, no ``workload`` key-cache rows: those fingerprint the local trace cache's path
  and file times, so they would never match on another machine);
* ``seconds`` set to 0 (the wall time of an evaluation on the building machine says nothing
  to a user and would make every build differ);
* rows written in :meth:`~.store.PerfDB.results` order (problem key, top name,
  configuration, ...) in one transaction, so row ids are the same in every build;
* then ``PRAGMA journal_mode = DELETE`` (a WAL database cannot be opened on a read-only
  file system) and ``VACUUM``.

Two freezes of equal results are byte-identical with the same SQLite library (the file
header records the library's version; tested in ``tests/e2e/test_db.py``).
"""

from __future__ import annotations

import os
import sqlite3

from .store import PerfDB, Record

__all__ = ["frozen_rows", "freeze"]


def frozen_rows(db: PerfDB) -> list[Record]:
    """The records of ``db`` a system db keeps (see the module's docstring), in order."""
    from ...config import from_mapping
    return [Record(r["problem"], "layer", r["detail"], from_mapping(r["config"]), "cycles",
                   r["method"], r["versions"], "ok", r["value"], 0.0)
            for r in db.results()
            if r["kind"] == "cycles" and r["status"] == "ok" and r["problem_kind"] == "layer"]


def _remove(path: str) -> None:
    for p in (path, path + "-wal", path + "-shm", path + "-journal"):
        if os.path.exists(p):
            os.remove(p)


def freeze(db: PerfDB, out: str) -> dict:
    """Write the frozen copy of ``db`` to ``out`` (replaced atomically: a temporary file
    beside it, renamed when complete).

    Returns
    -------
    dict
        ``{"results", "problems", "configs", "bytes"}`` of the written file.
    """
    records = frozen_rows(db)
    tmp = f"{out}.tmp{os.getpid()}"
    _remove(tmp)
    try:
        with PerfDB(tmp, create=True) as new:
            new.record(records)
            counts = new.counts()
        con = sqlite3.connect(tmp, isolation_level=None)
        try:
            mode = con.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
            if mode.lower() != "delete":
                raise RuntimeError(f"{tmp}: journal mode stayed {mode}")
            con.execute("VACUUM")
        finally:
            con.close()
        for p in (out + "-wal", out + "-shm"):
            if os.path.exists(p):
                os.remove(p)
        os.replace(tmp, out)
    finally:
        _remove(tmp)
    return {"results": counts["results"], "problems": counts["problems"],
            "configs": counts["configs"], "bytes": os.path.getsize(out)}
