"""``termwise report``'s flow: synthesis, gate-level power and the network simulation of
every design on one workload, at equal peak throughput (:mod:`termwise.gen.commands.report`
states the method)."""

from __future__ import annotations

import os
import time

from ...checks import check_precision, one_of, positive_int
from ...progress import Bar, note
from ..sweep.executors import LocalPool
from .budget import DEFAULT_POWER_CYCLES
from .document import design_rows, report_document
from .jobs import error_of, power_spec, synth_spec
from .measure import PowerRun, power_row, reused_power, write_synthesis
from .reused import find_reports

__all__ = ["run_report", "DEFAULT_FLOW"]

#: The flow a report measures by default: SRAM-macro operand buffers, gated clocks, the
#: hierarchical synthesis and the levelised simulation of every tile whole (issue 42: a
#: 16x16 tile's synthesis and power in minutes and a few GB). The flat flow
#: (``buffers="flops", clock_gating=False, hierarchical=False, simulator="verilator"``)
#: stays available; the shipped results store holds this flow's tables.
DEFAULT_FLOW = {"buffers": "macros", "clock_gating": True, "hierarchical": True,
                "simulator": "levelsim"}


def _run_jobs(executor, jobs: list, stage: str) -> dict:
    """Run ``jobs`` (``(design, spec)``) on ``executor``; ``{design: value}`` of each
    (:mod:`.jobs`; each job says on stderr what it runs; ``stage`` names the bar). A job
    that failed outside the flow's own errors (a lost worker, a bug) stops the report,
    naming the design."""
    specs = [{**spec, "index": i} for i, (_, spec) in enumerate(jobs)]
    out = {}
    with Bar(len(jobs), f"report {stage}", "design") as bar:
        for result in executor.run(specs):
            design = jobs[result["index"]][0]
            if result["status"] != "ok":
                raise RuntimeError(f"{design}: {result['kind']} job failed: "
                                   f"{result['value']['error']}")
            out[design] = result["value"]
            bar.step(design)
    return out


def run_report(workload: str, precision, out_dir: str, *, designs="all",
               power_cycles: int = DEFAULT_POWER_CYCLES, seed: int = 1,
               images: int | None = None, fc: str | None = None,
               buffers: str = DEFAULT_FLOW["buffers"],
               clock_gating: bool = DEFAULT_FLOW["clock_gating"],
               reports: str | None = None, cache_root: str | None = None,
               use_cache: bool = True, plots: bool = True, executor=None, log=None,
               hierarchical: bool = DEFAULT_FLOW["hierarchical"],
               simulator: str = DEFAULT_FLOW["simulator"]) -> dict:
    """Synthesis, power and simulation of every design; writes the report (report.json,
    .md, .csv, plots, ``sim/`` and ``designs/<design>/``) and returns its document. Bad
    options raise :class:`~termwise.gen.errors.ConfigError` before anything runs. The
    flow's defaults are :data:`DEFAULT_FLOW`. ``buffers`` and ``clock_gating``: every tile's storage
    (:func:`termwise.gen.config.storage_variant`). ``hierarchical``: the syntheses and
    the power runs' netlists by the hierarchical flow (synth/README.md). ``simulator``: the
    power runs' (``levelsim``: every tile whole, :mod:`termwise.synth.power.levelsim_run`;
    checked before anything runs). ``executor``:
    where the designs' syntheses, then their power runs, are run (:mod:`..sweep.executors`;
    default this process, one at a time), each a job of :mod:`.jobs`."""
    from ....golden import netsim
    from ....golden.workloads import check_workload, load_workload
    from ....synth.api import DEFAULT_CLOCK_NS, check_options
    from ..reports import ppa
    from ..simulation import parse_archs, run_sim
    log = log or note
    check_workload(workload)
    from ....synth.power.flow import check_simulator
    check_simulator(simulator, "whole")
    bits = check_precision(precision)
    images = positive_int("images", images)
    archs = parse_archs(designs) if isinstance(designs, str) else list(designs)
    archs = [netsim.REFERENCE] + [a for a in archs if a != netsim.REFERENCE]
    fc = one_of("fc", fc, netsim.FC_MAPPINGS, netsim.DEFAULT_FC)
    synth_found = find_reports(reports, "synth_report.json")
    power_found = find_reports(reports, "power_report.json")
    # The workload before any synthesis (its trace is built once, then read from the
    # cache): a workload that cannot load (its optional packages not installed, say) stops
    # the report before hours of runs and before anything is written.
    loaded = load_workload(workload, bits, log=log,
                           **({} if images is None else {"images": images}))
    cfgs = {a: netsim.sim_config(a, bits, fc, buffers, clock_gating) for a in archs}
    if any(cfgs[a].top_name not in synth_found for a in archs):
        check_options(DEFAULT_CLOCK_NS, "asic", None)
    t0 = time.monotonic()
    run = PowerRun(workload, power_cycles, seed, cache_root, use_cache, hierarchical,
                   simulator)
    executor = executor or LocalPool(1)
    ddirs = {a: os.path.join(out_dir, "designs", a) for a in archs}
    wall = {}
    t = time.monotonic()
    fresh = {a: cfgs[a].top_name not in synth_found for a in archs}
    made = _run_jobs(executor, [(a, synth_spec(0, a, cfgs[a], cache_root=cache_root,
                                                use_cache=use_cache,
                                                hierarchical=hierarchical))
                                for a in archs if fresh[a]], "synthesis")
    synth = {}
    for a in archs:
        value = made.get(a)
        if value is not None and "error" in value:
            raise error_of(value["error"])
        syn = value["report"] if value is not None else synth_found[cfgs[a].top_name]
        synth[a] = write_synthesis(a, cfgs[a], ddirs[a], syn, fresh=fresh[a])
    wall["synthesis"] = time.monotonic() - t
    t = time.monotonic()
    reused = {a: reused_power(cfgs[a], power_found, run) for a in archs}
    made = _run_jobs(executor, [(a, power_spec(0, a, cfgs[a], run))
                                for a in archs if reused[a] is None], "power")
    power, power_errors, power_records = {}, {}, {}
    for a in archs:
        value = made.get(a, {"report": reused[a]})
        error = error_of(value["error"]) if "error" in value else None
        rep, record, why = power_row(a, cfgs[a], ddirs[a], value.get("report"),
                                     fresh=a in made, error=error, log=log)
        if rep is not None:
            power[a], power_records[a] = rep, record
        else:
            power_errors[a] = why
    wall["power"] = time.monotonic() - t
    t = time.monotonic()
    sim = run_sim(workload, archs, bits, os.path.join(out_dir, "sim"), images=images, fc=fc,
                  power=power_records, plots=plots, log=log, loaded=loaded)
    wall["simulation"] = time.monotonic() - t
    rows = design_rows(archs, synth, power, power_errors, sim, power_cycles)
    wall["total"] = time.monotonic() - t0
    doc = report_document(workload, bits, fc, sim, rows, wall, buffers, clock_gating,
                          hierarchical, simulator)
    ppa.write_reports(out_dir, doc, plot=plots)
    return doc
