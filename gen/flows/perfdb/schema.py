"""The perf-db's SQLite schema and the one way to open a perf-db file.

A perf-db (MIOpen's "perf-db", here for termwise's design space) holds three tables:

``problem``
    What is being evaluated, keyed by a MIOpen-style problem string
    (:func:`termwise.gen.flows.perfdb.problem.layer_key`: a layer's shape, stride, padding,
    groups, precisions and a hash of its values; or a synthesis flow,
    :func:`~termwise.gen.flows.perfdb.problem.synth_key`).
``config``
    Tile configurations, keyed by the tile's Verilog top name and its
    :meth:`~termwise.gen.config.TileConfig.to_dict` as canonical JSON.
``result``
    One row per (problem, config, kind, method, versions): the evaluation's value (JSON),
    whether it succeeded (``status`` ``ok`` or ``failed``, with the error), and its cost.

A file is a termwise perf-db when its SQLite ``application_id`` is :data:`APPLICATION_ID`
and its ``user_version`` is :data:`SCHEMA_VERSION`; anything else (another program's
database, a newer schema, a file that is not SQLite) is refused with a
:class:`~termwise.gen.spec.ConfigError` before anything is written to it.

Concurrency: the database runs in WAL mode with a busy timeout, and every write is one
``BEGIN IMMEDIATE`` transaction, so several processes may write at once: they queue on the
write lock instead of failing, and no row is lost (``tests/gen/test_perfdb_concurrency.py``).
"""

from __future__ import annotations

import os
import sqlite3
import time

from ...spec import ConfigError

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "BUSY_TIMEOUT_S", "SCHEMA", "connect"]

#: ``PRAGMA application_id`` of a termwise perf-db: the bytes ``TWPD``.
APPLICATION_ID = int.from_bytes(b"TWPD", "big")
#: ``PRAGMA user_version``: the schema below. A change of the tables is a new version.
SCHEMA_VERSION = 1
#: Seconds a writer waits for another's write lock before giving up.
BUSY_TIMEOUT_S = 60.0

SCHEMA = """
CREATE TABLE problem (
    id      INTEGER PRIMARY KEY,
    key     TEXT NOT NULL UNIQUE,          -- MIOpen-style problem string
    kind    TEXT NOT NULL,                 -- 'layer', 'synth', 'power', 'workload'
    detail  TEXT NOT NULL                  -- JSON: the fields the key spells out, named
);
CREATE TABLE config (
    id      INTEGER PRIMARY KEY,
    top     TEXT NOT NULL,                 -- TileConfig.top_name
    arch    TEXT NOT NULL,
    fields  TEXT NOT NULL,                 -- TileConfig.to_dict() as canonical JSON
    UNIQUE (top, fields)
);
CREATE TABLE result (
    id          INTEGER PRIMARY KEY,
    problem_id  INTEGER NOT NULL REFERENCES problem (id),
    config_id   INTEGER NOT NULL REFERENCES config (id),
    kind        TEXT NOT NULL,             -- 'cycles', 'synth' or 'power'
    method      TEXT NOT NULL,             -- JSON: how it was evaluated (sim options, flow)
    versions    TEXT NOT NULL,             -- JSON: tool and model versions
    status      TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    value       TEXT NOT NULL,             -- JSON: the figures, or {"error": ...}
    seconds     REAL NOT NULL,             -- wall time of the evaluation
    UNIQUE (problem_id, config_id, kind, method, versions)
);
CREATE INDEX result_config ON result (config_id);
"""


def _refuse(path: str, why: str) -> ConfigError:
    return ConfigError("db", f"{path} is not a termwise perf-db ({why}); give another --db "
                             "or remove the file")


