"""One design's hardware measurements for ``termwise report``: its synthesis and its
gate-level power under the workload, each run (cached) or reused from ``--reports``, and
written into the report's ``designs/<design>/`` folder."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from ...errors import ConfigError, ToolError
from .budget import budget_for, needed_cycles, power_part
from .reused import power_record_of

__all__ = ["PowerRun", "synthesis_of", "power_of"]


@dataclass(frozen=True)
class PowerRun:
    """The options every design's power run shares."""
    workload: str
    cycles: int
    seed: int
    cache_root: str | None
    use_cache: bool


def synthesis_of(design: str, cfg, ddir: str, found: dict, *, cache_root, use_cache,
                 log) -> dict:
    """``cfg``'s synth report: the one found under ``--reports`` (by top name), else
    synthesised (cached); written to ``ddir``."""
    from ....synth.api import synthesise, write_report
    from ...emit import write_atomically
    syn = found.get(cfg.top_name)
    if syn is None:
        log(f"{design}: synthesis of {cfg.top_name}")
        syn = synthesise(cfg, None, cache_root=cache_root, use_cache=use_cache)
        write_report(syn, ddir)
    else:            # reused: its own markdown stays beside the original
        os.makedirs(ddir, exist_ok=True)
        write_atomically(os.path.join(ddir, "synth_report.json"),
                         json.dumps(syn, indent=2) + "\n")
    if not isinstance(syn.get("asic"), dict):
        raise ConfigError("reports", f"the synth_report.json of {cfg.top_name} has no "
                          "ASIC results")
    return syn


def _measure(design: str, cfg, run: PowerRun, log) -> dict:
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
                            part=power_part(cfg))
    try:
        return measure(run.cycles)
    except ConfigError as err:
        need = needed_cycles(err)
        if need is None:
            raise
        log(f"{design}: {err}; the budget raised to {budget_for(need)} cycles")
        return measure(budget_for(need))


def power_of(design: str, cfg, ddir: str, found: dict, run: PowerRun,
             log) -> tuple[dict | None, dict | None, str | None]:
    """``(power report, its energy-model record, None)``, or ``(None, None, why)`` when the
    power flow refused the design or a tool failed (the row stays, with the reason). A
    report found under ``--reports`` of this workload's activity is reused, else one is
    measured; written to ``ddir``."""
    from ....synth.power.report_files import write_report
    rep = found.get(cfg.top_name)
    if rep is not None and (rep.get("activity") or {}).get("source") != run.workload:
        rep = None           # another activity: measure this workload's
    fresh = rep is None
    if fresh:
        log(f"{design}: gate-level power under {run.workload}")
        try:
            rep = _measure(design, cfg, run, log)
        except ConfigError as err:
            log(f"{design}: power not measured: {err}")
            return None, None, str(err)
        except ToolError as err:
            why = f"the gate-level power flow failed: {err}"
            log(f"{design}: power not measured: {why}")
            return None, None, why
    record = power_record_of(rep, cfg.top_name)
    # a reused report's own markdown stays beside the original
    write_report(rep, ddir, markdown=fresh)
    return rep, record, None
