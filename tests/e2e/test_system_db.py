"""The system perf-db shipped in the package (gen/flows/perfdb/system.sqlite, built by `termwise
db build-system`): that it is current for this checkout (its cycles rows are keyed on this
checkout's termwise and CYCLE_MODEL_VERSION; tests/gen/test_results_cycle_guard.py checks
that the model still computes them), frozen for read-only use and small, and that
`termwise tune --mode immediate --workload digits-cnn` with an empty user db answers every
layer of every default candidate from it, with no analytic fallback, in a few seconds."""

import json
import sqlite3
import time

import pytest

from termwise_e2e import load_json, ok

REBUILD = ("rebuild it with `.venv/bin/termwise db build-system` (~3 min on 2 cores) and "
           "commit gen/flows/perfdb/system.sqlite")


def _system():
    from termwise.gen.flows.perfdb import system_db_path
    return system_db_path()


def test_shipped_system_db_is_current():
    from termwise.gen.flows.perfdb.system_build import BUNDLED
    from termwise.gen.flows.sweep.jobs import versions
    path = _system()
    with open(path, "rb") as f:
        head = f.read(20)
    assert head[18:20] == b"\x01\x01", f"{path} is in WAL mode: {REBUILD}"
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        shipped = [json.loads(v) for (v,) in con.execute(
            "SELECT DISTINCT versions FROM result WHERE kind = 'cycles' ORDER BY versions")]
        configs = con.execute("SELECT count(*) FROM config").fetchone()[0]
        rows = con.execute("SELECT count(*) FROM result WHERE status = 'ok'").fetchone()[0]
        layers = con.execute("SELECT count(*) FROM problem").fetchone()[0]
    finally:
        con.close()
    now = versions("cycles")
    assert shipped == [now], (
        f"the shipped system db is stale: its cycles rows are of {shipped}, this checkout's "
        f"cycle model is {now}; {REBUILD}")
    # The bundled workloads at 8 and 16 bits: 3 layers each, 30 + 28 default candidates.
    assert (layers, configs, rows) == (len(BUNDLED) * 2 * 3, 58, len(BUNDLED) * 3 * 58), \
        f"the shipped system db is not the default build: {REBUILD}"


def test_shipped_system_db_is_small():
    import os
    size = os.path.getsize(_system())
    assert size < 2 * 1024 * 1024, f"{size} bytes"


@pytest.mark.parametrize("bits", [16, 8])
def test_immediate_answers_from_the_system_db(termwise, tmp_path, bits):
    from termwise.gen.flows.tune.space import default_space
    t0 = time.perf_counter()
    r = ok(termwise("tune", "--mode", "immediate", "--workload", "digits-cnn", "--precision",
                    str(bits), "--db", "empty.sqlite", "-o", "out", "--no-plot"))
    wall = time.perf_counter() - t0
    doc = load_json(tmp_path / "out" / "tune.json")
    assert doc["dbs"] == ["empty.sqlite", _system()]
    assert [e["top"] for e in doc["candidates"]] == [c.top for c in default_space(bits)]
    for e in doc["candidates"]:
        assert e["fallback"] == [], e["top"]
        assert [x["source"] for x in e["layers"]] == ["db"] * 3
    assert "estimated with the analytic model" not in r.stdout
    assert doc["best"] is not None and len(doc["ranking"]) == len(doc["candidates"])
    # Every answer came from the system db: the user db holds no results (only the
    # workload's key list, computed once).
    con = sqlite3.connect(tmp_path / "empty.sqlite")
    assert con.execute("SELECT count(*) FROM result").fetchone()[0] == 0
    con.close()
    print(f"tune immediate, digits-cnn {bits}-bit, empty user db: {wall:.2f} s wall")
    # Loading digits-cnn to compute its layer keys is ~3 s of it (on a loaded 2-core box).
    assert wall < 20, f"{wall:.1f} s"
