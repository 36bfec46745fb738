"""SRAM macros in the ASIC flow (``buffers = macros``): black boxes with the macro model's
area, access time and minimum cycle.

The tile's Verilog carries each macro shape once as ``termwise_sram_<words>x<width>``, the
behavioural model of :class:`termwise.rtl.buffer.SramMacro`, which the simulations run.
Synthesis instead keeps every instance as a black box (yosys ``blackbox``) and describes it
to ``stat`` and OpenSTA in a liberty of its own, written here from the macro model
(:func:`termwise.golden.sram.macro`: OpenRAM macros characterised by SPICE, scaled to OSU
0.18 um, docs/sram.md):

* ``area`` -- the macro's scaled layout area (um2, OSU018's area unit);
* ``dout`` -- a ``rising_edge`` arc from ``clk`` at the macro's access time;
* inputs -- ``setup_rising`` at the macro's characterised setup time (``setup_ns``, the
  largest of OpenRAM's ``setup_rising`` constraints, scaled as a delay); the macro's
  minimum cycle (``min_period_ns``) bounds the clock as well (:func:`cap_fmax`);
* pin capacitances -- OpenRAM registers every input in a flip-flop (M. Guthaus et al.,
  "OpenRAM: An Open-Source Memory Compiler", ICCAD 2016): each input pin is one OSU018
  DFFPOSX1 ``D`` pin, ``clk`` one ``CLK`` pin per input flop;
* ``cell_leakage_power`` -- 0: the characterised static current is an artefact of
  OpenRAM's scn4m_subm netlist (docs/sram.md), and a 0.18 um macro's real leakage (tens
  of nW) is negligible.

The macros' access energy is not in a liberty table (reads and writes differ, and the power
flow reads no ``when`` conditions): the energy model prices it per access
(:mod:`termwise.golden.netsim.storage`).
"""

from __future__ import annotations

import math
import re

__all__ = ["LIBERTY_FILE", "VERSION", "macro_shapes", "liberty_head", "liberty_text",
           "yosys_lines", "sta_lines", "cap_fmax", "prepare", "restat_lines", "shapes_of"]

#: The macros' liberty in the run folder.
LIBERTY_FILE = "macros.lib"
#: The macro flow's version, in the synthesis key of a macro tile only (bump when this
#: module or the fanout pass's treatment of macro pins would change a result; sram-2: the
#: macros' input pins load their drivers in the fanout pass, so a control net broadcast to
#: 64 macros gets a buffer tree).
VERSION = "sram-2"
_MODULE = re.compile(r"^module\s+(termwise_sram_(\d+)x(\d+))\s*\(", re.M)


def macro_shapes(verilog: str) -> list[tuple[str, int, int]]:
    """``(module, words, width)`` of every macro module the tile's Verilog defines."""
    return sorted({(m.group(1), int(m.group(2)), int(m.group(3)))
                   for m in _MODULE.finditer(verilog)})


def _bus_type(bits: int) -> str:
    return (f"  type (bus{bits}) {{ base_type : array; data_type : bit; bit_width : {bits}; "
            f"bit_from : {bits - 1}; bit_to : 0; downto : true; }}\n")


def _setup(indent: str, ns: float) -> str:
    return (f"{indent}timing () {{ related_pin : \"clk\"; timing_type : setup_rising;\n"
            f"{indent}  rise_constraint (scalar) {{ values (\"{ns:.6g}\"); }}\n"
            f"{indent}  fall_constraint (scalar) {{ values (\"{ns:.6g}\"); }} }}\n")


def _cell(name: str, words: int, width: int, d_pf: float, clk_pf: float) -> str:
    from ..golden.sram import macro
    m = macro(words, width)
    abits = max(1, math.ceil(math.log2(words)))
    flops = abits + width + 2                  # addr, din, ce, we registered
    pins = [f"    pin (clk) {{ direction : input; clock : true; "
            f"capacitance : {flops * clk_pf:.6g}; }}\n",
            f"    pin (rst) {{ direction : input; capacitance : {d_pf:.6g}; }}\n"]
    for p in ("ce", "we"):
        pins.append(f"    pin ({p}) {{ direction : input; capacitance : {d_pf:.6g};\n"
                    + _setup("      ", m.setup_ns) + "    }\n")
    for p, bits in (("addr", abits), ("din", width)):
        pins.append(f"    bus ({p}) {{ bus_type : bus{bits}; direction : input; "
                    f"capacitance : {d_pf:.6g};\n" + _setup("      ", m.setup_ns) + "    }\n")
    t = m.clk_to_q_ns
    pins.append(f"    bus (dout) {{ bus_type : bus{width}; direction : output;\n"
                f"      timing () {{ related_pin : \"clk\"; timing_type : rising_edge;\n"
                f"        cell_rise (scalar) {{ values (\"{t:.6g}\"); }}\n"
                f"        cell_fall (scalar) {{ values (\"{t:.6g}\"); }}\n"
                f"        rise_transition (scalar) {{ values (\"0.1\"); }}\n"
                f"        fall_transition (scalar) {{ values (\"0.1\"); }} }}\n    }}\n")
    return (f"  cell ({name}) {{\n    /* {m.source} */\n    area : {m.area_um2:.6g};\n"
            "    cell_leakage_power : 0;\n    dont_touch : true;\n"
            f"    dont_use : true;\n" + "".join(pins) + "  }\n")


