"""Sampled timing (termwise.synth.sta_sample): which PEs stay whole, the stub cell's
liberty against a hand count from OSU018's, the design-rule weights, and a small array
timed with stubs against the flat timing (same worst slack and design-rule counts: the
PEs are identical)."""

from __future__ import annotations

import gzip
import json
import os
import re

import pytest

from termwise.synth import asic, sta_sample, tools
from termwise.synth.parse import parse_drv

LIB = tools.DEFAULT_LIBERTY
needs_lib = pytest.mark.skipif(not os.path.isfile(LIB), reason="OSU018 liberty not installed")


def test_sampled_indices_spread_with_both_ends():
    assert sta_sample.sampled_indices(5, 8) == [0, 1, 2, 3, 4]
    assert sta_sample.sampled_indices(256, 8) == [0, 36, 73, 109, 146, 182, 219, 255]
    assert sta_sample.sampled_indices(9, 3) == [0, 4, 8]


def test_stub_liberty_pins():
    text = sta_sample.stub_liberty([("clk", "input"), ("x", "input"), ("q", "output")],
                                   {"x": (1, 0), "q": (1, 0)}, {"x", "q"},
                                   {("clk", 0): (0.02, 0.021, 2), ("x", 1): (0.1, 0.2, 3)})
    assert "cell (termwise_sta_stub)" in text and "type (bus2)" in text
    assert ("pin (clk) { direction : input; capacitance : 0.021; rise_capacitance : 0.02; "
            "fall_capacitance : 0.021; fanout_load : 2; }") in text
    assert "pin (x[1]) { direction : input; capacitance : 0.2;" in text
    assert "pin (x[0]) { direction : input; capacitance : 0; " in text   # unconnected
    assert "pin (q[0]) { direction : output; }" in text and "timing" not in text


def test_design_rule_weights():
    info = {"holder_path": "tile/array", "sampled_instances": ["pe_0", "pe_9"],
            "instances": 10, "sampled": 2}
    w = sta_sample.weight(info)
    assert w("tile/array/pe_9/add/_12_/Y") == 5.0
    assert w("tile/array/pe_90/_1_/Y") == 1.0 and w("tile/array/_3_/Y") == 1.0
    assert sta_sample.weight(None) is None
    log = ("TERMWISE_DRV_BEGIN\n"
           "TERMWISE_DRV max_fanout tile/array/pe_9/_1_/Y n BUFX2 20.0 16.0 20\n"
           "TERMWISE_DRV max_fanout tile/array/_3_/Y m BUFX2 30.0 16.0 30\n"
           "TERMWISE_DRV_DRIVERS 100\nTERMWISE_DRV_END\n")
    drv = parse_drv(log, weight=w)
    assert drv["count"] == 6 and drv["by_kind"]["max_fanout"] == 6 and drv["nets"] == 6
    assert drv["listed"] == 2


#: An array of 12 identical PEs (a broadcast enable, an input nibble each, an
#: accumulator each) whose outputs are folded; the top is named as termwise names tiles.
def _design(n=12):
    pes = "".join(f"  chip__pe pe_{i} (.clk(clk), .en(en), .x(x[{4 * i + 3}:{4 * i}]), "
                  f".q(q[{4 * i + 3}:{4 * i}]));\n" for i in range(n))
    return f"""module chip(clk, rst, en, x, y);
  input clk; input rst; input en; input [{4 * n - 1}:0] x; output [3:0] y;
  \\chip.array  array (.clk(clk), .en(en), .x(x), .y(y));
endmodule

module \\chip.array (clk, en, x, y);
  input clk; input en; input [{4 * n - 1}:0] x; output [3:0] y;
  wire [{4 * n - 1}:0] q;
{pes}  assign y = {' ^ '.join(f'q[{4 * i + 3}:{4 * i}]' for i in range(n))};
endmodule

module chip__pe(clk, en, x, q);
  input clk; input en; input [3:0] x; output reg [3:0] q;
  always @(posedge clk) if (en) q <= q + x * x;
endmodule
"""


def _manifest(n=12):
    return {"top": "chip", "ports": [
        {"name": "clk", "dir": "in", "width": 1}, {"name": "rst", "dir": "in", "width": 1},
        {"name": "en", "dir": "in", "width": 1}, {"name": "x", "dir": "in", "width": 4 * n},
        {"name": "y", "dir": "out", "width": 4}]}


@needs_lib
def test_an_array_timed_with_stubs_against_flat(tmp_path):
    src = tmp_path / "chip.v"
    src.write_text(_design())
    flat = asic.run_asic(str(src), _manifest(), str(tmp_path / "flat"), 2.0, LIB)
    hier = asic.run_asic(str(src), _manifest(), str(tmp_path / "hier"), 2.0, LIB,
                         module_cache="")
    assert hier["sta_sample"] == {"module": "chip__pe", "instances": 12, "sampled": 8}
    assert "sta_sample" not in flat
    assert hier["area_um2"] == flat["area_um2"]
    # the worst path starts in a stubbed PE (pe_1): timed from the stub's output arcs, the
    # latest arrival over the sampled PEs' same bits, so pessimistic by their spread
    assert hier["critical_path"]["startpoint"] == "tile/array/pe_1"
    assert flat["critical_path"]["startpoint"].startswith("tile/array/pe_1/")
    assert hier["wns_ns"] <= flat["wns_ns"]
    assert hier["fmax_mhz"] == pytest.approx(flat["fmax_mhz"], rel=0.05)
    f, h = flat["drv_violations"], hier["drv_violations"]
    assert f["drivers_checked"] > 12 * 8   # the stubbed PEs' drivers counted as the sampled
    for k in ("count", "by_kind", "nets", "drivers_checked"):
        assert h[k] == f[k], k
    run = tmp_path / "hier"
    assert json.loads((run / sta_sample.INFO_FILE).read_text())["holder_path"] == "tile/array"
    assert (run / sta_sample.NETLIST_FILE).exists() is False      # dropped after timing
    # the stub's pin loads the enable net as the PE's own cells do: a hand count of every
    # cell pin on `en` in the PE's netlist, each pin's rise capacitance from OSU018's text
    net = gzip.decompress((run / "netlist.v.gz").read_bytes()).decode()
    pe = re.search(r"^module chip__pe\(.*?^endmodule", net, re.M | re.S).group(0)
    text = open(LIB).read()
    want, pins = 0.0, 0
    for cell, body in re.findall(r"^\s+(\w+) \S+\s+\((.*?)\);", pe, re.M | re.S):
        for pin in re.findall(r"\.(\w+)\(en\)", body):
            block = re.search(rf"cell \({cell}\).*?pin\({pin}\)\s*{{(.*?)}}", text, re.S)
            want += float(re.search(r"rise_capacitance : ([\d.]+)", block.group(1)).group(1))
            pins += 1
    got = re.search(r"pin \(en\) \{ direction : input; capacitance : \S+; "
                    r"rise_capacitance : ([\d.e-]+); \S+ \S+ \S+ fanout_load : (\d+);",
                    (run / sta_sample.LIBERTY_FILE).read_text())
    assert pins > 0 and float(got.group(1)) == pytest.approx(want, rel=1e-5)
    assert int(got.group(2)) == pins
