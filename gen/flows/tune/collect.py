"""The candidates' figures, from the perf-db (and the analytic model where it has none).

Per candidate and layer of the workload the perf-db's cycles result under the run's method
and versions (:meth:`termwise.gen.flows.perfdb.PerfDBChain.lookup`: the user db, then the system
db); a layer it lacks is estimated by :data:`ANALYTIC` and listed in the entry's
``fallback``. Its synthesised area (when the objective or the area budget needs it, or the
db has it), and its energy per inference when it has a power record (:mod:`.power`).
"""

from __future__ import annotations

import math

__all__ = ["ANALYTIC", "analytic_cycles", "layer_macs", "collect", "add_energy"]

#: The analytic model a layer falls back to when the perf-db has no cycles of it.
ANALYTIC = ("peak: the layer's MACs over the tile's dense peak MACs per cycle at the "
            "workload's width (no value-based gain, every MAC slot used)")


def layer_macs(detail: dict) -> int:
    """MACs of a layer from its problem detail (:func:`termwise.gen.flows.perfdb.problem.
    layer_detail`): ``N x OH x OW x K x C/groups x R x S``."""
    d = detail
    return d["N"] * d["OH"] * d["OW"] * d["K"] * (d["C"] // d["groups"]) * d["R"] * d["S"]


def analytic_cycles(detail: dict, cfg, bits: int) -> int:
    """:data:`ANALYTIC`: ``ceil(MACs / cfg.peak_macs_per_cycle(bits))``."""
    return math.ceil(layer_macs(detail) / cfg.peak_macs_per_cycle(bits))


def _narrower(cfg, bits: int) -> str | None:
    for field in ("act_bits", "wgt_bits"):
        if getattr(cfg, field) < bits:
            return (f"{field} = {getattr(cfg, field)} is narrower than the workload's "
                    f"{bits}-bit values")
    return None


def collect(chain, candidates, workload: dict, *, bits: int, method: dict, versions: dict,
            synth=None, failures=None) -> list[dict]:
    """One entry per candidate (see :mod:`.objectives` for what the objectives read).

    Parameters
    ----------
    chain : termwise.gen.flows.perfdb.PerfDBChain
    candidates : list of termwise.gen.flows.tune.space.Candidate
    workload : dict
        The workload's layers (:func:`termwise.gen.flows.perfdb.workload_keys.cached_layers`).
    bits : int
        The workload's width.
    method, versions : dict
        Of the cycles results (:func:`termwise.gen.flows.sweep.engine.sim_method`,
        :func:`termwise.gen.flows.sweep.jobs.versions`).
    synth : (problem key, method, versions) or None
        Look the synthesised area up too.
    failures : dict or None
        ``{top: error}`` of candidates whose evaluation failed in this run.
    """
    failures = failures or {}
    out = []
    for c in candidates:
        e = {"design": c.design, "top": c.top, "preset": c.preset, "arch": c.cfg.arch,
             "config": c.cfg.to_dict(), "images": workload["images"], "layers": [],
             "fallback": [], "area_mm2": None, "fmax_mhz": None, "energy": None,
             "excluded": _narrower(c.cfg, bits) or failures.get(c.top)}
        for layer in workload["layers"]:
            hit = chain.lookup(layer["key"], c.cfg, "cycles", method, versions)
            if hit is not None:
                v = hit["value"]
                e["layers"].append({"layer": layer["name"], "problem": layer["key"],
                                    "cycles": v["cycles"], "rtl_cycles": v["rtl_cycles"],
                                    "work": v["work"], "source": "db"})
            else:
                est = analytic_cycles(layer["detail"], c.cfg, bits)
                e["layers"].append({"layer": layer["name"], "problem": layer["key"],
                                    "cycles": est, "rtl_cycles": est, "work": None,
                                    "source": "analytic"})
                e["fallback"].append(layer["name"])
        if synth is not None:
            key, smethod, sversions = synth
            hit = chain.lookup(key, c.cfg, "synth", smethod, sversions)
            if hit is not None:
                e["area_mm2"] = hit["value"]["area_um2"] / 1e6
                e["fmax_mhz"] = hit["value"]["fmax_mhz"]
        out.append(e)
    return out


def add_energy(entries, candidates, layers, power: dict, *, bits: int, order: str,
               depthwise: str) -> None:
    """Set ``energy`` of every entry whose top has a record in ``power`` (``{top: power
    record}``): per inference the total (``per_inference_j``), the time (``time_s``: RTL
    cycles over the record's clock), and per layer ``layers_j`` / ``layers_s``
    (:func:`termwise.golden.netsim.energy.design_energy`)."""
    from ....golden.netsim.energy import design_energy
    for e, c in zip(entries, candidates):
        rec = power.get(c.top)
        if rec is None or e["excluded"]:
            continue
        rtl = [x["rtl_cycles"] for x in e["layers"]]
        d = design_energy(layers, c.cfg, rtl, out_bits=bits, images=e["images"], order=order,
                          depthwise=depthwise, power=rec)
        hz = rec["clock_mhz"] * 1e6
        n = e["images"]
        e["energy"] = {
            "per_inference_j": d["per_inference_j"], "time_s": d["time_s"] / n,
            "compute_j": d["per_inference"]["compute_j"],
            "memory_j": d["per_inference"]["memory_j"], "power": rec,
            "layers_j": [(r["compute_j"] + r["onchip_j"] + r["offchip_j"]) / n
                         for r in d["layers"]],
            "layers_s": [r["rtl_cycles"] / hz / n for r in d["layers"]]}
