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


@pytest.mark.skipif(not (shutil.which("sta") and os.path.exists(DEFAULT_LIBERTY)),
                    reason="OpenSTA or the OSU018 liberty missing")
def test_hit_returns_the_stored_report_without_running(tmp_path, monkeypatch):
    root = str(tmp_path / "synth-cache")
    kw = dict(cycles=600, seed=1, clock_mhz=None, clock_ns=10.0, liberty=None,
              cache_root=root, use_cache=True, precision=None, part="whole")
    cfg = preset("baseline-4x4")
    stored = {"top": cfg.top_name, "power_w": {"total": 1.25}, "method": {"mode": "whole"}}

    def measure(*a, **k):
        raise AssertionError("a cache hit must not simulate")

    def synthesise(*a, **k):
        raise AssertionError("a cache hit must not synthesise")

    monkeypatch.setattr(power, "_measure", measure)
    monkeypatch.setattr("termwise.synth.api.synthesise", synthesise)
    # store an entry under the key power_report computes, then ask for it
    from termwise.synth.tools import check_liberty
    reports = tmp_path / "power-cache" / "reports"
    sources = power._tree_sha(power._RENDER_PACKAGES)
    key_w = power._synth_key(cfg, 10.0, check_liberty(DEFAULT_LIBERTY), str(reports /
                                                                         "verilog-sha"), sources)
    inputs = power.report_key_inputs(cfg, synth_key=key_w, part_synth_key=None, mode="whole",
                                     cycles=600, seed=1, clock_mhz=None, precision=8,
                                     workload=None, layers=None)
    key = power.report_key(inputs)
    power._cache_store(str(reports), key, inputs, stored)
    rep = power.power_report(cfg, **kw)
    assert rep["cached"] is True and rep["cache"]["key"] == key
    assert rep["power_w"] == {"total": 1.25}
    assert json.loads((reports / key / "inputs.json").read_text())["synthesis_key"] == key_w
    # another seed is another key: not a hit, so it goes on to synthesise and simulate
    with pytest.raises(AssertionError, match="must not synthesise"):
        power.power_report(cfg, **{**kw, "seed": 2, "use_cache": True})
