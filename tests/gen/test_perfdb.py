"""The perf-db (gen/perfdb): problem keys spelled by hand, record/lookup semantics, the file
check, user-over-system precedence, export/import."""

import hashlib
import json
import sqlite3

import numpy as np
import pytest

from termwise.gen.config import preset
from termwise.gen.flows.perfdb import PerfDB, PerfDBChain, Record, layer_key, synth_key
from termwise.gen.flows.perfdb.schema import APPLICATION_ID
from termwise.gen.flows.perfdb.store import parse_export
from termwise.gen.spec import ConfigError
from termwise.golden.workloads import Layer

CFG = preset("stripes-4x4")
OTHER = preset("baseline-4x4")


def _rec(problem="k1", cfg=CFG, status="ok", value=None, kind="cycles", versions=None):
    return Record(problem, "layer", {"n": 1}, cfg, kind, {"order": "position"},
                  versions or {"model": "a"}, status, value or {"cycles": 7}, 0.5)


def test_layer_key_spells_the_layer_out():
    act = np.arange(2 * 3 * 5 * 5).reshape(2, 3, 5, 5) % 7          # >= 0: unsigned
    wgt = (np.arange(4 * 3 * 3 * 3).reshape(4, 3, 3, 3) % 5) - 2
    layer = Layer("c", "conv", act, wgt, bits=8, stride=2, padding=1, act_precision=4)
    # By hand: out = (5 + 2*1 - 3) // 2 + 1 = 3; unsigned activations take precision 4 - 1.
    h = hashlib.sha256()
    for a in (act, wgt):
        a = np.ascontiguousarray(a, dtype="<i8")
        h.update(repr(a.shape).encode())
        h.update(a.tobytes())
    assert layer_key(layer) == f"3-5-5-3x3-4-3-3-2-p1-s2-d1-g1-b8-a3u-w{'x'}-v{h.hexdigest()[:12]}"


def test_layer_key_of_fc_and_value_sensitivity():
    x = np.array([[1, -2, 3, 0]])
    w = np.array([[1, 0, 0, 1], [2, 2, 2, 2]])
    fc = Layer("f", "fc", x, w, bits=16, wgt_precision=3)
    key = layer_key(fc)
    assert key.startswith("4-1-1-1x1-2-1-1-1-p0-s1-d1-g1-b16-axs-w3-v")
    w2 = w.copy()
    w2[0, 0] = 3
    assert layer_key(Layer("f", "fc", x, w2, bits=16, wgt_precision=3)) != key
    assert synth_key("asic", 10.0) == "synth-asic-clk10"


def test_record_lookup_and_failed_replaced_ok_kept(tmp_path):
    db = PerfDB(tmp_path / "p.sqlite", create=True)
    assert db.lookup("k1", CFG, "cycles", {"order": "position"}, {"model": "a"}) is None
    db.record([_rec(status="failed", value={"error": "boom"})])
    hit = db.lookup("k1", CFG, "cycles", {"order": "position"}, {"model": "a"})
    assert hit["status"] == "failed"
    db.record([_rec(value={"cycles": 7})])                 # a rerun replaces the failure
    db.record([_rec(value={"cycles": 99})])                # ... but never an ok result
    hit = db.lookup("k1", CFG, "cycles", {"order": "position"}, {"model": "a"})
    assert (hit["status"], hit["value"]) == ("ok", {"cycles": 7})
    # Another tool version or configuration is another key.
    assert db.lookup("k1", CFG, "cycles", {"order": "position"}, {"model": "b"}) is None
    assert db.lookup("k1", OTHER, "cycles", {"order": "position"}, {"model": "a"}) is None
    assert db.counts() == {"problems": 1, "configs": 1, "results": 1, "results_ok": 1,
                           "results_failed": 0}


