"""Reading and writing a perf-db: :class:`PerfDB` (one file) and :class:`PerfDBChain` (the
user db over the system db).

A result is identified by (problem key, configuration, kind, method, versions), where
``method`` and ``versions`` are JSON-able dicts written canonically (sorted keys, no
spaces), so that equal dicts are equal keys. A recorded ``ok`` result is never replaced; a
``failed`` one is replaced by the next record of the same key (a rerun retries it).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from ...config import TileConfig, from_mapping
from ...spec import ConfigError
from .schema import SCHEMA_VERSION, connect

__all__ = ["canonical", "Record", "PerfDB", "PerfDBChain", "EXPORT_FORMAT", "KINDS",
           "PROBLEM_KINDS", "STATUSES", "parse_export"]

#: Result kinds: per-layer cycles of the cycle model, synthesis figures of a tile, and a
#: tile's power from a ``termwise power`` report (recorded by ``termwise tune``).
KINDS = ("cycles", "synth", "power")
#: Problem kinds: a layer, a synthesis flow, a power measurement, and a workload's list of
#: layer problem keys (``termwise tune``'s cache, :mod:`.workload_keys`; no results).
PROBLEM_KINDS = ("layer", "synth", "power", "workload")
STATUSES = ("ok", "failed")
#: ``format`` of an exported document (``termwise db export``).
EXPORT_FORMAT = "termwise-perfdb"


def canonical(value) -> str:
    """``value`` as canonical JSON (sorted keys, no spaces): the text the db compares."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


@dataclass(frozen=True)
class Record:
    """One result to record.

    Attributes
    ----------
    problem : str
        The problem key (:mod:`.problem`).
    problem_kind : str
        ``layer`` or ``synth``.
    detail : dict
        The problem's fields, named.
    config : TileConfig
        The tile evaluated.
    kind : str
        One of :data:`KINDS`.
    method, versions : dict
        How it was evaluated, and with which tool and model versions.
    status : str
        ``ok`` or ``failed``.
    value : dict
        The figures (``ok``) or ``{"error": "..."}`` (``failed``).
    seconds : float
        Wall time of the evaluation.
    """

    problem: str
    problem_kind: str
    detail: dict
    config: TileConfig
    kind: str
    method: dict
    versions: dict
    status: str
    value: dict
    seconds: float


def _config_key(cfg: TileConfig) -> tuple[str, str]:
    return cfg.top_name, canonical(cfg.to_dict())


