"""`termwise measured list|add` end to end, on a store in tmp_path ($TERMWISE_MEASURED): a
synthesis entry of baseline-4x4 keyed as this checkout would key it is listed as current;
the same entry under another Verilog's key is stale (exit 1); `add` keeps a report's
entries and refuses, writing nothing, a report whose entry the cache lacks."""

import hashlib
import json
import os

import pytest
from termwise_e2e import assert_usage_error, e2e_env, ok, run_termwise

from termwise.gen.config import preset
from termwise.gen.emit import render
from termwise.synth import api, cache
from termwise.synth.tools import DEFAULT_LIBERTY

CFG = preset("baseline-4x4")
needs_liberty = pytest.mark.skipif(not os.path.exists(DEFAULT_LIBERTY),
                                   reason="the OSU018 liberty is missing")


def _entry(store, verilog_sha):
    """A synthesis entry of CFG as the store keeps one; its area is a value no flow gives."""
    settings = api._settings("asic", verilog_sha, 10.0, DEFAULT_LIBERTY)
    key = cache.cache_key(settings)
    d = store / "asic" / key
    d.mkdir(parents=True)
    (d / "settings.json").write_text(json.dumps(settings))
    (d / "result.json").write_text(json.dumps({"area_um2": 4242.0, "fmax_mhz": 1.0}))
    (d / "stat.json").write_text("{}")
    (d / "sta.log").write_text("")
    (d / "synth_report.json").write_text(json.dumps({
        "top": CFG.top_name, "preset": CFG.name, "config": CFG.to_dict(),
        "asic": {"area_um2": 4242.0, "fmax_mhz": 1.0, "drv_violations": {"count": 0}},
        "git": {"commit": "0123456789abcdef", "dirty": False},
        "cache": {"asic": {"key": key}}}))
    return key


def _run(tmp_path, store, *args):
    env = e2e_env()
    env["TERMWISE_MEASURED"] = str(store)
    return run_termwise("measured", *args, cwd=tmp_path, env=env)


def test_list_an_empty_store(tmp_path):
    r = ok(_run(tmp_path, tmp_path / "store", "list"))
    assert r.stdout == f"no measured results in {tmp_path / 'store'}\n"


@needs_liberty
def test_list_says_current_or_stale(tmp_path):
    store = tmp_path / "store"
    sha = hashlib.sha256(render(CFG)[0].encode()).hexdigest()
    key = _entry(store, sha)
    r = ok(_run(tmp_path, store, "list"))
    assert r.stdout.splitlines() == [
        f"asic  {key} current baseline-4x4: 0.00 mm2, 1 MHz, DRV 0"]
    stale = _entry(store, "0" * 64)                 # the Verilog it was measured on is gone
    r = _run(tmp_path, store, "list")
    assert r.returncode == 1, r
    assert f"asic  {stale} STALE   baseline-4x4" in r.stdout
    assert "1 stale entry: never read" in r.stderr
    r = ok(_run(tmp_path, store, "list", "--no-check"))
    assert "STALE" not in r.stdout and len(r.stdout.splitlines()) == 2


def test_add_keeps_a_reports_entries_and_refuses_a_missing_one(tmp_path):
    store = tmp_path / "store"
    sc = tmp_path / "build" / "synth-cache"
    (sc / "abc").mkdir(parents=True)
    for n in ("settings.json", "result.json", "stat.json", "sta.log"):
        (sc / "abc" / n).write_text("{}")
    rep = tmp_path / "out" / "designs" / "baseline"
    rep.mkdir(parents=True)
    (rep / "synth_report.json").write_text(json.dumps({"top": "t", "preset": "p",
                                                      "cache": {"asic": {"key": "abc"}}}))
    r = ok(_run(tmp_path, store, "add", "out", "--cache-dir", str(sc)))
    assert r.stdout == "added asic/abc (t)\n1 entry added\n"
    assert sorted(os.listdir(store / "asic" / "abc")) == [
        "provenance.json", "result.json", "settings.json", "sta.log", "stat.json",
        "synth_report.json"]
    (rep / "synth_report.json").write_text(json.dumps({"top": "t",
                                                      "cache": {"asic": {"key": "zzz"}}}))
    r = _run(tmp_path, store, "add", "out", "--cache-dir", str(sc))
    assert_usage_error(r, tmp_path / "store" / "asic" / "zzz", "dirs:", "asic entry zzz")


@pytest.mark.slow                   # renders every shipped 16x16 configuration's Verilog
@needs_liberty
def test_the_shipped_store_is_current(tmp_path):
    """Every shipped entry (asic, and power measured on the whole tile, one PE row or a
    slice of it) is what this checkout would look up: a report reads it. A lister that
    keyed a slice entry as a row one would call it stale (exit 1)."""
    env = e2e_env()
    env.pop("TERMWISE_MEASURED", None)
    r = run_termwise("measured", "list", cwd=tmp_path, env=env)
    assert r.returncode == 0, r
    lines = r.stdout.splitlines()
    assert lines and all(" current " in line for line in lines), r.stdout
    assert any("loom-16x16-8b: " in line and line.startswith("power ") for line in lines)
