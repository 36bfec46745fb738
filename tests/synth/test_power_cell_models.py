"""Behavioural Verilog of liberty cells, as text, for hand-made cells: a gate, a
three-state buffer, a flip-flop with clear and preset, a latch (the models are simulated
against OSU018's cells under Verilator in test_power_cells.py)."""

import pytest

from termwise.synth.power.cell_models import verilog_models
from termwise.synth.power.cells import Cell, Library, Pin, Sequential, Units

UNITS = Units(1.0, 1e-12, 1e-9, 1e-9, {})


def _lib(*cells):
    return Library("hand", UNITS, 1.8, {c.name: c for c in cells})


def test_gate_and_three_state():
    nand = Cell("ND", 1.0, 0.0, {"A": Pin("A", "input"), "B": Pin("B", "input"),
                                 "Y": Pin("Y", "output", function="!(A B)")})
    tbuf = Cell("TB", 1.0, 0.0, {"A": Pin("A", "input"), "EN": Pin("EN", "input"),
                                 "Y": Pin("Y", "output", function="A", three_state="!EN")})
    text = verilog_models(_lib(tbuf, nand))
    body = text.split("/* verilator tracing_off */\n")[1].split("/* verilator tracing_on */")[0]
    assert body == ("module ND (A, B, Y);\n  input A;\n  input B;\n  output Y;\n"
                    "  assign Y = ~(A & B);\nendmodule\n"
                    "module TB (A, EN, Y);\n  input A;\n  input EN;\n  output Y;\n"
                    "  assign Y = (~EN) ? 1'bz : A;\nendmodule\n")
    assert text.startswith("// Behavioural models of liberty cells")
    assert text.endswith("/* verilator lint_on MULTIDRIVEN */\n")
    assert verilog_models(_lib(tbuf, nand), ["ND"]).count("module ") == 1
    with pytest.raises(KeyError):
        verilog_models(_lib(nand), ["XX"])


def test_flop_with_clear_and_preset():
    pins = {p: Pin(p, "input") for p in ("C", "D", "R", "S")}
    pins["Q"] = Pin("Q", "output", function="P")
    ff = Cell("FF", 1.0, 0.0, pins, Sequential("ff", "P", "PN", next_state="D",
                                                clocked_on="C", clear="!R", preset="!S",
                                                clear_preset_var1="L", clear_preset_var2="N"))
    lines = verilog_models(_lib(ff)).splitlines()
    start = lines.index("module FF (C, D, R, S, Q);")
    assert lines[start + 6:lines.index("endmodule")] == [
        "  reg P, PN;",
        "  wire clr__ = ~R;",
        "  wire pre__ = ~S;",
        "  wire clk__ = C;",
        "  always @(posedge clk__ or posedge clr__ or posedge pre__)",
        "    if (clr__ && pre__) begin",
        "      P <= 1'b0;",                    # L; N keeps PN
        "    end else",
        "    if (clr__) begin P <= 1'b0; PN <= 1'b1; end else",
        "    if (pre__) begin P <= 1'b1; PN <= 1'b0; end else",
        "    begin P <= D; PN <= ~(D); end",
        "  always @(negedge clr__) if (pre__) begin P <= 1'b1; PN <= 1'b0; end",
        "  always @(negedge pre__) if (clr__) begin P <= 1'b0; PN <= 1'b1; end",
        "  assign Q = P;"]


def test_latch():
    pins = {"G": Pin("G", "input"), "D": Pin("D", "input"),
            "Q": Pin("Q", "output", function="IQ")}
    lat = Cell("LT", 1.0, 0.0, pins, Sequential("latch", "IQ", "IQN", next_state="D",
                                                 clocked_on="G"))
    lines = verilog_models(_lib(lat)).splitlines()
    start = lines.index("module LT (G, D, Q);")
    assert lines[start + 4:lines.index("endmodule")] == [
        "  reg IQ, IQN;",
        "  wire en__ = G;",
        "  always @*",
        "    if (en__)",
        "      begin IQ <= D; IQN <= ~(D); end",
        "  assign Q = IQ;"]
