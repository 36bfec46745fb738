"""The lowering of convolutions onto tile runs, checked against the direct convolution."""

import numpy as np
import pytest

from termwise.gen.config import preset
from termwise.golden.cycles import run_cycles
from termwise.golden.lowering import (DEFAULT_DEPTHWISE, DEFAULT_ORDER, DEPTHWISE_MAPPINGS,
                                     ORDERS, assemble_conv2d, conv_k_index,
                                     conv_lowered_shape, conv_mac_mask, conv_operands,
                                     lower_conv2d, lower_matmul, pack_depthwise)
from termwise.golden.primitives import conv2d_direct
from termwise.golden.tile_model import tile_outputs


@pytest.mark.parametrize("depthwise", DEPTHWISE_MAPPINGS)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("name", ["baseline-4x4", "stripes-4x4", "stripes-16x16"])
@pytest.mark.parametrize("channels, filters, geometry", [
    (8, 8, dict(stride=1, padding=1, dilation=1, groups=1)),
    (5, 8, dict(stride=1, padding=1, dilation=1, groups=1)),   # C not a multiple of lanes
    (8, 8, dict(stride=2, padding=0, dilation=1, groups=1)),
    (6, 8, dict(stride=1, padding=2, dilation=2, groups=2)),   # 3 channels per group
    (8, 8, dict(stride=1, padding=1, dilation=1, groups=8)),   # depthwise
    (20, 20, dict(stride=1, padding=1, dilation=1, groups=20)),  # depthwise, a partial tile group
    (18, 36, dict(stride=2, padding=1, dilation=1, groups=18)),  # depthwise, multiplier 2
])
def test_lowered_conv_equals_direct(name, channels, filters, geometry, order, depthwise):
    cfg = preset(name).replace(depth=4)  # force several K chunks
    rng = np.random.default_rng(0)
    x = rng.integers(-100, 100, (2, channels, 7, 6))
    w = rng.integers(-100, 100, (filters, channels // geometry["groups"], 3, 3))
    lowering = lower_conv2d(cfg, x, w, order=order, depthwise=depthwise, **geometry)
    assert lowering.order == order and lowering.depthwise == depthwise
    assert lowering.packed == (depthwise == "diagonal" and geometry["groups"] == channels)
    results = [tile_outputs(cfg, r.act, r.wgt) for r in lowering.runs]
    assert np.array_equal(assemble_conv2d(lowering, results), conv2d_direct(x, w, **geometry))


def _bricks_per_window(lowering, cfg):
    """Bricks of one window: the K of every chunk of the first window and filter group (of
    every group)."""
    first = [r for r in lowering.runs if r.rows[0] == 0 and r.cols[0] == 0]
    return sum(r.k for r in first) // cfg.lanes


def test_position_order_is_the_papers_brick_count():
    """Issue 14, point 3: a 3x3 layer with 24 channels on a 16-lane tile has
    ceil(24/16) * 9 = 18 bricks per window in the papers' (default) order, 14 =
    ceil(216/16) in the channel-major im2col order."""
    cfg = preset("stripes-16x16").replace(depth=32)
    rng = np.random.default_rng(3)
    x = rng.integers(0, 100, (1, 24, 5, 5))
    w = rng.integers(-100, 100, (16, 24, 3, 3))
    default = lower_conv2d(cfg, x, w, padding=1)
    assert default.order == DEFAULT_ORDER == "position"
    assert _bricks_per_window(default, cfg) == 18
    assert _bricks_per_window(lower_conv2d(cfg, x, w, padding=1, order="channel"), cfg) == 14
    assert len(conv_k_index(24, 3, 3, 16)) == 18 * 16
    # Fully-connected layers are unaffected: K is the input vector.
    act, wgt = x.reshape(1, -1)[:, :216], w.reshape(16, -1)
    assert lower_matmul(cfg, act, wgt)[0].k == 14 * 16
    with pytest.raises(ValueError, match="brick order"):
        lower_conv2d(cfg, x, w, order="row")


def test_position_brick_holds_one_kernel_positions_channels():
    """A hand-checkable step: 3 channels, a 2x2 kernel, 4 lanes. Brick b of a window holds
    the 3 channels at kernel position b (row-major) and one padding zero; the channel-major
    row instead starts with channel 0 at all four positions."""
    cfg = preset("baseline-4x4")
    x = np.arange(1, 1 + 3 * 3 * 3).reshape(1, 3, 3, 3)          # x[0, c, h, w] = 9c+3h+w+1
    w = np.arange(1, 1 + 4 * 3 * 2 * 2).reshape(4, 3, 2, 2)
    run = lower_conv2d(cfg, x, w).runs[0]                          # window 0: (oh, ow) = (0, 0)
    assert run.k == 4 * 4
    bricks = run.act[0].reshape(4, 4)
    for b, (i, j) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1)]):
        assert bricks[b].tolist() == [x[0, 0, i, j], x[0, 1, i, j], x[0, 2, i, j], 0]
        assert run.wgt[2].reshape(4, 4)[b].tolist() == [w[2, 0, i, j], w[2, 1, i, j],
                                                        w[2, 2, i, j], 0]
    assert bricks[0].tolist() == [1, 10, 19, 0]
    # Every brick of the index holds a single kernel position (column % (R*S)).
    idx = conv_k_index(3, 2, 2, 4).reshape(-1, 4)
    assert [sorted({int(c) % 4 for c in b if c >= 0}) for b in idx] == [[0], [1], [2], [3]]
    # Channel order: the first brick is channel 0 at (0,0), (0,1), (1,0), (1,1).
    chan = lower_conv2d(cfg, x, w, order="channel").runs[0]
    assert chan.k == 12 and chan.act[0, :4].tolist() == [1, 2, 4, 5]


