"""Fanout buffering across the hierarchy on a hand-written netlist (OSU018 cells)."""

import os
import re

import pytest

from termwise.synth import buffer, liberty
from termwise.synth.tools import DEFAULT_LIBERTY

FIX = os.path.join(os.path.dirname(__file__), "fixtures")
pytestmark = pytest.mark.skipif(not os.path.exists(DEFAULT_LIBERTY),
                                reason="OSU018 liberty missing")


@pytest.fixture(scope="module")
def lib():
    with open(DEFAULT_LIBERTY, encoding="utf-8") as f:
        text = f.read()
    lim = liberty.parse_limits(text)
    return text, {k: v.table_max_load for k, v in lim.pins.items()}


def test_buffer_trees_and_rewiring(lib):
    text, table = lib
    with open(os.path.join(FIX, "fanout_netlist.v"), encoding="utf-8") as f:
        orig = f.read()
    new, summary = buffer.buffer_netlist(orig, text, table, "top")
    # Every original pin still sees its original bit through the buffers (constants too).
    n = buffer.check_rewiring(orig, new)
    assert n == sum(summary["buffers"].values()) > 0
    # Inside `leaf`: `en` (from outside) drives 5 gate inputs, just over the 0.05 pF budget:
    # one root buffer, so each instance presents one buffer input. The parent buffers the
    # 40-way broadcast of the flop (DFFPOSX1, characterised to 0.15 pF), the XOR driving
    # 12 gates and 40 ports x 2 bits, and the input `b` (13 gate inputs).
    assert summary == {"buffers": {"top.leaf": 1, "top": 10},
                       "nets": {"top.leaf": 1, "top": 3},
                       "clock_buffers": {"top.leaf": 0, "top": 0}}
    assert "BUFX4 \\termwise_fob_1  (\n    .A(en)," in new
    # Constants and aliases survive: w[1] is x (assign w = { x, 1'b1 }), 2'b10 two bits.
    assert ".d({ \\termwise_fo_2 , 1'b1, 1'b0, \\termwise_fo_2  })" in new
    caps, clocks, _ = buffer.input_pin_caps(text)
    assert ("DFFPOSX1", "CLK") in clocks
    # The clock is never buffered; every buffer drives at most 16 pins.
    assert not re.search(r"\.A\(clk\)", new)
    for body in new.split("endmodule"):
        for name in set(re.findall(r"\\termwise_fo_\d+ ", body)):
            # uses minus the wire declaration and the buffer's own output
            assert body.count(name) - 2 <= 16
    # The flop now drives buffer inputs only, within its table's 0.15 pF.
    en_loads = len(re.findall(r"\(en_q\)", new)) - 1
    assert en_loads * caps[("BUFX4", "A")] <= 0.9 * table[("DFFPOSX1", "Q")]


def test_buffer_leaves_a_light_netlist_alone(lib):
    text, table = lib
    small = """module top(a, b, y);
  input a;
  wire a;
  input b;
  wire b;
  output y;
  wire y;
  NAND2X1 _0_ (
    .A(a),
    .B(b),
    .Y(y)
  );
endmodule
"""
    new, summary = buffer.buffer_netlist(small, text, table, "top")
    assert summary["buffers"] == {"top": 0}
    assert buffer.check_rewiring(small, new) == 0


def test_check_rewiring_catches_a_moved_pin(lib):
    text, table = lib
    with open(os.path.join(FIX, "fanout_netlist.v"), encoding="utf-8") as f:
        orig = f.read()
    new, _ = buffer.buffer_netlist(orig, text, table, "top")
    broken = new.replace(".D(a),", ".D(b),", 1)
    assert broken != new
    with pytest.raises(AssertionError):
        buffer.check_rewiring(orig, broken)


def _aliased_netlist(copies: int, loads: int) -> str:
    """A `stage` module whose one flop (yosys merged the replicated copies) drives
    ``copies`` output ports, each feeding ``loads`` NAND inputs in the parent."""
    ports = ", ".join(f"q{c}" for c in range(copies))
    decl = "".join(f"  output q{c};\n  wire q{c};\n" for c in range(copies))
    alias = "".join(f"  assign q{c} = q0;\n" for c in range(1, copies))
    gates = "".join(
        f"  NAND2X1 _g{c}_{k}_ (\n    .A(w{c}),\n    .B(b),\n    .Y(y{c}_{k})\n  );\n"
        for c in range(copies) for k in range(loads))
    wires = "".join(f"  wire w{c};\n" + "".join(f"  wire y{c}_{k};\n" for k in range(loads))
                    for c in range(copies))
    conns = ",\n".join(f"    .q{c}(w{c})" for c in range(copies))
    return f"""module \\top.stage (clk, d, {ports});
  input clk;
  wire clk;
  input d;
  wire d;
{decl}  DFFPOSX1 _0_ (
    .CLK(clk),
    .D(d),
    .Q(q0)
  );
{alias}endmodule

module top(clk, d, b);
  input clk;
  wire clk;
  input d;
  wire d;
  input b;
  wire b;
{wires}  \\top.stage  stage (
    .clk(clk),
    .d(d),
{conns}
  );
{gates}endmodule
"""


