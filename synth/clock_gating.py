"""Clock gating in the ASIC flow (opt-in: ``run_asic(..., clock_gating=True)``).

Registers that hold most cycles (weight columns, pallet and term registers, idle
accumulators, operand buffers mapped to flops) load through an enable: yosys maps a flop
with an enable to a plain flop plus a multiplexer that feeds its own output back, and the
flop's clock pin still toggles every cycle. With gating, each group of flops of one module
that share a clock and an enable get a gated clock from one integrated clock-gating cell
(ICG) and lose the multiplexer.

The ICG. OSU018 has no ICG cell, so :data:`ICG_FILE` (``termwise_icg.v``) builds one from
three library cells: ``INVX1`` (clk -> clk_n), ``LATCH`` (a positive-level latch:
transparent while its CLK pin is high, so with clk_n it is transparent while the clock is
LOW) and ``AND2X2`` (gclk = clk & latched enable). The enable can only change the latch's
output while clk is low, when the AND's other input is 0: an enable that changes while clk
is high cannot cut or extend a clock pulse, and gclk pulses in a cycle only if CE was high
before the rising edge (the latch's setup_falling check, timed by OpenSTA, is that
condition).

The yosys commands (:func:`yosys_commands`), between ``synth -noabc`` and ``dfflibmap``:

1. ``dfflegalize -cell $_SDFFCE_????_ 01 t:$_SDFFE_*``, ``opt_merge t:$_OR_``,
   ``opt_clean``: a flop whose synchronous reset outranks its enable (``$_SDFFE_``: every
   Amaranth register with a reset and an enable) must see a clock edge whenever the reset
   is asserted, and yosys 0.70's ``clockgate`` leaves such flops ungated (checked: it
   converts 0 of them). ``dfflegalize`` rewrites each into the enable-over-reset form
   ``$_SDFFCE_`` with enable ``CE | SRST`` (the same function), one OR gate per flop;
   ``opt_merge`` folds the identical ORs and ``opt_clean`` removes the aliases it leaves,
   so that the flops of one register share one enable net (``clockgate`` groups flops by
   the enable's net, without alias resolution: unmerged, every flop is a group of one).
2. ``clockgate -pos termwise_icg CE:CLK:GCLK -min_net_size`` :data:`MIN_NET_SIZE`.
3. ``rename -enumerate -pattern termwise_icg_% t:termwise_icg``: public names, so that the
   ICG's cells keep recognisable names in the netlist (``termwise_icg_3.latch``).
4. ``techmap -map termwise_icg.v``: every ICG instance becomes its three cells, inside the
   module of the flops it gates (no extra module: areas stay with their kind).

Area: the OSU018 liberty gives ``LATCH`` area 0 (its LEF: 5.6 x 10 um = 56 um2), so the
flow's ``stat`` area omits 56 um2 per ICG; :func:`summary` states the LEF-corrected area.
"""

from __future__ import annotations

import os
import re
from importlib import resources

__all__ = ["ICG_MODULE", "ICG_FILE", "ICG_PORTS", "MIN_NET_SIZE", "VERSION",
           "LATCH_LEF_AREA_UM2", "icg_verilog", "yosys_commands", "add_to_script",
           "write_icg", "key_fields", "gated_counts", "summary"]

#: The ICG's module name (the cell type ``clockgate`` instantiates).
ICG_MODULE = "termwise_icg"
#: Its Verilog, shipped as package data (OSU018 cell instances only).
ICG_FILE = "termwise_icg.v"
#: Enable, clock in, gated clock out (``clockgate``'s ``ce:clk:gclk``).
ICG_PORTS = ("CE", "CLK", "GCLK")
#: Smallest group of flops (same clock, same enable, same module) given an ICG. Why 4:
#: one ICG costs INVX1 + LATCH + AND2X2 = 16 + 56 (LEF) + 32 = 104 um2 and puts 0.022 pF
#: (INVX1.A 0.0093 + AND2X2.A 0.0129) on the free-running clock, while each gated flop
#: saves its enable multiplexer (MUX2X1: 48 um2) and takes its CLK pin (DFFPOSX1.CLK
#: 0.028 pF) off the free-running clock. Area breaks even at 2-3 flops and the always-
#: toggling clock load at 1; 4 leaves margin for the ICG's own internal power (its latch and
#: AND toggle every cycle) and keeps single-bit and tiny control registers (valid bits,
#: counters' enables) on the plain clock, where a gate would buy nothing.
MIN_NET_SIZE = 4
#: The gating flow's version, in the synthesis key of a gated run only (bump when the
#: ICG, the commands, MIN_NET_SIZE or the clock buffers under gated nets (buffer.py)
#: would change a result; cg-2: gated nets buffered).
VERSION = "cg-2"
#: LATCH's area from the OSU018 LEF (SIZE 5.600 BY 10.000); the liberty says 0.
LATCH_LEF_AREA_UM2 = 56.0


