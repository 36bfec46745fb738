"""``termwise tune``'s objectives: what a candidate's cost is, and what it needs.

Every objective is a cost to minimise, over the whole workload (one tile for every layer)
and per layer (the "if the tile could switch" answer). A candidate entry (as
:func:`termwise.gen.flows.tune.collect.collect` builds it) carries per layer the cycle model's
``cycles`` (steady state, as ``termwise sim`` and ``termwise sweep`` report them) and
``rtl_cycles`` (per-run overheads included), and where known its synthesised area and its
energy (:func:`termwise.golden.netsim.energy.design_energy` with a power record).

``cycles``
    Total cycles of the workload. Needs the cycle model only.
``perf-per-area``
    Inferences per second per mm2 of synthesised (ASIC) area, each tile at its own Fmax
    and its RTL cycles (per-run overheads included), as ``termwise report``'s performance
    per mm2 and the energy objectives' time; the cost minimised is RTL cycles / Fmax x
    area. Needs synthesis of every candidate. Per layer: the least time (RTL cycles /
    Fmax; an area of a switching tile is not defined).
``energy``
    Energy per inference (J): the tile's power x its RTL cycles over the power report's
    clock, plus the on-chip buffer and DRAM accesses. Needs a power record of the
    candidate (a ``termwise power`` report); memory energy alone is not this objective.
``edp``
    Energy per inference x time per inference (RTL cycles over the power report's clock).
    Per layer: the least layer energy x layer time (EDP does not add up over layers; the
    switched total is the product of the summed energy and time).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Objective", "OBJECTIVES", "network_cost", "layer_costs", "figure", "needs"]


@dataclass(frozen=True)
class Objective:
    """An objective: ``name``, the jobs it needs (``sim``, ``synth``, ``power``), its
    figure's unit and a one-line description."""

    name: str
    needs: tuple
    unit: str
    text: str


OBJECTIVES = {
    "cycles": Objective("cycles", ("sim",), "cycles",
                        "total cycles of the workload (cycle model)"),
    "perf-per-area": Objective("perf-per-area", ("sim", "synth"), "inferences/s/mm2",
                               "inferences per second per mm2 of synthesised area, each "
                               "tile at its own Fmax (cost: RTL cycles / Fmax x area)"),
    "energy": Objective("energy", ("sim", "power"), "uJ/inference",
                        "energy per inference: tile power x RTL cycles / clock, plus "
                        "on-chip buffer and DRAM accesses"),
    "edp": Objective("edp", ("sim", "power"), "uJ x ms",
                     "energy per inference x time per inference"),
}


def _rtl(layer: dict) -> float:
    """A layer's RTL cycles (its steady-state cycles where the record has no RTL count)."""
    return float(layer.get("rtl_cycles", layer["cycles"]))


def needs(name: str) -> tuple:
    return OBJECTIVES[name].needs


def network_cost(entry: dict, name: str) -> float | None:
    """The whole-workload cost of ``entry`` (lower is better), None when unknown."""
    cycles = sum(x["cycles"] for x in entry["layers"])
    if name == "cycles":
        return float(cycles)
    if name == "perf-per-area":
        if entry.get("area_mm2") is None or not entry.get("fmax_mhz"):
            return None
        return sum(_rtl(x) for x in entry["layers"]) / entry["fmax_mhz"] * entry["area_mm2"]
    e = entry.get("energy")
    if e is None:
        return None
    if name == "energy":
        return e["per_inference_j"]
    return e["per_inference_j"] * e["time_s"]


def layer_costs(entry: dict, name: str) -> list | None:
    """Per layer, the cost the per-layer choice minimises (see the module's docstring)."""
    if name == "cycles":
        return [float(x["cycles"]) for x in entry["layers"]]
    if name == "perf-per-area":                                     # us at the Fmax
        return [_rtl(x) / entry["fmax_mhz"] for x in entry["layers"]]
    e = entry.get("energy")
    if e is None:
        return None
    if name == "energy":
        return list(e["layers_j"])
    return [j * s for j, s in zip(e["layers_j"], e["layers_s"])]


def figure(entry: dict, name: str) -> float | None:
    """The figure shown for ``entry``: cycles; inferences/s/mm2; uJ per inference;
    uJ x ms."""
    cost = network_cost(entry, name)
    if cost is None:
        return None
    if name == "perf-per-area":
        return entry["images"] * 1e6 / cost
    if name == "energy":
        return cost * 1e6
    if name == "edp":
        return cost * 1e9
    return cost
