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


# --- Several replicated modules (issue 42): the PE, a register per column, a selector ---

def _cell(kind, name, pins):
    body = ",\n".join(f"    .{p}({n})" for p, n in pins)
    return f"  {kind} {name} (\n{body}\n  );\n"


def _netlist(n=12):
    """A structural netlist as yosys writes it: chip -> chip.array -> n each of chip__pe
    (clocked), chip__col (a register per column) and chip__sel (combinational, no clock),
    col_i -> sel_i -> pe_i."""
    w = 4 * n
    ports = (f"  input clk;\n  wire clk;\n  input en;\n  wire en;\n  input ld;\n  wire ld;\n"
             f"  input [{w - 1}:0] x;\n  wire [{w - 1}:0] x;\n  input [{w - 1}:0] w;\n"
             f"  wire [{w - 1}:0] w;\n  output [3:0] y;\n  wire [3:0] y;\n")
    top = ("module chip(clk, en, ld, x, w, y);\n" + ports +
           "  \\chip.array  array (\n    .clk(clk),\n    .en(en),\n    .ld(ld),\n    .x(x),\n"
           "    .w(w),\n    .y(y)\n  );\nendmodule\n\n")
    arr = ["module \\chip.array (clk, en, ld, x, w, y);\n" + ports +
           f"  wire [{w - 1}:0] q;\n  wire [{w - 1}:0] r;\n  wire [{w - 1}:0] s;\n"]
    for i in range(n):
        sl = f"[{4 * i + 3}:{4 * i}]"
        arr.append(f"  chip__col col_{i} (\n    .clk(clk),\n    .ld(ld),\n    .w(w{sl}),\n"
                   f"    .r(r{sl})\n  );\n")
        arr.append(f"  chip__sel sel_{i} (\n    .a(r{sl}),\n    .b(x{sl}),\n    .y(s{sl})\n"
                   "  );\n")
        arr.append(f"  chip__pe pe_{i} (\n    .clk(clk),\n    .en(en),\n    .x(s{sl}),\n"
                   f"    .q(q{sl})\n  );\n")
    for b in range(4):
        arr.append(_cell("XOR2X1", f"_x{b}_", [("A", f"q[{b}]"), ("B", f"q[{w - 4 + b}]"),
                                               ("Y", f"y[{b}]")]))
    pe = ["module chip__pe(clk, en, x, q);\n  input clk;\n  wire clk;\n  input en;\n"
          "  wire en;\n  input [3:0] x;\n  wire [3:0] x;\n  output [3:0] q;\n  wire [3:0] q;\n"
          "  wire [3:0] d;\n"]
    col = ["module chip__col(clk, ld, w, r);\n  input clk;\n  wire clk;\n  input ld;\n"
           "  wire ld;\n  input [3:0] w;\n  wire [3:0] w;\n  output [3:0] r;\n  wire [3:0] r;\n"
           "  wire [3:0] d;\n"]
    sel = ["module chip__sel(a, b, y);\n  input [3:0] a;\n  wire [3:0] a;\n  input [3:0] b;\n"
           "  wire [3:0] b;\n  output [3:0] y;\n  wire [3:0] y;\n  wire [3:0] n;\n"]
    for b in range(4):
        pe.append(_cell("AND2X2", f"_a{b}_", [("A", "en"), ("B", f"x[{b}]"), ("Y", f"d[{b}]")]))
        pe.append(_cell("DFFPOSX1", f"_f{b}_", [("CLK", "clk"), ("D", f"d[{b}]"),
                                               ("Q", f"q[{b}]")]))
        col.append(_cell("MUX2X1", f"_m{b}_", [("A", f"r[{b}]"), ("B", f"w[{b}]"),
                                              ("S", "ld"), ("Y", f"d[{b}]")]))
        col.append(_cell("DFFPOSX1", f"_f{b}_", [("CLK", "clk"), ("D", f"d[{b}]"),
                                                ("Q", f"r[{b}]")]))
        sel.append(_cell("XOR2X1", f"_x{b}_", [("A", f"a[{b}]"), ("B", f"b[{b}]"),
                                              ("Y", f"y[{b}]")]))
        sel.append(_cell("AND2X2", f"_y{b}_", [("A", f"a[{b}]"), ("B", "b[0]"),
                                              ("Y", f"n[{b}]")]))
    return top + "".join(arr) + "endmodule\n\n" + "".join(pe) + "endmodule\n\n" + \
        "".join(col) + "endmodule\n\n" + "".join(sel) + "endmodule\n"


