"""`termwise db list|show|export|import` end to end, on perf-dbs written here through the
library (gen/perfdb), and the refusals: missing, corrupt and foreign files, malformed
documents (one line, exit 2, nothing written)."""

import json
import sqlite3

from termwise_e2e import assert_usage_error, e2e_env, ok, run_termwise

from termwise.gen.config import preset
from termwise.gen.flows.perfdb import PerfDB, Record

CFG = preset("stripes-4x4")


def _fill(path):
    with PerfDB(path, create=True) as db:
        db.record([
            Record("8-8-8-3x3-16-4-4-1-p1-s2-d1-g1-b8-a6u-w4-vabc", "layer", {"C": 8}, CFG,
                   "cycles", {"order": "position"}, {"model": "m"}, "ok", {"cycles": 1234},
                   0.25),
            Record("synth-asic-clk10", "synth", {"target": "asic"}, CFG, "synth", {},
                   {"yosys": "x"}, "ok", {"area_um2": 5000.0, "fmax_mhz": 250.0}, 3.0),
            Record("fc-key", "layer", {"C": 256}, preset("baseline-4x4"), "cycles", {},
                   {"model": "m"}, "failed", {"error": "ValueError: no"}, 0.1),
        ])


def test_list_show_export_import(termwise, tmp_path):
    src = tmp_path / "src.sqlite"
    _fill(src)
    r = ok(termwise("db", "list", "--db", src))
    lines = r.stdout.splitlines()
    assert lines[0] == (f"# {src}: 3 problems, 2 configurations, 3 results (2 ok, 1 failed)")
    assert lines[1:] == [
        "8-8-8-3x3-16-4-4-1-p1-s2-d1-g1-b8-a6u-w4-vabc  termwise_stripes_f4w8l4_a8w8_acc24_d64"
        "  cycles  cycles 1234",
        "fc-key  termwise_baseline_f4w1l4_a8w8_acc24_d64  cycles  failed: ValueError: no",
        "synth-asic-clk10  termwise_stripes_f4w8l4_a8w8_acc24_d64  synth  area 5000 um2, "
        "fmax 250.0 MHz"]
    r = ok(termwise("db", "list", "--db", src, "--what", "problems"))
    assert len(r.stdout.splitlines()) == 4 and "synth-asic-clk10  synth" in r.stdout
    shown = json.loads(ok(termwise("db", "show", "termwise_stripes_f4w8l4_a8w8_acc24_d64",
                                   "--db", src)).stdout)
    assert sorted(x["kind"] for x in shown["results"]) == ["cycles", "synth"]
    assert shown["results"][0]["config"] == CFG.to_dict()
    ok(termwise("db", "export", "--db", src, "-o", "out.json"))
    doc = json.loads((tmp_path / "out.json").read_text())
    assert doc["format"] == "termwise-perfdb" and len(doc["results"]) == 3
    # Import into the default user db: $XDG_CACHE_HOME/termwise/perfdb.sqlite.
    env = dict(e2e_env(), XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.pop("TERMWISE_PERFDB", None)
    r = ok(run_termwise("db", "import", "out.json", cwd=tmp_path, env=env))
    user = tmp_path / "cache" / "termwise" / "perfdb.sqlite"
    assert user.is_file() and "imported 3 results" in r.stderr and "(2 new ok)" in r.stderr
    ok(run_termwise("db", "export", "-o", "again.json", cwd=tmp_path, env=env))
    assert json.loads((tmp_path / "again.json").read_text()) == doc


def test_refusals(termwise, tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"\x00garbage" * 500)
    before = junk.read_bytes()
    foreign = tmp_path / "foreign.sqlite"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    out = tmp_path / "never.json"
    r = termwise("db", "export", "--db", junk, "-o", out)
    assert_usage_error(r, out, "error: db: ", "is not a termwise perf-db", "not a database")
    assert junk.read_bytes() == before
    r = termwise("db", "list", "--db", foreign)
    assert_usage_error(r, out, "application_id 0x0")
    r = termwise("db", "list", "--db", tmp_path / "missing.sqlite")
    assert_usage_error(r, tmp_path / "missing.sqlite", "error: db: no perf-db at")
    src = tmp_path / "src.sqlite"
    _fill(src)
    r = termwise("db", "show", "no-such-key", "--db", src)
    assert_usage_error(r, out, "error: key: no problem key or tile top name 'no-such-key'")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "termwise-perfdb", "schema_version": 1,
                               "problems": [], "results": [{"problem": "x"}]}))
    target = tmp_path / "target.sqlite"
    r = termwise("db", "import", bad, "--db", target)
    assert_usage_error(r, target, "error: import: ", "problem 'x' is not in problems")
    (tmp_path / "notjson.json").write_text("{nope")
    r = termwise("db", "import", "notjson.json", "--db", target)
    assert_usage_error(r, target, "is not JSON")
    r = termwise("db", "import", src, "--db", junk)         # a db file is not a document
    assert_usage_error(r, out, "error: import: ")
    assert junk.read_bytes() == before
