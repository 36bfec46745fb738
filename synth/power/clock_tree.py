"""The clock network's power, estimated from the sinks it drives: every clock pin of the
synthesised tile (flops, latches) and a buffer tree sized by fanout.

Method (no clock tree is built: the flow's STA clock is ideal, and OSU018 has no wire-load
model):

* **sinks** -- every cell instance with a clock pin (the liberty's ``clock : true`` input),
  counted per module definition from yosys ``stat`` and multiplied by the module's
  instances, grouped by kind (:mod:`termwise.synth.kinds`): their pin capacitances, from
  the liberty;
* **tree** -- levels of :data:`TREE_BUFFER` (the liberty's clock buffer), each buffer
  driving at most its ``max_capacitance`` (the liberty's limit, within its delay tables'
  load index): level 1 drives the sinks, level ``k + 1`` the inputs of level ``k``, until
  one buffer remains, driven by the clock source;
* **power per cycle** -- every net of the tree charges and discharges once: the sinks'
  and the buffers' input capacitance x V^2; each buffer's internal energy for one rise and
  one fall at its load (its liberty tables, the flow's fixed 0.1 ns input slew); the
  buffers' leakage. The sinks' own clock-pin internal power is already in the cells'
  figure of the gate-level run, and is not counted again.

Not modelled: the clock wires (their capacitance often equals the pins'), skew balancing
(equal-length routing adds wire and buffers), gating cells.
"""

from __future__ import annotations

import math

from ..kinds import kind_of

__all__ = ["TREE_BUFFER", "SLEW", "METHOD", "clock_net", "clock_sinks", "gated_sinks",
           "tree_max_load", "clock_network", "report_record", "add_clock_network"]

#: The tree's buffer: OSU018's clock buffer, its input and output pins.
TREE_BUFFER = ("CLKBUF1", "A", "Y")
#: Input transition for the internal-power lookup (the flow's fixed slew, library time unit).
SLEW = 0.1

METHOD = ("clock network estimated from its sinks: every clock pin of the synthesised tile "
          "(liberty capacitances, instance counts from yosys stat) and a tree of CLKBUF1 "
          "sized by its max_capacitance, levels until one root; per cycle the pins' and "
          "buffer inputs' C V^2, each buffer's internal energy for a rise and a fall at its "
          "load (0.1 ns slew) and the buffers' leakage; clock wires, skew balancing and "
          "gating cells not modelled; the sinks' own clock-pin internal power is in the "
          "gate-level figure")


def clock_sinks(stat: dict, modules: dict, top: str, lib) -> dict[str, dict]:
    """Clock pins of the whole netlist by kind: ``{kind: {"pins": n, "cap": C}}`` (library
    capacitance unit).

    Parameters
    ----------
    stat : dict
        yosys ``stat -json`` (cells by type per module definition).
    modules : dict
        The synthesis report's ``asic.modules`` (``instances`` per module).
    top : str
        The tile's top name (kinds are matched after it; the IO wrapper is ``io_wrapper``).
    lib : termwise.synth.power.cells.Library
    """
    inst = {k.lstrip("\\"): v["instances"] for k, v in modules.items()}
    out: dict[str, dict] = {}
    for name, m in stat["modules"].items():
        name = name.lstrip("\\")
        n = inst.get(name, 0)
        if not n:
            continue
        kind = kind_of(name, top) or "control_glue"
        for cell, count in m.get("num_cells_by_type", {}).items():
            c = lib.cells.get(cell.lstrip("\\"))
            if c is None:
                continue
            cap = sum(p.capacitance for p in c.pins.values()
                      if p.direction == "input" and p.clock)
            if cap:
                rec = out.setdefault(kind, {"pins": 0, "cap": 0.0})
                rec["pins"] += n * count
                rec["cap"] += n * count * cap
    return out


def tree_max_load(liberty_path: str) -> float:
    """The most one tree buffer may drive (library capacitance unit): the smaller of its
    output's ``max_capacitance`` and its delay tables' last load index (the liberty's
    characterised range, :func:`termwise.synth.liberty.read_limits`)."""
    from ..liberty import read_limits
    cell, _, y = TREE_BUFFER
    lim = read_limits(liberty_path).pins[(cell, y)]
    return min(x for x in (lim.max_capacitance, lim.table_max_load) if x is not None)