def _run_folder(tmp_path, name):
    d = tmp_path / name
    d.mkdir()
    (d / "netlist.v").write_text(_netlist())
    (d / "cells.lib").write_text(open(LIB).read())
    return d


def _summary():
    """A tile's hierarchy: what qualifies and what does not."""
    def mod(clk=True, **subs):
        return {"subs": subs, "clk": clk}
    return {"t": {"subs": {"t.array": 1, "t.other": 1}, "clk": True},
            "t.array": {"subs": {"t__pe": 12, "t__col": 40, "t__sel": 40, "t__few": 31,
                                 "t__two": 20, "t.rep": 2}, "clk": True},
            "t.other": mod(t__two=20), "t.rep": mod(t__inrep=40),
            "t__pe": mod(**{"t__pe.lane": 40}), "t__pe.lane": mod(),
            "t__col": mod(), "t__sel": mod(clk=False), "t__few": mod(), "t__two": mod(),
            "t__inrep": mod()}


def test_plan_stubs_each_replicated_module_outermost_first():
    s = _summary()
    # the PE first (its rule: more than 8), then >= 32 in one holder of one instance path;
    # not: inside the PE (its holder has 12 paths), 31 instances, two holders, a holder
    # instantiated twice
    assert sta_sample.plan(s, "t__pe") == [("t__pe", "t.array", 12), ("t__col", "t.array", 40),
                                           ("t__sel", "t.array", 40)]
    assert ("t__few", "t.array", 31) in sta_sample.plan(s, "t__pe", min_instances=31)
    s["t.array"]["clk"] = False     # a selector's stub has no clock to hang its arcs on
    assert [m for m, _, _ in sta_sample.plan(s, "t__pe")] == ["t__pe", "t__col"]
    s = _summary()
    s["t.array"]["subs"]["t__pe"] = 8
    assert [m for m, _, _ in sta_sample.plan(s, "t__pe")] == ["t__col", "t__sel"]
    assert sta_sample.MIN_INSTANCES == 32 and sta_sample.SAMPLED == 8


def test_the_key_changes_only_when_a_module_besides_the_pe_is_stubbed():
    from termwise.synth import api
    s = _summary()
    assert sta_sample.stub_key(s, "t") == {"version": sta_sample.STUBS_VERSION,
                                           "modules": ["__pe", "__col", "__sel"]}
    for m in ("t__col", "t__sel"):
        s["t.array"]["subs"][m] = 31
    assert sta_sample.stub_key(s, "t") is None        # the PE alone: no field
    sha = "0" * 64
    hier = api.asic_cache_key(sha, 10.0, LIB, clock_gating=True, sram=True, hierarchical=True)
    assert api.asic_cache_key(sha, 10.0, LIB, clock_gating=True, sram=True,
                              hierarchical=True, stubs=None) == hier
    assert set(api._settings("asic", sha, 10.0, LIB, True, True, True)["hierarchical"]) == \
        {"modules", "timing"}                        # the PE-only settings as before
    assert api.asic_cache_key(sha, 10.0, LIB, clock_gating=True, sram=True, hierarchical=True,
                              stubs=sta_sample.stub_key(_summary(), "t")) != hier


#: sha256 of the files the PE-only sampling wrote for _netlist() at commit 39f1e98 (before
#: other modules were stubbed): they must not change.
PE_ONLY_SHA256 = {
    "netlist_sta.v": "16b78c5a87d5155d47c5bafcc08d9102b30f665244f4c307f170b8f3ad20ca5d",
    "sta_stub.lib": "6931068a4b1997e9ab790f4f2313e9b50097628208e6f538b2280e3cbd51da11",
    "sta_stub_fanout.tcl": "1150fd69c3e9693cc854eca80e53b54b6b30e13c82c2b60ec7344c86729d687d",
    "sta_sample.json": "6e97abf508f8c007b3119bc5c535abccc0a16a55eed2107507c808ed594742d1"}


