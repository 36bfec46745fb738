"""The lowering of convolutions onto tile runs, checked against the direct convolution."""

import numpy as np
import pytest

from termwise.gen.config import preset
from termwise.golden.cycles import run_cycles
from termwise.golden.lowering import assemble_conv2d, lower_conv2d, lower_matmul
from termwise.golden.primitives import conv2d_direct
from termwise.golden.tile_model import tile_outputs


@pytest.mark.parametrize("name", ["baseline-4x4", "stripes-4x4", "stripes-16x16"])
@pytest.mark.parametrize("geometry", [
    dict(stride=1, padding=1, dilation=1, groups=1),
    dict(stride=2, padding=0, dilation=1, groups=1),
    dict(stride=1, padding=2, dilation=2, groups=2),
    dict(stride=1, padding=1, dilation=1, groups=8),   # depthwise
])
def test_lowered_conv_equals_direct(name, geometry):
    cfg = preset(name).replace(depth=4)  # force several K chunks
    rng = np.random.default_rng(0)
    x = rng.integers(-100, 100, (2, 8, 7, 6))
    w = rng.integers(-100, 100, (8, 8 // geometry["groups"], 3, 3))
    lowering = lower_conv2d(cfg, x, w, **geometry)
    results = [tile_outputs(cfg, r.act, r.wgt) for r in lowering.runs]
    assert np.array_equal(assemble_conv2d(lowering, results), conv2d_direct(x, w, **geometry))


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