def icg_verilog() -> str:
    """The ICG's Verilog text (the shipped :data:`ICG_FILE`)."""
    return resources.files(__package__).joinpath(ICG_FILE).read_text(encoding="utf-8")


def yosys_commands(icg_path: str = ICG_FILE, min_net_size: int = MIN_NET_SIZE) -> str:
    """The yosys commands of the gating step (module docstring), one per line;
    ``icg_path`` relative to the run folder (the yowasp sandbox cannot see elsewhere)."""
    ce, clk, gclk = ICG_PORTS
    return "\n".join([
        "# clock gating (termwise.synth.clock_gating): reset-over-enable flops to "
        "enable-over-reset (enable | reset), one enable net per register, then ICGs",
        "dfflegalize -cell $_SDFFCE_????_ 01 t:$_SDFFE_*",
        "opt_merge t:$_OR_",
        "opt_clean",
        f"clockgate -pos {ICG_MODULE} {ce}:{clk}:{gclk} -min_net_size {min_net_size}",
        f"rename -enumerate -pattern {ICG_MODULE}_% t:{ICG_MODULE}",
        f"techmap -map {icg_path}",
    ])


def add_to_script(script: str, commands: str | None = None) -> str:
    """``script`` (the filled-in asic.ys) with the gating commands after its
    ``synth -noabc`` line (so before ``dfflibmap``)."""
    lines = script.split("\n")
    at = [i for i, line in enumerate(lines) if line.startswith("synth -noabc")]
    if len(at) != 1 or not any(line.startswith("dfflibmap") for line in lines[at[0]:]):
        raise ValueError("the ASIC script has no single `synth -noabc` line before "
                         "`dfflibmap`")
    cmd = yosys_commands() if commands is None else commands
    return "\n".join(lines[:at[0] + 1] + [cmd] + lines[at[0] + 1:])


def write_icg(workdir: str) -> str:
    """Write the ICG's Verilog into ``workdir``; returns its path relative to it."""
    with open(os.path.join(workdir, ICG_FILE), "w", encoding="utf-8") as f:
        f.write(icg_verilog())
    return ICG_FILE


def key_fields(min_net_size: int = MIN_NET_SIZE) -> dict:
    """What a gated run adds to its synthesis key (nothing is added when gating is off)."""
    return {"version": VERSION, "icg": ICG_MODULE, "min_net_size": min_net_size}


_FLOP = re.compile(r"^(DFF|SDFF)")


def gated_counts(netlist_text: str) -> dict[str, dict[str, int]]:
    """Per module definition of a netlist written by the gated flow (before fanout
    buffering): ``{"icgs", "gated_flops", "flops"}``. An ICG is a ``LATCH`` named
    ``termwise_icg_N.latch``; a gated flop is a flop whose CLK is on the net an ICG's
    ``.gate`` cell drives (within the module: ``clockgate`` gates per module)."""
    from .netlist import module_nets, parse_netlist
    mods = {m.name: m for m in parse_netlist(netlist_text)}
    out = {}
    for name, mod in mods.items():
        uf = module_nets(mod, mods, {n: {} for n in mods})   # local nets suffice
        gclks = {uf.find(i.conns["Y"][0]) for i in mod.insts
                 if i.type == "AND2X2" and _icg_part(i.name) == "gate"}
        flops = [i for i in mod.insts if _FLOP.match(i.type)]
        out[name.lstrip("\\")] = {
            "icgs": sum(1 for i in mod.insts
                        if i.type == "LATCH" and _icg_part(i.name) == "latch"),
            "gated_flops": sum(1 for i in flops
                               if "CLK" in i.conns and uf.find(i.conns["CLK"][0]) in gclks),
            "flops": len(flops)}
    return out


def _icg_part(inst_name: str) -> str | None:
    """``latch`` for ``\\termwise_icg_3.latch`` (an ICG's cell), else None."""
    m = re.fullmatch(rf"\\?{ICG_MODULE}_\d+\.(\w+)", inst_name)
    return m.group(1) if m else None


