"""`termwise power --part row|slice`: the representative part of a tile (one PE row, the full
tile's pipeline; the slice, a quarter of its windows), the `auto` rule, the module-by-module scaling by synthesised area on a
hand-made record (numbers worked out below), the exact leakage from cell counts, the real
MACs of the whole tile; and (make test-all) the part estimate of baseline-4x4 against the
whole tile's simulated figure."""

import math
import os
import shutil
from types import SimpleNamespace

import pytest

from termwise.gen.config import preset
from termwise.synth.power.part import (ROW_ABOVE_CELLS, ROW_MAX_BUFFER_BITS,
                                       SLICE_WINDOW_DIVISOR, PartError, choose_mode,
                                       mac_scale, module_areas, module_scales, part_config,
                                       row_buffer_bits, scale_by_kind, static_by_module,
                                       whole_real_macs)
from termwise.synth.tools import DEFAULT_LIBERTY

TOP = "t_f4"
PTOP = "t_f1"


def test_part_is_one_filter_with_the_whole_tiles_pipeline():
    s = preset("stripes-16x16")
    p = part_config(s)
    assert s.pe_stages == 1 and p.pe_stages == 1        # 256 PEs: derived 1
    # the part alone (16 PEs) would derive 0: the value is given explicitly
    assert preset("stripes-16x16").replace(filters=1).pe_stages == 0
    assert p.filters == 1
    for f in ("arch", "windows", "lanes", "act_bits", "wgt_bits", "acc_bits", "depth"):
        assert getattr(p, f) == getattr(s, f), f
    b = part_config(preset("baseline-4x4"))
    assert b.top_name == "termwise_baseline_f1w1l4_a8w8_acc24_d64" and b.pe_stages == 0


def test_slice_is_a_quarter_of_the_rows_windows():
    lac = preset("laconic-16x16")
    sl = part_config(lac, "slice")
    assert (sl.filters, sl.windows, sl.pe_stages) == (1, 16, lac.pe_stages)
    for f in ("arch", "lanes", "act_bits", "wgt_bits", "acc_bits", "depth"):
        assert getattr(sl, f) == getattr(lac, f), f
    assert sl.name == "laconic-16x16-slice" and part_config(lac).name == "laconic-16x16-row"
    # the row is the part it always was: the slice option leaves it alone
    assert part_config(lac).windows == 64 and part_config(lac, "row") == part_config(lac)
    # MAC slots per cycle: filters for a row, filters x the windows' divisor for a slice
    assert mac_scale(lac, part_config(lac)) == 16
    assert mac_scale(lac, sl) == 16 * SLICE_WINDOW_DIVISOR == 64
    with pytest.raises(PartError, match="windows do not divide"):
        part_config(preset("baseline-4x4"), "slice")       # one window
    with pytest.raises(ValueError):
        part_config(lac, "whole")


def test_row_buffer_bits_hand_count():
    # 16 rows (depth) of 64 windows x 16 lanes x 16 bits: laconic-16x16, too big to build
    assert row_buffer_bits(preset("laconic-16x16")) == 16 * 64 * 16 * 16 == 262_144
    assert row_buffer_bits(preset("loom-16x16")) > ROW_MAX_BUFFER_BITS
    # the largest row that built: the 8-bit Loom tile termwise report measures (per-column
    # fc weights), 32 rows deep (its windows) of 32 windows x 16 lanes x 8 bits
    from termwise.golden.netsim import sim_config
    loom8 = sim_config("loom", 8, "columns")
    assert (loom8.depth, loom8.windows, loom8.lanes, loom8.act_bits) == (32, 32, 16, 8)
    assert row_buffer_bits(loom8) == 32 * 32 * 16 * 8 == ROW_MAX_BUFFER_BITS
    # the 16-window 16-bit rows (stripes-16x16: 16 x 16 x 16 x 16), and the slice's
    assert row_buffer_bits(preset("stripes-16x16")) == 65_536
    assert row_buffer_bits(part_config(preset("laconic-16x16"), "slice")) == 65_536


