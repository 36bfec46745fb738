"""Network simulator: the vectorised layer cycles equal the sum over lowered runs of
run_cycles, the ideal work equals potential.total_work, and the CLI rejects bad input."""

import math

import numpy as np
import pytest

from termwise.gen.config import ConfigError, TileConfig, preset
from termwise.golden import potential
from termwise.golden.arch import model
from termwise.golden.cycles import run_cycles
from termwise.golden.lowering import DEPTHWISE_MAPPINGS, ORDERS, lower_conv2d, lower_matmul
from termwise.golden.netsim import (PRESETS, layer_cycles, layer_potential, layer_runtime,
                                    lowered_columns, lowered_operands, available_designs,
                                    design_config)
from termwise.golden.netsim.simulate import layer_stats, lowered_mask
from termwise.golden.workloads import Layer

ARCHS = list(PRESETS)


def _have(design):
    try:
        model(design_config(design).arch if design in PRESETS else design)
        return True
    except ValueError:
        return False


def _small_cfg(design):
    """A small tile of ``design`` (a sim design or an arch) with depth 2 so that layers
    split into several chunks; the design's own options (Pragmatic's encoding, Tactical's
    back end, shape, lookahead, lookaside and encoding) are kept."""
    arch, opts = design, {}
    if design in PRESETS:
        full = design_config(design)
        arch = full.arch
        if arch == "pragmatic":
            opts["encoding"] = full.encoding
        if arch == "tactical":      # back end, connectivity and encoding of the preset
            opts.update({o: getattr(full, o) for o in
                         ("backend", "shape", "lookahead", "lookaside", "encoding")})
    opts.update({"loom": {"serial_bits": 2}}.get(arch, {}))
    return TileConfig(arch=arch, filters=3, windows=4, lanes=4, act_bits=8, wgt_bits=8,
                      depth=2, **opts)


def _layers(rng):
    def ints(shape, lo, hi):
        return rng.integers(lo, hi + 1, size=shape)
    x = ints((2, 6, 7, 6), -20, 100) * (rng.random((2, 6, 7, 6)) < 0.6)
    return [
        Layer("conv3x3", "conv", x, ints((7, 6, 3, 3), -128, 127), 8, stride=1, padding=1),
        Layer("conv_s2", "conv", x, ints((4, 3, 3, 3), -30, 30), 8, stride=2, padding=1,
              groups=2),
        Layer("dw", "conv", x, ints((6, 1, 3, 3), -128, 127), 8, padding=1, groups=6),
        Layer("pw", "conv", x, ints((9, 6, 1, 1), -3, 3), 8),
        Layer("fc", "fc", ints((3, 37), -128, 127), ints((10, 37), -128, 127), 8),
        Layer("dw_m2", "conv", x, ints((12, 1, 3, 3), -128, 127), 8, stride=2, padding=1,
              groups=6),                                   # depthwise, channel multiplier 2
    ]


def _reference_cycles(cfg, layer, rt, order="position", depthwise="diagonal"):
    if layer.kind == "fc":
        runs = lower_matmul(cfg, layer.act, layer.wgt)
    else:
        runs = lower_conv2d(cfg, layer.act, layer.wgt, stride=layer.stride,
                            padding=layer.padding, groups=layer.groups, order=order,
                            depthwise=depthwise).runs
    return sum(run_cycles(cfg, r.act, r.wgt, rt) for r in runs), len(runs)


@pytest.mark.parametrize("depthwise", DEPTHWISE_MAPPINGS)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("arch", ARCHS)
def test_vectorised_cycles_equal_lowered_runs(arch, order, depthwise):
    if not _have(arch):
        pytest.skip(f"no golden model for {arch} yet")
    rng = np.random.default_rng(5)
    cfg = _small_cfg(arch)
    for layer in _layers(rng):
        a, wm = lowered_operands(layer, order, cfg.lanes, depthwise)
        rt = layer_runtime(cfg, layer)
        ref, nruns = _reference_cycles(cfg, layer, rt, order, depthwise)
        for block in (1 << 22, 37):            # one block, and many small blocks
            got = layer_cycles(cfg, a, wm, rt, block_elems=block)
            assert got["runs"] == nruns, layer.name
            assert got["rtl_cycles"] == ref, (arch, layer.name)
            assert got["cycles"] == ref - model(cfg.arch).RUN_OVERHEAD * nruns
            assert not got["sampled"]