@needs_lib
def test_the_pe_alone_is_sampled_byte_for_byte_as_before(tmp_path):
    import hashlib
    d = _run_folder(tmp_path, "pe")
    info = sta_sample.write_sampled_netlist(str(d), "chip__pe", "cells.lib")
    assert "modules" not in info and info["module"] == "chip__pe"
    for name, want in PE_ONLY_SHA256.items():
        assert hashlib.sha256((d / name).read_bytes()).hexdigest() == want, name


def _pin_cap(cell, pin):
    text = open(LIB).read()
    block = re.search(rf"cell \({cell}\).*?pin\({pin}\)\s*{{(.*?)}}", text, re.S)
    return float(re.search(r"rise_capacitance : ([\d.]+)", block.group(1)).group(1))


@needs_lib
def test_several_modules_stubbed(tmp_path):
    d = _run_folder(tmp_path, "multi")
    info = sta_sample.write_sampled_netlist(str(d), "chip__pe", "cells.lib", min_instances=10)
    recs = sta_sample.records(info)
    assert [(r["module"], r["instances"], r["sampled"], r.get("cell")) for r in recs] == [
        ("chip__pe", 12, 8, None), ("chip__col", 12, 8, "termwise_sta_stub__col"),
        ("chip__sel", 12, 8, "termwise_sta_stub__sel")]
    kept = ["0", "2", "3", "5", "6", "8", "9", "11"]
    net = (d / sta_sample.NETLIST_FILE).read_text()
    for r, stub in zip(recs, ("termwise_sta_stub", "termwise_sta_stub__col",
                              "termwise_sta_stub__sel")):
        short = r["module"].split("__")[1]
        assert r["sampled_instances"] == [f"{short}_{i}" for i in kept]
        assert r["holder_path"] == "array"
        got = {i: c for c, i in re.findall(rf"^  (\S+) ({short}_\d+) \(", net, re.M)}
        assert {i for i, c in got.items() if c == r["module"]} == set(r["sampled_instances"])
        assert {c for i, c in got.items() if i not in r["sampled_instances"]} == {stub}
    # the selector (no clock of its own) is clocked by its holder's clk for its arcs
    assert net.count(f"termwise_sta_stub__sel sel_1 ( .{sta_sample.CLOCK_PIN}(clk),") == 1
    lib = (d / sta_sample.LIBERTY_FILE).read_text()
    for cell in ("termwise_sta_stub", "termwise_sta_stub__col", "termwise_sta_stub__sel"):
        assert f"cell ({cell})" in lib

    def load(cell, pin):
        body = lib[lib.index(f"cell ({cell})"):]
        m = re.search(rf"pin \({re.escape(pin)}\) \{{ direction : input;(?: clock : true;)? "
                      r"capacitance : \S+; rise_capacitance : ([\d.e-]+); \S+ \S+ \S+ "
                      r"fanout_load : (\d+);", body)
        return float(m.group(1)), int(m.group(2))
    # each stub's pin loads its net as the module's own cell pins do (a hand count)
    assert load("termwise_sta_stub", "en") == pytest.approx((4 * _pin_cap("AND2X2", "A"), 4))
    assert load("termwise_sta_stub__col", "ld") == pytest.approx((4 * _pin_cap("MUX2X1", "S"), 4))
    assert load("termwise_sta_stub__sel", "b[0]") == pytest.approx(
        (_pin_cap("XOR2X1", "B") + 4 * _pin_cap("AND2X2", "B"), 5))
    assert load("termwise_sta_stub__sel", "a[2]") == pytest.approx(
        (_pin_cap("XOR2X1", "A") + _pin_cap("AND2X2", "A"), 2))
    assert load("termwise_sta_stub__sel", sta_sample.CLOCK_PIN) == (0.0, 0)
    fan = (d / sta_sample.FANOUT_FILE).read_text()
    assert "  {en} 4\n" in fan and "  {termwise_sta_stub__col/ld} 4\n" in fan
    assert "  {termwise_sta_stub__sel/b[0]} 5\n" in fan
    # a design-rule violation inside a sampled instance stands for 12 / 8 of them
    w = sta_sample.weight(info)
    assert w("array/col_2/_f0_/Q") == w("array/sel_11/_x1_/Y") == w("array/pe_0/_f3_/Q") == 1.5
    assert w("array/_x0_/Y") == 1.0 and w("array/col_20/_f0_/Q") == 1.0
    assert sta_sample.report_fields(info) == {"modules": [
        {"module": m, "instances": 12, "sampled": 8}
        for m in ("chip__pe", "chip__col", "chip__sel")]}
    # the default threshold (32) stubs the PE alone, as before
    from termwise.synth.module_synth import split_modules
    assert sta_sample.plan(sta_sample.hierarchy(split_modules(_netlist())), "chip__pe") == [
        ("chip__pe", "chip.array", 12)]