def test_auto_rule():
    assert choose_mode("auto", 71_089) == "whole"              # baseline-4x4
    assert choose_mode("auto", 518_340) == "whole"             # loom-4x4, the largest 4x4
    assert choose_mode("auto", 1_298_944) == "row"             # baseline-16x16
    assert choose_mode("auto", ROW_ABOVE_CELLS) == "whole"
    assert choose_mode("auto", ROW_ABOVE_CELLS + 1) == "row"
    assert choose_mode("auto", None) == "whole"
    assert choose_mode("row", 10) == "row" and choose_mode("whole", 10**7) == "whole"


def _asic(top, modules):
    return {"modules": {top + s: {"instances": n, "area_um2": a} for s, (n, a) in
                        modules.items()}}


# A 4-filter tile and its 1-filter part: PEs replicated (4 vs 1 instance), a weight buffer
# 4x as wide, a shared activation buffer and controller whose area grows a little.
WHOLE = _asic(TOP, {"": (1, 120.0), "__pe": (4, 100.0), ".act_buffer": (1, 500.0),
                    ".wgt_buffer": (1, 800.0), "__wrap": (1, 60.0), ".array": (1, 0.0)})
PART = _asic(PTOP, {"": (1, 100.0), "__pe": (1, 100.0), ".act_buffer": (1, 500.0),
                    ".wgt_buffer": (1, 200.0), "__wrap": (1, 40.0), ".array": (1, 0.0)})


def test_scaling_by_module_area_hand_made():
    scales = module_scales(module_areas(WHOLE, TOP), module_areas(PART, PTOP))
    assert {s: m["scale"] for s, m in scales.items()} == {
        "": 1.2, "__pe": 4.0, ".act_buffer": 1.0, ".wgt_buffer": 4.0, "__wrap": 1.5,
        ".array": 0.0}
    assert scales["__pe"]["kind"] == "pe_lanes" and scales[".wgt_buffer"]["kind"] == "buffers"
    dyn = {"": {"internal_w": 1.0, "switching_w": 0.5},
           "__pe": {"internal_w": 2.0, "switching_w": 1.0},
           ".act_buffer": {"internal_w": 3.0, "switching_w": 0.0},
           ".wgt_buffer": {"internal_w": 1.0, "switching_w": 1.0},
           "__wrap": {"internal_w": 0.2, "switching_w": 0.2}}
    static = {"": {"leakage_w": 0.01, "cells": 12}, "__pe": {"leakage_w": 0.04, "cells": 40},
              ".act_buffer": {"leakage_w": 0.05, "cells": 50},
              ".wgt_buffer": {"leakage_w": 0.08, "cells": 80},
              "__wrap": {"leakage_w": 0.006, "cells": 6}}
    by_kind, factors = scale_by_kind(dyn, scales, static)
    # pe_lanes: (2 + 1) x 4 = 12 W dynamic, leakage the whole tile's own
    pe = by_kind["pe_lanes"]
    assert (pe["internal_w"], pe["switching_w"], pe["leakage_w"], pe["cells"]) == \
        (8.0, 4.0, 0.04, 40)
    assert math.isclose(pe["total_w"], 12.04)
    # buffers: act 3 x 1 + wgt 2 x 4 = 11 W; their kind factors: 11 / 5 dynamic, 1300 / 700
    buf = by_kind["buffers"]
    assert math.isclose(buf["internal_w"], 7.0) and math.isclose(buf["switching_w"], 4.0)
    assert math.isclose(factors["buffers"]["dynamic_scale"], 11 / 5)
    assert math.isclose(factors["buffers"]["area_ratio"], 1300 / 700)
    assert math.isclose(by_kind["control_glue"]["internal_w"], 1.2)
    assert math.isclose(by_kind["io_wrapper"]["switching_w"], 0.3)
    # .array has no cells in either: no kind row (encoders absent), no factor
    assert "encoders" not in by_kind and "encoders" not in factors
    total = sum(v["total_w"] for v in by_kind.values())
    assert math.isclose(total, 1.8 + 12 + 11 + 0.6 + 0.186)   # leakage 0.186