def liberty_head(name: str) -> str:
    """A liberty's opening in OSU018's units and thresholds (OpenSTA needs them stated),
    up to its first group: the macros' and the timing stubs' (:mod:`.sta_sample`)."""
    return (f"library ({name}) {{\n  delay_model : table_lookup;\n"
            "  time_unit : \"1ns\";\n  voltage_unit : \"1V\";\n  current_unit : \"1uA\";\n"
            "  pulling_resistance_unit : \"1kohm\";\n  leakage_power_unit : \"1nW\";\n"
            "  capacitive_load_unit (1, pf);\n  nom_voltage : 1.8;\n  nom_temperature : 25;\n"
            "  nom_process : 1;\n"
            "  input_threshold_pct_rise : 50;\n  input_threshold_pct_fall : 50;\n"
            "  output_threshold_pct_rise : 50;\n  output_threshold_pct_fall : 50;\n"
            "  slew_lower_threshold_pct_rise : 20;\n  slew_upper_threshold_pct_rise : 80;\n"
            "  slew_lower_threshold_pct_fall : 20;\n  slew_upper_threshold_pct_fall : 80;\n")


def liberty_text(shapes, d_pf: float, clk_pf: float) -> str:
    """The macros' liberty (OSU018's units: ns, V, pF, nW, um2); ``d_pf`` and ``clk_pf``
    the capacitance of a flip-flop's data and clock pin."""
    widths = sorted({b for _, words, width in shapes
                     for b in (width, max(1, math.ceil(math.log2(words))))})
    head = liberty_head("termwise_sram")
    return (head + "".join(_bus_type(b) for b in widths)
            + "".join(_cell(n, w, b, d_pf, clk_pf) for n, w, b in shapes) + "}\n")


def yosys_lines(script: str, shapes) -> str:
    """The ASIC script with the macros as black boxes and their liberty in ``stat``."""
    names = " ".join(n for n, _, _ in shapes)
    script = script.replace("hierarchy -check -top", f"blackbox {names}\nhierarchy -check -top",
                            1)
    return re.sub(r"(stat (?:-json )?-liberty \S+)", rf"\1 -liberty {LIBERTY_FILE}", script)


def sta_lines(tcl: str) -> str:
    """The STA script reading the macros' liberty after the cells'."""
    return re.sub(r"(read_liberty \S+\n)", rf"\1read_liberty {LIBERTY_FILE}\n", tcl, count=1)


def cap_fmax(result: dict, shapes) -> dict:
    """``result`` (the ``asic`` section) with Fmax at most the slowest macro's
    ``1 / min_period`` and a ``macros`` record saying which bound applies."""
    from ..golden.sram import macro
    periods = {n: macro(w, b).min_period_ns for n, w, b in shapes}
    slowest = max(periods, key=periods.get)
    bound = 1000.0 / periods[slowest]
    logic = result["fmax_mhz"]
    out = dict(result, fmax_mhz=min(logic, bound) if logic else logic)
    out["macros"] = {"modules": {n: {"words": w, "width": b,
                                     "min_period_ns": periods[n]} for n, w, b in shapes},
                     "fmax_logic_mhz": logic, "fmax_macro_mhz": bound,
                     "bound_by": "macro" if logic and bound < logic else "logic",
                     "timing_note": "macro inputs checked at the characterised setup "
                                    "time; the slowest macro's minimum cycle bounds Fmax"}
    return out


def prepare(workdir: str) -> list[tuple[str, int, int]]:
    """The macro shapes of ``workdir``'s ``tile.v``, and their liberty written beside it
    (pin capacitances from ``cells.lib``'s DFFPOSX1); ``[]`` for a tile of flop buffers."""
    import os
    with open(os.path.join(workdir, "tile.v"), encoding="utf-8") as f:
        shapes = macro_shapes(f.read())
    if not shapes:
        return []
    from .power.cells import read_library
    dff = read_library(os.path.join(workdir, "cells.lib")).cells["DFFPOSX1"].pins
    text = liberty_text(shapes, dff["D"].capacitance, dff["CLK"].capacitance)
    with open(os.path.join(workdir, LIBERTY_FILE), "w", encoding="utf-8") as f:
        f.write(text)
    return shapes


def restat_lines(script: str) -> str:
    """The re-stat script of the buffered netlist with the macros' liberty read too."""
    script = re.sub(r"(read_liberty -lib \S+\n)", rf"\1read_liberty -lib {LIBERTY_FILE}\n",
                    script, count=1)
    return re.sub(r"(stat (?:-json )?-liberty \S+)", rf"\1 -liberty {LIBERTY_FILE}", script)


def shapes_of(result: dict) -> list[tuple[str, int, int]]:
    """The macro shapes a synthesis result records (``macros``), for a re-summary."""
    mods = (result.get("macros") or {}).get("modules", {})
    return sorted((n, m["words"], m["width"]) for n, m in mods.items())