def test_arc_passes_follow_a_chain_of_stubbed_modules(tmp_path, monkeypatch):
    """A selector fed by a stubbed column register: its arcs need the register's, so the
    passes repeat (at most one per stubbed module)."""
    from termwise.synth import sta_arcs
    written = []
    monkeypatch.setattr(sta_arcs, "write_stubs_liberty",
                        lambda workdir, cells, liberty=None: written.append(
                            [a for _, _, a in cells]))

    def fake_pass(workdir, recs, top, clock_ns, reads, log):
        col = {("r", 0): (1.0, 1.0, 0.1, 0.1)}
        before = written[-1][0] if written and written[-1][0] else None
        sel = (before[("r", 0)][0] + 0.5 if before else 0.5)
        return [col, {("y", 0): (sel, sel, 0.1, 0.1)}]
    monkeypatch.setattr(sta_arcs, "_pass", fake_pass)
    data = {"clock": "clk", "output_drivers": {"r": "_f_/Q"}}
    info = {"modules": [{"cell": "c", "liberty": data}, {"cell": "s", "liberty": data}]}
    arcs = sta_arcs.output_arcs(str(tmp_path), info, "top", 10.0, "")
    assert arcs[1][("y", 0)][0] == 1.5 and info["arc_passes"] == {"sta_stub.lib": 2}
    assert written[-1][1][("y", 0)][0] == 1.5       # the liberty has the second pass's


#: 12 columns of a register (chip__col), a multiplier (chip__sel, combinational) and a PE,
#: column i's register feeding selector 5i mod 12 (so sampled selectors are fed by stubbed
#: registers); the PEs' outputs folded.
def _design3(n=12):
    rows = []
    for i in range(n):
        sl, src = f"[{4 * i + 3}:{4 * i}]", f"[{4 * (5 * i % n) + 3}:{4 * (5 * i % n)}]"
        rows.append(f"  chip__col col_{i} (.clk(clk), .ld(ld), .w(w{sl}), .r(r{sl}));\n"
                    f"  chip__sel sel_{i} (.a(r{src}), .b(x{sl}), .y(s{sl}));\n"
                    f"  chip__pe pe_{i} (.clk(clk), .en(en), .x(s{sl}), .q(q{sl}));\n")
    w = 4 * n
    return f"""module chip(clk, rst, en, ld, x, w, y);
  input clk; input rst; input en; input ld; input [{w - 1}:0] x; input [{w - 1}:0] w;
  output [3:0] y;
  \\chip.array  array (.clk(clk), .en(en), .ld(ld), .x(x), .w(w), .y(y));
endmodule

module \\chip.array (clk, en, ld, x, w, y);
  input clk; input en; input ld; input [{w - 1}:0] x; input [{w - 1}:0] w; output [3:0] y;
  wire [{w - 1}:0] q; wire [{w - 1}:0] r; wire [{w - 1}:0] s;
{"".join(rows)}  assign y = {' ^ '.join(f'q[{4 * i + 3}:{4 * i}]' for i in range(n))};
endmodule

module chip__col(clk, ld, w, r);
  input clk; input ld; input [3:0] w; output reg [3:0] r;
  always @(posedge clk) if (ld) r <= w;
endmodule

module chip__sel(a, b, y);
  input [3:0] a; input [3:0] b; output [3:0] y;
  assign y = a * b;
endmodule

module chip__pe(clk, en, x, q);
  input clk; input en; input [3:0] x; output reg [3:0] q;
  always @(posedge clk) if (en) q <= q + x * x;
endmodule
"""


