"""Cached power reports: the key changes with every input that can change a report, and a
stored report is returned (marked cached) without synthesis or simulation."""

import json
import os
import shutil

import pytest

from termwise.gen.commands import power
from termwise.gen.config import preset
from termwise.synth.tools import DEFAULT_LIBERTY

BASE = dict(synth_key="a" * 24, part_synth_key=None, mode="whole", cycles=2000, seed=1,
            clock_mhz=None, precision=8, workload=None, layers=None)


def _key(cfg=None, **changes):
    return power.report_key(power.report_key_inputs(cfg or preset("baseline-4x4"),
                                                    **{**BASE, **changes}))


def test_key_changes_with_each_input():
    base = _key()
    assert _key() == base                   # deterministic
    changed = [_key(synth_key="b" * 24), _key(mode="row", part_synth_key="c" * 24),
               _key(cycles=2001), _key(seed=2), _key(clock_mhz=50.0), _key(precision=4),
               _key(workload="digits-cnn"), _key(workload="digits-cnn", layers=["fc"]),
               _key(preset("stripes-4x4"))]
    assert base not in changed and len(set(changed)) == len(changed)


def test_key_follows_the_power_code(monkeypatch):
    base = _key()
    monkeypatch.setattr(power, "_files_sha", lambda patterns: "0" * 64)
    assert _key() != base
    monkeypatch.setattr(power, "MODEL_BUILD_FLAGS", ["--build-jobs", "1"])
    assert _key() != base


def test_key_inputs_name_the_code():
    inputs = power.report_key_inputs(preset("baseline-4x4"), **BASE)
    assert inputs["power_code_sha256"] == power._files_sha(power._POWER_CODE)
    assert inputs["workload_code_sha256"] is None
    wl = power.report_key_inputs(preset("baseline-4x4"), **{**BASE, "workload": "digits-cnn"})
    assert wl["workload_code_sha256"] == power._files_sha(power._WORKLOAD_CODE)
    # the globs match files (a renamed module would otherwise drop out of the key)
    import glob
    for pat in power._POWER_CODE + power._WORKLOAD_CODE:
        assert glob.glob(os.path.join(power._repo_root(), pat)), pat


NEEDS_STA = pytest.mark.skipif(not (shutil.which("sta") and os.path.exists(DEFAULT_LIBERTY)),
                               reason="OpenSTA or the OSU018 liberty missing")


@pytest.fixture
def no_run(tmp_path, monkeypatch):
    """baseline-4x4's ``power_report`` options on empty caches under ``tmp_path`` with
    synthesis and simulation refused, the reports folder, and the key inputs the lookup
    computes (a stored report is then the only way to an answer)."""
    from termwise.synth.tools import check_liberty

    def refuse(what):
        def f(*a, **k):
            raise AssertionError(f"a cache hit must not {what}")
        return f

    monkeypatch.setattr(power, "_measure", refuse("simulate"))
    monkeypatch.setattr("termwise.synth.api.synthesise", refuse("synthesise"))
    monkeypatch.setattr("termwise.synth.measured_store.enabled", lambda: False)
    cfg = preset("baseline-4x4")
    kw = dict(cycles=600, seed=1, clock_mhz=None, clock_ns=10.0, liberty=None,
              cache_root=str(tmp_path / "synth-cache"), use_cache=True, precision=None,
              part="whole")
    reports = tmp_path / "power-cache" / "reports"
    key_w = power._synth_key(cfg, 10.0, check_liberty(DEFAULT_LIBERTY),
                             str(reports / "verilog-sha"),
                             power._tree_sha(power._RENDER_PACKAGES))
    inputs = power.report_key_inputs(cfg, synth_key=key_w, part_synth_key=None, mode="whole",
                                     cycles=600, seed=1, clock_mhz=None, precision=8,
                                     workload=None, layers=None)
    return cfg, kw, reports, inputs


@NEEDS_STA
def test_hit_returns_the_stored_report_without_running(no_run):
    cfg, kw, reports, inputs = no_run
    stored = {"top": cfg.top_name, "power_w": {"total": 1.25}, "method": {"mode": "whole"}}
    key = power.report_key(inputs)
    key_w = inputs["synthesis_key"]
    power._cache_store(str(reports), key, inputs, stored)
    rep = power.power_report(cfg, **kw)
    assert rep["cached"] is True and rep["cache"]["key"] == key
    assert rep["power_w"] == {"total": 1.25}
    assert json.loads((reports / key / "inputs.json").read_text())["synthesis_key"] == key_w
    # another seed is another key: not a hit, so it goes on to synthesise and simulate
    with pytest.raises(AssertionError, match="must not synthesise"):
        power.power_report(cfg, **{**kw, "seed": 2, "use_cache": True})


def test_equivalent_inputs_follow_the_declared_chain():
    table = [{"power_code_sha256": "c", "same_numbers_as": "b"},
             {"power_code_sha256": "b", "same_numbers_as": "a"},
             {"power_code_sha256": "a", "same_numbers_as": "c"},     # a loop ends
             {"power_code_sha256": "x", "same_numbers_as": "y"}]     # another code's
    inputs = {"power_code_sha256": "c", "seed": 1}
    got = power.equivalent_inputs(inputs, table)
    assert got[0] is inputs
    assert [g["power_code_sha256"] for g in got] == ["c", "b", "a"]
    assert all(g["seed"] == 1 for g in got)
    assert power.equivalent_inputs({"power_code_sha256": "z"}, table) == [
        {"power_code_sha256": "z"}]


def test_shipped_equivalences_are_complete():
    """Each declaration names two code hashes, what changed and how the sameness was
    checked; the file is outside the hashed power code (it names that code's hash)."""
    import fnmatch
    import re
    table = power.equivalent_code()
    assert table, "synth/power/equivalent_code.json is missing or empty"
    for e in table:
        assert re.fullmatch(r"[0-9a-f]{64}", e["power_code_sha256"])
        assert re.fullmatch(r"[0-9a-f]{64}", e["same_numbers_as"])
        assert e["power_code_sha256"] != e["same_numbers_as"]
        assert len(e["change"]) > 40 and len(e["checked"]) > 40
    assert not any(fnmatch.fnmatch(power.EQUIVALENT_CODE, p) for p in power._POWER_CODE)


@NEEDS_STA
def test_a_report_of_declared_equivalent_code_is_a_hit(no_run, monkeypatch):
    cfg, kw, reports, now = no_run
    old = {**now, "power_code_sha256": "e" * 64}      # measured by an earlier power code
    power._cache_store(str(reports), power.report_key(old), old, {"power_w": {"total": 2.0}})
    monkeypatch.setattr(power, "equivalent_code", lambda: [])
    with pytest.raises(AssertionError, match="must not synthesise"):
        power.power_report(cfg, **kw)                  # undeclared: the old report is not used
    monkeypatch.setattr(power, "equivalent_code", lambda: [
        {"power_code_sha256": now["power_code_sha256"], "same_numbers_as": "e" * 64}])
    rep = power.power_report(cfg, **kw)
    assert rep["cached"] is True and rep["power_w"] == {"total": 2.0}
    assert rep["cache"]["key"] == power.report_key(old)
    assert "eeeeeeeeeeee" in rep["cache"]["power_code"]