def test_weights_reused_across_window_groups():
    cfg = preset("baseline-4x4")
    runs = lower_matmul(cfg, np.ones((10, 20), int), np.ones((6, 20), int))
    assert [r.same_weights_as_previous for r in runs].count(False) == 2  # two filter groups
    assert all(r.k == 20 for r in runs) and len(runs) == 2 * 10


def test_cycle_model():
    b, s, d = preset("baseline-4x4"), preset("stripes-4x4"), preset("dstripes-4x4")
    act, wgt = np.zeros((8, 40), int), np.zeros((4, 40), int)
    assert run_cycles(b, act[:1], wgt) == 11
    assert run_cycles(s, act, wgt, s.runtime_values(5)) == 52
    assert run_cycles(s, act[:, :0], wgt[:, :0], s.runtime_values(5)) == 1
    with pytest.raises(ValueError):
        s.runtime_values(9)
    # Dynamic Stripes: a zero step takes 1 cycle; a step with a 5 (signed: 4 bits) takes 4.
    act[3, 6] = 5
    assert run_cycles(d, act, wgt) == 9 * 1 + 4 + 2


def _depthwise(channels, multiplier=1, size=6, kernel=3, seed=32):
    rng = np.random.default_rng(seed)
    x = rng.integers(-100, 100, (1, channels, size, size))
    w = rng.integers(-100, 100, (channels * multiplier, 1, kernel, kernel))
    w[w == 0] = 1                           # the only zero weights are the packing's
    return x, w


def test_depthwise_default_is_channel_diagonal():
    """Issue 14, point 4: a 32-channel depthwise 3x3 layer on a 16-lane tile lowers to 2 tile
    groups of 16 channels x 9 bricks per window (was 32 groups of one filter), so the
    baseline's cycles drop 16x; the old mapping stays as depthwise="group"."""
    cfg = preset("baseline-16x16").replace(depth=32)
    x, w = _depthwise(32)
    low = lower_conv2d(cfg, x, w, padding=1, groups=32)
    assert DEFAULT_DEPTHWISE == low.depthwise == "diagonal" and low.packed
    assert len(low.groups) == 2 and _bricks_per_window(low, cfg) == 2 * 9
    assert all(len(r.cols) == 16 and (r.cols >= 0).all() for r in low.runs)
    old = lower_conv2d(cfg, x, w, padding=1, groups=32, depthwise="group")
    assert len(old.groups) == 32 and _bricks_per_window(old, cfg) == 32 * 9
    assert [(r.cols >= 0).sum() for r in old.runs] == [1] * len(old.runs)
    new_cycles = sum(run_cycles(cfg, r.act, r.wgt) for r in low.runs)
    old_cycles = sum(run_cycles(cfg, r.act, r.wgt) for r in old.runs)
    steps = 36 * 9 * 2                       # windows x bricks x tile groups, one per cycle
    assert new_cycles - len(low.runs) == steps
    assert old_cycles - len(old.runs) == 16 * steps
    with pytest.raises(ValueError, match="^depthwise mapping must be one of diagonal, group, "
                                         "got 'rows'$"):
        lower_conv2d(cfg, x, w, padding=1, groups=32, depthwise="rows")


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("multiplier", [1, 2])
def test_depthwise_weight_bricks_are_block_diagonal(multiplier, order):
    """Tile filter f of a tile group carries the kernel of the group's channel f // m at
    that channel's lane and zeros elsewhere; the activation bricks hold 16 channels at one
    kernel position (position order). C = 20: the second tile group has 4 real channels,
    the rest padding channels and filters."""
    cfg = preset("baseline-16x16").replace(depth=32)
    m = multiplier
    x, w = _depthwise(20, m)
    low = lower_conv2d(cfg, x, w, padding=1, groups=20, order=order)
    kg = 16 * m
    assert low.group_filters == kg and len(low.groups) == 2
    a, wm = conv_operands(x, w, padding=1, groups=20, lanes=16, order=order)
    assert a.shape == (2, 36, 144) and wm.shape == (2, kg, 144)
    assert conv_lowered_shape(20 * m, 1, 3, 3, 20, 16, order) == (2, kg, 144)
    for t in range(2):
        for j in range(kg):
            f = t * kg + j                    # the layer's filter, or padding from 20 m on
            wf = wm[t, j].reshape(9, 16) if order == "position" else wm[t, j].reshape(16, 9).T
            lane = j // m
            if f < 20 * m:
                assert wf[:, lane].tolist() == w[f, 0].ravel().tolist()
            assert not np.delete(wf, lane, axis=1).any() and (f < 20 * m or not wf.any())
    if order == "position":                   # brick (r, s) of a window: 16 channels
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        bricks = a[1, 0].reshape(9, 16)
        for b in range(9):
            i, j = divmod(b, 3)
            assert bricks[b].tolist() == xp[0, 16:20, i, j].tolist() + [0] * 12
    mask = conv_mac_mask(20 * m, 1, 3, 3, 20, 16, order)
    assert mask.shape == (2, kg, 144)
    assert int(mask.sum()) == 20 * m * 9                # one lane x R x S per real filter
    assert not wm[~mask].any() and (wm[mask] != 0).all()
    # The dense grouped convolution pack_depthwise gives is the layer (padding filters 0).
    xp, wp, t = pack_depthwise(x, w, 20, 16)
    assert t == 2 and xp.shape == (1, 32, 6, 6) and wp.shape == (32 * m, 16, 3, 3)
    dense = conv2d_direct(xp, wp, padding=1, groups=2)
    assert np.array_equal(dense[:, :20 * m], conv2d_direct(x, w, padding=1, groups=20))
    assert not dense[:, 20 * m:].any()
    # The old mapping's mask is per column: 1 lane of 16 at each kernel position.
    group = conv_mac_mask(20 * m, 1, 3, 3, 20, 16, order, "group")
    assert group.shape == (1, 1, {"position": 144, "channel": 9}[order])
    assert int(group.sum()) == 9


