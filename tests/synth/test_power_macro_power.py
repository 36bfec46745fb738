"""SRAM macros in the power run (synth/power/macro_power.py): their behavioural Verilog
taken from the tile's, the liberty merged with one pin per bus bit, the netlist's bus pins
flattened bit by bit, and each macro charged its reads and writes from the SAIF duty of
``ce`` and ``we`` (hand count)."""

import os
from types import SimpleNamespace

import pytest

from termwise.golden.sram import macro
from termwise.synth.macros import liberty_text
from termwise.synth.power.cells import read_library
from termwise.synth.power.compute import netlist_power
from termwise.synth.power.macro_power import access_power, behavioural_models, setup

LIB = "/usr/share/qflow/tech/osu018/osu018_stdcells.lib"
pytestmark = pytest.mark.skipif(not os.path.exists(LIB), reason="needs qflow-tech-osu018")

TILE = """module top(clk);
  input clk;
endmodule
module termwise_sram_16x4(we, addr, din, clk, rst, dout, ce);
  input we;
  reg [3:0] mem [15:0];
endmodule
module other(a);
endmodule
"""

NETLIST = """module top(clk, ce, we, a, d, q);
  input clk;
  input ce;
  input we;
  input [3:0] a;
  input [3:0] d;
  output [3:0] q;
  wire [3:0] q;
  termwise_sram_16x4 m0 (
    .addr(a),
    .ce(ce),
    .clk(clk),
    .din(d),
    .dout(q),
    .rst(1'h0),
    .we(we)
  );
endmodule
"""


@pytest.fixture()
def macros(tmp_path):
    lib = read_library(LIB)
    (tmp_path / "macros.lib").write_text(liberty_text([("termwise_sram_16x4", 16, 4)],
                                                      0.01, 0.03))
    return setup(str(tmp_path), TILE, lib)


def test_models_and_merged_liberty(macros, tmp_path):
    assert behavioural_models(TILE).startswith("module termwise_sram_16x4(")
    assert "module other" not in behavioural_models(TILE)
    cell = macros.lib.cells["termwise_sram_16x4"]
    assert {f"addr[{i}]" for i in range(4)} <= set(cell.pins)
    assert cell.pins["dout[3]"].direction == "output"
    assert "DFFPOSX1" in macros.lib.cells
    m = macro(16, 4)
    assert macros.energies["termwise_sram_16x4"] == (m.read_pj * 1e-12, m.write_pj * 1e-12)
    # a synthesis without macros: the liberty alone
    plain = setup(str(tmp_path / "none"), TILE, macros.lib)
    assert plain.energies is None and plain.models == ""


def test_access_power_from_the_duty_of_ce_and_we(macros):
    """ce high 50% of the time, we 10%: 0.4 reads and 0.1 writes per cycle at 100 MHz."""
    duty = {"TOP/top/ce": 0.5, "TOP/top/we": 0.1}
    saif = SimpleNamespace(nets=duty, duty=duty.get)
    access = access_power(saif, "top", 100e6, macros.energies)
    rep = netlist_power(NETLIST, "top", macros.lib, lambda n: 0.0, access=access)
    (ip,) = rep.instances
    m = macro(16, 4)
    assert ip.internal_w == pytest.approx(100e6 * (0.4 * m.read_pj + 0.1 * m.write_pj) * 1e-12)
    assert ip.leakage_w == 0
    # a macro whose ce has no activity is an error, not zero accesses
    saif = SimpleNamespace(nets={}, duty=None)
    with pytest.raises(KeyError, match="no SAIF activity"):
        netlist_power(NETLIST, "top", macros.lib, lambda n: 0.0,
                      access=access_power(saif, "top", 1e6, macros.energies))


BUFFERED = NETLIST.replace("  );\nendmodule", """  );
  wire y0;
  wire y3;
  BUFX2 b0 (
    .A(q[0]),
    .Y(y0)
  );
  BUFX2 b3 (
    .A(q[3]),
    .Y(y3)
  );
endmodule""")


def test_bus_pins_flattened_bit_by_bit(macros):
    """dout bits 0 and 3 each drive a BUFX2 input: each bit's net is driven by the macro
    and its switching (0.5 C V^2 x rate, C the BUFX2 A pin) is the macro's."""
    rates = {"q[0]": 1e6, "q[3]": 2e6}
    rep = netlist_power(BUFFERED, "top", macros.lib, rates.get)
    ip = next(i for i in rep.instances if i.cell == "termwise_sram_16x4")
    c = macros.lib.cells["BUFX2"].pins["A"].capacitance * 1e-12
    assert ip.switching_w == pytest.approx(0.5 * c * 1.8 ** 2 * (1e6 + 2e6))