def summary(workdir: str, wrap: str) -> dict:
    """The ``clock_gating`` section of a gated run's report: ICGs, gated flops and all
    flops, weighted by instance counts through the hierarchy (the io wrapper's own flops
    included), from ``netlist.v`` and ``stat.json`` in ``workdir`` (call it before
    fanout buffering); the ICGs' area by the liberty and with the LATCH's LEF area."""
    from . import parse
    with open(os.path.join(workdir, "netlist.v"), encoding="utf-8") as f:
        per_def = gated_counts(f.read())
    with open(os.path.join(workdir, "stat.json"), encoding="utf-8") as f:
        counts = parse.instance_counts(parse.parse_stat_json(f.read()), wrap)
    tot = {k: sum(n * per_def.get(m, {}).get(k, 0) for m, n in counts.items())
           for k in ("icgs", "gated_flops", "flops")}
    icg_lib = 16.0 + 32.0   # INVX1 + AND2X2 (LATCH: 0 in the liberty)
    return dict(tot, icg=ICG_MODULE, min_net_size=MIN_NET_SIZE, version=VERSION,
                icg_area_liberty_um2=round(tot["icgs"] * icg_lib, 1),
                icg_area_lef_um2=round(tot["icgs"] * (icg_lib + LATCH_LEF_AREA_UM2), 1),
                by_module={m: v for m, v in per_def.items() if v["icgs"]},
                note="area_um2 (yosys stat, liberty areas) counts the ICG's LATCH as 0 um2; "
                     "add icg_area_lef_um2 - icg_area_liberty_um2 for the LEF area")


#: OpenSTA script of a gated run's timing (beside the flow's sta.tcl, which is unchanged):
#: the worst path into a flop, the worst enable path into an ICG latch (with its time-
#: borrowing report), the inferred clock-gating checks on the ICGs' AND gates (setup: max,
#: hold: min) and the latches' hold check.
STA_SCRIPT = """read_liberty {lib}
read_verilog {net}
link_design {top}
create_clock -name clk -period {period} [get_ports clk]
puts "TERMWISE_CG flops"
report_checks -path_delay max -to [all_registers -edge_triggered -data_pins] {opts}
puts "TERMWISE_CG enable"
report_checks -path_delay max -to [all_registers -level_sensitive -data_pins] {opts}
puts "TERMWISE_CG gating_setup"
report_checks -path_delay max -through [get_pins -hierarchical *.gate/B] {opts}
puts "TERMWISE_CG gating_hold"
report_checks -path_delay min -through [get_pins -hierarchical *.gate/B] {opts}
puts "TERMWISE_CG latch_hold"
report_checks -path_delay min -to [all_registers -level_sensitive -data_pins] {opts}
puts "TERMWISE_CG end"
exit
"""


