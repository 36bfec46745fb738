"""The lowering of convolutions onto tile runs, checked against the direct convolution."""

import numpy as np
import pytest

from termwise.gen.config import preset
from termwise.golden.cycles import run_cycles
from termwise.golden.lowering import (DEFAULT_ORDER, ORDERS, assemble_conv2d, conv_k_index,
                                     lower_conv2d, lower_matmul)
from termwise.golden.primitives import conv2d_direct
from termwise.golden.tile_model import tile_outputs


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("name", ["baseline-4x4", "stripes-4x4", "stripes-16x16"])
@pytest.mark.parametrize("channels, geometry", [
    (8, dict(stride=1, padding=1, dilation=1, groups=1)),
    (5, dict(stride=1, padding=1, dilation=1, groups=1)),   # C not a multiple of lanes
    (8, dict(stride=2, padding=0, dilation=1, groups=1)),
    (6, dict(stride=1, padding=2, dilation=2, groups=2)),   # 3 channels per group
    (8, dict(stride=1, padding=1, dilation=1, groups=8)),   # depthwise
])
def test_lowered_conv_equals_direct(name, channels, geometry, order):
    cfg = preset(name).replace(depth=4)  # force several K chunks
    rng = np.random.default_rng(0)
    x = rng.integers(-100, 100, (2, channels, 7, 6))
    w = rng.integers(-100, 100, (8, channels // geometry["groups"], 3, 3))
    lowering = lower_conv2d(cfg, x, w, order=order, **geometry)
    assert lowering.order == order
    results = [tile_outputs(cfg, r.act, r.wgt) for r in lowering.runs]
    assert np.array_equal(assemble_conv2d(lowering, results), conv2d_direct(x, w, **geometry))


def _bricks_per_window(lowering, cfg):
    """Bricks of one window: the K of every chunk of the first window and filter group."""
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
