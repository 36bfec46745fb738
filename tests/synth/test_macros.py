"""SRAM macros in the ASIC flow (synth/macros.py): the shapes found in a tile's Verilog,
their liberty (area, access arc, pin loads from a hand count), the script edits that keep
them black boxes, and Fmax bounded by the slowest macro's cycle; the real flow on a 4x4
tile with macro buffers in `make test-all`."""

import json
import math

import pytest

from termwise.golden.sram import macro
from termwise.synth import macros
from termwise.synth.power.cells import parse_library

VERILOG = """module top(clk);
endmodule
module termwise_sram_64x32(we, addr, din, clk, rst, dout, ce);
endmodule
module termwise_sram_16x128(we, addr, din, clk, rst, dout, ce);
endmodule
module \\top.act_buffer (clk);
endmodule
"""


def test_shapes_and_liberty():
    shapes = macros.macro_shapes(VERILOG)
    assert shapes == [("termwise_sram_16x128", 16, 128), ("termwise_sram_64x32", 64, 32)]
    lib = parse_library(macros.liberty_text(shapes, 0.01, 0.03))
    for name, words, width in shapes:
        cell, m = lib.cells[name], macro(words, width)
        assert cell.area == pytest.approx(m.area_um2, rel=1e-5)
        assert cell.leakage == 0          # the characterised static current is no leakage
        abits = math.ceil(math.log2(words))
        # every input registered in the macro: one flop clock pin each (addr, din, ce, we)
        assert cell.pins["clk"].clock
        assert cell.pins["clk"].capacitance == pytest.approx((abits + width + 2) * 0.03,
                                                             rel=1e-5)
        assert cell.pins["ce"].capacitance == pytest.approx(0.01)
    text = macros.liberty_text(shapes, 0.01, 0.03)
    m = macro(64, 32)
    assert f'values ("{m.clk_to_q_ns:.6g}")' in text and "timing_type : rising_edge" in text


def test_script_edits():
    ys = ("read_verilog tile.v\nhierarchy -check -top wrap\nsynth -noabc -top wrap\n"
          "tee -q -o stat.json stat -json -liberty cells.lib\n"
          "tee -q -o stat.txt stat -liberty cells.lib\n")
    out = macros.yosys_lines(ys, [("termwise_sram_64x32", 64, 32), ("termwise_sram_16x8", 16, 8)])
    assert "blackbox termwise_sram_64x32 termwise_sram_16x8\nhierarchy -check -top wrap" in out
    assert out.count("-liberty cells.lib -liberty macros.lib") == 2
    tcl = "read_liberty cells.lib\nread_verilog netlist.v\n"
    assert macros.sta_lines(tcl) == ("read_liberty cells.lib\nread_liberty macros.lib\n"
                                     "read_verilog netlist.v\n")
    restat = "read_liberty -lib cells.lib\nread_verilog n.v\nstat -json -liberty cells.lib\n"
    assert macros.restat_lines(restat) == (
        "read_liberty -lib cells.lib\nread_liberty -lib macros.lib\nread_verilog n.v\n"
        "stat -json -liberty cells.lib -liberty macros.lib\n")


def test_fmax_bounded_by_the_slowest_macro():
    shapes = [("termwise_sram_64x32", 64, 32), ("termwise_sram_16x128", 16, 128)]
    slowest = max(macro(w, b).min_period_ns for _, w, b in shapes)
    bound = 1000 / slowest
    fast = macros.cap_fmax({"fmax_mhz": 10 * bound}, shapes)
    assert fast["fmax_mhz"] == pytest.approx(bound) and fast["macros"]["bound_by"] == "macro"
    slow = macros.cap_fmax({"fmax_mhz": bound / 2}, shapes)
    assert slow["fmax_mhz"] == bound / 2 and slow["macros"]["bound_by"] == "logic"
    assert macros.shapes_of(fast) == sorted(shapes)


@pytest.mark.synth
@pytest.mark.slow
def test_synthesis_with_macro_buffers(tmp_path):
    """baseline-4x4 with buffers = macros: one 64x32 activation macro and two 64x64 weight
    macros (its 128-bit rows split at MACRO_MAX_WIDTH = 64), black boxes whose model area
    is in their buffer modules; Fmax within the macros' bound."""
    from termwise.gen.config import preset
    from termwise.synth.api import synthesise
    cfg = preset("baseline-4x4").replace(buffers="macros")
    rep = synthesise(cfg, str(tmp_path), cache_root=str(tmp_path / "cache"))
    asic = rep["asic"]
    mods = {k.rsplit(".", 1)[-1]: v for k, v in asic["modules"].items()}
    assert mods["act_buffer"]["area_um2"] >= macro(64, 32).area_um2
    assert mods["wgt_buffer"]["area_um2"] >= 2 * macro(64, 64).area_um2
    bound = 1000 / max(macro(64, 32).min_period_ns, macro(64, 64).min_period_ns)
    assert asic["fmax_mhz"] <= bound + 1e-9
    assert set(asic["macros"]["modules"]) == {"termwise_sram_64x32", "termwise_sram_64x64"}
    json.dumps(rep)
