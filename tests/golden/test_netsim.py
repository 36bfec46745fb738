"""Network simulator: the vectorised layer cycles equal the sum over lowered runs of
run_cycles, the ideal work equals potential.total_work, and the CLI rejects bad input."""

import math

import numpy as np
import pytest

from termwise.gen.config import ConfigError, TileConfig, preset
from termwise.golden import potential
from termwise.golden.arch import model
from termwise.golden.cycles import run_cycles
from termwise.golden.lowering import ORDERS, lower_conv2d, lower_matmul
from termwise.golden.netsim import (PRESETS, layer_cycles, layer_potential, layer_runtime,
                                    lowered_columns, lowered_operands, available_designs,
                                    design_config)
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
    ]


def _reference_cycles(cfg, layer, rt, order="position"):
    if layer.kind == "fc":
        runs = lower_matmul(cfg, layer.act, layer.wgt)
    else:
        runs = lower_conv2d(cfg, layer.act, layer.wgt, stride=layer.stride,
                            padding=layer.padding, groups=layer.groups, order=order).runs
    return sum(run_cycles(cfg, r.act, r.wgt, rt) for r in runs), len(runs)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("arch", ARCHS)
def test_vectorised_cycles_equal_lowered_runs(arch, order):
    if not _have(arch):
        pytest.skip(f"no golden model for {arch} yet")
    rng = np.random.default_rng(5)
    cfg = _small_cfg(arch)
    for layer in _layers(rng):
        a, wm = lowered_operands(layer, order, cfg.lanes)
        rt = layer_runtime(cfg, layer)
        ref, nruns = _reference_cycles(cfg, layer, rt, order)
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


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("design", potential.DESIGNS)
def test_potential_equals_total_work(design, order):
    """The ideal work is potential's per-MAC work on the lowered rows (groups = bricks),
    summed over the layer's MACs only: the position order's padding zeros count nothing."""
    rng = np.random.default_rng(3)
    cfg = preset(PRESETS[design]).replace(depth=16) if design in PRESETS else None
    for layer in _layers(rng):
        a, wm = lowered_operands(layer, order, cfg.lanes)
        valid = lowered_columns(layer, order, cfg.lanes) >= 0
        rt = layer_runtime(cfg, layer)
        got = layer_potential(cfg, a, wm, rt, valid=valid)
        enc = cfg.encoding if design == "pragmatic" else "booth"
        ref = sum(int(potential.mac_work(a[g][:, None, :], wm[g][None, :, :], design,
                                         act_bits=16, wgt_bits=16, act_signed=True,
                                         encoding=enc, act_precision=rt["precision"],
                                         wgt_precision=rt["wgt_precision"],
                                         group=16)[..., valid].sum())
                  for g in range(a.shape[0]))
        assert got == ref, (design, layer.name)
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
    from termwise.gen.reports.sim import summarise, write_reports
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
    from termwise.gen.reports.sim import summarise
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
