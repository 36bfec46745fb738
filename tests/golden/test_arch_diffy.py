"""Hand-computed tests of the Diffy golden model (golden/arch/diffy.py): deltas with restart
bits and the predecessor, Booth-term step cycles on the deltas, the restart masks of a
lowered convolution, and the vectorised layer function against the per-run model."""

import numpy as np
import pytest

from termwise.gen.config import TileConfig, preset
from termwise.golden import cycles
from termwise.golden.arch import diffy
from termwise.golden.lowering import lower_conv2d
from termwise.golden.netsim import lowered_operands


def _cfg(**kw):
    base = dict(arch="diffy", filters=1, windows=2, lanes=2, act_bits=8, wgt_bits=8, depth=8)
    base.update(kw)
    return TileConfig(**base)


def _rt(cfg, restart, predecessor=None):
    return dict(cfg.runtime_values(), restart=restart, predecessor=predecessor)


def test_deltas_restart_and_predecessor():
    cfg = _cfg(windows=3)
    act = np.array([[10, 20], [12, 20], [5, 0]]).reshape(3, 1, 2)
    d = diffy.run_deltas(cfg, act, _rt(cfg, 0b000, np.array([9, 25])))
    assert d.reshape(3, 2).tolist() == [[1, -5], [2, 0], [-7, -20]]
    d = diffy.run_deltas(cfg, act, _rt(cfg, 0b101, np.array([9, 25])))
    assert d.reshape(3, 2).tolist() == [[10, 20], [2, 0], [5, 0]]
    # No predecessor (None): window 0 against zero even without restart.
    d = diffy.run_deltas(cfg, act, _rt(cfg, 0b000, None))
    assert d.reshape(3, 2).tolist()[0] == [10, 20]


def test_predecessor_padded_and_truncated_like_the_store():
    cfg = _cfg(windows=1)
    act = np.full((1, 2, 2), 3)
    # A one-value predecessor: zero padded to a brick; the second brick reads 0.
    d = diffy.run_deltas(cfg, act, _rt(cfg, 0, np.array([1])))
    assert d.reshape(-1).tolist() == [2, 3, 3, 3]
    # A longer predecessor is truncated to this run's length.
    d = diffy.run_deltas(cfg, act, _rt(cfg, 0, np.arange(1, 7)))
    assert d.reshape(-1).tolist() == [2, 1, 0, -1]


def test_cycles_by_hand():
    cfg = _cfg(first_stage_bits=2)
    act = np.array([[5, 5], [5, 5]])
    wgt = np.ones((1, 2), np.int64)
    # 5 = 4 + 1: Booth terms at 0 and 2 (two cycles per brick); restart everywhere.
    assert cycles.run_cycles(cfg, act, wgt, _rt(cfg, 0b11)) == 1 + 2
    # Window 1's delta is 0 (1 cycle), window 0 still 5: the step is 2 cycles.
    assert cycles.run_cycles(cfg, act, wgt, _rt(cfg, 0b01)) == 1 + 2
    # With the previous run's last window [5, 5] as predecessor all deltas are 0.
    assert cycles.run_cycles(cfg, act, wgt, _rt(cfg, 0b00, np.array([5, 5]))) == 1 + 1
    # 7 = 8 - 1: terms at 0 and 3 (two cycles with B = 2; with B = 0 too).
    act = np.array([[7, 0], [7, 7]])
    assert cycles.run_cycles(cfg, act, wgt, _rt(cfg, 0b11)) == 1 + 2
    # Window 1's deltas are [0, 7]; window 0 [7, 0]: still 2.
    assert cycles.run_cycles(cfg, act, wgt, _rt(cfg, 0b01)) == 1 + 2
    # Delta -1 (3 - 4) is a single Booth term: 1 cycle; the 9-bit extremes +-255.
    act = np.array([[3, 3], [-128, 127]])
    rt = _rt(cfg, 0b00, np.array([4, 4]))
    d = diffy.run_deltas(cfg, cycles.to_bricks(cfg, act), rt)
    assert d.reshape(2, 2).tolist() == [[-1, -1], [-131, 124]]
    act = np.array([[127, -128], [-128, 127]])
    d = diffy.run_deltas(cfg, cycles.to_bricks(cfg, act), _rt(cfg, 0b01))
    assert d.reshape(2, 2).tolist() == [[127, -128], [-255, 255]]
    # 255 = 256 - 1 (two terms, positions 0 and 8): B = 2 needs two cycles per lane.
    assert int(diffy.step_cycles(cfg, cycles.to_bricks(cfg, np.array([[0, 0], [0, 255]])),
                                 None, _rt(cfg, 0b01))[0]) == 2


