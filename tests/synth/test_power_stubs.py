"""termwise.synth.power.stubs: an instance flattened as a stub (its port loads and its cells)
gives every other cell and net the power the fully flattened netlist gives, and its own
cells their leakage (the sampled method's unsampled instances)."""

import os

import pytest

from termwise.synth.power import cells, compute
from termwise.synth.power.clock_tree import clock_net
from termwise.synth.power.stubs import stub_of
from termwise.synth.netlist import parse_netlist
from termwise.synth.tools import DEFAULT_LIBERTY

pytestmark = pytest.mark.skipif(not os.path.isfile(DEFAULT_LIBERTY),
                                reason="OSU018 liberty not installed (qflow-tech-osu018)")

# a unit with a submodule, a flop, an input fed through to an output, an output tied to 0;
# the top drives the units' inputs from a cell and loads their outputs; a tri-state
# buffer shares u1's output net with u1's flop
NETLIST = r"""module inner(a, y);
  input a;
  output y;
  wire n;
  INVX1 i1 (
    .A(a),
    .Y(n)
  );
  INVX1 i2 (
    .A(n),
    .Y(y)
  );
endmodule
module unit(clk, a, y, t, z);
  input clk;
  input a;
  output y;
  output t;
  output z;
  wire m;
  inner \in  (
    .a(a),
    .y(m)
  );
  DFFPOSX1 f (
    .CLK(clk),
    .D(m),
    .Q(y)
  );
  assign t = a;
  assign z = 1'b0;
endmodule
module top(clk, x, b, q);
  input clk;
  input x;
  input b;
  output q;
  wire a;
  wire [2:0] y;
  wire [2:0] t;
  wire [2:0] z;
  wire g;
  INVX1 drv (
    .A(x),
    .Y(a)
  );
  unit u0 (
    .clk(clk),
    .a(a),
    .y(y[0]),
    .t(t[0]),
    .z(z[0])
  );
  unit u1 (
    .clk(clk),
    .a(a),
    .y(y[1]),
    .t(t[1]),
    .z(z[1])
  );
  unit u2 (
    .clk(clk),
    .a(b),
    .y(y[2]),
    .t(t[2]),
    .z(z[2])
  );
  TBUFX1 tb (
    .A(x),
    .EN(b),
    .Y(y[1])
  );
  NAND2X1 n0 (
    .A(y[0]),
    .B(y[1]),
    .Y(g)
  );
  NAND2X1 n1 (
    .A(t[1]),
    .B(z[1]),
    .Y(q)
  );
  NAND2X1 n2 (
    .A(g),
    .B(y[2]),
    .Y(q)
  );
endmodule
"""

RATES = {"clk": 2e8, "x": 5e7, "a": 5e7, "b": 2e7, "y[0]": 1e7, "y[1]": 3e7, "y[2]": 4e6,
         "g": 2e7, "q": 1.5e7, "t[1]": 5e7, "u0/in/n": 5e7, "u2/in/n": 2e7,
         "u0/m": 5e7, "u2/m": 2e7}


@pytest.fixture(scope="module")
def lib():
    return cells.read_library(DEFAULT_LIBERTY)


def _power(lib, opaque, wire_cap):
    flat = compute.Flat(NETLIST, "top", lib, frozenset(opaque))
    return compute.netlist_power(NETLIST, "top", lib, RATES, flat=flat,
                                 wire_cap_per_fanout=wire_cap)


@pytest.mark.parametrize("wire_cap", [0.0, 0.002])
def test_a_stub_leaves_every_other_figure_as_the_flat_netlist_gives_it(lib, wire_cap):
    flat, stubbed = _power(lib, (), wire_cap), _power(lib, {"u1"}, wire_cap)
    outside = {ip.path: ip for ip in flat.instances if not ip.path.startswith("u1/")}
    got = {ip.path: ip for ip in stubbed.instances if not ip.path.startswith("u1/")}
    assert set(got) == set(outside)
    for path, ip in outside.items():
        for f in ("internal_w", "switching_w", "leakage_w", "load"):
            assert getattr(got[path], f) == pytest.approx(getattr(ip, f), rel=1e-12), (path, f)
    # the driver of u1's input and the cells u1 drives see u1's pins: their figures above
    assert got["drv"].load > lib.cells["INVX1"].pins["A"].capacitance * 2
    assert got["tb"].switching_w > 0                  # half of y[1]'s: two drivers
    assert stubbed.port_switching_w == pytest.approx(flat.port_switching_w, rel=1e-12)
    # the totals: the flat netlist's less u1's own dynamic power (the stub keeps leakage)
    inside = [ip for ip in flat.instances if ip.path.startswith("u1/")]
    for k in ("leakage_w", "internal_w", "switching_w"):
        want = flat.totals[k] - (0.0 if k == "leakage_w" else sum(getattr(ip, k) for ip in inside))
        assert stubbed.totals[k] == pytest.approx(want, rel=1e-12), k
    for m, rec in flat.by_module.items():
        assert stubbed.by_module[m]["cells"] == rec["cells"], m
        assert stubbed.by_module[m]["leakage_w"] == pytest.approx(rec["leakage_w"], rel=1e-12)
    assert clock_net(stubbed, lib, 100.0) == pytest.approx(clock_net(flat, lib, 100.0))
    # u1's cells are groups by holding module and type, not flattened
    groups = sorted((ip.module, ip.cell, ip.cells) for ip in stubbed.instances
                    if ip.path.startswith("u1/"))
    assert groups == [("inner", "INVX1", 2), ("unit", "DFFPOSX1", 1)]
    assert stubbed.nets < flat.nets


def test_the_stub_of_a_unit(lib):
    mods = {m.name: m for m in parse_netlist(NETLIST)}
    stub = stub_of("unit", mods, lib, {}, compute.flatten_modules)
    by_bits = {pc.bits: pc for pc in stub.classes}
    inv_a = lib.cells["INVX1"].pins["A"].capacitance
    # a and t are one net (the feed-through), loaded by the inner inverter's input
    assert by_bits[(("a", 0), ("t", 0))].cap == pytest.approx(inv_a)
    assert by_bits[(("a", 0), ("t", 0))].fanout == 1
    assert by_bits[(("y", 0),)].drivers == 1 and by_bits[(("y", 0),)].fanout == 0
    assert by_bits[(("z", 0),)].const == "0"
    assert by_bits[(("clk", 0),)].cap == pytest.approx(
        lib.cells["DFFPOSX1"].pins["CLK"].capacitance)
    assert stub.cells == {("inner", "INVX1"): 2, ("unit", "DFFPOSX1"): 1}
