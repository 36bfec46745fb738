"""The sweep engine: every point of a grid through its jobs, answered from the perf-db where
it can be and evaluated (in parallel, on an executor) where it cannot, each evaluation
recorded as it finishes.

A point's job is finished when the perf-db (the user db, then the system db) holds an
``ok`` result for it under the current method and versions: for ``sim`` one per layer of
the workload (recorded together, in one transaction), for ``synth`` one for the flow. A
rerun therefore evaluates exactly the jobs an interrupted or failed run did not finish.
"""

from __future__ import annotations

import os
import sys
import time

from ...progress import Bar, active
from ...results.locations import synth_cache_root
from ..perfdb import Record, synth_key
from ..perfdb.problem import layer_detail, layer_key
from .grid import Grid
from .jobs import versions, workload_layers

__all__ = ["run_sweep", "KIND_OF_JOB", "sim_method", "synth_method", "SYNTH_TARGET"]

#: The synthesis flow of the ``synth`` jobs.
SYNTH_TARGET = "asic"

#: The perf-db result kind of each job.
KIND_OF_JOB = {"sim": "cycles", "synth": "synth"}


class _Progress:
    """The jobs' bar (:class:`termwise.gen.progress.Bar`: drawn on a terminal), and a line
    per job: to ``log`` if given, else on stderr when no bar is drawn."""

    def __init__(self, total: int, log):
        self.total, self.done, self.log = total, 0, log
        self.bar = Bar(total, "sweep", "job")

    def step(self, text: str) -> None:
        self.done += 1
        self.bar.step(text)
        line = f"{self.done}/{self.total} {text}"
        if self.log is not None:
            self.log(line)
        elif not active():
            print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        self.bar.close()


def sim_method(sim: dict) -> dict:
    """The ``method`` a cycles result is filed under, from a grid's sim options (``order``,
    ``depthwise``, ``sample_pairs``)."""
    return {"order": sim["order"], "depthwise": sim["depthwise"],
            "sample_pairs": sim["sample_pairs"], "signed_digits": "booth",
            "max_window_groups": None}


def synth_method(clock_ns: float) -> dict:
    """The ``method`` (and problem detail) a synthesis result is filed under."""
    return {"target": SYNTH_TARGET, "clock_ns": clock_ns}


def _sim_setup(grid: Grid):
    layers = workload_layers(grid.workload, grid.precision)
    keys = [layer_key(layer) for layer in layers]
    details = [layer_detail(layer) for layer in layers]
    return layers, keys, details, sim_method(grid.sim)


def run_sweep(grid: Grid, executor, chain, *, cache_root: str | None = None,
              log=None) -> dict:
    """Evaluate ``grid`` on ``executor`` (:mod:`.executors`) against the perf-db ``chain``
    (:func:`termwise.gen.flows.perfdb.open_chain`: the user db, which results are recorded in,
    over the system db). ``cache_root``: the synthesis cache (default build/synth-cache).
    Returns the sweep document (``points`` in grid order; ``evaluated`` / ``reused`` /
    ``failed`` counts per job). Nothing is written but the perf-db."""
    return _run(grid, executor, chain, cache_root, log, time.perf_counter())


def _run(grid, executor, chain, cache_root, log, t0) -> dict:
    sim = _sim_setup(grid) if "sim" in grid.jobs else None
    vers = {job: versions(KIND_OF_JOB[job]) for job in grid.jobs}
    smethod = synth_method(grid.clock_ns)
    skey = synth_key(SYNTH_TARGET, grid.clock_ns)
    root = os.path.abspath(synth_cache_root(cache_root))
    points = [{"index": i, "top": cfg.top_name, "arch": cfg.arch, "config": cfg.to_dict()}
              for i, cfg in enumerate(grid.points)]
    specs = []
    for i, cfg in enumerate(grid.points):
        if sim is not None:
            _, keys, _, method = sim
            hits = [chain.lookup(k, cfg, "cycles", method, vers["sim"]) for k in keys]
            if all(hits):
                points[i]["sim"] = _sim_entry([h["value"] for h in hits], keys, sim[0], "db")
            else:
                specs.append({"index": i, "kind": "cycles", "config": cfg.to_dict(),
                              "workload": grid.workload, "precision": grid.precision,
                              "method": method})
        if "synth" in grid.jobs:
            hit = chain.lookup(skey, cfg, "synth", smethod, vers["synth"])
            if hit:
                points[i]["synth"] = dict(hit["value"], status="ok", source="db")
            else:
                specs.append({"index": i, "kind": "synth", "config": cfg.to_dict(),
                              "clock_ns": grid.clock_ns, "cache_root": root})
    progress = _Progress(len(specs), log)
    evaluated = {job: 0 for job in grid.jobs}
    for res in executor.run(specs):
        i, cfg = res["index"], grid.points[res["index"]]
        job = "sim" if res["kind"] == "cycles" else "synth"
        evaluated[job] += 1
        if job == "sim":
            layers, keys, details, method = sim
            value = res["value"]
            if res["status"] == "ok" and [x["problem"] for x in value["layers"]] != keys:
                res = dict(res, status="failed",
                           value={"error": "ValueError: the worker's workload differs from "
                                           "this one (problem keys differ)"})
            per = res["seconds"] / max(1, len(keys))
            chain.record(Record(k, "layer", d, cfg, "cycles", method, vers["sim"],
                                res["status"], _layer_value(res, n), per)
                         for n, (k, d) in enumerate(zip(keys, details)))
            points[i]["sim"] = (_sim_entry(res["value"]["layers"], keys, layers, "run")
                                if res["status"] == "ok" else
                                {"status": "failed", "source": "run", **res["value"]})
        else:
            chain.record([Record(skey, "synth", smethod, cfg, "synth", smethod,
                                 vers["synth"], res["status"], res["value"],
                                 res["seconds"])])
            points[i]["synth"] = dict(res["value"], status=res["status"], source="run")
        progress.step(f"{cfg.top_name} {job} {res['status']} {res['seconds']:.1f} s")
    progress.close()
    failed = {job: sum(p.get(job, {}).get("status") == "failed" for p in points)
              for job in grid.jobs}
    return {
        "workload": grid.workload, "precision": grid.precision, "jobs": list(grid.jobs),
        "sim_method": sim[3] if sim else None,
        "synth_method": smethod if "synth" in grid.jobs else None,
        "versions": vers, "executor": executor.name, "db": chain.dbs[0].path,
        "points": points, "evaluated": evaluated,
        "reused": {job: len(points) - evaluated[job] for job in grid.jobs},
        "failed": failed, "seconds": round(time.perf_counter() - t0, 2),
    }


_LAYER_FIELDS = ("cycles", "rtl_cycles", "work", "runs", "steps", "sampled")


def _layer_value(res: dict, n: int) -> dict:
    if res["status"] != "ok":
        return res["value"]
    return {k: res["value"]["layers"][n][k] for k in _LAYER_FIELDS}


def _sim_entry(values, keys, layers, source) -> dict:
    per = [{"layer": layer.name, "problem": k, **{f: v[f] for f in _LAYER_FIELDS}}
           for layer, k, v in zip(layers, keys, values)]
    return {"status": "ok", "source": source, "cycles": sum(x["cycles"] for x in per),
            "rtl_cycles": sum(x["rtl_cycles"] for x in per), "layers": per}