def test_a_module_the_part_lacks_is_an_error_not_zero():
    part = _asic(PTOP, {"": (1, 100.0), "__pe": (1, 100.0), ".act_buffer": (1, 500.0),
                        "__wrap": (1, 40.0), ".array": (1, 0.0)})
    with pytest.raises(PartError, match="wgt_buffer"):
        module_scales(module_areas(WHOLE, TOP), module_areas(part, PTOP))
    part = _asic(PTOP, {"": (1, 100.0), "__pe": (1, 0.0), ".act_buffer": (1, 500.0),
                        ".wgt_buffer": (1, 200.0), "__wrap": (1, 40.0), ".array": (1, 0.0)})
    with pytest.raises(PartError, match="__pe"):
        module_scales(module_areas(WHOLE, TOP), module_areas(part, PTOP))
    extra = _asic(PTOP, {"": (1, 100.0), "__pe": (1, 100.0), ".act_buffer": (1, 500.0),
                         ".wgt_buffer": (1, 200.0), "__wrap": (1, 40.0), ".array": (1, 0.0),
                         ".extra": (1, 5.0)})
    with pytest.raises(PartError, match="extra"):
        module_scales(module_areas(WHOLE, TOP), module_areas(extra, PTOP))


def test_exact_leakage_from_cell_counts():
    lib = SimpleNamespace(cells={"INVX1": SimpleNamespace(leakage=2.0),
                                 "DFFPOSX1": SimpleNamespace(leakage=10.0)},
                          units=SimpleNamespace(leakage_w=1e-9))
    stat = {"modules": {
        "\\" + TOP + "__pe": {"num_cells_by_type": {"INVX1": 3, "DFFPOSX1": 1}},
        "\\" + TOP: {"num_cells_by_type": {"INVX1": 1, TOP + "__pe": 4}}}}
    asic = _asic(TOP, {"": (1, 1.0), "__pe": (4, 1.0)})
    got = static_by_module(stat, asic, TOP, lib)
    assert got["__pe"]["cells"] == 16 and math.isclose(got["__pe"]["leakage_w"], 4 * 16e-9)
    assert got[""]["cells"] == 1 and math.isclose(got[""]["leakage_w"], 2e-9)


def test_whole_tiles_real_macs():
    # 8 output channels: 8 one-filter runs on the part, 1 run of 16 filters (half padding)
    # on the whole tile, per position: the whole tile does 8x the part's real MACs
    assert whole_real_macs(1000, 16, part_slots=8 * 64, whole_slots=16 * 64) == 8000
    # no filter padding: filters x the part's
    assert whole_real_macs(1000, 4, part_slots=4 * 64, whole_slots=4 * 64) == 4000
    # a slice (1 filter, 4 of 16 windows) of a 4-filter tile: scale 16. A layer of one
    # output channel at 6 positions, 64 MACs each (384): 2 runs on the slice (512 slots,
    # 75% real), 1 run of 4 filters x 16 windows on the whole tile (4,096 slots, 9.4%
    # real). In the cycles the slice issues S slots (0.75 S real) the whole tile issues
    # 16 S, 1.5 S real: 2x the slice's
    assert whole_real_macs(1000, 16, part_slots=1 * 8 * 64, whole_slots=4 * 16 * 64) == 2000


#: Largest allowed difference of the part's estimate from the whole tile's simulated total
#: (measured: baseline-4x4 -0.7% with random operands).
TOLERANCE = 0.03
#: The same per kind of the datapath (measured: within 0.5% with random operands).
KIND_TOLERANCE = 0.05
#: The slice's datapath kinds against the whole tile's (measured on laconic-4x4 with random
#: operands, 2000 cycles: PE lanes +3.0%, adder trees +8.6%, accumulators +5.7%, encoders
#: -3.4%; the buffers, 64% of the power, +0.0%; total +1.7%).
SLICE_KIND_TOLERANCE = 0.12

needs_sta = pytest.mark.skipif(not (shutil.which("sta") and os.path.exists(DEFAULT_LIBERTY)),
                               reason="OpenSTA or the OSU018 liberty missing")


