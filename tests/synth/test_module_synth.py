"""Per-module synthesis (termwise.synth.module_synth): the modules of a design and their
submodules, the key a module's netlist is cached under, each run's script, the whole
design's ``stat`` assembled from the runs' (expected values counted by hand here), and a
small design synthesised module by module against the one-run flow."""

from __future__ import annotations

import json
import os

import pytest

from termwise.synth import asic, module_synth as ms, tools

LIB = tools.DEFAULT_LIBERTY
needs_lib = pytest.mark.skipif(not os.path.isfile(LIB), reason="OSU018 liberty not installed")

#: A top with three adders and a register (the adder's own submodule, a half adder), in the
#: style Amaranth writes: attribute lines, escaped names with dots.
DESIGN = """/* header */
(* top =  1  *)
(* generator = "Amaranth" *)
module chip(clk, rst, a, b, q);
  input clk; input rst; input [3:0] a; input [3:0] b; output [3:0] q;
  wire [3:0] s0; wire [3:0] s1; wire [3:0] s2;
  \\chip.add  add0 (.a(a), .b(b), .s(s0));
  \\chip.add  add1 (.a(s0), .b(b), .s(s1));
  \\chip.add  add2 (.a(s1), .b(a), .s(s2));
  chip__reg r (.clk(clk), .d(s2), .q(q));
endmodule

module \\chip.add (a, b, s);
  input [3:0] a; input [3:0] b; output [3:0] s;
  wire c;
  \\chip.add.half  h (.x(a[0]), .y(b[0]), .s(s[0]), .c(c));
  assign s[3:1] = a[3:1] + b[3:1] + c;
endmodule

module \\chip.add.half (x, y, s, c);
  input x; input y; output s; output c;
  assign s = x ^ y;
  assign c = x & y;
endmodule

module chip__reg(clk, d, q);
  input clk; input [3:0] d; output reg [3:0] q;
  always @(posedge clk) q <= d;
endmodule

module unused(x);
  input x;
endmodule
"""
MANIFEST = {"top": "chip", "ports": [
    {"name": "clk", "dir": "in", "width": 1}, {"name": "rst", "dir": "in", "width": 1},
    {"name": "a", "dir": "in", "width": 4},
    {"name": "b", "dir": "in", "width": 4}, {"name": "q", "dir": "out", "width": 4}]}


def test_modules_and_their_submodules():
    texts = ms.split_modules(DESIGN)
    assert sorted(texts) == ["chip", "chip.add", "chip.add.half", "chip__reg", "unused"]
    assert texts["chip"].startswith("(* top =  1  *)\n(* generator")
    assert texts["chip.add"].rstrip().endswith("endmodule")
    assert ms.children(texts["chip"], texts) == ["chip.add", "chip__reg"]
    assert ms.reachable("chip", texts) == {"chip": ["chip.add", "chip__reg"],
                                           "chip.add": ["chip.add.half"],
                                           "chip.add.half": [], "chip__reg": []}
    # a black box (an SRAM macro) stays in its parent's list and is not synthesised
    assert ms.reachable("chip", texts, leaves={"chip.add.half"}) == {
        "chip": ["chip.add", "chip__reg"], "chip.add": ["chip.add.half"], "chip__reg": []}


def test_a_module_key_ignores_the_tiles_name_not_its_text():
    texts = ms.split_modules(DESIGN)
    other = ms.split_modules(DESIGN.replace("chip", "tile7"))
    key = ms.module_key({"s": 1}, "chip.add", texts, ["chip.add.half"], "chip")
    assert ms.module_key({"s": 1}, "tile7.add", other, ["tile7.add.half"], "tile7") == key
    assert ms.module_key({"s": 2}, "chip.add", texts, ["chip.add.half"], "chip") != key
    changed = dict(texts, **{"chip.add.half": texts["chip.add.half"].replace("^", "|")})
    assert ms.module_key({"s": 1}, "chip.add", changed, ["chip.add.half"], "chip") != key


WHOLE = """read_verilog tile.v
read_verilog wrapper.v
blackbox termwise_sram_16x8
hierarchy -check -top chip__wrap
synth -noabc -top chip__wrap
dfflibmap -liberty cells.lib
setattr -mod -set termwise_abc_safe 1 x
abc -liberty cells.lib -script FAST A:termwise_abc_safe %n
abc -liberty cells.lib -script SAFE A:termwise_abc_safe
opt_clean -purge
tee -q -o stat.json stat -json -liberty cells.lib
tee -q -o stat.txt stat -liberty cells.lib
write_verilog -noattr netlist.v"""


def test_a_modules_run_script():
    got = ms.module_script(WHOLE, "chip.add", "m/module.v", "m/subs.v", "m/net.v",
                           "m/stat.json", "abc -liberty cells.lib -script ONE")
    assert got.split("\n") == [
        "read_verilog -lib m/subs.v", "read_verilog m/module.v",
        "hierarchy -check -top \\chip.add", "synth -noabc -top \\chip.add",
        "dfflibmap -liberty cells.lib", "abc -liberty cells.lib -script ONE",
        "opt_clean -purge", "tee -q -o m/stat.json stat -json -liberty cells.lib",
        "write_verilog -noattr m/net.v"]
    leaf = ms.module_script(WHOLE, "chip__reg", "m/module.v", None, "n.v", "s.json", "abc X")
    assert leaf.split("\n")[:3] == ["read_verilog m/module.v",
                                    "hierarchy -check -top chip__reg",
                                    "synth -noabc -top chip__reg"]
    with pytest.raises(ValueError):
        ms.module_script("synth -noabc -top x", "x", "a.v", None, "n.v", "s.json", "abc")


