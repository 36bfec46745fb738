"""report.json's document: the family's rows (:func:`termwise.gen.flows.reports.ppa.
design_row`) with what the table measured, how, and what it did not model."""

from __future__ import annotations

__all__ = ["METHODS", "report_document", "design_rows"]

#: How each column is obtained, as report.json and report.md state it (the energy column's
#: text names the inputs simulated: :func:`report_document`).
METHODS = {
    "area": "the synthesised tile (IO wrapper excluded); 'without buffers' "
            "subtracts the operand buffers (memories mapped to flip-flops, or SRAM macros: "
            "each row's storage says which)",
    "Fmax": "1 / the critical path of OpenSTA at the liberty's nominal corner; "
            "'*' where the design rules are broken (extrapolated, not signable)",
    "power": "termwise power --workload: gate-level simulation of runs drawn from the "
             "workload's conv/fc layers in the network's mix, toggle counts to liberty "
             "internal, switching and leakage power, at the design's Fmax; the tile "
             "without the IO wrapper while it computes (busy cycles, split from load and "
             "idle cycles by four runs of the model: power report's phases; a report "
             "without them gives the stimulus's average, loads included), plus the clock "
             "network estimated from its sinks (clock pins and a CLKBUF1 tree, power "
             "report's clock_network); a tile with SRAM-macro buffers simulated whole, its "
             "replicated modules (PEs) on sampled instances at gate level and the others "
             "as RTL (--part sampled, the sampling error in each row's method), a tile "
             "with flip-flop buffers by one PE row or a slice of it, scaled",
    "speedup (cycles)": "termwise sim: the baseline's cycles over the design's "
                        "(steady model)",
    "speedup (time)": "the RTL's cycles (per-run overheads included) at each "
                      "design's own Fmax",
    "performance per mm2": "inferences per second (at Fmax) per mm2 of tile",
}


def design_rows(archs, synth: dict, power: dict, power_errors: dict, sim: dict,
                power_cycles: int) -> list:
    """One row per design (:func:`termwise.gen.flows.reports.ppa.design_row`), the ratios
    to the baseline filled in; a row whose power run needed a larger budget says so."""
    from ....synth.report import area_by_kind
    from ...designs import paper_claim
    from ..reports import ppa
    energy = sim["energy"]["designs"]
    rows = []
    for a in archs:
        syn = synth[a]
        rows.append(ppa.design_row(a, syn, power.get(a), power_errors.get(a),
                                   sim["total"][a], energy.get(a), paper_claim(a),
                                   area_by_kind(syn["asic"], syn["top"])))
        budget = (power.get(a) or {}).get("activity", {}).get("cycles_requested")
        if budget is not None and budget != power_cycles:
            rows[-1]["power_activity"] += (f" (a {budget}-cycle budget, not {power_cycles}: "
                                           "one run of each layer)")
    ppa.ratios(rows, sim["energy"]["images"])
    return rows


def report_document(workload: str, bits: int, fc: str, sim: dict, rows: list,
                    wall: dict, buffers: str = "flops", clock_gating: bool = False,
                    hierarchical: bool = False, simulator: str = "verilator") -> dict:
    """report.json's document of the rows, the simulation ``sim`` they came from and the
    flow's wall times ``wall`` (seconds per stage); ``buffers`` and ``clock_gating``: how
    the table's tiles store and clock (its common differences from the papers);
    ``hierarchical``: the syntheses by the hierarchical flow (synth/README.md);
    ``simulator``: the power runs' gate-level simulation."""
    from ....synth.api import DEFAULT_CLOCK_NS
    from ..reports import ppa
    from ..reports.plots import hardware_summary
    n_images = sim["energy"]["images"]
    return {
        "generator": "termwise report",
        "workload": workload,
        "precision": bits,
        "images": n_images,
        "fc": fc,
        "equal_peak_throughput": sim["equal_peak_throughput"],
        # whether the rows ran on a per-layer precision profile (the workload's note)
        "precision_profile": next((n for n in sim.get("notes") or []
                                   if "per-layer profile" in n), None),
        "hardware": hardware_summary(sim["designs"], bits),
        "flow": f"OSU 0.18 um liberty, yosys + OpenSTA, clock target "
                f"{DEFAULT_CLOCK_NS:g} ns, Fmax from the critical path"
                + ("; hierarchical: each module synthesised once, all but 8 PEs timed as "
                   "load stubs (synth/README.md)" if hierarchical else "")
                + ("; power: every tile whole on the levelised NumPy gate-level simulation "
                   "(synth/power/levelsim_run.py)" if simulator == "levelsim" else ""),
        "rows": rows,
        "common_differences": ppa.common_differences(buffers, clock_gating),
        "energy_model": {k: sim["energy"][k] for k in ("model", "constants", "modelled",
                                                       "not_modelled", "dram_sensitivity")},
        "methods": {**METHODS,
                    "energy per inference": "the tile power without its operand buffers "
                                            "(flip-flops, or the gate-level run's SRAM "
                                            "macros) x the RTL's cycles / Fmax, plus "
                                            "every storage level as SRAM macros at the "
                                            "design's shapes (tile buffers, chip "
                                            "memories: accesses and leakage) and DRAM "
                                            "(the energy model, sim.md), over the "
                                            f"{n_images} inputs simulated"},
        "sim": {"dir": "sim", "seconds": sim.get("seconds")},
        "wall_s": {k: round(v, 1) for k, v in wall.items()},
    }
