"""Behavioural Verilog models of liberty cells (:class:`.cells.Cell`) for gate-level
simulation under Verilator.

One module per cell, ports named as the liberty pins; a combinational output is a
continuous assignment of its ``function``; a ``three_state`` output drives ``1'bz`` while
the three-state condition is true; a flip-flop is an ``always`` block on the rising edge of
its ``clocked_on`` expression and of its (asynchronous) ``clear``/``preset`` expressions;
when clear and preset are both active the state follows ``clear_preset_var1/2``
(``L``/``H``; ``N``, ``T`` and ``X`` keep the state), and releasing one of them leaves the
other in force; a latch is transparent while ``enable`` is true. Verilator is two-state: a
three-state output that is off reads 0 there (the flow's ABC mapping uses no three-state
cells). The models are zero-delay: they give toggle counts without glitches (a gate-level
simulation with delays would count glitch toggles too; this flow does not).
"""

from __future__ import annotations

from .cell_functions import function_verilog, parse_function
from .cells import Cell, Library, Sequential

__all__ = ["verilog_models"]


def _cpv(v: str | None) -> str | None:
    """State value when clear and preset are both active (None: keep)."""
    return {"L": "1'b0", "H": "1'b1"}.get((v or "").upper())


def _fx(text: str) -> str:
    """A liberty function's text as a Verilog expression."""
    return function_verilog(parse_function(text))


def _cell_verilog(cell: Cell) -> str:
    """One cell's module: ports, its state (if sequential), its outputs' assignments."""
    ports = list(cell.pins)
    lines = [f"module {cell.name} ({', '.join(ports)});"]
    for p in ports:
        d = cell.pins[p].direction
        lines.append(f"  {'output' if d in ('output', 'inout') else 'input'} {p};")
    if cell.seq is not None:
        lines += _sequential_verilog(cell.seq)
    for p in cell.outputs:
        pin = cell.pins[p]
        if pin.function is None:
            continue
        f = _fx(pin.function)
        if pin.three_state:
            t = _fx(pin.three_state)
            lines.append(f"  assign {p} = ({t}) ? 1'bz : {f};")
        else:
            lines.append(f"  assign {p} = {f};")
    lines.append("endmodule")
    return "\n".join(lines) + "\n"


def _sequential_verilog(s: Sequential) -> list[str]:
    """The state of a flip-flop or latch: its registers and the blocks that update them."""
    lines = [f"  reg {s.iq}, {s.iqn};"]
    if s.clear:
        lines.append(f"  wire clr__ = {_fx(s.clear)};")
    if s.preset:
        lines.append(f"  wire pre__ = {_fx(s.preset)};")
    v1 = _cpv(s.clear_preset_var1)
    v2 = _cpv(s.clear_preset_var2)
    both = []
    if s.clear and s.preset:
        both = ["    if (clr__ && pre__) begin"]
        both += [f"      {s.iq} <= {v1};"] if v1 else []
        both += [f"      {s.iqn} <= {v2};"] if v2 else []
        both += ["    end else"]
    clr = ([f"    if (clr__) begin {s.iq} <= 1'b0; {s.iqn} <= 1'b1; end else"]
           if s.clear else [])
    pre = ([f"    if (pre__) begin {s.iq} <= 1'b1; {s.iqn} <= 1'b0; end else"]
           if s.preset else [])
    nxt = _fx(s.next_state) if s.next_state else s.iq
    upd = [f"    begin {s.iq} <= {nxt}; {s.iqn} <= ~({nxt}); end"]
    if s.kind != "ff":
        lines.append(f"  wire en__ = {_fx(s.clocked_on)};")
        lines.append("  always @*")
        return lines + both + clr + pre + ["    if (en__)"] + ["  " + upd[0]]
    lines.append(f"  wire clk__ = {_fx(s.clocked_on)};")
    trig = ["posedge clk__"] + (["posedge clr__"] if s.clear else []) + \
           (["posedge pre__"] if s.preset else [])
    lines.append(f"  always @({' or '.join(trig)})")
    lines += both + clr + pre + upd
    if s.clear and s.preset:
        # releasing one of two active asynchronous inputs leaves the other in force
        lines.append(f"  always @(negedge clr__) if (pre__) begin {s.iq} <= 1'b1; "
                     f"{s.iqn} <= 1'b0; end")
        lines.append(f"  always @(negedge pre__) if (clr__) begin {s.iq} <= 1'b0; "
                     f"{s.iqn} <= 1'b1; end")
    return lines


def verilog_models(lib: Library, cells: list[str] | None = None) -> str:
    """Behavioural Verilog of ``cells`` (default: every cell of ``lib``), zero-delay, for
    Verilator: ``/* verilator lint_off ... */`` around them for the latch and the
    multi-driven state, and ``tracing_off`` (back on after them): a cell's pins are the
    netlist's nets, which the SAIF has under the nets' own names, so tracing every cell's
    pins again (three to five signals per cell) only grows the model. Measured on
    diffy-16x16's row (250k cells): Verilator's peak 9.2 -> 5.4 GB, verilation 7.7 -> 5.8
    min, generated C++ 821 -> 555 MB."""
    names = sorted(lib.cells) if cells is None else sorted(set(cells))
    missing = [n for n in names if n not in lib.cells]
    if missing:
        raise KeyError(f"cells not in the liberty: {missing}")
    body = "".join(_cell_verilog(lib.cells[n]) for n in names)
    # The header names the module this text came from when it was written: the text is
    # part of the gate-level model's build, so it stays as it was.
    return ("// Behavioural models of liberty cells, written by termwise.synth.power.cells\n"
            "/* verilator lint_off LATCH */\n/* verilator lint_off COMBDLY */\n"
            "/* verilator lint_off MULTIDRIVEN */\n/* verilator lint_off DECLFILENAME */\n"
            "/* verilator lint_off UNUSEDSIGNAL */\n/* verilator tracing_off */\n"
            f"{body}"
            "/* verilator tracing_on */\n"
            "/* verilator lint_on LATCH */\n/* verilator lint_on COMBDLY */\n"
            "/* verilator lint_on MULTIDRIVEN */\n")
