"""One design's hardware measurements for ``termwise report``: its synthesis and its
gate-level power under the workload, each run (cached) or reused from ``--reports``, and
written into the report's ``designs/<design>/`` folder."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from ...errors import ConfigError
from .budget import budget_for, needed_cycles, power_part
from .reused import power_record_of

__all__ = ["PowerRun", "write_synthesis", "measure_power", "reused_power", "power_row"]


@dataclass(frozen=True)
class PowerRun:
    """The options every design's power run shares."""
    workload: str
    cycles: int
    seed: int
    cache_root: str | None
    use_cache: bool
    hierarchical: bool = False       # the hierarchical synthesis flow's netlists
    simulator: str = "verilator"     # or levelsim: the whole tile, synth/power/levelsim_run


def write_synthesis(design: str, cfg, ddir: str, syn: dict, *, fresh: bool) -> dict:
    """Write ``cfg``'s synth report into ``ddir`` (a fresh one with its markdown, one reused
    from ``--reports`` as JSON only: its own markdown stays beside the original) and return
    it; ``ConfigError`` when it has no ASIC results."""
    from ....synth.api import write_report
    from ...emit import write_atomically
    if fresh:
        write_report(syn, ddir)
    else:
        os.makedirs(ddir, exist_ok=True)
        write_atomically(os.path.join(ddir, "synth_report.json"),
                         json.dumps(syn, indent=2) + "\n")
    if not isinstance(syn.get("asic"), dict):
        raise ConfigError("reports", f"the synth_report.json of {cfg.top_name} has no "
                          "ASIC results")
    return syn


def measure_power(design: str, cfg, run: PowerRun, log) -> dict:
    """A fresh power report of ``cfg`` under the workload; a design slower per run than the
    budget allows for (Loom at 8 bits: one run of each of EfficientNet-Lite0's 50 layers is
    ~26k cycles) gets the smallest budget that holds one run of each layer, so every row's
    activity covers every layer."""
    from ....synth.api import DEFAULT_CLOCK_NS
    from ....synth.power.flow import power_report

    def measure(budget):
        return power_report(cfg, cycles=budget, seed=run.seed, clock_mhz=None,
                            clock_ns=DEFAULT_CLOCK_NS, liberty=None,
                            cache_root=run.cache_root, use_cache=run.use_cache,
                            precision=None, log=log, workload=run.workload, layers=None,
                            part="whole" if run.simulator == "levelsim" else
                            power_part(cfg), hierarchical=run.hierarchical,
                            simulator=run.simulator)
    try:
        return measure(run.cycles)
    except ConfigError as err:
        need = needed_cycles(err)
        if need is None:
            raise
        log(f"{design}: {err}; the budget raised to {budget_for(need)} cycles")
        return measure(budget_for(need))


def reused_power(cfg, found: dict, run: PowerRun) -> dict | None:
    """The power report of ``cfg`` found under ``--reports`` when its activity is this
    workload's, else None (it is measured)."""
    rep = found.get(cfg.top_name)
    if rep is None:
        return None
    activity = rep.get("activity") or {}
    if activity.get("source") != run.workload:
        return None           # another activity: measure this workload's
    sha = activity.get("trace_sha256") or _stored_trace_sha(rep)
    if sha is not None:
        from ....synth.power.workload import trace_sha256
        if sha != trace_sha256(cfg, run.workload):
            return None       # the workload's trace moved (a new profile): measure again
    return rep


def _stored_trace_sha(rep: dict) -> str | None:
    """The trace hash a power report from before ``activity.trace_sha256`` was measured
    on, from the key inputs stored beside it (``cache.dir``/inputs.json) when that folder
    is on this machine; None when it cannot be told."""
    import json
    import os
    where = (rep.get("cache") or {}).get("dir")
    path = os.path.join(where, "inputs.json") if isinstance(where, str) else None
    if path is None or not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f).get("workload_trace_sha256")


def power_row(design: str, cfg, ddir: str, rep: dict | None, *, fresh: bool,
              error: Exception | None, log) -> tuple[dict | None, dict | None, str | None]:
    """``(power report, its energy-model record, None)`` written to ``ddir``, or ``(None,
    None, why)`` when the power flow refused the design (``error`` a ConfigError) or a tool
    failed (a ToolError): the row stays, with the reason."""
    from ....synth.power.report_files import write_report
    if error is not None:
        why = (str(error) if isinstance(error, ConfigError)
               else f"the gate-level power flow failed: {error}")
        log(f"{design}: power not measured: {why}")
        return None, None, why
    record = power_record_of(rep, cfg.top_name)
    # a reused report's own markdown stays beside the original
    write_report(rep, ddir, markdown=fresh)
    return rep, record, None