@pytest.mark.parametrize("order", ORDERS)
def test_lowered_operands_match_lowering(order):
    rng = np.random.default_rng(1)
    cfg = _small_cfg("baseline")
    layer = _layers(rng)[1]                  # 3 channels per group, 4 lanes
    a, wm = lowered_operands(layer, order, cfg.lanes)
    low = lower_conv2d(cfg, layer.act, layer.wgt, stride=2, padding=1, groups=2, order=order)
    n_first = low.groups[1][0]
    run = low.runs[0]
    assert a.shape[0] == 2 and wm.shape[0] == 2
    assert a.shape[2] == {"position": 9 * 4, "channel": 27}[order]
    np.testing.assert_array_equal(run.act, a[0, :cfg.windows, :run.k])
    np.testing.assert_array_equal(low.runs[n_first].wgt[:wm.shape[1]],
                                  wm[1, :cfg.filters, :run.k])
    cols = lowered_columns(layer, order, cfg.lanes)
    assert len(cols) == a.shape[2] and (cols < 0).sum() == {"position": 9, "channel": 0}[order]
    assert not a[..., cols < 0].any() and not wm[..., cols < 0].any()
    chan, _ = lowered_operands(layer, "channel")
    np.testing.assert_array_equal(a[..., cols >= 0], chan[..., cols[cols >= 0]])


def test_sampling_is_deterministic_and_exact_for_baseline():
    rng = np.random.default_rng(2)
    cfg = _small_cfg("baseline")
    layer = _layers(rng)[0]
    a, wm = lowered_operands(layer)
    rt = layer_runtime(cfg, layer)
    full = layer_cycles(cfg, a, wm, rt)
    s1 = layer_cycles(cfg, a, wm, rt, max_window_groups=5)
    s2 = layer_cycles(cfg, a, wm, rt, max_window_groups=5)
    assert s1["sampled"] and s1 == s2
    assert s1["cycles"] == full["cycles"]      # value-independent design: scaling is exact


@pytest.mark.parametrize("depthwise", DEPTHWISE_MAPPINGS)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("design", potential.DESIGNS)
def test_potential_equals_total_work(design, order, depthwise):
    """The ideal work is potential's per-MAC work on the lowered rows (groups = bricks),
    summed over the layer's MACs only: the position order's padding zeros, and a packed
    depthwise layer's block-diagonal zeros and padding filters, count nothing."""
    rng = np.random.default_rng(3)
    cfg = preset(PRESETS[design]).replace(depth=16) if design in PRESETS else None
    for layer in _layers(rng):
        a, wm = lowered_operands(layer, order, cfg.lanes, depthwise)
        valid = lowered_mask(layer, order, cfg.lanes, depthwise)
        rt = layer_runtime(cfg, layer)
        got = layer_potential(cfg, a, wm, rt, valid=valid)
        enc = cfg.encoding if design == "pragmatic" else "booth"
        ref = sum(int((potential.mac_work(a[g][:, None, :], wm[g][None, :, :], design,
                                          act_bits=16, wgt_bits=16, act_signed=True,
                                          encoding=enc, act_precision=rt["precision"],
                                          wgt_precision=rt["wgt_precision"],
                                          group=16) * valid[min(g, len(valid) - 1)]).sum())
                  for g in range(a.shape[0]))
        assert got == ref, (design, layer.name)
        if valid.shape[:2] == (1, 1):       # a per-column mask: the 1-D form counts the same
            assert got == layer_potential(cfg, a, wm, rt, valid=valid[0, 0])
        if design in ("baseline", "stripes"):   # value-independent work: MACs x bits
            assert got == layer.macs * 16 * (16 if design == "baseline" else rt["precision"])


def _c24_layer():
    """A 3x3 layer with 24 channels: ceil(24/16) * 9 = 18 bricks per window in the papers'
    order, ceil(216/16) = 14 in the channel-major one."""
    rng = np.random.default_rng(24)
    x = rng.integers(0, 100, (1, 24, 6, 6)) * (rng.random((1, 24, 6, 6)) < 0.7)
    return Layer("c24", "conv", x, rng.integers(-50, 50, (16, 24, 3, 3)), 16, padding=1)


