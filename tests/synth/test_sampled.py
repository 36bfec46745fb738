"""termwise.synth.power.sampled: which instances are sampled, the mixed model's Verilog, and
the scaling of the replicated modules' power with its error (hand-computed figures).
The method against the whole tile's gate-level power: tests/e2e/test_power.py."""

import math

import pytest

from termwise.synth.power.compute import InstancePower, PowerReport
from termwise.synth.power.sampled import (MIN_SAMPLED, RTL_SUFFIX, SAMPLED_CELLS,
                                          SAMPLED_INSTANCES, Sampling, default_k,
                                          mixed_netlist, plan_sampling, rtl_modules,
                                          sampling_record, scale_report)

#: A netlist in yosys' form: a wrapper, the tile, an array of three PEs, the PE with a
#: submodule; one liberty cell per module.
NETLIST = """module t__wrap(clk, a, y);
  input clk;
  input a;
  output y;
  t tile (
    .a(a),
    .clk(clk),
    .y(y)
  );
endmodule
module t(clk, a, y);
  input clk;
  input a;
  output y;
  wire [2:0] p;
  \\t.array  array (
    .a(a),
    .clk(clk),
    .p(p)
  );
  AND2X1 _1_ (
    .A(p[0]),
    .B(p[1]),
    .Y(y)
  );
endmodule
module \\t.array (clk, a, p);
  input clk;
  input a;
  output [2:0] p;
  t__pe pe_0 (
    .a(a),
    .clk(clk),
    .q(p[0])
  );
  t__pe pe_1 (
    .a(a),
    .clk(clk),
    .q(p[1])
  );
  t__pe pe_2 (
    .a(a),
    .clk(clk),
    .q(p[2])
  );
endmodule
module t__pe(clk, a, q);
  input clk;
  input a;
  output q;
  wire n;
  \\t__pe.reg  r (
    .clk(clk),
    .d(n),
    .q(q)
  );
  INVX1 _2_ (
    .A(a),
    .Y(n)
  );
endmodule
module \\t__pe.reg (clk, d, q);
  input clk;
  input d;
  output q;
  DFFPOSX1 _3_ (
    .CLK(clk),
    .D(d),
    .Q(q)
  );
endmodule
"""

#: The emitted RTL of the same modules (Amaranth's form, trimmed).
RTL = """module t(clk, a, y);
  input clk;
  input a;
  output y;
endmodule
module \\t__pe.reg (clk, d, q);
  input clk; input d; output reg q;
  always @(posedge clk) q <= d;
endmodule
(* generator = "Amaranth" *)
module t__pe(clk, a, q);
  input clk; input a; output q;
  \\t__pe.reg  r (.clk(clk), .d(~a), .q(q));
endmodule
module t__pe_other(clk);
  input clk;
endmodule
"""


def test_plan_samples_the_replicated_library_modules_evenly():
    s = plan_sampling(NETLIST, "t__wrap", ["t__pe", "t__sram"], k=2)
    assert s.modules == {"t__pe": ["tile/array/pe_0", "tile/array/pe_1", "tile/array/pe_2"]}
    assert s.sampled == {"t__pe": ["tile/array/pe_0", "tile/array/pe_2"]}  # first and last
    assert s.parents == {"t__pe": {"t.array": ["pe_0", "pe_1", "pe_2"]}}
    assert s.cells == {"t__pe": 2}          # its inverter and its submodule's flop
    assert len(plan_sampling(NETLIST, "t__wrap", ["t__pe"]).sampled["t__pe"]) == 3
    assert plan_sampling(NETLIST, "t__wrap", ["t__pe"], k=8).sampled["t__pe"] == \
        s.modules["t__pe"]
    # a module that is not in the tile's library is shared logic, never sampled
    assert plan_sampling(NETLIST, "t__wrap", ["t"], k=1).modules == {}
    assert s.unit_of("tile/array/pe_1/r/_3_") == ("t__pe", "tile/array/pe_1", False)
    assert s.unit_of("tile/array/pe_2/_2_") == ("t__pe", "tile/array/pe_2", True)
    assert s.unit_of("tile/_1_") is None


def test_plan_refuses_a_replicated_parent():
    twice = NETLIST.replace("""  AND2X1 _1_ (""", """  \\t.array  array2 (
    .a(a),
    .clk(clk),
    .p(p)
  );
  AND2X1 _1_ (""")
    with pytest.raises(ValueError, match="instantiated 2 times"):
        plan_sampling(twice, "t__wrap", ["t__pe"], k=1)


