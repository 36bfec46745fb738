"""Cached power reports: the key changes with every input that can change a report, and a
stored report is returned (marked cached) without synthesis or simulation."""

import json
import os
import shutil

import pytest

from termwise.synth.power import keys
from termwise.synth.power.cache import store_report
from termwise.synth.power.flow import power_report
from termwise.gen.config import preset
from termwise.synth.tools import DEFAULT_LIBERTY

BASE = dict(synth_key="a" * 24, part_synth_key=None, mode="whole", cycles=2000, seed=1,
            clock_mhz=None, precision=8, workload=None, layers=None)


def _key(cfg=None, **changes):
    return keys.report_key(keys.report_key_inputs(cfg or preset("baseline-4x4"),
                                                  **{**BASE, **changes}))


def test_key_changes_with_each_input():
    base = _key()
    assert _key() == base                   # deterministic
    wl = dict(workload="digits-cnn", trace_sha256="1" * 64)
    changed = [_key(synth_key="b" * 24), _key(mode="row", part_synth_key="c" * 24),
               _key(cycles=2001), _key(seed=2), _key(clock_mhz=50.0), _key(precision=4),
               _key(**wl), _key(**wl, layers=["fc"]),
               _key(workload="digits-cnn", trace_sha256="2" * 64),   # another trace
               _key(preset("stripes-4x4"))]
    assert base not in changed and len(set(changed)) == len(changed)


def test_key_follows_the_flow_version_not_the_code_text(monkeypatch):
    """Editing the power code (a docstring, a message) retires nothing; bumping the flow's
    version, the build flags or the Verilator version does."""
    base = _key()
    inputs = keys.report_key_inputs(preset("baseline-4x4"), **BASE)
    assert not any("code" in k for k in inputs), inputs
    monkeypatch.setattr(keys, "POWER_FLOW_VERSION", keys.POWER_FLOW_VERSION + 1)
    assert _key() != base
    monkeypatch.undo()
    assert _key() == base
    monkeypatch.setattr(keys, "MODEL_BUILD_FLAGS", ["--build-jobs", "1"])
    assert _key() != base


def test_a_workload_key_needs_its_trace_and_only_then():
    with pytest.raises(ValueError):
        _key(workload="digits-cnn")
    with pytest.raises(ValueError):
        _key(trace_sha256="1" * 64)
    wl = keys.report_key_inputs(preset("baseline-4x4"), **{
        **BASE, "workload": "digits-cnn", "trace_sha256": "1" * 64})
    assert wl["workload_trace_sha256"] == "1" * 64 and wl["power_flow"] == keys.POWER_FLOW_VERSION


def test_the_trace_hash_is_the_traces_content():
    """Two loads of one trace hash alike; a trace whose values moved by one code (another
    BLAS kernel, say) hashes otherwise; so does one whose precision profile moved."""
    import copy
    from termwise.golden.workloads import load_workload
    wl = load_workload("digits-cnn", 8)
    sha = wl.trace_sha256()
    assert load_workload("digits-cnn", 8).trace_sha256() == sha
    moved = copy.deepcopy(wl)
    moved.layers[-1].act.flat[0] += 1
    assert moved.trace_sha256() != sha
    profile = copy.deepcopy(wl)
    profile.layers[0].act_precision = (profile.layers[0].act_precision or 8) - 1
    assert profile.trace_sha256() != sha



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

    monkeypatch.setattr("termwise.synth.power.measure.measure", refuse("simulate"))
    monkeypatch.setattr("termwise.synth.api.synthesise", refuse("synthesise"))
    monkeypatch.setattr("termwise.synth.measured_store.enabled", lambda: False)
    cfg = preset("baseline-4x4")
    kw = dict(cycles=600, seed=1, clock_mhz=None, clock_ns=10.0, liberty=None,
              cache_root=str(tmp_path / "synth-cache"), use_cache=True, precision=None,
              part="whole")
    reports = tmp_path / "power-cache" / "reports"
    key_w = keys.synthesis_key(cfg, 10.0, check_liberty(DEFAULT_LIBERTY),
                               str(reports / "verilog-sha"), keys.tree_sha(keys.RENDER_PACKAGES))
    inputs = keys.report_key_inputs(cfg, synth_key=key_w, part_synth_key=None, mode="whole",
                                    cycles=600, seed=1, clock_mhz=None, precision=8,
                                    workload=None, layers=None)
    return cfg, kw, reports, inputs


@NEEDS_STA
def test_hit_returns_the_stored_report_without_running(no_run):
    cfg, kw, reports, inputs = no_run
    stored = {"top": cfg.top_name, "power_w": {"total": 1.25}, "method": {"mode": "whole"}}
    key = keys.report_key(inputs)
    key_w = inputs["synthesis_key"]
    store_report(str(reports), key, inputs, stored)
    rep = power_report(cfg, **kw)
    assert rep["cached"] is True and rep["cache"]["key"] == key
    assert rep["power_w"] == {"total": 1.25}
    assert json.loads((reports / key / "inputs.json").read_text())["synthesis_key"] == key_w
    # another seed is another key: not a hit, so it goes on to synthesise and simulate
    with pytest.raises(AssertionError, match="must not synthesise"):
        power_report(cfg, **{**kw, "seed": 2, "use_cache": True})