def test_simulate_brick_order():
    """Issue 14, point 3: the simulator lowers convolutions in the papers' brick order by
    default (18 baseline steps per window here, 14 in the channel order); the ideal work is
    the same MACs in both orders for the value-independent designs."""
    from termwise.golden.netsim import simulate_layers
    layer = _c24_layer()
    archs = ["baseline", "stripes", "dstripes"]
    pos = simulate_layers([layer], archs, workers=1)[0].designs
    chan = simulate_layers([layer], archs, order="channel", workers=1)[0].designs
    assert simulate_layers([layer], archs, order="position", workers=1)[0].designs["baseline"][
        "cycles"] == pos["baseline"]["cycles"]
    assert pos["baseline"]["cycles"] == 36 * 18 and chan["baseline"]["cycles"] == 36 * 14
    assert pos["stripes"]["cycles"] * 14 == chan["stripes"]["cycles"] * 18
    for d in ("baseline", "stripes"):
        assert pos[d]["work"] == chan[d]["work"]
    assert pos["baseline"]["work"] == layer.macs * 16 * 16
    assert pos["dstripes"]["cycles"] != chan["dstripes"]["cycles"] * 18 // 14
    with pytest.raises(ValueError, match="brick order"):
        simulate_layers([layer], archs, order="rows", workers=1)


def test_available_designs_reports_missing():
    ok, missing = available_designs(["baseline", "stripes"])
    assert ok == ["baseline", "stripes"] and not missing


def test_reports_end_to_end(tmp_path):
    import json
    from termwise.golden.netsim import simulate_layers
    from termwise.gen.flows.reports.sim import summarise, write_reports
    rng = np.random.default_rng(4)
    archs = [a for a in ARCHS if _have(a)]
    layers = _layers(rng)[2:]
    results = simulate_layers(layers, archs, sample_pairs=1 << 16)
    rows, total = summarise(results, archs)
    assert total["baseline"]["speedup"] == 1.0
    doc = {"workload": "tiny", "precision": 8, "synthetic": True, "notes": ["synthetic"],
           "brick_order": "position", "brick_order_text": "one kernel position's channels",
           "designs": {a: {"preset": PRESETS[a]} for a in archs}, "encodings": {},
           "sampling": "test", "layers": rows, "total": total}
    write_reports(str(tmp_path), doc, plots=False)
    back = json.loads((tmp_path / "sim.json").read_text())
    assert set(back["total"]) == set(archs)
    assert "speedup" in back["total"]["stripes"] and "ideal" in back["total"]["stripes"]
    assert (tmp_path / "sim.csv").read_text().count("\n") == len(layers) + 2
    md = (tmp_path / "sim.md").read_text()
    assert "equal peak throughput" in md
    assert "- Brick order: `position` (one kernel position's channels)." in md


def test_parallel_layers_equal_sequential():
    """Forked workers give the same results, in layer order, as one process."""
    from termwise.golden.netsim import simulate_layers
    layers = _layers(np.random.default_rng(6))
    archs = ["baseline", "stripes", "pragmatic"]
    seen = []
    one = simulate_layers(layers, archs, sample_pairs=1 << 14, workers=1)
    two = simulate_layers(layers, archs, sample_pairs=1 << 14, workers=2,
                          progress=lambda i, n, layer, s: seen.append((i, layer.name)))
    assert seen == [(i + 1, layer.name) for i, layer in enumerate(layers)]
    for a, b in zip(one, two):
        assert a.name == b.name and a.stats == b.stats
        for d in archs:
            assert {k: v for k, v in a.designs[d].items() if k != "seconds"} == \
                   {k: v for k, v in b.designs[d].items() if k != "seconds"}


def _full_width_8bit_layer():
    """An 8-bit conv layer whose activations need all 8 bits (-128 present), 16 output
    windows (a multiple of every 8-bit preset's window count) and 9 bricks of 16 lanes."""
    rng = np.random.default_rng(14)
    x = rng.integers(-128, 128, size=(1, 16, 4, 4))
    x[0, 0, 0, 0] = -128
    w = rng.integers(-128, 128, size=(16, 16, 3, 3))
    return Layer("full8", "conv", x, w, 8, padding=1)


