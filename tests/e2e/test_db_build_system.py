"""`termwise db build-system` end to end on a tiny candidate set (digits-cnn, 8 bits,
baseline and stripes: 2 candidates x 3 layers) into a tmp path: the rows against the golden
cycle model called directly, the frozen file (legacy journal, no WAL, seconds zeroed, no
workload key-cache rows, current versions), two builds byte-identical, and the refusals
(one line, exit 2, nothing written)."""

import json
import sqlite3

import pytest

from termwise_e2e import assert_usage_error, ok

TINY = ("--workloads", "digits-cnn", "--precisions", "8", "--designs", "baseline,stripes",
        "--workers", "1")


def _golden(top):
    """Per layer (problem key, cycles, rtl_cycles) of the candidate ``top`` of the 8-bit
    default space, from the golden model called directly."""
    from termwise.gen.flows.perfdb import layer_key
    from termwise.gen.flows.tune.space import default_space
    from termwise.golden.netsim.simulate import simulate_layer
    from termwise.golden.workloads import load_workload
    (cfg,) = [c.cfg for c in default_space(8) if c.top == top]
    out = {}
    for layer in load_workload("digits-cnn", 8, log=lambda m: None).layers:
        r = simulate_layer(layer, {"x": cfg}, sample_pairs=1 << 23).designs["x"]
        out[layer_key(layer)] = (r["cycles"], r["rtl_cycles"])
    return out


def test_build_system_tiny(termwise, tmp_path):
    from termwise.gen.flows.sweep.engine import sim_method
    from termwise.gen.flows.sweep.jobs import versions
    from termwise.gen.flows.tune.space import default_space, select_designs
    r = ok(termwise("db", "build-system", "-o", "sys.sqlite", *TINY))
    lines = r.stdout.splitlines()
    assert lines[0].startswith("digits-cnn 8-bit: 2 candidates, 2 evaluated, ")
    assert lines[1].startswith(f"wrote {tmp_path / 'sys.sqlite'}: 6 cycles results of 3 layer "
                               "problems and 2 configurations, ")
    data = (tmp_path / "sys.sqlite").read_bytes()
    # Frozen for read-only use: file format 1/1 (rollback journal; WAL is 2/2), no sidecars.
    assert data[:16] == b"SQLite format 3\x00" and data[18:20] == b"\x01\x01"
    assert sorted(p.name for p in tmp_path.iterdir() if "sys" in p.name) == ["sys.sqlite"]
    con = sqlite3.connect(f"file:{tmp_path / 'sys.sqlite'}?mode=ro", uri=True)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()

    ok(termwise("db", "export", "--db", "sys.sqlite", "-o", "sys.json"))
    doc = json.loads((tmp_path / "sys.json").read_text())
    assert {p["kind"] for p in doc["problems"]} == {"layer"}      # no workload key cache
    tops = {c.top for c in select_designs(default_space(8), "baseline,stripes")}
    assert {c["top"] for c in doc["configs"]} == tops and len(tops) == 2
    from termwise.golden.lowering import DEFAULT_DEPTHWISE, DEFAULT_ORDER
    method = sim_method({"order": DEFAULT_ORDER, "depthwise": DEFAULT_DEPTHWISE,
                         "sample_pairs": 1 << 23})
    assert len(doc["results"]) == 6
    for res in doc["results"]:
        assert (res["kind"], res["status"], res["seconds"]) == ("cycles", "ok", 0)
        assert res["versions"] == versions("cycles") and res["method"] == method
    # Every row of the stripes preset against the golden model called directly.
    from termwise.gen.config import from_mapping
    stripes = next(t for t in tops if "stripes" in t)
    want = _golden(stripes)
    got = {res["problem"]: (res["value"]["cycles"], res["value"]["rtl_cycles"])
           for res in doc["results"] if from_mapping(res["config"]).top_name == stripes}
    assert got == want and len(want) == 3

    # A second build is byte-identical.
    ok(termwise("db", "build-system", "-o", "again.sqlite", *TINY))
    assert (tmp_path / "again.sqlite").read_bytes() == data


@pytest.mark.parametrize("args, words", [
    (("--workloads", "digits-cnn,nope"), ["error: workloads: ", "got 'nope'"]),
    (("--workloads", ","), ["error: workloads: must name one or more"]),
    (("--precisions", "8,12"), ["error: precisions: ", "got '12'"]),
    (("--designs", "warp"), ["error: designs: ", "got 'warp'"]),
])
def test_build_system_refusals(termwise, tmp_path, args, words):
    r = termwise("db", "build-system", "-o", "sys.sqlite", "--workers", "1", *args)
    assert_usage_error(r, tmp_path / "sys.sqlite", *words)
    assert list(tmp_path.glob("sys.sqlite*")) == []


def test_build_system_output_refusals(termwise, tmp_path):
    (tmp_path / "adir").mkdir()
    r = termwise("db", "build-system", "-o", "adir", *TINY)
    assert_usage_error(r, tmp_path / "never", "error: output: ", "is a directory")
    r = termwise("db", "build-system", "-o", "missing/sys.sqlite", *TINY)
    assert_usage_error(r, tmp_path / "missing", "error: output: folder ", "does not exist")
