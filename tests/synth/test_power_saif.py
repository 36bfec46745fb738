"""SAIF reader: on a file captured from Verilator ``--trace-saif`` (fixture), and on one
written at test time by the same tiny design and stimulus, against counts derived by hand."""

import os
import shutil
import subprocess

import pytest

from termwise.synth.power import saif
from termwise.synth.power.gatesim import verilator_build

FIX = os.path.join(os.path.dirname(__file__), "fixtures")

TINY_V = """module sub(input clk, input d, output reg q);
  always @(posedge clk) q <= d;
endmodule
module top(input clk, input [1:0] a, output y, output q);
  wire n;
  assign n = ~(a[0] & a[1]);
  assign y = n;
  sub u(.clk(clk), .d(n), .q(q));
endmodule
"""

# Cycle c = 0..7: a = c & 3 with clk low at t = 10c, clk high at 10c + 5; a dump after every
# eval; the last dump at t = 75 closes the run (DURATION 75, timescale 1 ps).
TINY_CPP = """#include "Vtop.h"
#include "verilated.h"
#include "verilated_saif_c.h"
int main(int argc, char** argv) {
  Verilated::commandArgs(argc, argv);
  Verilated::traceEverOn(true);
  Vtop* t = new Vtop;
  VerilatedSaifC* tfp = new VerilatedSaifC;
  t->trace(tfp, 99);
  tfp->open("dump.saif");
  uint64_t time = 0;
  for (int c = 0; c < 8; c++) {
    t->a = c & 3; t->clk = 0; t->eval(); tfp->dump(time); time += 5;
    t->clk = 1; t->eval(); tfp->dump(time); time += 5;
  }
  tfp->close();
  delete t; return 0;
}
"""


def _check_tiny(s: saif.Saif):
    assert s.duration == 75 and s.timescale_s == pytest.approx(1e-12) and s.divider == "/"
    n = s.nets
    # every level of the hierarchy is there: Verilator's TOP, the design's top, the sub
    assert {"TOP/clk", "TOP/top/n", "TOP/top/u/q", "TOP/top/a[0]", "TOP/top/a[1]"} <= set(n)
    # clk: 0 at t=0, then 15 edges; high 5 of every 10 (the last half period is cut at 75)
    assert (n["TOP/top/clk"].tc, n["TOP/top/clk"].t1, n["TOP/top/clk"].t0) == (15, 35, 40)
    # a[0] follows c & 1: 7 changes; a[1] follows c & 2: 3 changes
    assert n["TOP/top/a[0]"].tc == 7 and n["TOP/top/a[1]"].tc == 3
    # n = !(a0 a1): 0 during c = 3 (t 30-40) and c = 7 (t 70-75): 3 changes in the run,
    # plus Verilator's initial 0 -> 1 at t = 0 (it counts the first value from 0): TC 4
    assert (n["TOP/top/n"].tc, n["TOP/top/n"].t0, n["TOP/top/n"].t1) == (4, 15, 60)
    # the flop's input and the parent's net are one net seen at two levels
    assert n["TOP/top/u/d"] == n["TOP/top/n"]
    assert all(a.tx == 0 and a.tz == 0 for a in n.values())
    assert s.toggle_rate("TOP/top/a[0]") == pytest.approx(7 / 75e-12)
    assert s.duty("TOP/top/clk") == pytest.approx(35 / 75)
    rel = s.rates("TOP/top")
    assert rel["u/d"] == pytest.approx(4 / 75e-12) and "clk" in rel and "TOP/clk" not in rel


def test_parse_captured_fixture():
    with open(os.path.join(FIX, "verilator_tiny.saif"), encoding="utf-8") as f:
        _check_tiny(saif.parse_saif(f.read()))


def test_parse_forms_and_errors():
    text = r"""(SAIFILE (SAIFVERSION "2.0") (DIVIDER . ) (TIMESCALE 10 ns) (DURATION 1000)
      (INSTANCE tb (INSTANCE DFFPOSX1 \r\.0 (PORT (Q (T0 600) (T1 400) (TC 20) (IG 2)))
        (NET (\x\[3\] (T1 1000))))))"""
    s = saif.parse_saif(text)
    assert s.timescale_s == pytest.approx(10e-9) and s.divider == "."
    q = s.nets["tb/r.0/Q"]                       # cell type skipped, escaped dot unescaped
    assert (q.t0, q.t1, q.tc, q.ig) == (600, 400, 20, 2)
    assert s.toggle_rate("tb/r.0/Q") == pytest.approx(20 / 10e-6)
    assert s.nets["tb/r.0/x[3]"].tc == 0 and s.duty("tb/r.0/x[3]") == 1.0
    with pytest.raises(ValueError):
        saif.parse_saif("(SAIFILE (INSTANCE t))")          # no DURATION
    with pytest.raises(ValueError):
        saif.parse_saif("(SAIFILE (DURATION 5)")           # unbalanced


def test_live_verilator_saif(tmp_path):
    """Writes the fixture's SAIF again with the installed Verilator (about 8 s clean, 2 s
    with ccache) and reads it."""
    if shutil.which("g++") is None:
        pytest.skip("no C++ compiler")
    (tmp_path / "top.v").write_text(TINY_V)
    (tmp_path / "main.cpp").write_text(TINY_CPP)
    exe = verilator_build(str(tmp_path), [str(tmp_path / "top.v"), str(tmp_path / "main.cpp")],
                          "top", saif=True)
    subprocess.run([exe], cwd=tmp_path, check=True, timeout=60)
    _check_tiny(saif.read_saif(str(tmp_path / "dump.saif")))


def test_line_reader_equals_whole_parse(tmp_path):
    """``read_saif`` reads Verilator's layout line by line (no text, tokens or tree kept):
    the same nets and counts as the whole parse; another layout falls back to it."""
    path = os.path.join(FIX, "verilator_tiny.saif")
    with open(path, encoding="utf-8") as f:
        whole = saif.parse_saif(f.read())
    lines = saif._read_lines(path)                   # not the fallback: Verilator's layout
    assert (lines.duration, lines.timescale_s, lines.divider) == \
        (whole.duration, whole.timescale_s, whole.divider)
    assert lines.nets == whole.nets and len(lines.nets) > 10
    # an escaped name and a PORT section in the line layout
    text = ("(SAIFILE\n(DIVIDER / )\n(TIMESCALE 1 ns)\n(DURATION 100)\n (INSTANCE TOP\n"
            "  (INSTANCE \\u\\.0\n   (PORT\n    (a\\[1\\] (T0 60) (T1 40) (TZ 0) (TX 0) (TB 0) "
            "(TC 7))\n   )\n  )\n  (NET\n   (b (T0 100) (T1 0) (TC 0))\n  )\n )\n)\n")
    (tmp_path / "l.saif").write_text(text)
    s = saif._read_lines(str(tmp_path / "l.saif"))
    assert s.nets == saif.parse_saif(text).nets
    assert s.nets["TOP/u.0/a[1]"].tc == 7 and s.nets["TOP/b"].t0 == 100
    assert s.timescale_s == pytest.approx(1e-9)
    # one entry over two lines: not the line layout; read_saif parses it whole
    (tmp_path / "w.saif").write_text(text.replace("(TB 0) (TC 7))", "(TB 0)\n (TC 7))"))
    with pytest.raises(saif._NotLineForm):
        saif._read_lines(str(tmp_path / "w.saif"))
    assert saif.read_saif(str(tmp_path / "w.saif")).nets == s.nets