def connect(path: str, *, create: bool = False, readonly: bool = False) -> sqlite3.Connection:
    """Open the perf-db at ``path``.

    Parameters
    ----------
    path : str
        The database file.
    create : bool
        Create the file and its tables when it does not exist (or is an empty file).
        Otherwise a missing file is a :class:`ConfigError`.
    readonly : bool
        Open without write access (the system db shipped in the package).

    Returns
    -------
    sqlite3.Connection
        In autocommit mode (writes open their own ``BEGIN IMMEDIATE``), WAL journal,
        foreign keys on, :data:`BUSY_TIMEOUT_S` busy timeout.

    Raises
    ------
    ConfigError
        ``db``: a missing file (without ``create``), a file that is not SQLite, another
        program's database or another schema version. Nothing is written in that case.
    """
    path = os.fspath(path)
    exists = os.path.isfile(path)
    if not exists and not create:
        raise ConfigError("db", f"no perf-db at {path}")
    if os.path.isdir(path):
        raise ConfigError("db", f"{path} is a directory, not a perf-db file")
    if create and not exists:
        parent = os.path.dirname(os.path.abspath(path))
        try:
            os.makedirs(parent, exist_ok=True)
        except OSError as err:
            raise ConfigError("db", f"cannot create {parent}: {err.strerror}") from None
    mode = "ro" if readonly else ("rwc" if create else "rw")
    uri = "file:" + os.path.abspath(path).replace("?", "%3f").replace("#", "%23") + f"?mode={mode}"
    try:
        con = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except sqlite3.Error as err:
        raise ConfigError("db", f"cannot open {path}: {err}") from None
    try:
        _check_or_create(con, path, may_create=create and not readonly, readonly=readonly)
    except BaseException:
        con.close()
        raise
    return con


def _check_or_create(con: sqlite3.Connection, path: str, *, may_create: bool,
                     readonly: bool) -> None:
    # The three reads in one read transaction: as separate statements, a process that read
    # application_id 0 before another process's creating commit and the tables after it
    # took a fresh perf-db for a foreign file (seen in tests/gen/test_perfdb_concurrency.py
    # once in a make test on a loaded machine).
    try:
        con.execute("BEGIN")
        try:
            app = con.execute("PRAGMA application_id").fetchone()[0]
            version = con.execute("PRAGMA user_version").fetchone()[0]
            tables = con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        finally:
            con.execute("COMMIT")
    except sqlite3.OperationalError as err:
        raise ConfigError("db", f"cannot read {path}: {err}") from None
    except sqlite3.DatabaseError as err:
        raise _refuse(path, f"SQLite says: {err}") from None
    if app == 0 and version == 0 and tables == 0:
        if not may_create:
            raise _refuse(path, "an empty database without the perf-db tables")
        con.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have created the tables while we waited for the lock.
            if con.execute("PRAGMA application_id").fetchone()[0] == 0:
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        con.execute(statement)
                con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        app, version = APPLICATION_ID, SCHEMA_VERSION
    if app != APPLICATION_ID:
        raise _refuse(path, f"application_id {app:#x}, not termwise's {APPLICATION_ID:#x}")
    if version != SCHEMA_VERSION:
        raise _refuse(path, f"schema version {version}, this termwise reads "
                            f"{SCHEMA_VERSION}")
    con.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    con.execute("PRAGMA foreign_keys = ON")
    if not readonly:
        mode = _switch_to_wal(con, path)
        if mode.lower() != "wal":
            raise ConfigError("db", f"{path}: cannot switch to WAL mode (journal {mode}); "
                                    "put the perf-db on a local file system")


def _switch_to_wal(con: sqlite3.Connection, path: str) -> str:
    """``PRAGMA journal_mode = WAL``, retried until :data:`BUSY_TIMEOUT_S` has passed.

    The busy timeout does not cover this statement: when two connections that hold a
    shared lock both want the exclusive lock the switch needs, SQLite answers "database is
    locked" at once instead of waiting, since waiting could deadlock (sqlite3_busy_handler's
    documentation). That happened to processes opening one fresh perf-db together: 8 in
    2,400 opens (tests/gen/test_perfdb_concurrency.py failed in CI once). The mode is stored in
    the file, so once one process has switched, the others' switch is a no-op.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    delay = 0.001
    while True:
        try:
            return con.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() + delay > deadline:
                raise ConfigError("db", f"{path}: cannot switch to WAL mode: {err}") from None
            time.sleep(delay)
            delay = min(2 * delay, 0.1)