def test_record_is_all_or_nothing(tmp_path):
    db = PerfDB(tmp_path / "p.sqlite", create=True)
    bad = Record("k2", "layer", {"n": 1}, CFG, "cycles", {}, {}, "maybe", {}, 0.0)
    with pytest.raises(sqlite3.IntegrityError):
        db.record([_rec("k1"), bad])                       # status CHECK fails on the 2nd
    assert db.counts()["results"] == 0


def test_foreign_corrupt_and_missing_files_are_refused_untouched(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all " * 100)
    foreign = tmp_path / "foreign.sqlite"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE config (x)")
    con.commit()
    con.close()
    newer = tmp_path / "newer.sqlite"
    PerfDB(newer, create=True).close()
    con = sqlite3.connect(newer)
    con.execute("PRAGMA user_version = 99")
    con.close()
    for path, words in ((junk, "file is not a database"),
                        (foreign, "application_id 0x0"), (newer, "schema version 99")):
        before = path.read_bytes()
        with pytest.raises(ConfigError, match=words) as err:
            PerfDB(path, create=True)
        assert err.value.field == "db" and "\n" not in str(err.value)
        assert path.read_bytes() == before
    with pytest.raises(ConfigError, match="no perf-db at"):
        PerfDB(tmp_path / "missing.sqlite")
    assert not (tmp_path / "missing.sqlite").exists()


def test_new_db_has_the_schema_markers(tmp_path):
    PerfDB(tmp_path / "p.sqlite", create=True).close()
    con = sqlite3.connect(tmp_path / "p.sqlite")
    assert con.execute("PRAGMA application_id").fetchone()[0] == int.from_bytes(b"TWPD", "big")
    assert APPLICATION_ID == 0x54575044
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"problem", "config", "result"}


def test_chain_user_over_system(tmp_path):
    system = PerfDB(tmp_path / "system.sqlite", create=True)
    system.record([_rec(value={"cycles": 1}), _rec("only-system", value={"cycles": 2})])
    system.close()
    user = PerfDB(tmp_path / "user.sqlite", create=True)
    user.record([_rec(value={"cycles": 3})])
    chain = PerfDBChain([user, PerfDB(tmp_path / "system.sqlite", readonly=True)])
    m, v = {"order": "position"}, {"model": "a"}
    assert chain.lookup("k1", CFG, "cycles", m, v)["value"] == {"cycles": 3}
    assert chain.lookup("only-system", CFG, "cycles", m, v)["value"] == {"cycles": 2}
    with pytest.raises(ConfigError, match="read-only"):
        chain.dbs[1].record([_rec("x")])


def test_export_import_round_trip(tmp_path):
    a = PerfDB(tmp_path / "a.sqlite", create=True)
    a.record([_rec("k1"), _rec("k2", OTHER, value={"cycles": 3}),
              _rec("k3", status="failed", value={"error": "e"})])
    doc = a.export()
    json.dumps(doc)                                         # plain JSON
    b = PerfDB(tmp_path / "b.sqlite", create=True)
    assert b.import_document(doc) == {"results": 3, "added_ok": 2}
    assert b.export() == doc
    assert b.import_document(doc) == {"results": 3, "added_ok": 0}    # idempotent
    assert b.counts()["results"] == 3


@pytest.mark.parametrize("mutate, words", [
    (lambda d: d.update(format="other"), "not a termwise perf-db export"),
    (lambda d: d.update(schema_version=2), "schema_version must be 1"),
    (lambda d: d["results"][0].update(problem="nope"), "is not in problems"),
    (lambda d: d["results"][0]["config"].update(arch="nosuch"), "config: arch"),
    (lambda d: d["results"][0].update(status="meh"), "status must be ok or failed"),
    (lambda d: d["results"][0].update(seconds=-1), "seconds must be"),
])
def test_import_refuses_malformed_documents(tmp_path, mutate, words):
    a = PerfDB(tmp_path / "a.sqlite", create=True)
    a.record([_rec("k1")])
    doc = a.export()
    mutate(doc)
    with pytest.raises(ConfigError, match=words) as err:
        parse_export(doc, "f.json")
    assert err.value.field == "import"
