"""Several processes writing one perf-db at once: no error, no lost row, no corruption.

N processes each record M results (distinct problems) plus one shared problem and
configuration every one of them writes, each write its own transaction; afterwards the
rows are counted against a hand count and every value written is found, and SQLite's
integrity check passes.
"""

import json
import multiprocessing as mp
import sqlite3

import pytest

from termwise.gen.config import preset
from termwise.gen.flows.perfdb import PerfDB, Record, schema
from termwise.gen.spec import ConfigError

N_PROCESSES = 4
M_INSERTS = 200


def _writer(path, worker, start):
    start.wait()                                   # all writers begin together
    db = PerfDB(path, create=True)
    cfgs = [preset("stripes-4x4"), preset("baseline-4x4")]
    for i in range(M_INSERTS):
        rec = Record(f"w{worker}-p{i}", "layer", {"i": i}, cfgs[i % 2], "cycles", {},
                     {"v": 1}, "ok", {"cycles": worker * 1000 + i}, 0.0)
        shared = Record("shared", "layer", {}, cfgs[0], "cycles", {}, {"v": worker},
                        "ok", {"cycles": worker}, 0.0)
        db.record([rec, shared] if i == 0 else [rec])
    db.close()


def test_concurrent_writers_lose_no_row(tmp_path):
    path = str(tmp_path / "perf.sqlite")
    ctx = mp.get_context("spawn")                   # fresh processes, own connections
    start = ctx.Event()
    procs = [ctx.Process(target=_writer, args=(path, w, start)) for w in range(N_PROCESSES)]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * N_PROCESSES
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    # Hand count: every worker's M own problems, plus the one shared problem; two
    # configurations; M results per worker plus one shared result per worker (its own
    # versions), each value as written.
    assert con.execute("SELECT count(*) FROM problem").fetchone()[0] == N_PROCESSES * M_INSERTS + 1
    assert con.execute("SELECT count(*) FROM config").fetchone()[0] == 2
    assert con.execute("SELECT count(*) FROM result").fetchone()[0] == \
        N_PROCESSES * M_INSERTS + N_PROCESSES
    got = sorted(json.loads(v)["cycles"] for (v,) in con.execute(
        "SELECT value FROM result JOIN problem p ON p.id = problem_id WHERE p.key != 'shared'"))
    assert got == sorted(w * 1000 + i for w in range(N_PROCESSES) for i in range(M_INSERTS))


def _opener(path, start, results):
    start.wait()
    try:
        PerfDB(path, create=True).close()
        results.put("")
    except Exception as err:                      # noqa: BLE001 (reported by the test)
        results.put(str(err))


def test_processes_creating_one_db_at_once_all_accept_it(tmp_path):
    """8 processes open the same fresh perf-db at once, 60 times: every one accepts the
    file. (With its header read as three separate statements, a process could read
    application_id 0 before another's creating commit and the tables after it, and refuse
    the db as a foreign file: 7 refusals in 320 opens before that fix. With the switch to
    WAL tried once, "database is locked": 8 in 2,400 opens before that fix.)"""
    ctx = mp.get_context("fork")
    refusals = []
    for round_ in range(60):
        path = str(tmp_path / f"fresh{round_}.sqlite")
        start, results = ctx.Event(), ctx.Queue()
        procs = [ctx.Process(target=_opener, args=(path, start, results)) for _ in range(8)]
        for p in procs:
            p.start()
        start.set()
        for p in procs:
            p.join(60)
        refusals += [m for m in (results.get(timeout=10) for _ in procs) if m]
    assert not refusals, refusals[:3]


class _LockedFor:
    """A connection whose ``PRAGMA journal_mode = WAL`` is refused ``times`` times the way
    SQLite refuses it when waiting could deadlock, then answers ``wal``."""

    def __init__(self, times):
        self.times, self.calls = times, 0

    def execute(self, sql):
        assert sql == "PRAGMA journal_mode = WAL"
        self.calls += 1
        if self.calls <= self.times:
            raise sqlite3.OperationalError("database is locked")
        return self

    def fetchone(self):
        return ("wal",)


def test_the_switch_to_wal_waits_out_a_refusal():
    con = _LockedFor(3)
    assert schema._switch_to_wal(con, "x.sqlite") == "wal"
    assert con.calls == 4


def test_the_switch_to_wal_gives_up_after_the_busy_timeout(monkeypatch):
    monkeypatch.setattr(schema, "BUSY_TIMEOUT_S", 0.05)
    with pytest.raises(ConfigError) as err:
        schema._switch_to_wal(_LockedFor(10**9), "x.sqlite")
    assert err.value.field == "db" and "WAL" in str(err.value)
