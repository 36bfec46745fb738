"""termwise report's reuse of given power reports (gen/flows/ppa/measure.py:reused_power):
only on the workload's current trace, so that a re-profiled or rebuilt trace (which moves
the stimulus and the cycles the power is multiplied by) is measured again, never paired
with the new cycles."""

import json

from termwise.gen.config import preset
from termwise.gen.flows.ppa import measure
from termwise.synth.power import workload as power_workload


def _rep(cfg, **activity):
    return {"top": cfg.top_name, "activity": {"source": "digits-cnn", **activity}}


def test_a_report_is_reused_only_on_the_same_trace(monkeypatch, tmp_path):
    cfg = preset("stripes-4x4")
    run = measure.PowerRun("digits-cnn", 1000, 1, None, True)
    monkeypatch.setattr(power_workload, "trace_sha256", lambda c, w: "a" * 64)
    same = _rep(cfg, trace_sha256="a" * 64)
    assert measure.reused_power(cfg, {cfg.top_name: same}, run) is same
    moved = _rep(cfg, trace_sha256="b" * 64)
    assert measure.reused_power(cfg, {cfg.top_name: moved}, run) is None
    other = {"top": cfg.top_name, "activity": {"source": "efficientnet-lite0",
                                               "trace_sha256": "a" * 64}}
    assert measure.reused_power(cfg, {cfg.top_name: other}, run) is None
    assert measure.reused_power(cfg, {}, run) is None
    # a report from before the field: its key's inputs beside it tell, when on this machine
    (tmp_path / "inputs.json").write_text(json.dumps({"workload_trace_sha256": "b" * 64}))
    old = {**_rep(cfg), "cache": {"dir": str(tmp_path)}}
    assert measure.reused_power(cfg, {cfg.top_name: old}, run) is None
    (tmp_path / "inputs.json").write_text(json.dumps({"workload_trace_sha256": "a" * 64}))
    assert measure.reused_power(cfg, {cfg.top_name: old}, run) is old
    # and without them it cannot be told: reused, as before the field
    gone = {**_rep(cfg), "cache": {"dir": str(tmp_path / "elsewhere")}}
    assert measure.reused_power(cfg, {cfg.top_name: gone}, run) is gone
