"""The clock network estimate (synth/power/clock_tree.py) against a hand count from the
OSU018 liberty: sinks by kind, the tree's levels, its capacitance, the CLKBUF1 internal
energy read by hand from its tables, and the report record with and without the buffers."""

import math
import os

import pytest

from termwise.synth.power.cells import read_library
from termwise.synth.power.clock_tree import (clock_network, clock_sinks, report_record,
                                              tree_max_load)

LIB = "/usr/share/qflow/tech/osu018/osu018_stdcells.lib"
pytestmark = pytest.mark.skipif(not os.path.exists(LIB), reason="needs qflow-tech-osu018")

# From osu018_stdcells.lib (read by hand): DFFPOSX1 CLK and CLKBUF1 A capacitance (pF),
# CLKBUF1 Y max_capacitance, leakage (nW); its A->Y rise/fall energy (pJ) at loads
# 1.2 and 3 pF (rows) and input transitions 0.06 and 0.24 ns (columns).
DFF_CLK, BUF_A, BUF_MAX, BUF_LEAK = 0.0279235, 0.0373913, 1.95928, 0.352221
RISE = {(1.2, 0.06): 0.235402, (1.2, 0.24): 0.259609, (3, 0.06): 0.234015,
        (3, 0.24): 0.260022}
FALL = {(1.2, 0.06): 0.355302, (1.2, 0.24): 0.388239, (3, 0.06): 0.355385,
        (3, 0.24): 0.388522}
RISE_SMALL = {(0.5, 0.06): 0.234501, (0.5, 0.24): 0.258663, (1.2, 0.06): 0.235402,
              (1.2, 0.24): 0.259609}
FALL_SMALL = {(0.5, 0.06): 0.35517, (0.5, 0.24): 0.38778, (1.2, 0.06): 0.355302,
              (1.2, 0.24): 0.388239}


def _bilinear(t, load, slew):
    (l0, l1), (s0, s1) = sorted({k[0] for k in t}), sorted({k[1] for k in t})
    fs = (slew - s0) / (s1 - s0)
    r0 = t[(l0, s0)] + (t[(l0, s1)] - t[(l0, s0)]) * fs
    r1 = t[(l1, s0)] + (t[(l1, s1)] - t[(l1, s0)]) * fs
    return r0 + (r1 - r0) * (load - l0) / (l1 - l0)


@pytest.fixture(scope="module")
def lib():
    return read_library(LIB)


def test_tree_for_1000_flops(lib):
    """1000 DFFPOSX1 clock pins: 27.92 pF, 15 leaf buffers (1.96 pF each at most), one root
    driving their 15 inputs (0.56 pF); 100 MHz at 1.8 V."""
    assert tree_max_load(LIB) == BUF_MAX
    sink = 1000 * DFF_CLK
    net = clock_network(sink, lib, 100e6, max_load=BUF_MAX)
    assert net["levels"] == [15, 1] and net["buffers"] == 16
    assert net["pins_w"] == pytest.approx(sink * 1e-12 * 1.8 ** 2 * 100e6)
    leaf, root = sink / 15, 15 * BUF_A
    e_leaf = _bilinear(RISE, leaf, 0.1) + _bilinear(FALL, leaf, 0.1)
    e_root = _bilinear(RISE_SMALL, root, 0.1) + _bilinear(FALL_SMALL, root, 0.1)
    tree = ((16 * BUF_A * 1.8 ** 2 + 15 * e_leaf + e_root) * 1e-12 * 100e6
            + 16 * BUF_LEAK * 1e-9)
    assert net["tree_w"] == pytest.approx(tree, rel=1e-9)
    assert net["total_w"] == pytest.approx(net["pins_w"] + tree)
    assert net["sink_cap_pf"] == pytest.approx(sink)
    # a single sink: one buffer
    assert clock_network(DFF_CLK, lib, 1e6, max_load=BUF_MAX)["levels"] == [1]


def test_sinks_by_kind_and_record(lib):
    """A tile of 3 PEs (4 flops each), a buffer of 10 flops and a wrapper of 2 flops, one
    latch in the controller; kinds from synth/kinds.py."""
    top = "termwise_x"
    stat = {"modules": {
        f"\\{top}": {"num_cells_by_type": {"LATCH": 1, "AND2X2": 5}},
        f"\\{top}__pe": {"num_cells_by_type": {"DFFPOSX1": 4, "FAX1": 8}},
        f"\\{top}.act_buffer": {"num_cells_by_type": {"DFFPOSX1": 10}},
        f"\\{top}__wrap": {"num_cells_by_type": {"DFFPOSX1": 2}}}}
    modules = {top: {"instances": 1}, f"{top}__pe": {"instances": 3},
               f"{top}.act_buffer": {"instances": 1}, f"{top}__wrap": {"instances": 1}}
    latch_clk = lib.cells["LATCH"].pins["CLK"].capacitance
    sinks = clock_sinks(stat, modules, top, lib)
    assert sinks["pe_lanes"]["pins"] == 12
    assert sinks["pe_lanes"]["cap"] == pytest.approx(12 * DFF_CLK)
    assert sinks["buffers"]["pins"] == 10 and sinks["io_wrapper"]["pins"] == 2
    assert sinks["control_glue"]["cap"] == pytest.approx(latch_clk)
    rec = report_record(stat, modules, top, lib, LIB, 50e6)
    tile = 22 * DFF_CLK + latch_clk
    assert rec["tile"]["sink_cap_pf"] == pytest.approx(tile)
    assert rec["without_buffers"]["sink_cap_pf"] == pytest.approx(tile - 10 * DFF_CLK)
    assert rec["tile"]["total_w"] > rec["without_buffers"]["total_w"] > 0
    assert "CLKBUF1" in rec["method"] and not math.isnan(rec["tile"]["tree_w"])


def test_gated_tile_root_net(lib):
    """A gated tile (synth/clock_gating.py's record): 3 PEs whose module holds 2 ICGs
    gating 8 of its flops leave 3 x 8 DFFPOSX1 clock pins off the root net and put 3 x 2
    x (INVX1.A + AND2X2.A) on it."""
    from termwise.synth.power.clock_tree import gated_sinks
    top = "termwise_x"
    modules = {top: {"instances": 1}, f"{top}__pe": {"instances": 3}}
    sinks = {"pe_lanes": {"pins": 30, "cap": 30 * DFF_CLK}}
    gating = {"by_module": {f"{top}__pe": {"icgs": 2, "gated_flops": 8, "flops": 10}}}
    inv_a = lib.cells["INVX1"].pins["A"].capacitance
    and_a = lib.cells["AND2X2"].pins["A"].capacitance
    out = gated_sinks(sinks, gating, modules, top, lib)
    assert out["pe_lanes"]["pins"] == 30 - 24 + 12
    assert out["pe_lanes"]["cap"] == pytest.approx(6 * DFF_CLK + 6 * (inv_a + and_a))
    assert sinks["pe_lanes"]["pins"] == 30          # the input is not changed
