"""Liberty cells for power: the reader on OSU018 (with its functions and tables), and the
Verilog models (:mod:`termwise.synth.power.cell_models`) simulated under
Verilator against the liberty functions (every combinational cell, every input combination)
and against hand-written flip-flop / latch behaviour."""

import itertools
import os
import re
import shutil

import pytest

from termwise.synth.power import cell_models, cells
from termwise.synth.power.cell_functions import eval_function, function_vars, parse_function
from termwise.synth.power.gatesim import verilator_build
from termwise.synth.power.tables import lookup
from termwise.synth.tools import DEFAULT_LIBERTY

needs_lib = pytest.mark.skipif(not os.path.isfile(DEFAULT_LIBERTY),
                               reason="OSU018 liberty not installed (qflow-tech-osu018)")


@pytest.fixture(scope="module")
def lib():
    if not os.path.isfile(DEFAULT_LIBERTY):
        pytest.skip("OSU018 liberty not installed")
    return cells.read_library(DEFAULT_LIBERTY)


def _py_eval(text: str, env: dict[str, int]) -> int:
    """The liberty function evaluated by Python's own parser (a second route, independent of
    cell_functions.parse_function): ``!`` -> ``not``, juxtaposition -> ``and``, ``+`` ->
    ``or``, ``^`` -> ``!=`` on booleans. OSU018's functions are fully parenthesised, so Python's
    precedence does not matter for them."""
    toks = re.findall(r"[A-Za-z_]\w*|[()!+^&|*]", text)
    out = []
    for i, t in enumerate(toks):
        if i and (re.match(r"\w", t) or t in "(!") and (re.match(r"\w", toks[i - 1])
                                                        or toks[i - 1] == ")"):
            out.append(" and ")
        out.append({"!": " not ", "+": " or ", "|": " or ", "&": " and ", "*": " and ",
                    "^": " != "}.get(t, f"bool({t})" if re.match(r"\w", t) else t))
    return int(eval("".join(out), {}, dict(env)))   # noqa: S307 (test-only, liberty text)


# Hand-written truth of the common cells: the reader and the models must agree with these.
KNOWN = {
    "INVX1": lambda A: 1 - A,
    "NAND2X1": lambda A, B: 1 - (A & B),
    "NOR2X1": lambda A, B: 1 - (A | B),
    "AOI21X1": lambda A, B, C: 1 - ((A & B) | C),
    "OAI22X1": lambda A, B, C, D: 1 - ((A | B) & (C | D)),
    "XNOR2X1": lambda A, B: 1 - (A ^ B),
    "MUX2X1": lambda A, B, S: 1 - (A if S else B),
    "FAX1": None,   # two outputs, checked below
}


@needs_lib
def test_reader_osu018(lib):
    u = lib.units
    assert (u.voltage_v, u.capacitance_f, u.time_s, u.leakage_w) == (1.0, 1e-12, 1e-9, 1e-9)
    assert u.energy_j == pytest.approx(1e-12)                 # pF * V^2 = pJ
    assert lib.voltage == pytest.approx(1.8)
    assert len(lib.cells) == 32 and not lib.wire_loads and lib.default_wire_load is None
    and2 = lib.cells["AND2X1"]
    assert and2.leakage == pytest.approx(0.0746794)
    assert and2.pins["A"].capacitance == pytest.approx(0.0129077)
    rel = [ip.related_pin for ip in and2.pins["Y"].internal_power]
    assert rel == ["A", "B"]
    rise = and2.pins["Y"].internal_power[0].rise
    assert rise.variables == ("total_output_net_capacitance", "input_transition_time")
    # exact grid points and a bilinear interpolation between four of them
    assert lookup(rise, 0.005, 0.06) == pytest.approx(0.012351)
    assert lookup(rise, 0.15, 1.2) == pytest.approx(0.086416)
    mid = (0.012351 + 0.01753 + 0.013339 + 0.017698) / 4
    assert lookup(rise, (0.005 + 0.0125) / 2, 0.12) == pytest.approx(mid)
    dff = lib.cells["DFFPOSX1"]
    assert dff.seq.kind == "ff" and dff.seq.clocked_on == "CLK" and dff.seq.next_state == "D"
    assert dff.pins["CLK"].clock and dff.pins["CLK"].internal_power[0].related_pin is None
    clk_rise = dff.pins["CLK"].internal_power[0].rise
    assert clk_rise.variables == ("input_transition_time",)
    sr = lib.cells["DFFSR"].seq
    assert (sr.clear, sr.preset, sr.clear_preset_var1) == ("(!R)", "(!S)", "L")
    assert lib.cells["LATCH"].seq.kind == "latch"
    assert sum(1 for c in lib.cells.values() if c.seq) == 4   # DFFNEGX1, DFFPOSX1, DFFSR, LATCH
    for name, f in KNOWN.items():
        if f is None:
            continue
        c = lib.cells[name]
        tree = parse_function(c.pins[c.outputs[0]].function)
        ins = sorted(function_vars(tree))
        for bits in itertools.product((0, 1), repeat=len(ins)):
            env = dict(zip(ins, bits))
            assert eval_function(tree, env) == f(**env), (name, env)