class PerfDB:
    """One perf-db file (see :mod:`.schema`).

    Parameters
    ----------
    path : str
        The database file.
    create : bool
        Create it (and its folder) if missing.
    readonly : bool
        Refuse writes (the system db).
    """

    def __init__(self, path: str, *, create: bool = False, readonly: bool = False):
        self.path = str(path)
        self.readonly = readonly
        self._con = connect(self.path, create=create, readonly=readonly)

    def close(self) -> None:
        self._con.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- writing ---------------------------------------------------------------------------
    def record(self, records) -> None:
        """Record ``records`` (an iterable of :class:`Record`) in one transaction: all of
        them or none (a point's layers land together, so a resumed sweep sees a point
        either finished or not)."""
        if self.readonly:
            raise ConfigError("db", f"{self.path} is read-only")
        records = list(records)
        con = self._con
        con.execute("BEGIN IMMEDIATE")
        try:
            for r in records:
                pid = self._problem_id(r.problem, r.problem_kind, r.detail)
                cid = self._config_id(r.config)
                self._put_result(pid, cid, r.kind, canonical(r.method), canonical(r.versions),
                                 r.status, canonical(r.value), float(r.seconds))
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def put_problem(self, key: str, kind: str, detail: dict) -> None:
        """Record a problem without results (a workload's key list, :mod:`.workload_keys`),
        in one transaction; an existing key keeps its detail."""
        if self.readonly:
            raise ConfigError("db", f"{self.path} is read-only")
        self._con.execute("BEGIN IMMEDIATE")
        try:
            self._problem_id(key, kind, detail)
            self._con.execute("COMMIT")
        except BaseException:
            self._con.execute("ROLLBACK")
            raise

    def problem(self, key: str) -> dict | None:
        """The detail of problem ``key``, or None."""
        row = self._con.execute("SELECT detail FROM problem WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def _problem_id(self, key: str, kind: str, detail: dict) -> int:
        self._con.execute("INSERT OR IGNORE INTO problem (key, kind, detail) VALUES (?, ?, ?)",
                          (key, kind, canonical(detail)))
        return self._con.execute("SELECT id FROM problem WHERE key = ?", (key,)).fetchone()[0]

    def _config_id(self, cfg: TileConfig) -> int:
        top, fields = _config_key(cfg)
        self._con.execute("INSERT OR IGNORE INTO config (top, arch, fields) VALUES (?, ?, ?)",
                          (top, cfg.arch, fields))
        return self._con.execute("SELECT id FROM config WHERE top = ? AND fields = ?",
                                 (top, fields)).fetchone()[0]

    def _put_result(self, pid, cid, kind, method, versions, status, value, seconds) -> None:
        self._con.execute(
            "INSERT INTO result (problem_id, config_id, kind, method, versions, status, value, "
            "seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (problem_id, config_id, kind, method, versions) DO UPDATE SET "
            "status = excluded.status, value = excluded.value, seconds = excluded.seconds "
            "WHERE result.status = 'failed'",
            (pid, cid, kind, method, versions, status, value, seconds))

    # ---- reading ---------------------------------------------------------------------------
    def lookup(self, problem: str, cfg: TileConfig, kind: str, method: dict,
               versions: dict) -> dict | None:
        """The recorded result ``{"status", "value", "seconds", "db"}``, or None."""
        top, fields = _config_key(cfg)
        row = self._con.execute(
            "SELECT r.status, r.value, r.seconds FROM result r "
            "JOIN problem p ON p.id = r.problem_id JOIN config c ON c.id = r.config_id "
            "WHERE p.key = ? AND c.top = ? AND c.fields = ? AND r.kind = ? AND r.method = ? "
            "AND r.versions = ?",
            (problem, top, fields, kind, canonical(method), canonical(versions))).fetchone()
        if row is None:
            return None
        return {"status": row[0], "value": json.loads(row[1]), "seconds": row[2],
                "db": self.path}

    def counts(self) -> dict:
        """Rows per table, and results per status."""
        q = self._con.execute
        return {"problems": q("SELECT count(*) FROM problem").fetchone()[0],
                "configs": q("SELECT count(*) FROM config").fetchone()[0],
                "results": q("SELECT count(*) FROM result").fetchone()[0],
                **{f"results_{s}": q("SELECT count(*) FROM result WHERE status = ?",
                                     (s,)).fetchone()[0] for s in STATUSES}}

    def results(self, *, problem: str | None = None, top: str | None = None) -> list[dict]:
        """Every result (optionally of one problem key or one tile top name), in a fixed
        order: problem key, top name, configuration, kind, method, versions."""
        where, args = [], []
        if problem is not None:
            where.append("p.key = ?")
            args.append(problem)
        if top is not None:
            where.append("c.top = ?")
            args.append(top)
        rows = self._con.execute(
            "SELECT p.key, p.kind, p.detail, c.top, c.arch, c.fields, r.kind, r.method, "
            "r.versions, r.status, r.value, r.seconds FROM result r "
            "JOIN problem p ON p.id = r.problem_id JOIN config c ON c.id = r.config_id"
            + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY p.key, c.top, c.fields, r.kind, r.method, r.versions", args)
        return [{"problem": k, "problem_kind": pk, "detail": json.loads(d), "top": t,
                 "arch": a, "config": json.loads(f), "kind": rk, "method": json.loads(m),
                 "versions": json.loads(v), "status": s, "value": json.loads(val),
                 "seconds": sec}
                for k, pk, d, t, a, f, rk, m, v, s, val, sec in rows]

    def problems(self) -> list[dict]:
        rows = self._con.execute("SELECT key, kind, detail FROM problem ORDER BY key")
        return [{"key": k, "kind": kd, "detail": json.loads(d)} for k, kd, d in rows]

    def configs(self) -> list[dict]:
        rows = self._con.execute("SELECT top, arch, fields FROM config ORDER BY top, fields")
        return [{"top": t, "arch": a, "fields": json.loads(f)} for t, a, f in rows]

    # ---- export / import -------------------------------------------------------------------
    def export(self) -> dict:
        """Every row as one JSON-able document (ids left out; deterministic order)."""
        return {"format": EXPORT_FORMAT, "schema_version": SCHEMA_VERSION,
                "problems": self.problems(), "configs": self.configs(),
                "results": [{k: r[k] for k in ("problem", "config", "kind", "method",
                                               "versions", "status", "value", "seconds")}
                            for r in self.results()]}

    def import_document(self, doc, source: str = "document") -> dict:
        """Merge an :meth:`export` document: every entry is validated first (a malformed
        one is a :class:`ConfigError` naming ``import`` and nothing is written), then all
        are recorded in one transaction. Returns ``{"results": given, "added": new rows}``."""
        records = parse_export(doc, source)
        before = self.counts()["results_ok"]
        self.record(records)
        return {"results": len(records), "added_ok": self.counts()["results_ok"] - before}


def _bad(source: str, what: str) -> ConfigError:
    return ConfigError("import", f"{source}: {what}")


def parse_export(doc, source: str) -> list[Record]:
    """The records of an exported document, validated (:class:`ConfigError` ``import``)."""
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT:
        raise _bad(source, f"not a termwise perf-db export (format must be {EXPORT_FORMAT!r})")
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise _bad(source, f"schema_version must be {SCHEMA_VERSION}, got "
                           f"{doc.get('schema_version')!r}")
    problems = doc.get("problems")
    results = doc.get("results")
    if not isinstance(problems, list) or not isinstance(results, list):
        raise _bad(source, "problems and results must be lists")
    known = {}
    for i, p in enumerate(problems):
        if (not isinstance(p, dict) or not isinstance(p.get("key"), str) or not p["key"]
                or p.get("kind") not in PROBLEM_KINDS
                or not isinstance(p.get("detail"), dict)):
            raise _bad(source, f"problems[{i}] must have a key, kind "
                               f"{'|'.join(PROBLEM_KINDS)} and a detail")
        known[p["key"]] = p
    records = []
    for i, r in enumerate(results):
        where = f"results[{i}]"
        if not isinstance(r, dict):
            raise _bad(source, f"{where} must be a table")
        if r.get("problem") not in known:
            raise _bad(source, f"{where}: problem {r.get('problem')!r} is not in problems")
        if not isinstance(r.get("config"), dict):
            raise _bad(source, f"{where}: config must be a table of tile fields")
        try:
            cfg = from_mapping(r["config"])
        except (ConfigError, TypeError) as err:
            raise _bad(source, f"{where}: config: {err}") from None
        if r.get("kind") not in KINDS:
            raise _bad(source, f"{where}: kind must be one of {', '.join(KINDS)}")
        if r.get("status") not in STATUSES:
            raise _bad(source, f"{where}: status must be ok or failed")
        for key in ("method", "versions", "value"):
            if not isinstance(r.get(key), dict):
                raise _bad(source, f"{where}: {key} must be a table")
        sec = r.get("seconds")
        if isinstance(sec, bool) or not isinstance(sec, (int, float)) or not math.isfinite(sec) \
                or sec < 0:
            raise _bad(source, f"{where}: seconds must be a number >= 0")
        p = known[r["problem"]]
        records.append(Record(p["key"], p["kind"], p["detail"], cfg, r["kind"], r["method"],
                              r["versions"], r["status"], r["value"], float(sec)))
    return records


class PerfDBChain:
    """Lookups over several perf-dbs, first match wins: the user db before the system db
    (MIOpen's precedence). Writes go to the first (the user db).

    Parameters
    ----------
    dbs : list of PerfDB
        In precedence order; the first must be writable to :meth:`record`.
    """

    def __init__(self, dbs):
        self.dbs = list(dbs)

    def lookup(self, *args, **kw) -> dict | None:
        for db in self.dbs:
            hit = db.lookup(*args, **kw)
            if hit is not None and hit["status"] == "ok":
                return hit
        return None

    def record(self, records) -> None:
        self.dbs[0].record(records)

    def problem(self, key: str) -> dict | None:
        """The first db's detail of problem ``key`` (user db before system db), or None."""
        for db in self.dbs:
            detail = db.problem(key)
            if detail is not None:
                return detail
        return None

    def results(self, **kw) -> list[dict]:
        """:meth:`PerfDB.results` of every db, in precedence order."""
        return [r for db in self.dbs for r in db.results(**kw)]

    def close(self) -> None:
        for db in self.dbs:
            db.close()