def test_steps_sum_over_bricks():
    cfg = _cfg(first_stage_bits=0)
    # Two bricks; brick 1 of both windows is equal: deltas 0 in window 1.
    act = np.array([[1, 4, 85, 85], [1, 4, 85, 85]])
    wgt = np.ones((1, 4), np.int64)
    # 85 = 0b01010101: Booth digits 1,1,1,1 -> 4 terms, 4 cycles with B = 0.
    steps = cycles.step_cycles(cfg, act, wgt, _rt(cfg, 0b01))
    # Brick 0: window 0 [1, 4] -> terms at 0 and 2 (two lanes): B=0 two cycles.
    assert steps.tolist() == [2, 4]
    assert cycles.run_cycles(cfg, act, wgt, _rt(cfg, 0b11)) == 1 + 2 + 4


def test_default_runtime_restarts_window_zero_only():
    cfg = _cfg()
    act = np.array([[6, 6], [6, 6]])
    d = diffy.run_deltas(cfg, cycles.to_bricks(cfg, act), cfg.runtime_values())
    assert d.reshape(2, 2).tolist() == [[6, 6], [0, 0]]


def _lowering(cfg, shape=(1, 3, 5, 7), k=6, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, shape)
    w = rng.integers(-128, 128, (k, shape[1], 3, 3))
    return x, w, lower_conv2d(cfg, x, w, padding=1)


def test_restart_masks_of_a_lowering():
    cfg = preset("diffy-4x4")               # 5 windows, 4 filters
    x, w, low = _lowering(cfg)              # OW = 7, M = 35: 7 window groups, 2 filter groups
    masks = diffy.restart_masks(low)
    assert len(masks) == len(low.runs) == 14
    # Run 0: rows 0..4, row 0 starts the output row.
    assert masks[0] == 0b00001
    # Run 1: rows 5..9, row 7 (ow 0) restarts; row 5 follows row 4 of run 0.
    assert masks[1] == 0b00100
    # Run 7: the second filter group starts again at row 0.
    assert masks[7] == 0b00001
    preds = diffy.predecessors(low)
    assert preds[0] is None and np.array_equal(preds[1], low.runs[0].act[-1])


def test_restart_masks_padding_and_chunks():
    cfg = preset("diffy-4x4").replace(depth=2)     # 3 channels x 9 -> 9 bricks -> 5 chunks
    x, w, low = _lowering(cfg, shape=(1, 3, 3, 3), k=4)   # M = 9: 2 window groups
    masks = diffy.restart_masks(low)
    for run, mask in zip(low.runs, masks):
        for wi, r in enumerate(run.rows):
            if r < 0:
                assert mask >> wi & 1           # padding windows restart
        if run.rows[0] == 0:
            assert mask & 1


@pytest.mark.parametrize("changes,signed", [({}, True), ({"depth": 3}, True),
                                            ({"first_stage_bits": 0}, True), ({}, False),
                                            ({"depth": 3}, False)])
def test_layer_function_equals_per_run_model(changes, signed):
    """``signed``: the runs' act_signed (unsigned: values up to 255, beyond the signed
    range)."""
    cfg = preset("diffy-4x4").replace(**changes)
    rng = np.random.default_rng(3)
    # A smooth image (deltas small) plus noise.
    base = np.cumsum(rng.integers(-3, 4, (2, 3, 6, 9)), axis=3)
    x = np.clip(base + 40, -128, 127) if signed else np.clip(base + 200, 0, 255)
    w = rng.integers(-128, 128, (6, 3, 3, 3))
    low = lower_conv2d(cfg, x, w, padding=1)
    run_rt = cfg.runtime_values(act_signed=signed)
    rts = diffy.run_runtimes(cfg, low, run_rt)
    assert all(rt["act_signed"] is signed for rt in rts)
    per_run = sum(cycles.run_cycles(cfg, r.act, r.wgt, rt) for r, rt in zip(low.runs, rts))

    class Layer:            # what netsim.lowered_operands reads
        kind, groups, stride, padding, dilation = "conv", 1, 1, 1, 1
    layer = Layer()
    layer.act, layer.wgt = x, w
    a, wm = lowered_operands(layer, lanes=cfg.lanes)
    got = diffy.layer_step_cycles(cfg, a, wm, low.out_shape[3])
    assert got["runs"] == len(low.runs)
    assert got["rtl_cycles"] == per_run
    # The channel-major brick order too (the restart masks depend on the rows only).
    low = lower_conv2d(cfg, x, w, padding=1, order="channel")
    rts = diffy.run_runtimes(cfg, low, run_rt)
    per_run = sum(cycles.run_cycles(cfg, r.act, r.wgt, rt) for r, rt in zip(low.runs, rts))
    a, wm = lowered_operands(layer, "channel", cfg.lanes)
    assert diffy.layer_step_cycles(cfg, a, wm, low.out_shape[3])["rtl_cycles"] == per_run


def test_delta_stats_on_a_smooth_image():
    cfg = preset("diffy-4x4")
    a = np.repeat(np.arange(16)[:, np.newaxis] * 7 + 3, 2, axis=1)   # rows 3, 10, 17, ...
    stats = diffy.delta_term_stats(cfg, a, 16)
    # Every delta after the first row is 7 = 8 - 1: two Booth terms.
    assert stats["delta_terms"] == pytest.approx((15 * 2 + 2) / 16)
    assert stats["delta_terms"] < stats["act_terms"]