def timing(workdir: str, wrap: str, clock_ns: float, netlist: str = "netlist.v",
           liberty: str = "cells.lib", script=None) -> dict:
    """The gated run's timing by OpenSTA (:data:`STA_SCRIPT`, log ``sta_clock_gating.log``)
    and its Fmax.

    The flow's ``fmax_mhz`` is ``1000 / (T - WNS)``: it assumes every check's required time
    moves with the period. An ICG latch's D check does not: OpenSTA times it against the
    latch's opening edge (clk falling, T/2) and lets the path borrow up to the closing edge,
    so its slack is ``T/2 - arrival`` and bounds the flow's Fmax at ``1000 / (T/2 +
    arrival)``: a conservative figure. Here the enable path needs ``arrival + latch delay``
    (the latch's CLK->Q delay on the gating path stands in for its D->Q delay) before the
    clock rises at the AND gate, the flops ``T - slack``; ``fmax_mhz`` is 1000 over the
    larger. ``script``, if given, rewrites the OpenSTA script (the sampled timing's stub
    liberty, :func:`termwise.synth.sta_sample.sta_lines`)."""
    from . import parse, tools
    with open(os.path.join(workdir, netlist), encoding="utf-8") as f:
        if f"{ICG_MODULE}_" not in f.read():
            return {"errors": [], "fmax_mhz": None, "note": "no ICG in the netlist"}
    tcl = STA_SCRIPT.format(lib=liberty, net=netlist, top=wrap, period=f"{clock_ns:g}",
                            opts="-fields {cap slew input_pins} -digits 3")
    with open(os.path.join(workdir, "sta_clock_gating.tcl"), "w", encoding="utf-8") as f:
        f.write(tcl if script is None else script(tcl))
    tools.run([tools.check_sta(), "-no_init", "-exit", "sta_clock_gating.tcl"], workdir,
              "sta_clock_gating.log")
    with open(os.path.join(workdir, "sta_clock_gating.log"), encoding="utf-8") as f:
        text = f.read()
    errors = [ln for ln in text.splitlines() if ln.startswith("Error")]
    if errors:
        raise tools.ToolError("sta", None, os.path.join(workdir, "sta_clock_gating.log"),
                              f"clock-gating timing: {errors[0]}")
    parts = dict(re.findall(r"^TERMWISE_CG (\w+)\n(.*?)(?=^TERMWISE_CG )", text, re.M | re.S))
    paths = {k: parse.parse_sta(v) for k, v in parts.items() if "Startpoint:" in v}

    def slack(k):
        return paths[k]["slack_ns"] if k in paths else None

    out = {"errors": errors, "flops_slack_ns": slack("flops"),
           "enable_arrival_ns": paths["enable"]["arrival_ns"] if "enable" in paths else None,
           "enable_slack_ns": slack("enable"),
           "gating_setup_slack_ns": slack("gating_setup"),
           "gating_hold_slack_ns": slack("gating_hold"),
           "latch_hold_slack_ns": slack("latch_hold"),
           "time_borrow": "Time Borrowing Information" in parts.get("enable", "")}
    dq = 0.0
    if "gating_setup" in paths:   # the latch's output stage on the gating path
        dq = max((st[3] for st in paths["gating_setup"]["stages"] if st[1] == "LATCH"),
                 default=0.0)
    need = [clock_ns - out["flops_slack_ns"]] if out["flops_slack_ns"] is not None else []
    if out["enable_arrival_ns"] is not None:
        need.append(out["enable_arrival_ns"] + dq)
    out["latch_delay_ns"] = dq
    out["fmax_mhz"] = round(1000.0 / max(need), 2) if need else None
    out["drv_on_gated_clock_nets"] = _gated_clock_drv(os.path.join(workdir, "sta.log"))
    return out


def _gated_clock_drv(sta_log: str) -> dict | None:
    """The flow's design-rule violations (sta.log's ``TERMWISE_DRV`` lines) on the gated
    clock nets (an ICG's AND output) and elsewhere. A gated clock net is an ideal clock net
    to the STA, but its driver is a library cell, so the checks see its load (up to a few pF
    of flop clock pins); a clock tree, which this flow does not build, would buffer it."""
    if not os.path.exists(sta_log):
        return None
    with open(sta_log, encoding="utf-8") as f:
        rows = [ln.split() for ln in f if ln.startswith("TERMWISE_DRV ")]
    on = [r for r in rows if len(r) > 2 and re.search(rf"{ICG_MODULE}_\d+\.gate/", r[2])]
    return {"gated_clock": len(on), "elsewhere": len(rows) - len(on),
            "gated_clock_nets": len({r[2] for r in on})}


_STA_PATH_LINE = "report_checks -path_delay max -format full_clock_expanded"


def sta_script(tcl: str) -> str:
    """The flow's sta.tcl text for a gated run: its reported path restricted to flop
    endpoints (otherwise OpenSTA prints the clock-gating check group first, and the flow
    takes the first path as the critical one)."""
    if tcl.count(_STA_PATH_LINE) != 1:
        raise ValueError("sta.tcl has no single path report to restrict")
    return tcl.replace(_STA_PATH_LINE,
                       _STA_PATH_LINE + " -to [all_registers -edge_triggered -data_pins]")


def apply_fmax(result: dict) -> dict:
    """A gated run's ``asic`` section with ``fmax_mhz`` from :func:`timing` (the flops and
    the enable paths into the ICG latches, each against its own edge); the flow's figure from
    OpenSTA's worst slack, which counts a latch's half-cycle opening edge as a full-cycle
    requirement, is kept as ``fmax_mhz_worst_slack`` (conservative)."""
    t = (result.get("clock_gating") or {}).get("timing") or {}
    if t.get("fmax_mhz") is not None:
        # from the section's WNS, rounded to 0.1 ps: within 0.01 % of OpenSTA's figure
        result["fmax_mhz_worst_slack"] = round(1000.0 / (result["clock_ns"]
                                                         - result["wns_ns"]), 2)
        result["fmax_mhz"] = t["fmax_mhz"]
    return result