def clock_network(sink_cap: float, lib, f_hz: float, *, max_load: float) -> dict:
    """The clock network driving ``sink_cap`` (library capacitance unit) at ``f_hz``.

    Parameters
    ----------
    sink_cap : float
        The clock pins' capacitance.
    lib : termwise.synth.power.cells.Library
    f_hz : float
    max_load : float
        The most one tree buffer drives (library unit): the buffer's ``max_capacitance``.

    Returns
    -------
    dict
        ``levels`` (buffers per level, leaves first), ``buffers``, ``sink_cap_pf``,
        ``buffer_input_cap_pf``, and the power (W): ``pins_w`` (the sinks' C V^2 f),
        ``tree_w`` (the buffers' inputs, internal energy and leakage) and ``total_w``.
    """
    cell, a, y = TREE_BUFFER
    c = lib.cells[cell]
    c_in = c.pins[a].capacitance
    u = lib.units
    v2 = (lib.voltage * u.voltage_v) ** 2
    levels, internal, load = [], 0.0, sink_cap
    while load > 0:
        n = max(1, math.ceil(load / max_load))
        each = load / n
        e = 0.0
        for ip in c.pins[y].internal_power:
            if ip.related_pin == a:
                e = (ip.rise.at(total_output_net_capacitance=each, input_transition_time=SLEW)
                     + ip.fall.at(total_output_net_capacitance=each,
                                  input_transition_time=SLEW))
        internal += n * e
        levels.append(n)
        if n == 1:
            break
        load = n * c_in
    buffers = sum(levels)
    in_cap = buffers * c_in
    pins_w = sink_cap * u.capacitance_f * v2 * f_hz
    tree_w = (in_cap * u.capacitance_f * v2 + internal * u.energy_j) * f_hz \
        + buffers * c.leakage * u.leakage_w
    return {"levels": levels, "buffers": buffers, "buffer": cell,
            "sink_cap_pf": sink_cap * u.capacitance_f * 1e12,
            "buffer_input_cap_pf": in_cap * u.capacitance_f * 1e12,
            "pins_w": pins_w, "tree_w": tree_w, "total_w": pins_w + tree_w}


def gated_sinks(sinks: dict, gating: dict, modules: dict, top: str, lib) -> dict:
    """``sinks`` of a clock-gated tile (:mod:`termwise.synth.clock_gating`'s record): the
    gated flops' clock pins leave the root net (they hang off their ICG, whose output net
    the gate-level run simulates), the ICGs' inverter and AND inputs join it. A gated flop
    is counted at DFFPOSX1's clock pin."""
    inst = {k.lstrip("\\"): v["instances"] for k, v in modules.items()}
    flop = lib.cells["DFFPOSX1"].pins["CLK"].capacitance
    icg = lib.cells["INVX1"].pins["A"].capacitance + lib.cells["AND2X2"].pins["A"].capacitance
    out = {k: dict(v) for k, v in sinks.items()}
    for name, g in gating.get("by_module", {}).items():
        n = inst.get(name.lstrip("\\"), 0)
        rec = out.setdefault(kind_of(name.lstrip("\\"), top) or "control_glue",
                             {"pins": 0, "cap": 0.0})
        rec["pins"] += n * (2 * g["icgs"] - g["gated_flops"])
        rec["cap"] += n * (g["icgs"] * icg - g["gated_flops"] * flop)
    return out


def report_record(stat: dict, modules: dict, top: str, lib, liberty_path: str,
                  f_hz: float, gating: dict | None = None) -> dict:
    """The power report's ``clock_network`` record of a synthesised tile at ``f_hz``: the
    sinks by kind (of a gated tile, :func:`gated_sinks`), and the network
    (:func:`clock_network`) of every tile sink (the IO wrapper's excluded) and of the
    tile's sinks outside its flip-flop operand buffers (kind ``buffers``, which the energy
    model prices as SRAM macros)."""
    sinks = clock_sinks(stat, modules, top, lib)
    if gating:
        sinks = gated_sinks(sinks, gating, modules, top, lib)
    u = lib.units
    limit = tree_max_load(liberty_path)
    tile = sum(v["cap"] for k, v in sinks.items() if k != "io_wrapper")
    logic = sum(v["cap"] for k, v in sinks.items() if k not in ("io_wrapper", "buffers"))
    return {"method": METHOD,
            "sinks_by_kind": {k: {"pins": v["pins"],
                                  "cap_pf": v["cap"] * u.capacitance_f * 1e12}
                              for k, v in sorted(sinks.items())},
            "tile": clock_network(tile, lib, f_hz, max_load=limit),
            "without_buffers": clock_network(logic, lib, f_hz, max_load=limit)}


def add_clock_network(rep: dict, syn: dict) -> dict:
    """``rep`` (a power report) with its ``clock_network`` record (:func:`report_record`)
    from the whole tile's synthesis ``syn`` at the report's clock, and the network in its
    totals: ``power_w.clock_network`` and ``power_w.tile_with_clock_network`` (the tile's
    cells plus the network; ``power_w.tile`` stays the cells' own, as simulated)."""
    import json
    import os
    from .cells import read_library
    lib_path = rep["synthesis"]["liberty"]
    with open(os.path.join(syn["cache"]["asic"]["dir"], "stat.json"), encoding="utf-8") as f:
        stat = json.load(f)
    lib = read_library(lib_path)
    rec = report_record(stat, syn["asic"]["modules"], rep["top"], lib, lib_path,
                        rep["clock"]["mhz"] * 1e6, syn["asic"].get("clock_gating"))
    rep["clock_network"] = rec
    rep["power_w"]["clock_network"] = rec["tile"]["total_w"]
    rep["power_w"]["tile_with_clock_network"] = rep["power_w"]["tile"] + rec["tile"]["total_w"]
    return rep


def clock_net(rep, lib, f_mhz: float) -> tuple[float, float]:
    """``(capacitance, switching power)`` of the clock net: the clock pins it drives
    (library unit; W at ``f_mhz``, two transitions a cycle)."""
    clk_cap = sum(lib.cells[i.cell].pins["CLK"].capacitance * i.cells for i in rep.instances
                  if "CLK" in lib.cells[i.cell].pins)
    u = lib.units
    v2 = (lib.voltage * u.voltage_v) ** 2
    return clk_cap, 0.5 * clk_cap * u.capacitance_f * v2 * 2 * f_mhz * 1e6