def _reference_runs(cfg, act, wgt):
    """The runs of ``act`` (M, K) x ``wgt`` (N, K) written out as loops, a reference
    independent of golden.lowering: K padded to whole bricks and cut into chunks of at most
    ``depth`` bricks; per chunk, filter groups; per filter group, window groups (inner);
    each block zero-padded, -1 marking padding rows and columns; a run reuses the previous
    run's weights when both are of one chunk and filter group."""
    m, k = act.shape
    n = wgt.shape[0]
    k_pad = -(-k // cfg.lanes) * cfg.lanes
    runs, previous = [], None
    for chunk, k0 in enumerate(range(0, k_pad, cfg.depth * cfg.lanes)):
        k1 = min(k0 + cfg.depth * cfg.lanes, k_pad)
        for n0 in range(0, n, cfg.filters):
            for m0 in range(0, m, cfg.windows):
                a = np.zeros((cfg.windows, k1 - k0), dtype=np.int64)
                w = np.zeros((cfg.filters, k1 - k0), dtype=np.int64)
                rows = [r if r < m else -1 for r in range(m0, m0 + cfg.windows)]
                cols = [c if c < n else -1 for c in range(n0, n0 + cfg.filters)]
                for i, r in enumerate(rows):
                    if r >= 0:
                        a[i, :min(k1, k) - k0] = act[r, k0:min(k1, k)]
                for j, c in enumerate(cols):
                    if c >= 0:
                        w[j, :min(k1, k) - k0] = wgt[c, k0:min(k1, k)]
                runs.append((a, w, rows, cols, chunk, previous == (chunk, n0)))
                previous = (chunk, n0)
    return runs


@pytest.mark.parametrize("name", ["baseline-4x4", "stripes-4x4", "laconic-4x4",
                                  "stripes-16x16"])
def test_runs_listed_and_built_on_demand_are_the_reference(name):
    """Every run of a layer's lowering, listed (``lower_layer``) and built when indexed
    (``lazily``: golden.lowering.LazyRuns), equals the loops of :func:`_reference_runs`
    over each lowered group's operands, field by field and in order (depthwise, strided,
    grouped, 1x1 in depth chunks and fc layers); the spans count each group's runs."""
    from layer_kinds import layers_of_every_kind
    from termwise.golden.lowering import conv_operands, lower_layer
    cfg = preset(name)
    for layer in layers_of_every_kind():
        if layer.kind == "conv":
            a, wm = conv_operands(layer.act, layer.wgt, stride=layer.stride,
                                  padding=layer.padding, dilation=layer.dilation,
                                  groups=layer.groups, lanes=cfg.lanes)
            groups = [_reference_runs(cfg, a[g], wm[g]) for g in range(a.shape[0])]
        else:
            groups = [_reference_runs(cfg, layer.act, layer.wgt)]
        want = [r for g in groups for r in g]
        spans = [(sum(map(len, groups[:g])), len(groups[g]), g) for g in range(len(groups))]
        for lazily in (False, True):
            runs, got_spans = lower_layer(cfg, layer, lazily=lazily)
            assert len(runs) == len(want) and got_spans == spans, (layer.name, lazily)
            for i, (a, w, rows, cols, chunk, same) in enumerate(want):
                run = runs[i]
                assert (run.chunk, run.same_weights_as_previous) == (chunk, same), \
                    (layer.name, i)
                assert np.array_equal(run.act, a) and np.array_equal(run.wgt, w), \
                    (layer.name, i)
                assert list(run.rows) == rows and list(run.cols) == cols, (layer.name, i)