@needs_lib
def test_three_modules_timed_with_stubs_against_flat(tmp_path, monkeypatch):
    src = tmp_path / "chip.v"
    src.write_text(_design3())
    man = _manifest()
    man["ports"][3:3] = [{"name": "ld", "dir": "in", "width": 1},
                         {"name": "w", "dir": "in", "width": 48}]
    flat = asic.run_asic(str(src), man, str(tmp_path / "flat"), 2.0, LIB)
    monkeypatch.setattr(sta_sample, "MIN_INSTANCES", 10)
    hier = asic.run_asic(str(src), man, str(tmp_path / "hier"), 2.0, LIB, module_cache="")
    assert hier["sta_sample"] == {"modules": [
        {"module": m, "instances": 12, "sampled": 8}
        for m in ("chip__pe", "chip__col", "chip__sel")]}
    assert sta_sample.key_fields(src.read_text(), "chip")["modules"] == ["__pe", "__col",
                                                                          "__sel"]
    info = json.loads((tmp_path / "hier" / sta_sample.INFO_FILE).read_text())
    assert info["arc_passes"] == {"sta_stub.lib": 2}
    assert hier["area_um2"] == flat["area_um2"]
    # timed from the stubs' arcs (the worst over the sampled instances): never optimistic
    assert hier["wns_ns"] <= flat["wns_ns"] + 1e-4
    assert hier["fmax_mhz"] == pytest.approx(flat["fmax_mhz"], rel=0.05)
    f, h = flat["drv_violations"], hier["drv_violations"]
    for k in ("count", "by_kind", "nets", "drivers_checked"):
        assert h[k] == f[k], k
    # a run whose netlist would stub other modules than its Verilog's key says fails
    monkeypatch.setattr(sta_sample, "verilog_hierarchy", lambda text: {})
    with pytest.raises(ValueError, match="synthesis key"):
        _resample(tmp_path / "hier")


def _resample(run):
    """sample_tile again on a finished run's netlist (its tile.v and netlist restored)."""
    run.joinpath("netlist.v").write_bytes(gzip.decompress(run.joinpath("netlist.v.gz")
                                                          .read_bytes()))
    run.joinpath("tile.v").write_text(_design3())
    run.joinpath("cells.lib").write_text(open(LIB).read())
    return sta_sample.sample_tile(str(run), "chip", "cells.lib")


def test_the_power_flow_computes_the_same_synthesis_key(tmp_path, monkeypatch):
    """The power flow keys its reports by the synthesis key it computes without
    synthesising (termwise.synth.power.keys): the stubbed modules' field from the Verilog's
    hierarchy, remembered beside its sha256, as the synthesis computes it."""
    from termwise.gen.config import preset
    from termwise.gen.emit import rendered
    from termwise.synth import api
    from termwise.synth.power import keys
    memo, sources = str(tmp_path / "power" / "reports" / "memo"), "src"
    loom = preset("loom-4x4").replace(fc_columns=1)
    field = keys.stub_fields(loom, memo, sources)
    assert field == {"version": sta_sample.STUBS_VERSION,
                     "modules": ["__pe", "__fc_column", "__wgt_bits"]}
    text, _ = rendered(loom, str(tmp_path / "emit-cache"))
    assert sta_sample.key_fields(text, loom.top_name) == field
    assert keys.synthesis_key(loom, 10.0, LIB, memo, sources, hierarchical=True) == \
        api.asic_cache_key(keys.sha256_hex(text), 10.0, LIB, clock_gating=loom.clock_gating,
                           sram=loom.buffers == "macros", hierarchical=True, stubs=field)
    assert keys.stub_fields(preset("stripes-4x4"), memo, sources) is None   # the PE alone
    monkeypatch.setattr("termwise.gen.emit.rendered", None)     # the memo answers now
    assert keys.stub_fields(loom, memo, sources) == field
