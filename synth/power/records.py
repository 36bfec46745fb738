"""The power report's records that a whole tile's measurement (:mod:`.measure`) and a part's
scaling (:mod:`.part_report`) compute alike: energy, activity, and what is and is not
modelled."""

from __future__ import annotations

__all__ = ["MODELLED", "NOT_MODELLED", "energy_record", "activity_record", "activity_texts"]

NOT_MODELLED = [
    "zero-delay simulation: no glitches, no hazards (real activity of deep combinational "
    "logic such as multipliers and adder trees is higher)",
    "one fixed input slew for every internal-power table lookup (0.1 ns)",
    "no clock tree built: the clock network is estimated from its sinks (clock_network: "
    "the clock pins' switching and a CLKBUF1 tree sized by fanout) and added in "
    "power_w.tile_with_clock_network, not in power_w.tile and total (the cells as "
    "simulated); its wires are not modelled; the flops' clock-pin internal power is in "
    "every total",
    "no wire load: OSU018 has no default wire-load model, net capacitance is pin "
    "capacitance only",
    "no state-dependent (`when`) internal power or leakage; leakage at the cell's default",
    "no IR drop, no temperature, one corner (the liberty's nominal voltage)",
    "two-state simulation: every flop starts at 0, no X propagation",
    "the IO wrapper's registers (synthesis timing wrapper) are simulated and reported as "
    "kind io_wrapper; tile power and energy per MAC exclude them",
]
MODELLED = [
    "every cell's internal power from its liberty tables at its simulated output load, "
    "arcs weighted by their inputs' toggle rates",
    "switching power 0.5 C V^2 of every net driven by a cell, from its simulated toggle "
    "count",
    "leakage of every cell (cell_leakage_power)",
    "the buffers (memories mapped to flops), the PE array, the controller and the IO "
    "wrapper as synthesised (hierarchy kept)",
]


def energy_record(total: float, tile_w: float, f_hz: float, thr: dict, sim_s: float,
                  macs: float, real_macs: float, plan) -> dict:
    """The report's ``energy`` record.

    Parameters
    ----------
    total, tile_w : float
        Power (W) of everything simulated, and of the tile (without the IO wrapper).
    f_hz : float
        The clock the power is stated at.
    thr : dict
        The tile's peak throughput (the synthesis report's ``throughput``).
    sim_s : float
        Simulated time at ``f_hz``.
    macs, real_macs : float
        MACs issued, and the workload's own MACs, in the completed runs.
    plan : WorkloadPlan or None
        The workload's runs (:func:`.workload.plan_workload`); None for random operands.

    Returns
    -------
    dict
        Energy per cycle, per MAC at peak, per MAC issued and per real MAC (pJ), each
        with a note saying what it divides.
    """
    peak = thr["peak_macs_per_cycle"]
    return {
        "per_cycle_pj": total / f_hz * 1e12,
        "tile_per_cycle_pj": tile_w / f_hz * 1e12,
        "per_mac_at_peak_pj": tile_w / f_hz / peak * 1e12,
        "peak_macs_per_cycle": peak,
        "per_mac_at_peak_note": "tile power of the simulated loop divided by the peak "
                                f"throughput ({peak:g} MAC/cycle at "
                                f"{thr['precision_bits']}-bit activations): as if the "
                                "tile were at peak every cycle, "
                                + ("dense operands" if plan is None else
                                   "with the activity of the workload's runs"),
        "per_mac_issued_pj": (tile_w * sim_s / macs * 1e12) if macs else None,
        "per_mac_issued_note": "tile energy of the whole simulation (loads, reset and "
                               "idle cycles included) over the MACs of the completed "
                               "runs",
        "per_real_mac_pj": (tile_w * sim_s / real_macs * 1e12) if real_macs else None,
        "per_real_mac_note": ("tile energy of the whole simulation over the workload's "
                              "own MACs in the completed runs (brick padding, padding "
                              "windows and filters excluded)" if plan is not None else
                              "random operands: every issued MAC is a real one, as per "
                              "MAC issued"),
    }


def activity_record(cfg, plan, stats: dict, cycles: int, bricks: int) -> dict:
    """The report's ``activity`` record.

    Parameters
    ----------
    cfg : TileConfig
        The tile simulated.
    plan : WorkloadPlan or None
        The workload's runs; None for random operands.
    stats : dict
        The harness's counts (:func:`.measure.run_model`).
    cycles : int
        The cycles requested.
    bricks : int
        Bricks per random-operand run.

    Returns
    -------
    dict
        The source, cycles, runs and MACs (issued and real); for a workload, per layer.
    """
    rec = {"source": "random" if plan is None else plan.workload,
           "cycles_requested": cycles, "cycles_simulated": stats["cycles"],
           "runs_completed": stats["runs_completed"], "timeouts": stats["timeouts"]}
    if plan is None:
        macs = stats["runs_completed"] * bricks * cfg.lanes * cfg.filters * cfg.windows
        rec.update(layers=[], macs_issued=macs, real_macs=macs)
        return rec
    outcomes = stats["outcomes"]
    layers = {d["name"]: dict(d, runs_completed=0, real_macs=0, macs_issued=0, run_indices=[])
              for d in plan.layers}
    for i, s in enumerate(plan.runs):
        d = layers[s.layer]
        d["run_indices"].append(s.index)
        if i < len(outcomes) and outcomes[i] == "c":
            d["runs_completed"] += 1
            d["real_macs"] += s.useful_macs
            d["macs_issued"] += s.padded_macs
    rec.update(bits=plan.bits,
               runs_in_stimulus=len(plan.runs), runs_reached=len(outcomes),
               estimated_cycles=plan.estimated_cycles, layers=list(layers.values()),
               macs_issued=sum(d["macs_issued"] for d in layers.values()),
               real_macs=sum(d["real_macs"] for d in layers.values()),
               what="runs drawn from every layer's runs together (the network's mix of "
                    "layers, in expectation), weights reloaded every run, no weight "
                    "reuse across window groups; not a whole inference")
    return rec


def activity_texts(cfg, plan, bricks: int, cycles: int, seed: int) -> tuple[str, str]:
    """The report's words for the stimulus and the operands."""
    from .stimulus import RESET_CYCLES
    if plan is None:
        return (
            "tile runs through the IO wrapper: reset held "
            f"{RESET_CYCLES} cycles, then in a loop {bricks} weight rows and "
            f"{bricks} activation rows loaded through the streams, one command "
            f"(bricks={bricks}, runtime registers {cfg.runtime_values()}), "
            f"{cfg.windows} output row(s) read, 2 idle cycles",
            f"uniformly random {cfg.act_bits}-bit activations and "
            f"{cfg.wgt_bits}-bit weights (every payload bit random: dense, "
            "zero only by chance), seeded xorshift")
    return (
        f"tile runs through the IO wrapper: reset held {RESET_CYCLES} cycles, then "
        f"{len(plan.runs)} runs of {plan.workload}'s layers read from a stimulus file "
        "(the network's mix: drawn from every layer's runs together): each run's "
        "weight rows and activation rows loaded through the streams (weights reloaded "
        "every run), its command (its bricks and the layer's runtime registers), "
        f"{cfg.windows} output row(s) read, 2 idle cycles; the simulation ends after "
        f"the last run or at {cycles} cycles",
        f"{plan.workload} at {plan.bits} bits: runs drawn at random (numpy "
        f"default_rng({seed})) from the layers' lowerings onto the tile "
        "(golden.lowering.lower_layer, as the real regression lowers it), the layer's "
        "runtime registers (golden.netsim.layer_runtime); no bias row, zero residual "
        "rows")
