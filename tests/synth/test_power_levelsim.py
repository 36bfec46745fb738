"""The NumPy levelised gate simulation against Verilator's SAIF of the same netlist, cell
models and stimulus: every net's toggle count and time at 1 equal (the independent
reference is Verilator on :mod:`termwise.synth.power.cell_models`)."""

import os
import shutil
import subprocess

import numpy as np
import pytest

from termwise.synth.power.cell_models import verilog_models
from termwise.synth.power.cells import read_library
from termwise.synth.power.compute import flatten
from termwise.synth.power.gatesim import verilator_build
from termwise.synth.power.levelsim import LevelSim, UnsupportedCell
from termwise.synth.power.levels import topological_levels
from termwise.synth.power.model import cells_used
from termwise.synth.power.saif import read_saif
from termwise.synth.tools import DEFAULT_LIBERTY

from gate_netlists import NETLIST, module_text as _module  # noqa: F401

# the stimulus file: one line per cycle, "a b en"; inputs set with the clock low, as the
# tile-run harness does (termwise.synth.power.stimulus)
HARNESS = """#include "Vtiny.h"
#include "verilated.h"
#include "verilated_saif_c.h"
#include <cstdio>
int main(int argc, char** argv) {
  Verilated::traceEverOn(true);
  Vtiny* t = new Vtiny; VerilatedSaifC* tfp = new VerilatedSaifC;
  t->trace(tfp, 99); tfp->open("dump.saif");
  FILE* f = fopen("stim.txt", "r"); unsigned a, b, en; uint64_t time = 0;
  while (fscanf(f, "%u %u %u", &a, &b, &en) == 3) {
    t->a = a; t->b = b; t->en = en; t->clk = 0;
    t->eval(); tfp->dump(time); time += 5;
    t->clk = 1; t->eval(); tfp->dump(time); time += 5;
    printf("%u %u %u %u\\n", t->y, t->q, t->z, t->w);
  }
  tfp->close(); return 0;
}
"""


@pytest.fixture(scope="module")
def lib():
    return read_library(DEFAULT_LIBERTY)


def _sim(lib, text=NETLIST, top="tiny"):
    leaves, uf, names, stubs = flatten(text, top, lib)
    port = lambda p, w: [((), p, k) for k in range(w)]           # noqa: E731
    return LevelSim(leaves, uf, lib, port("a", 4) + port("b", 4) + port("en", 1),
                    ((), "clk", 0), port("y", 4) + port("q", 1) + port("z", 2) + port("w", 1)
                    ), names


def test_matches_verilator_saif(tmp_path, lib):
    if shutil.which("g++") is None:
        pytest.skip("no C++ compiler")
    rng = np.random.default_rng(7)
    rows = [(int(rng.integers(16)), int(rng.integers(16)), int(rng.random() < 0.6))
            for _ in range(300)]
    (tmp_path / "stim.txt").write_text("".join(f"{a} {b} {e}\n" for a, b, e in rows))
    (tmp_path / "cells.v").write_text(verilog_models(lib, cells_used(NETLIST, lib)))
    (tmp_path / "netlist.v").write_text(NETLIST)
    (tmp_path / "main.cpp").write_text(HARNESS)
    exe = verilator_build(str(tmp_path), [str(tmp_path / n) for n in
                                          ("cells.v", "netlist.v", "main.cpp")],
                          "tiny", saif=True)
    out = subprocess.run([exe], cwd=tmp_path, check=True, capture_output=True, text=True)
    saif = read_saif(str(tmp_path / "dump.saif"))

    sim, names = _sim(lib)
    bits = lambda x, w: [(x >> k) & 1 for k in range(w)]        # noqa: E731
    stim = np.array([bits(a, 4) + bits(b, 4) + [e] for a, b, e in rows], dtype=bool)
    outs = sim.run(stim)
    act = sim.activity()
    # the outputs after each rising edge, as the harness printed them
    for line, o in zip(out.stdout.splitlines(), outs):
        y, q, z, w = map(int, line.split())
        assert o.tolist() == [bool(v) for v in bits(y, 4) + [q] + bits(z, 2) + [w]]
    assert act.halves == 599 and saif.duration == 5 * 599
    checked = 0
    for i, root in enumerate(sim.nets):
        for name in names.get(root, []):
            if "/" in name and name.rsplit("/", 1)[0] not in ("m",):   # a cell's pin
                continue
            entry = saif.nets.get(f"TOP/tiny/{name}")
            if entry is None:
                continue
            assert (act.tc[i], act.t1[i] * 5) == (entry.tc, entry.t1), name
            checked += 1
    assert checked >= 30            # every wire of both levels
    assert act.tc.sum() > 1000      # the stimulus moves the design


def test_gated_register_holds(lib):
    """With the gate's enable low the register bank keeps its value; the toggle flop
    flips on a[3] every cycle whatever the enable."""
    sim, _ = _sim(lib)
    one = np.array([1, 0, 1, 0] + [0, 0, 0, 0] + [1], dtype=bool)   # a=5, b=0, en=1
    first = sim.cycle(one)
    assert first[:4].tolist() == [True, False, False, True]       # s = a^b, oai, nand
    held = sim.cycle(np.array([0, 1, 0, 1] + [0, 0, 0, 0] + [0], dtype=bool))
    assert held[:4].tolist() == first[:4].tolist()                 # gated: held
    # a[3] = 1 in the second row: q flips from 0 to 1
    assert (first[4], held[4]) == (False, True)
    # the harness's closing dump: the last phase's values held one more half period
    before = sim.activity()
    sim.close()
    after = sim.activity()
    assert (before.halves, after.halves) == (3, 4)
    assert (after.t1 - before.t1).tolist() == sim.v.astype(int).tolist()
    with pytest.raises(RuntimeError):
        sim.cycle(one)


def test_refuses_async_clear(lib):
    text = NETLIST.replace("DFFPOSX1 tq (\n    .CLK(clk),",
                           "DFFSR tq (\n    .R(en),\n    .S(en),\n    .CLK(clk),")
    assert text != NETLIST
    with pytest.raises(UnsupportedCell, match="DFFSR"):
        _sim(lib, text)


def test_levels_and_loops():
    assert topological_levels([[], [0], [0, 1], []]) == [0, 1, 2, 0]
    with pytest.raises(ValueError, match="loop"):
        topological_levels([[1], [0]])


def test_reset_starts_afresh(lib):
    sim, _ = _sim(lib)
    rows = np.random.default_rng(2).random((40, 9)) < 0.5
    first = sim.run(rows)
    act = sim.activity()
    sim.reset()
    again = sim.run(rows)
    assert (first == again).all()
    assert (sim.activity().tc == act.tc).all() and (sim.activity().t1 == act.t1).all()