def test_8bit_values_run_on_8bit_hardware():
    """Issue 14: an 8-bit layer runs on the -16x16-8b presets. Stripes at the layer's full
    8-bit precision then has ideal speedup 1.00 over the 8-bit baseline (not the width
    ratio 16/8 = 2.00 of a 16-bit baseline) and the baseline's cycles at equal peak."""
    from termwise.gen.flows.reports.sim import summarise
    from termwise.golden.netsim import design_preset, hardware_bits, simulate_layers
    layer = _full_width_8bit_layer()
    assert hardware_bits([layer]) == 8
    archs = ["baseline", "stripes"]
    res = simulate_layers([layer], archs, workers=1)
    assert res[0].designs["stripes"]["rt"]["precision"] == 8
    _, tot = summarise(res, archs)
    assert tot["stripes"]["ideal"] == 1.0
    assert tot["stripes"]["cycles"] == tot["baseline"]["cycles"]
    assert tot["stripes"]["speedup"] == 1.0
    base = preset(design_preset("baseline", 8))
    assert tot["baseline"]["cycles"] == 16 * 9 * math.ceil(16 / base.filters)
    # The same layer on the 16-bit presets (what --precision 8 ran on before): the
    # speedup is the width ratio, not a property of the data.
    _, wide = summarise(simulate_layers([layer], archs, bits=16, workers=1), archs)
    assert wide["stripes"]["ideal"] == 2.0 and wide["stripes"]["speedup"] == 2.0


def test_design_config_by_width():
    from termwise.golden.netsim import PRESETS, PRESETS_BY_BITS, design_preset, hardware_bits
    for design in PRESETS:
        assert design_config(design) == design_config(design, 16) == preset(PRESETS[design])
        cfg = design_config(design, 8)
        assert cfg.act_bits == 8 and cfg.name == design_preset(design, 8) == \
            PRESETS_BY_BITS[design][8]
        assert cfg.arch == design_config(design).arch
    with pytest.raises(ValueError, match="no 4-bit preset"):
        design_config("stripes", 4)
    with pytest.raises(ValueError, match="unknown termwise sim design"):
        design_preset("nope", 8)
    layers = _layers(np.random.default_rng(1))
    with pytest.raises(ValueError, match="layers of different widths"):
        hardware_bits(layers + [Layer("w16", "fc", np.ones((1, 4), int), np.ones((2, 4), int),
                                      16)])


