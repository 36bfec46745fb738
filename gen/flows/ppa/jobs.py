"""``termwise report``'s jobs on the sweep engine: one design's synthesis, one design's
gate-level power, each a pure function of a plain-data spec (:mod:`..sweep.jobs`), so that
``--workers N`` runs them on the local pool and ``--scheduler`` on a Dask cluster with the
answers a serial run gives.

A job's value is ``{"report": ...}`` (the synth or power report, plain JSON data) or
``{"error": ...}``: a :class:`~termwise.gen.errors.ConfigError` or
:class:`~termwise.gen.errors.ToolError` of the flow, kept field by field
(:func:`error_record`) so that the report raises the very error a serial run raised
(:func:`error_of`): a synthesis that fails stops the report with the tool's line, a power
run the flow refuses leaves the design's row with the reason.
"""

from __future__ import annotations

import sys

from ...config import from_mapping
from ...errors import ConfigError, ToolError

__all__ = ["SYNTH_JOB", "POWER_JOB", "synth_spec", "power_spec", "tile_synth", "tile_power",
           "error_record", "error_of"]

#: The sweep engine's job kinds of the report (:data:`..sweep.jobs.RUNNERS`).
SYNTH_JOB = "tile_synth"
POWER_JOB = "tile_power"


def synth_spec(index: int, design: str, cfg, *, cache_root, use_cache: bool,
               hierarchical: bool = False) -> dict:
    """The spec of ``design``'s synthesis (its tile ``cfg``, the flow's default clock, cached
    in ``cache_root``; ``hierarchical``: that flow)."""
    return {"index": index, "kind": SYNTH_JOB, "design": design, "config": cfg.to_dict(),
            "name": cfg.name, "cache_root": cache_root, "use_cache": bool(use_cache),
            "hierarchical": bool(hierarchical)}


def power_spec(index: int, design: str, cfg, run) -> dict:
    """The spec of ``design``'s gate-level power (its tile ``cfg``) under the
    :class:`.measure.PowerRun` ``run``."""
    return {"index": index, "kind": POWER_JOB, "design": design, "config": cfg.to_dict(),
            "name": cfg.name,
            "workload": run.workload, "cycles": int(run.cycles), "seed": int(run.seed),
            "cache_root": run.cache_root, "use_cache": bool(run.use_cache),
            "hierarchical": bool(run.hierarchical), "simulator": run.simulator}


def error_record(err: Exception) -> dict:
    """``err`` (a ConfigError or ToolError) as plain data, for :func:`raise_error`."""
    if isinstance(err, ConfigError):
        text = str(err)
        prefix = f"{err.field}: "
        return {"type": "ConfigError", "field": err.field,
                "message": text[len(prefix):] if text.startswith(prefix) else text}
    return {"type": "ToolError", "tool": err.tool, "returncode": err.returncode,
            "log": err.log, "detail": err.detail}


def error_of(record: dict) -> ConfigError | ToolError:
    """The error :func:`error_record` recorded."""
    if record["type"] == "ConfigError":
        return ConfigError(record["field"], record["message"])
    return ToolError(record["tool"], record["returncode"], record["log"], record["detail"])


def _config(spec: dict):
    # the preset's name too: the reports name it, and the energy model checks it
    return from_mapping(spec["config"], name=spec["name"])


def _log(message: str) -> None:
    # as the job starts and runs: on the terminal of a serial run and of the local pool
    # (its forked workers share it); in a Dask worker's log
    print(message, file=sys.stderr, flush=True)


def tile_synth(spec: dict) -> dict:
    """The synth report of ``spec["config"]`` (ASIC, the flow's default clock)."""
    from ....synth.api import synthesise
    cfg = _config(spec)
    _log(f"{spec['design']}: synthesis of {cfg.top_name}")
    try:
        return {"report": synthesise(cfg, None, cache_root=spec["cache_root"],
                                     use_cache=spec["use_cache"],
                                     hierarchical=spec.get("hierarchical", False))}
    except (ConfigError, ToolError) as err:
        return {"error": error_record(err)}


def tile_power(spec: dict) -> dict:
    """The power report of ``spec["config"]`` under ``spec["workload"]``
    (:func:`.measure.measure_power`)."""
    from .measure import PowerRun, measure_power
    cfg = _config(spec)
    run = PowerRun(spec["workload"], spec["cycles"], spec["seed"], spec["cache_root"],
                   spec["use_cache"], spec.get("hierarchical", False),
                   spec.get("simulator", "verilator"))
    _log(f"{spec['design']}: gate-level power under {run.workload}")
    try:
        return {"report": measure_power(spec["design"], cfg, run, _log)}
    except (ConfigError, ToolError) as err:
        return {"error": error_record(err)}