def test_rtl_copies_are_renamed_with_their_submodules():
    text = rtl_modules(RTL, ["t__pe"])
    assert "module t__pe__rtl(clk, a, q);" in text
    assert "module \\t__pe__rtl.reg (clk, d, q);" in text
    assert "\\t__pe__rtl.reg  r (" in text
    assert "t__pe_other" not in text and "module t(" not in text   # only the PE's modules
    with pytest.raises(ValueError, match="t__nope"):
        rtl_modules(RTL, ["t__nope"])


def test_mixed_netlist_retypes_the_unsampled_instances_only():
    s = plan_sampling(NETLIST, "t__wrap", ["t__pe"], k=2)
    text = mixed_netlist(NETLIST, RTL, s)
    assert "  t__pe pe_0 (" in text and "  t__pe pe_2 (" in text
    assert f"  t__pe{RTL_SUFFIX} pe_1 (" in text
    assert text.count(f"module t__pe{RTL_SUFFIX}(") == 1
    assert "module t__pe(clk, a, q);" in text       # the gate-level definition stays
    # with every instance sampled the model is the gate-level netlist itself
    assert mixed_netlist(NETLIST, RTL, plan_sampling(NETLIST, "t__wrap", ["t__pe"], k=3)) \
        == NETLIST


def _report(instances):
    return PowerReport(instances=instances, by_module={}, totals={}, port_switching_w=0.5,
                       nets=10, nets_without_activity=["a/p1/n", "tile/x"],
                       extrapolated=0, units={})


def test_scaling_and_its_error():
    s = Sampling(modules={"m": ["a/p0", "a/p1", "a/p2", "a/p3"]},
                 sampled={"m": ["a/p0", "a/p3"]}, parents={})
    ips = [InstancePower("a/p0/c", "INVX1", "m", leakage_w=1.0, internal_w=2.0,
                         switching_w=1.0),
           InstancePower("a/p1/c", "INVX1", "m", leakage_w=1.0, internal_w=9.0,
                         switching_w=9.0),
           InstancePower("a/p2/c", "INVX1", "m", leakage_w=1.0),
           InstancePower("a/p3/c", "INVX1", "m", leakage_w=1.0, internal_w=4.0,
                         switching_w=1.0),
           InstancePower("g", "AND2X1", "top", leakage_w=0.5, internal_w=3.0,
                         switching_w=2.0)]
    rep, errors = scale_report(_report(ips), s)
    # sampled instances' dynamic x 4/2, the unsampled ones' none, leakage kept for all
    assert rep.by_module["m"] == {"cells": 4, "leakage_w": 4.0, "internal_w": 12.0,
                                  "switching_w": 4.0, "total_w": 20.0}
    assert rep.by_module["top"]["total_w"] == 5.5          # shared logic untouched
    assert rep.totals["total_w"] == pytest.approx(25.5)
    assert rep.nets_without_activity == ["tile/x"]      # the RTL instances' nets are not
    assert errors == {"m": {"instances": 4, "sampled_w": [3.0, 5.0]}}
    rec = sampling_record(errors, s)["m"]
    # mean 4, s = sqrt(2), SE = 4 * sqrt(2) / sqrt(2) * sqrt(2/3)
    assert rec["dynamic_total_w"] == 16.0 and rec["dynamic_mean_w"] == 4.0
    assert rec["standard_error_w"] == pytest.approx(4 * math.sqrt(2 / 3))
    assert rec["bound95_w"] == pytest.approx(1.96 * 4 * math.sqrt(2 / 3))
    assert rec["bound95_fraction"] == pytest.approx(rec["bound95_w"] / 16.0)
    # every instance sampled: no error
    full = Sampling(modules={"m": ["a/p0", "a/p3"]}, sampled={"m": ["a/p0", "a/p3"]})
    assert sampling_record({"m": {"instances": 2, "sampled_w": [3.0, 5.0]}},
                           full)["m"]["standard_error_w"] == 0.0


def test_default_samples_follow_the_cell_budget():
    assert default_k(1) == SAMPLED_INSTANCES == 8
    assert default_k(SAMPLED_CELLS // 3) == 3
    assert default_k(61_000) == 2 == MIN_SAMPLED       # baseline-16x16's PE
    assert default_k(10 * SAMPLED_CELLS) == MIN_SAMPLED