def _tb(lib, comb, seq_script):
    """A Verilator --binary test bench: every combinational cell through all its input
    combinations, then a flip-flop / latch script; one line printed per step."""
    v = ["module tb;"]
    body = []
    for n, name in enumerate(comb):
        c = lib.cells[name]
        ins, outs = c.inputs, c.outputs
        v.append(f"  reg [{len(ins) - 1}:0] i{n} = 0;")
        v += [f"  wire o{n}_{k};" for k in range(len(outs))]
        conns = [f".{p}(i{n}[{k}])" for k, p in enumerate(ins)]
        conns += [f".{p}(o{n}_{k})" for k, p in enumerate(outs)]
        v.append(f"  {name} u{n} ({', '.join(conns)});")
        fmt = " ".join(["%b"] * len(outs))
        args = ", ".join(f"o{n}_{k}" for k in range(len(outs)))
        body.append(f"    for (k = 0; k < {1 << len(ins)}; k = k + 1) begin "
                    f"i{n} = k; #1; $display(\"C {name} %0d {fmt}\", k, {args}); end")
    v += ["  reg clk = 0, d = 0, r = 1, s = 1;",
          "  wire qp, qn, qsr, ql;",
          "  DFFPOSX1 fp (.CLK(clk), .D(d), .Q(qp));",
          "  DFFNEGX1 fn (.CLK(clk), .D(d), .Q(qn));",
          "  DFFSR fsr (.CLK(clk), .D(d), .R(r), .S(s), .Q(qsr));",
          "  LATCH fl (.CLK(clk), .D(d), .Q(ql));",
          "  integer k;", "  initial begin"]
    v += body
    for step, (clk, d, r, s) in enumerate(seq_script):
        v.append(f"    clk = {clk}; d = {d}; r = {r}; s = {s}; #1; "
                 f"$display(\"S {step} %b %b %b %b\", qp, qn, qsr, ql);")
    v += ["    $finish;", "  end", "endmodule"]
    return "\n".join(v) + "\n"


# (clk, d, r, s) per step; values change together, then settle.
SEQ = [(0, 0, 0, 1),   # DFFSR cleared (R low) -> 0
       (0, 1, 1, 1),   # release; D=1, clk low: latch holds 0, DFFNEG: clk 0->0 no edge
       (1, 1, 1, 1),   # rise: DFFPOS <- 1; latch transparent -> 1; DFFSR <- 1
       (1, 0, 1, 1),   # D=0 while high: latch follows -> 0; flops hold
       (0, 0, 1, 1),   # fall: DFFNEG <- 0; latch closes holding 0
       (0, 1, 1, 1),   # D=1 while low: all hold
       (1, 1, 1, 1),   # rise: DFFPOS <- 1, DFFSR <- 1, latch -> 1
       (1, 1, 1, 0),   # preset (S low): DFFSR 1 (already)
       (1, 0, 0, 1),   # clear (R low) async: DFFSR 0; latch follows D=0
       (0, 1, 0, 0),   # both clear and preset: clear_preset_var1 = L -> 0; DFFNEG <- 1
       (0, 1, 1, 0),   # preset only -> 1
       (1, 0, 1, 1)]   # rise with D=0: DFFPOS 0, DFFSR 0, latch 0


def _reference(script):
    """Hand model of DFFPOSX1, DFFNEGX1, DFFSR (R, S active low, both -> Q=0), LATCH."""
    qp = qn = qsr = ql = 0
    prev_clk = 0
    out = []
    for clk, d, r, s in script:
        if clk and not prev_clk:
            qp = d
        if prev_clk and not clk:
            qn = d
        if not r:
            qsr = 0
        elif not s:
            qsr = 1
        elif clk and not prev_clk:
            qsr = d
        if clk:
            ql = d
        prev_clk = clk
        out.append((qp, qn, qsr, ql))
    return out


@needs_lib
def test_models_under_verilator(lib, tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("no C++ compiler")
    comb = sorted(n for n, c in lib.cells.items() if c.combinational)
    tri = [n for n in comb if any(lib.cells[n].pins[p].three_state
                                  for p in lib.cells[n].outputs)]
    assert tri == ["TBUFX1", "TBUFX2"]
    (tmp_path / "cells.v").write_text(cell_models.verilog_models(lib))
    (tmp_path / "tb.v").write_text(_tb(lib, comb, SEQ))
    exe = verilator_build(str(tmp_path), [str(tmp_path / "cells.v"), str(tmp_path / "tb.v")],
                          "tb", binary=True)
    import subprocess
    out = subprocess.run([exe], cwd=tmp_path, capture_output=True, text=True,
                         timeout=60).stdout
    lines = [ln.split() for ln in out.splitlines() if ln[:2] in ("C ", "S ")]
    checked = set()
    for ln in lines:
        if ln[0] != "C":
            continue
        name, k, got = ln[1], int(ln[2]), ln[3:]
        c = lib.cells[name]
        env = {p: (k >> j) & 1 for j, p in enumerate(c.inputs)}
        for o, g in zip(c.outputs, got):
            pin = c.pins[o]
            if pin.three_state and _py_eval(pin.three_state, env):
                # Verilator is two-state: an undriven (z) net reads 0
                assert g.lower() in ("z", "0"), (name, env, g)
                continue
            want = _py_eval(pin.function, env)
            assert g == str(want), (name, o, env, g, want)
            if name in KNOWN and KNOWN[name] is not None:
                assert want == KNOWN[name](**env)
            if name == "FAX1":
                total = env["A"] + env["B"] + env["C"]
                assert want == {"YS": total & 1, "YC": total >> 1}[o]
        checked.add(name)
    assert checked == set(comb)
    seq = [tuple(int(x) for x in ln[2:6]) for ln in lines if ln[0] == "S"]
    assert seq == _reference(SEQ)