def test_ports_one_net_inside_are_buffered_as_one_net(lib):
    """A flop that drives 16 ports (yosys merged 16 replicated registers) meets one buffer
    per port in the parent if the parent buffers each port's net apart: 16 buffer inputs,
    past the flop's 0.15 pF table. The parent must see one net and build one tree whose root
    is one buffer input."""
    text, table = lib
    orig = _aliased_netlist(copies=16, loads=4)
    new, summary = buffer.buffer_netlist(orig, text, table, "top")
    assert buffer.check_rewiring(orig, new) == sum(summary["buffers"].values())
    caps, _, _ = buffer.input_pin_caps(text)
    parent = new.split("endmodule")[1]
    # What the stage's ports drive in the parent: only the tree's root buffer(s).
    direct = sum(len(re.findall(rf"\.(A|B)\(w{c}\)", parent)) for c in range(16))
    assert direct * caps[("BUFX4", "A")] <= 0.9 * table[("DFFPOSX1", "Q")]
    assert direct == 1


def _gated_netlist(flops: int) -> str:
    """An ICG as clock_gating.py's techmap leaves it (INVX1, LATCH, AND2X2) gating
    ``flops`` DFFPOSX1 of one module."""
    regs = "".join(f"  DFFPOSX1 _r{k}_ (\n    .CLK(gclk),\n    .D(q{k}),\n    .Q(q{k})\n  );\n"
                   for k in range(flops))
    wires = "".join(f"  wire q{k};\n" for k in range(flops))
    return f"""module top(clk, ce, d);
  input clk;
  wire clk;
  input ce;
  wire ce;
  input d;
  wire d;
  wire clk_n;
  wire en;
  wire gclk;
{wires}  INVX1 \\termwise_icg_1.inv  (
    .A(clk),
    .Y(clk_n)
  );
  LATCH \\termwise_icg_1.latch  (
    .CLK(clk_n),
    .D(ce),
    .Q(en)
  );
  AND2X2 \\termwise_icg_1.gate  (
    .A(clk),
    .B(en),
    .Y(gclk)
  );
{regs}endmodule
"""


def test_a_gated_clock_gets_a_clock_buffer_tree(lib):
    """128 flops on one ICG (3.6 pF of clock pins on an AND2X2 characterised to a fraction
    of it, as baseline-4x4's weight buffer): a tree of CLKBUF1, each within its table and
    16 pins, the AND2X2 within its own; the free-running clock untouched; a few gated
    flops within the AND's range get no tree."""
    text, table = lib
    caps, _, _ = buffer.input_pin_caps(text)
    orig = _gated_netlist(128)
    new, summary = buffer.buffer_netlist(orig, text, table, "top")
    assert buffer.check_rewiring(orig, new) == summary["buffers"]["top"] > 8
    assert summary["clock_buffers"] == summary["buffers"]
    assert "BUFX4" not in new and new.count("CLKBUF1 ") == summary["buffers"]["top"]
    assert not re.search(r"CLKBUF1 \S+  \(\n    \.A\(clk\)", new)
    # every driver of the gated clock's tree within 0.9 x its table's last load
    drives = {}
    for m in re.finditer(r"(\w+) (\S+)  \(\n((?:    \.\w+\([^)]*\),?\n)+)  \);", new):
        cell, pins = m.group(1), dict(re.findall(r"\.(\w+)\(([^)]*)\)", m.group(3)))
        for pin, net in pins.items():
            if (cell, pin) in caps:
                drives.setdefault(net.strip(), []).append(caps[(cell, pin)])
    for net, loads in drives.items():
        if net == "gclk":
            assert sum(loads) <= 0.9 * table[("AND2X2", "Y")]
        elif net.startswith("\\termwise_fo_"):
            assert sum(loads) <= 0.9 * table[("CLKBUF1", "Y")] and len(loads) <= 16
    few = _gated_netlist(2)
    assert buffer.buffer_netlist(few, text, table, "top")[1]["buffers"] == {"top": 0}


def test_macro_bus_pins_load_their_nets(lib):
    """The SRAM macros' liberty (synth/macros.py) gives each bit of a bus pin its load, so a
    control net broadcast to many macros is buffered like one to many cells."""
    from termwise.synth import macros
    text, _ = lib
    caps, clocks, _ = buffer.input_pin_caps(text)
    mlib = macros.liberty_text([("termwise_sram_64x64", 64, 64)], caps[("DFFPOSX1", "D")],
                               caps[("DFFPOSX1", "CLK")])
    mcaps, mclocks, _ = buffer.input_pin_caps(mlib)
    for pin in ("addr", "din", "ce", "we"):
        assert mcaps[("termwise_sram_64x64", pin)] == pytest.approx(caps[("DFFPOSX1", "D")])
    assert ("termwise_sram_64x64", "clk") in mclocks
