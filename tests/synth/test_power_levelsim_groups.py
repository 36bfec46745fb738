"""Instance-parallel simulation of replicated modules (synth/power/levelsim_groups.py)
against the plain levelised simulation of the same netlist (itself checked against
Verilator's SAIF, tests/synth/test_power_levelsim.py): the outputs every cycle, and every
net's toggle count and time at 1, inside the instances and out."""

from collections import defaultdict

import numpy as np
import pytest

from termwise.synth.netlist import parse_netlist
from termwise.synth.power.cells import read_library
from termwise.synth.power.compute import flatten
from termwise.synth.power.levelsim import LevelSim
from termwise.synth.power.levelsim_groups import Group, replicated_instances
from termwise.synth.tools import DEFAULT_LIBERTY

from gate_netlists import NETLIST, module_text as _module

#: 70 instances: two words, the second partly used
COPIES = 70


def _top(copies: int = COPIES) -> str:
    """``many``: ``copies`` of ``tiny`` whose inputs are the top's ports, constants, the
    previous instance's registered output (a chain) and its combinational ``w`` (a path
    through every instance's ports in one phase: a round per crossing), and a shared AND of
    two instances' outputs."""
    decls = ["input clk", "input [3:0] a", "input [3:0] b", "input en", "output [3:0] y0",
             "output wl", "output q3", "output [1:0] zl", "wire clk", "wire [3:0] a",
             "wire [3:0] b", "wire en", "wire [3:0] y0", "wire wl", "wire q3", "wire [1:0] zl",
             "wire mix"]
    cells = [("AND2X1", "shared_and", {"A": "q_1", "B": "w_2", "Y": "mix"})]
    for k in range(copies):
        decls += [f"wire [3:0] y_{k}", f"wire q_{k}", f"wire [1:0] z_{k}", f"wire w_{k}"]
        a = "a" if k % 3 == 0 else f"y_{k - 1}"
        b = "4'b1010" if k % 5 == 1 else ("{b[3:1], mix}" if k % 7 == 3 else "b")
        en = "1'b1" if k % 11 == 4 else ("en" if k % 4 == 0 else f"w_{k - 1}")
        cells.append(("tiny", f"u{k}", {"clk": "clk", "a": a, "b": b, "en": en,
                                        "y": f"y_{k}", "q": f"q_{k}", "z": f"z_{k}",
                                        "w": f"w_{k}"}))
    top = _module("many(clk, a, b, en, y0, wl, q3, zl)", decls, cells)
    top = top.replace("endmodule\n", f"  assign y0 = y_0;\n  assign wl = w_{copies - 1};\n"
                      f"  assign q3 = q_3;\n  assign zl = z_{copies - 1};\nendmodule\n")
    return NETLIST + top


@pytest.fixture(scope="module")
def lib():
    return read_library(DEFAULT_LIBERTY)


def _sims(lib, text):
    mods = {m.name: m for m in parse_netlist(text)}
    port = lambda p, w: [((), p, k) for k in range(w)]           # noqa: E731
    ins = port("a", 4) + port("b", 4) + port("en", 1)
    outs = port("y0", 4) + port("wl", 1) + port("q3", 1) + port("zl", 2)
    groups = replicated_instances(mods, "many", lib)
    sims = []
    for g in ((), groups):
        leaves, uf, names, _ = flatten(text, "many", lib)
        sims.append((LevelSim(leaves, uf, lib, ins, ((), "clk", 0), outs, groups=g), names))
    return sims, groups


def test_chooses_the_outermost_replicated_module(lib):
    mods = {m.name: m for m in parse_netlist(_top())}
    groups = replicated_instances(mods, "many", lib)
    # `sub` is in every `tiny` too: part of it, not a group of its own
    assert groups == [("tiny", [f"u{k}" for k in range(COPIES)])]
    assert replicated_instances(mods, "many", lib, min_instances=COPIES + 1) == []
    # a module holding a macro is not one (its words are per instance): its parts may be
    assert replicated_instances(mods, "many", lib, macros={"DFFNEGX1"}) == [
        ("sub", [f"u{k}/m" for k in range(COPIES)])]


def test_same_simulation_as_every_instance_alone(lib):
    (plain, names), (grouped, _) = _sims(lib, _top())[0]
    assert [g.n for g in grouped.groups] == [COPIES] and not plain.groups
    assert len(grouped.nets) - grouped._shared > 5 * COPIES     # nets inside instances
    rows = np.random.default_rng(11).random((250, 9)) < 0.5
    assert (plain.run(rows) == grouped.run(rows)).all()
    plain.close()
    grouped.close()
    pa, ga = plain.activity(), grouped.activity()
    assert pa.halves == ga.halves == 500
    where = {root: i for i, root in enumerate(grouped.nets)}
    assert set(where) == set(plain.nets) and len(where) == len(plain.nets)   # every net
    inside = 0
    for i, root in enumerate(plain.nets):
        j = where[root]
        assert (pa.tc[i], pa.t1[i]) == (ga.tc[j], ga.t1[j]), names.get(root)
        inside += j >= grouped._shared
    assert inside > 5 * COPIES and pa.tc.sum() > 10_000


def test_counters_flush_every_255_phases(lib):
    """The vertical counters hold 255 phases: runs of 127, 128 and 300 cycles (254, 256
    and 600 phases) count as the plain simulation does."""
    for cycles in (127, 128, 300):
        (plain, _), (grouped, _) = _sims(lib, _top(9))[0]
        rows = np.random.default_rng(cycles).random((cycles, 9)) < 0.5
        plain.run(rows)
        grouped.run(rows)
        pa, ga = plain.activity(), grouped.activity()
        where = {root: i for i, root in enumerate(grouped.nets)}
        order = [where[r] for r in plain.nets]
        assert (pa.tc == ga.tc[order]).all() and (pa.t1 == ga.t1[order]).all(), cycles


def test_differing_instances_are_refused(lib):
    leaves, uf, _, _ = flatten(_top(3), "many", lib)
    by = defaultdict(list)
    for lf in leaves:
        if "/" in lf.path and lf.path.startswith("u"):
            by[lf.path.split("/")[0]].append(lf)
    with pytest.raises(ValueError, match="differs"):
        Group("tiny", [by["u0"], by["u1"][:-1]], uf.find, lib)
