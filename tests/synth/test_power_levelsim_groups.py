"""Instance-parallel simulation of replicated modules (synth/power/levelsim_groups.py)
against the plain levelised simulation of the same netlist (itself checked against
Verilator's SAIF, tests/synth/test_power_levelsim.py): the outputs every cycle, and every
net's toggle count and time at 1, inside the instances and out."""

import numpy as np
import pytest

from termwise.synth.netlist import parse_netlist
from termwise.synth.power.cells import read_library
from termwise.synth.power.compute import Flat, _Stubs, flatten, netlist_power
from termwise.synth.power.group_power import GroupPower
from termwise.synth.power.levelsim import LevelSim
from termwise.synth.power.levelsim_groups import flatten_grouped, replicated_instances
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
    """The plain simulation (every instance flattened) with its names, and the grouped
    one (:func:`flatten_grouped`) with its flattening's names and stubs."""
    mods = {m.name: m for m in parse_netlist(text)}
    port = lambda p, w: [((), p, k) for k in range(w)]           # noqa: E731
    ins = port("a", 4) + port("b", 4) + port("en", 1)
    outs = port("y0", 4) + port("wl", 1) + port("q3", 1) + port("zl", 2)
    leaves, uf, names, _ = flatten(text, "many", lib)
    plain = LevelSim(leaves, uf, lib, ins, ((), "clk", 0), outs)
    gl, guf, gnames, stubs, sources = flatten_grouped(mods, "many", lib)
    grouped = LevelSim(gl, guf, lib, ins, ((), "clk", 0), outs, groups=sources)
    return (plain, names, leaves, uf), (grouped, gnames, Flat.of(gl, guf, gnames, stubs))


def _matched(plain, names, grouped, gnames) -> list[tuple[int, int]]:
    """``(plain net, grouped net)`` pairs, by name: every named net of the plain
    simulation found once in the grouped one (all its names on one net)."""
    where = {}
    for j, ns in enumerate(grouped.net_names(gnames)):
        for n in ns:
            where[n] = j
    pairs = []
    for i, root in enumerate(plain.nets):
        found = {where[n] for n in names.get(root, ()) if n in where}
        assert len(found) <= 1, names.get(root)
        if root[0] != "'":
            assert found, names.get(root)
        if found:
            pairs.append((i, found.pop()))
    return pairs


def test_chooses_the_outermost_replicated_module(lib):
    mods = {m.name: m for m in parse_netlist(_top())}
    groups = replicated_instances(mods, "many", lib)
    # `sub` is in every `tiny` too: part of it, not a group of its own
    assert groups == [("tiny", [f"u{k}" for k in range(COPIES)])]
    assert replicated_instances(mods, "many", lib, min_instances=COPIES + 1) == []
    # a module holding a macro is not one (its words are per instance): its parts may be
    assert replicated_instances(mods, "many", lib, macros={"DFFNEGX1"}) == [
        ("sub", [f"u{k}/m" for k in range(COPIES)])]


def test_instances_are_flattened_once(lib):
    (_, _, leaves, _), (grouped, _, flat) = _sims(lib, _top())
    (src,) = [g.source for g in grouped.groups]
    assert src.name == "tiny" and len(src.keys) == COPIES
    # the tile's leaves are the shared AND and none inside an instance
    assert [lf.path for lf in flat.leaves] == ["shared_and"]
    assert len(src.leaves) * COPIES + 1 == len(leaves)


def test_same_simulation_as_every_instance_alone(lib):
    (plain, names, _, _), (grouped, gnames, _) = _sims(lib, _top())
    assert [g.n for g in grouped.groups] == [COPIES] and not plain.groups
    rows = np.random.default_rng(11).random((250, 9)) < 0.5
    assert (plain.run(rows) == grouped.run(rows)).all()
    plain.close()
    grouped.close()
    pa, ga = plain.activity(), grouped.activity()
    assert pa.halves == ga.halves == 500
    pairs = _matched(plain, names, grouped, gnames)
    assert len({j for _, j in pairs}) == len(pairs)         # one to one
    inside = 0
    for i, j in pairs:
        assert (pa.tc[i], pa.t1[i]) == (ga.tc[j], ga.t1[j]), names.get(plain.nets[i])
        inside += j >= grouped._shared
    assert inside > 5 * COPIES and pa.tc.sum() > 10_000
    assert len(pairs) >= len(ga.tc) - 2                     # every net (but constants)


def test_counters_flush_every_255_phases(lib):
    """The vertical counters hold 255 phases: runs of 127, 128 and 300 cycles (254, 256
    and 600 phases) count as the plain simulation does."""
    for cycles in (127, 128, 300):
        (plain, names, _, _), (grouped, gnames, _) = _sims(lib, _top(9))
        rows = np.random.default_rng(cycles).random((cycles, 9)) < 0.5
        plain.run(rows)
        grouped.run(rows)
        pa, ga = plain.activity(), grouped.activity()
        pairs = np.array(_matched(plain, names, grouped, gnames))
        assert (pa.tc[pairs[:, 0]] == ga.tc[pairs[:, 1]]).all(), cycles
        assert (pa.t1[pairs[:, 0]] == ga.t1[pairs[:, 1]]).all(), cycles


def _rates(sim, names, act, d: float, scale: float) -> dict:
    """Every name's rate (transitions a second at the assumed clock), as a SAIF gives."""
    return {n: act.tc[i] / d * scale for i, ns in enumerate(sim.net_names(names))
            for n in ns}


def test_group_power_is_the_flat_power(lib):
    """The replicated modules' power from the grouped counts (group_power.py) equals
    compute.netlist_power on the fully flattened netlist with the plain simulation's
    rates: per module definition and term, in total, and the lookups outside the tables."""
    (plain, names, leaves, uf), (grouped, gnames, flat) = _sims(lib, _top())
    rows = np.random.default_rng(5).random((300, 9)) < 0.5
    plain.run(rows)
    grouped.run(rows)
    plain.close()
    grouped.close()
    pa, ga = plain.activity(), grouped.activity()
    d, scale = pa.halves * 5e-9, 0.7
    want = netlist_power(_top(), "many", lib, _rates(plain, names, pa, d, scale).get,
                         flat=Flat.of(leaves, uf, names, _Stubs()))
    got = netlist_power(_top(), "many", lib, _rates(grouped, gnames, ga, d, scale).get,
                        flat=flat,
                        groups=GroupPower(grouped, ga.tc, d, scale, lib))
    assert want.totals["internal_w"] > 0 and want.totals["switching_w"] > 0
    for k, v in want.totals.items():
        assert got.totals[k] == pytest.approx(v, rel=1e-9), k
    assert got.by_module.keys() == want.by_module.keys()
    for m, w in want.by_module.items():
        for k, v in w.items():
            assert got.by_module[m][k] == pytest.approx(v, rel=1e-9, abs=1e-18), (m, k)
    assert got.port_switching_w == pytest.approx(want.port_switching_w, rel=1e-9)
    assert got.extrapolated == want.extrapolated