def _doc(name, cells, area, seq=0.0, n=None):
    return {"modules": {"\\" + name: {"num_cells": n if n is not None else sum(cells.values()),
                                      "num_cells_by_type": cells, "area": area,
                                      "sequential_area": seq}}}


def test_the_design_stat_from_the_modules_runs():
    # each run's own cells (its submodules black boxes, area 0 there)
    docs = {"top": _doc("top", {"INVX1": 2, "\\mid": 3, "\\leaf": 1}, 32.0),
            "mid": _doc("mid", {"NAND2X1": 4, "\\leaf": 2}, 96.0),
            "leaf": _doc("leaf", {"DFFPOSX1": 1, "BUFX2": 1}, 100.0, seq=96.0)}
    got = ms.merge_stats(docs, "top")
    leaf, mid, top = (got["modules"]["\\" + n] for n in ("leaf", "mid", "top"))
    assert leaf["area"] == 100.0 and leaf["num_submodules"] == 0
    assert mid["area"] == 96.0 + 2 * 100.0 and mid["sequential_area"] == 2 * 96.0
    assert mid["num_cells"] == 4 and mid["num_submodules"] == 2
    assert top["area"] == 32.0 + 3 * 296.0 + 100.0 and top["num_cells"] == 2
    assert got["design"]["area"] == top["area"]
    assert got["design"]["sequential_area"] == 3 * 192.0 + 96.0
    # flattened: 2 INV, 3 x (4 NAND + 2 leaves) + 1 leaf = 7 leaves
    assert got["design"]["num_cells_by_type"] == {"BUFX2": 7, "DFFPOSX1": 7, "INVX1": 2,
                                                  "NAND2X1": 12}
    assert got["design"]["num_cells"] == 28


@needs_lib
def test_a_design_module_by_module_against_one_run(tmp_path):
    src = tmp_path / "chip.v"
    src.write_text(DESIGN)
    one = asic.run_asic(str(src), MANIFEST, str(tmp_path / "one"), 10.0, LIB)
    cache = tmp_path / "modules"
    per = asic.run_asic(str(src), MANIFEST, str(tmp_path / "per"), 10.0, LIB,
                        module_cache=str(cache))
    assert per["module_runs"] == {"modules": 5, "cached": 0}    # 4 and the io wrapper
    for field in ("area_um2", "area_seq_um2", "cells", "flops", "pe_instances"):
        assert per[field] == one[field], field
    assert per["area_by_module"] == one["area_by_module"]
    assert per["fmax_mhz"] == pytest.approx(one["fmax_mhz"], rel=1e-6)
    stat = json.loads((tmp_path / "per" / "stat.json").read_text())
    assert stat["modules"]["\\chip.add"]["num_submodules"] == 1
    # the same design under another name: every module from the cache, the same figures
    (tmp_path / "tile7.v").write_text(DESIGN.replace("chip", "tile7"))
    man = json.loads(json.dumps(MANIFEST).replace("chip", "tile7"))
    again = asic.run_asic(str(tmp_path / "tile7.v"), man, str(tmp_path / "again"), 10.0, LIB,
                          module_cache=str(cache))
    assert again["module_runs"] == {"modules": 5, "cached": 5}
    assert again["area_um2"] == per["area_um2"] and again["fmax_mhz"] == per["fmax_mhz"]
    assert len([e for e in os.listdir(cache) if not e.startswith(".")]) == 5


@needs_lib
def test_module_runs_at_once_write_what_one_at_a_time_writes(tmp_path, monkeypatch):
    """The cache misses' yosys runs go several at once (module_synth.module_runs_at_once):
    the assembled netlist and stat.json are byte for byte those of one run at a time."""
    import gzip
    from termwise.synth import module_synth
    src = tmp_path / "chip.v"
    src.write_text(DESIGN)
    files = {}
    for jobs in (1, 4):
        monkeypatch.setattr(module_synth, "module_runs_at_once", lambda jobs=jobs: jobs)
        out = tmp_path / f"jobs{jobs}"
        asic.run_asic(str(src), MANIFEST, str(out), 10.0, LIB, module_cache="")
        files[jobs] = (gzip.decompress((out / "netlist.v.gz").read_bytes()),
                       (out / "stat.json").read_bytes())
    assert files[1] == files[4] and b"module \\chip.add.half" in files[1][0]


@needs_lib
def test_the_hierarchical_flow_has_keys_of_its_own():
    from termwise.synth import api
    sha = "0" * 64
    flat = api.asic_cache_key(sha, 10.0, LIB, clock_gating=True, sram=True)
    assert api.asic_cache_key(sha, 10.0, LIB, clock_gating=True, sram=True,
                              hierarchical=False) == flat     # the shipped keys unchanged
    assert api.asic_cache_key(sha, 10.0, LIB, clock_gating=True, sram=True,
                              hierarchical=True) != flat
