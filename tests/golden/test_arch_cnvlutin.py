"""Hand-computed tests of the Cnvlutin cycle model and zero-free packer
(golden/arch/cnvlutin.py; Albericio et al., ISCA 2016): a run takes the longest lane's
non-zero count (at least 1 cycle) plus RUN_OVERHEAD = 2."""

import numpy as np
import pytest

from termwise.gen.config import TileConfig, preset
from termwise.golden import cycles
from termwise.golden.arch import cnvlutin as cnv


def _cfg(**kw):
    base = dict(arch="cnvlutin", filters=2, windows=2, lanes=4, act_bits=8, wgt_bits=8,
                depth=16)
    base.update(kw)
    return TileConfig(**base)


def test_overhead_is_two():
    assert cnv.RUN_OVERHEAD == 2


def test_all_zero_bricks_take_one_step():
    cfg = _cfg()
    act = np.zeros((2, 5 * 4), np.int64)
    wgt = np.ones((2, 5 * 4), np.int64)
    assert cycles.run_cycles(cfg, act, wgt) == 1 + 2


def test_no_zero_bricks_take_one_step_per_brick():
    cfg = _cfg()
    act = np.arange(1, 2 * 7 * 4 + 1).reshape(2, 7 * 4)
    wgt = np.ones((2, 7 * 4), np.int64)
    assert cycles.run_cycles(cfg, act, wgt) == 7 + 2


def test_one_busy_lane_sets_the_pace():
    # 6 bricks; lane 2 of window 1 has 5 non-zeros, every other lane at most 1.
    cfg = _cfg()
    act = np.zeros((2, 6 * 4), np.int64)
    act[1, [2, 6, 10, 18, 22]] = [3, -1, 7, 1, 2]      # lane 2: bricks 0, 1, 2, 4, 5
    act[0, 0] = act[0, 5] = act[1, 23] = 9              # lanes 0, 1, 3: one each
    assert cnv.lane_counts(cycles.to_bricks(cfg, act)).tolist() == [[1, 1, 0, 0], [0, 0, 5, 1]]
    assert cycles.run_cycles(cfg, act, np.ones((2, 24), np.int64)) == 5 + 2


def test_k_not_multiple_of_lanes_pads_with_zeros():
    cfg = _cfg(windows=1)
    act = np.ones((1, 9), np.int64)                    # bricks 0, 1 full; brick 2: lane 0
    assert cycles.run_cycles(cfg, act, np.ones((2, 9), np.int64)) == 3 + 2


def test_skipping_beats_dense_only_with_zeros():
    """Dense operands cost what the baseline costs plus one cycle; zeros only help."""
    cfg = preset("cnvlutin-4x4")
    rng = np.random.default_rng(0)
    act = rng.integers(1, 128, (1, 64))
    wgt = rng.integers(-128, 128, (4, 64))
    dense = cycles.run_cycles(cfg, act, wgt)
    assert dense == 16 + 2
    act[:, ::2] = 0                                     # lanes 0 and 2 empty
    assert cycles.run_cycles(cfg, act, wgt) == dense
    act[:, 1::4] = 0                                    # only lane 3 left: 16 values
    assert cycles.run_cycles(cfg, act, wgt) == dense
    act[:, 3::8] = 0                                    # lane 3 keeps bricks 1, 3, ...
    assert cycles.run_cycles(cfg, act, wgt) == 8 + 2


def test_pack_zero_free_by_hand():
    bricks = [[0, 4, 0], [-2, 0, 0], [0, 5, 0], [1, 1, 0]]
    assert cnv.pack_zero_free(bricks) == [([-2, 1], [1, 3]), ([4, 5, 1], [0, 2, 3]),
                                          ([], [])]


@pytest.mark.parametrize("seed", range(5))
def test_counts_match_the_packer(seed):
    rng = np.random.default_rng(seed)
    act = rng.integers(-3, 4, (3, 9, 4)) * (rng.random((3, 9, 4)) < .5)
    counts = cnv.lane_counts(act)
    for w in range(3):
        assert counts[w].tolist() == [len(v) for v, _ in cnv.pack_zero_free(act[w])]
    cfg = _cfg(windows=3)
    want = max(1, int(counts.max())) + 2
    assert cycles.run_cycles(cfg, act.reshape(3, -1), np.zeros((2, 36), np.int64)) == want


def test_network_simulator_uses_run_cycles():
    """netsim sums run_cycles over the lowered runs (no per-step costs for Cnvlutin)."""
    from termwise.golden.lowering import lower_matmul
    from termwise.golden.netsim import layer_cycles
    cfg = _cfg(depth=2)
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 5, (1, 7, 19)) * (rng.random((1, 7, 19)) < .5)
    w = rng.integers(-4, 5, (1, 3, 19))
    want = sum(cycles.run_cycles(cfg, r.act, r.wgt) for r in lower_matmul(cfg, a[0], w[0]))
    assert layer_cycles(cfg, a, w)["rtl_cycles"] == want


def test_vectorised_layer_cycles_equal_runs():
    """The network simulator's whole-layer path equals run_cycles over the lowered runs."""
    from termwise.golden.lowering import lower_matmul
    from termwise.golden.netsim import layer_cycles
    cfg = _cfg(depth=2, windows=3)
    rng = np.random.default_rng(7)
    a = rng.integers(-4, 5, (2, 11, 23)) * (rng.random((2, 11, 23)) < .4)
    w = rng.integers(-4, 5, (2, 5, 23))
    want = sum(cycles.run_cycles(cfg, r.act, r.wgt)
               for gi in range(2) for r in lower_matmul(cfg, a[gi], w[gi]))
    got = layer_cycles(cfg, a, w)
    assert got["rtl_cycles"] == want