def _part_against_whole(name, part, *, cycles, seed, kinds, kind_tolerance, macs_scale):
    """The ``part`` estimate of preset ``name`` against its whole tile's own simulation
    (random operands): total within :data:`TOLERANCE`, ``kinds`` each within
    ``kind_tolerance``, leakage and cell counts exact, ``macs_scale`` x the part's MACs."""
    from termwise.synth.power.flow import power_report
    kw = dict(cycles=cycles, seed=seed, clock_mhz=None, clock_ns=10.0, liberty=None,
              cache_root=None, use_cache=True, precision=None, log=lambda m: None)
    whole = power_report(preset(name), part="whole", **kw)
    est = power_report(preset(name), part=part, **kw)
    assert whole["method"]["mode"] == "whole" and est["method"]["mode"] == part
    assert est["clock"]["mhz"] == whole["clock"]["mhz"] == whole["synthesis"]["fmax_mhz"]
    w, e = whole["power_w"], est["power_w"]
    assert abs(e["total"] / w["total"] - 1) < TOLERANCE
    assert math.isclose(e["leakage"], w["leakage"], rel_tol=1e-9)     # exact, not scaled
    for k in kinds:
        assert abs(est["by_kind_w"][k]["total_w"] / whole["by_kind_w"][k]["total_w"] - 1) \
            < kind_tolerance, k
        assert est["by_kind_w"][k]["cells"] == whole["by_kind_w"][k]["cells"], k
    assert est["activity"]["whole_tile"]["macs_issued"] == \
        macs_scale * est["activity"]["macs_issued"]
    assert est["method"]["macs"]["macs_issued"] == \
        macs_scale * est["method"]["macs"]["part_macs_issued"]
    assert est["energy"]["peak_macs_per_cycle"] == whole["energy"]["peak_macs_per_cycle"]
    return whole, est


@pytest.mark.synth
@needs_sta
def test_row_estimate_of_baseline_4x4_close_to_whole():
    """Several minutes cold (the part's synthesis and two gate-level model builds)."""
    _, row = _part_against_whole("baseline-4x4", "row", cycles=600, seed=3,
                                 kinds=("pe_lanes", "buffers", "adder_tree", "accumulators"),
                                 kind_tolerance=KIND_TOLERANCE, macs_scale=4)
    assert row["energy"]["peak_macs_per_cycle"] == 16


@pytest.mark.synth
@needs_sta
def test_slice_estimate_of_laconic_4x4_close_to_whole():
    """About 25 minutes cold on 2 cores (laconic-4x4's whole-tile model builds in 20)."""
    # 4 filters x 16 windows against 1 x 4: the whole tile issues 16x the slice's MACs
    whole, sl = _part_against_whole(
        "laconic-4x4", "slice", cycles=2000, seed=1,
        kinds=("pe_lanes", "adder_tree", "accumulators", "encoders"),
        kind_tolerance=SLICE_KIND_TOLERANCE, macs_scale=16)
    assert sl["part"]["config"]["windows"] == 4
    assert abs(sl["by_kind_w"]["buffers"]["total_w"] / whole["by_kind_w"]["buffers"]["total_w"]
               - 1) < 0.01


@pytest.mark.parametrize("name", ["stripes-16x16", "laconic-4x4", "baseline-4x4",
                                  "pragmatic-4x4"])
def test_lowered_slots_are_the_lowerings_runs(name):
    """The MAC slots from the lowered shape equal those of the lowering's own runs (every
    run's k x filters x windows), on layers of every kind (depthwise, strided, grouped,
    1x1 in depth chunks, fc) and on digits-cnn's."""
    from termwise.golden.lowering import lower_layer
    from termwise.golden.workloads import load_workload
    from termwise.synth.power.part_report import lowered_slots
    from layer_kinds import layers_of_every_kind
    cfg = preset(name)
    layers = layers_of_every_kind() + load_workload("digits-cnn", 8, log=None).layers
    for layer in layers:
        want = sum(int(r.k) for r in lower_layer(cfg, layer)[0]) * cfg.filters * cfg.windows
        assert lowered_slots(cfg, layer) == want, layer.name