def _dw_layer(channels=20, multiplier=1, bits=16, seed=20, size=6, kernel=3, stride=1):
    """A depthwise layer whose channel count is not a multiple of 16 (a partial tile group),
    post-ReLU-like activations (a third zero) of mixed widths."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 100, (1, channels, size, size)) * (rng.random((1, channels, size, size))
                                                          < 2 / 3)
    x[:, ::3] //= 16                                 # narrower channels: group widths differ
    w = rng.integers(-60, 60, (channels * multiplier, 1, kernel, kernel))
    return Layer(f"dw_c{channels}_m{multiplier}", "conv", x, w, bits, stride=stride,
                 padding=kernel // 2, groups=channels)


@pytest.mark.parametrize("multiplier", [1, 2])
@pytest.mark.parametrize("arch", ARCHS)
def test_depthwise_rtl_cycles_equal_lowered_runs(arch, multiplier):
    """Issue 14, point 4: on every design's 16x16 preset (16 lanes), a depthwise layer of 20
    channels (channel multiplier 1 and 2) packed channel-diagonally: rtl_cycles equals the
    sum of run_cycles over the runs lower_conv2d gives, and so does the old mapping."""
    if not _have(arch):
        pytest.skip(f"no golden model for {arch} yet")
    cfg = design_config(arch).replace(depth=4)        # 9 bricks per window: several chunks
    layer = _dw_layer(multiplier=multiplier)
    rt = layer_runtime(cfg, layer)
    for depthwise in DEPTHWISE_MAPPINGS:
        a, wm = lowered_operands(layer, "position", cfg.lanes, depthwise)
        assert a.shape[0] == {"diagonal": 2, "group": 20}[depthwise]
        ref, nruns = _reference_cycles(cfg, layer, rt, "position", depthwise)
        got = layer_cycles(cfg, a, wm, rt)
        assert (got["runs"], got["rtl_cycles"]) == (nruns, ref), (arch, depthwise)


def test_depthwise_32_channels_baseline_cycles_drop_16x():
    """Issue 14, point 4: a 32-channel depthwise 3x3 layer on the 16-lane baseline: 2 tile
    groups x 9 bricks per window (one brick a cycle), 16 times fewer cycles than one group
    per channel, for the same ideal work (the layer's MACs)."""
    from termwise.golden.netsim import simulate_layers
    layer = _dw_layer(channels=32)
    new = simulate_layers([layer], ["baseline"], workers=1)[0].designs["baseline"]
    old = simulate_layers([layer], ["baseline"], depthwise="group",
                          workers=1)[0].designs["baseline"]
    assert new["cycles"] == 36 * 2 * 9 and old["cycles"] == 16 * new["cycles"]
    assert new["work"] == old["work"] == layer.macs * 16 * 16
    with pytest.raises(ValueError, match="^depthwise mapping must be one of diagonal, group"):
        simulate_layers([layer], ["baseline"], depthwise="packed", workers=1)


@pytest.mark.parametrize("order", ORDERS)
def test_depthwise_ideal_is_a_property_of_the_layer(order):
    """The ideal work of every design on a depthwise layer is the same in both mappings
    (the block-diagonal zeros and padding filters are not MACs), and for the designs whose
    work per MAC depends on each value alone it is the per-column count of the old mapping
    (potential.total_work on one group per channel)."""
    from termwise.golden.netsim import simulate_layers
    archs = [a for a in ARCHS if _have(a)]
    for layer in (_dw_layer(), _dw_layer(multiplier=2, stride=2, seed=3),
                  _dw_layer(channels=40, kernel=5, bits=8, seed=4)):
        res = {d: simulate_layers([layer], archs, order=order, depthwise=d,
                                  workers=1)[0].designs for d in DEPTHWISE_MAPPINGS}
        for a in archs:
            assert res["diagonal"][a]["work"] == res["group"][a]["work"], (a, layer.name)
        assert res["diagonal"]["baseline"]["work"] == layer.macs * layer.bits ** 2
        for a in ("baseline", "stripes", "pragmatic", "laconic", "cnvlutin", "zstripes"):
            cfg = design_config(a, layer.bits)
            a_g, wm_g = lowered_operands(layer, order, cfg.lanes, "group")
            per_column = lowered_columns(layer, order, cfg.lanes, "group") >= 0
            rt = layer_runtime(cfg, layer)
            assert res["diagonal"][a]["work"] == layer_potential(cfg, a_g, wm_g, rt,
                                                                 valid=per_column), a


def test_depthwise_stats_and_traffic_are_about_the_layer():
    """The group precision statistic skips the bricks a packing fills with padding channels
    only (channel order, 4 real channels in the second tile group), and the output traffic
    counts the layer's outputs, not the padding filters'."""
    from termwise.golden.netsim import layer_output_traffic
    from termwise.golden.work import grouped_precision
    layer = _dw_layer()                                   # 20 channels: 16 + 4 real
    a, _ = lowered_operands(layer, "channel", 16, "diagonal")
    mask = lowered_mask(layer, "channel", 16, "diagonal")
    assert a.shape == (2, 36, 144) and not a[1, :, 36:].any()   # 4 x 9 real columns
    stats = layer_stats(layer, a, 16, 16, valid=mask)
    gp = grouped_precision(a, 16, layer.act_signed, 16)[..., ::16]   # (2, 36, 9 bricks)
    real = np.concatenate([gp[0].ravel(), gp[1, :, :3].ravel()])  # bricks holding a channel
    assert stats["act_group_precision_mean"] == pytest.approx(real.mean())
    assert stats["act_group_precision_mean"] > float(gp.mean())
    cfg = design_config("baseline")
    for order, chunks in (("position", 1), ("channel", 1)):
        for depthwise in DEPTHWISE_MAPPINGS:
            t = layer_output_traffic(layer, cfg, 16, order, depthwise)
            assert t["outputs"] == 20 * 36 and t["chunks"] == chunks
    assert layer_output_traffic(layer, cfg, 16, "channel", "diagonal")["depth_needed"] == 9
    assert layer_output_traffic(layer, cfg, 16, "channel", "group")["depth_needed"] == 1
    assert layer_output_traffic(layer, cfg.replace(depth=4), 16)["chunks"] == 3


def test_utilisation_per_layer():
    """sim.md's utilisation: the layer's MACs over the baseline's MAC slots under the
    mapping: 1/16 of the 16x16 baseline on a 32-channel depthwise layer packed
    channel-diagonally (one lane of 16 per filter row), 1/256 with one group per channel."""
    from termwise.gen.flows.reports.sim import summarise
    from termwise.golden.netsim import simulate_layers
    layer = _dw_layer(channels=32)
    for depthwise, util in (("diagonal", 1 / 16), ("group", 1 / 256)):
        rows, total = summarise(simulate_layers([layer], ["baseline"], depthwise=depthwise,
                                                workers=1), ["baseline"])
        assert rows[0]["utilisation"] == util == total["baseline"]["utilisation"]
