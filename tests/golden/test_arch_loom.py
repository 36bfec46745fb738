"""Hand-computable checks of the Loom golden model (Sharify et al., DAC 2018): a step takes
ceil(Pa / serial_bits) * Pw cycles, Pa the widest activation of the step (sign bit
included, at least 1), Pw the runtime weight precision; a run adds RUN_OVERHEAD = 3."""

import numpy as np
import pytest

from termwise.gen.config import TileConfig
from termwise.golden import cycles
from termwise.golden.arch import loom
from termwise.golden.tile_model import tile_outputs


def _cfg(sb=2, signed=True, **kw):
    base = dict(arch="loom", filters=2, windows=2, lanes=2, act_bits=8, wgt_bits=8,
                act_signed=signed, depth=8, serial_bits=sb)
    base.update(kw)
    return TileConfig(**base)


def test_run_overhead_is_documented_constant():
    assert loom.RUN_OVERHEAD == 3


@pytest.mark.parametrize("sb,pw,expected", [
    # step 0: widest |value| 5 unsigned -> Pa 3; step 1: 200 -> Pa 8; step 2: all zero -> 1
    (1, 8, [3 * 8, 8 * 8, 1 * 8]),
    (2, 8, [2 * 8, 4 * 8, 1 * 8]),
    (4, 3, [1 * 3, 2 * 3, 1 * 3]),
    (2, 1, [2, 4, 1]),
])
def test_unsigned_step_cycles(sb, pw, expected):
    cfg = _cfg(sb, signed=False)
    act = np.array([[5, 1, 200, 0, 0, 0],
                    [0, 4, 3, 17, 0, 0]])          # (windows, K): 3 steps of 2 lanes
    wgt = np.ones((2, 6), np.int64)
    rt = cfg.runtime_values(wgt_precision=pw)
    assert list(cycles.step_cycles(cfg, act, wgt, rt)) == expected
    assert cycles.run_cycles(cfg, act, wgt, rt) == sum(expected) + 3


def test_signed_precision_counts_the_sign_bit():
    cfg = _cfg(2, signed=True)
    rt = cfg.runtime_values(wgt_precision=4)
    wgt = np.zeros((2, 2), np.int64)
    # -1 and 0 need 1 bit -> 1 chunk; 1 and -2 need 2 -> 1 chunk; 2 needs 3 -> 2 chunks;
    # -128 needs 8 -> 4 chunks.
    for value, chunks in ((-1, 1), (0, 1), (1, 1), (-2, 1), (2, 2), (-3, 2), (-128, 4),
                          (127, 4), (-65, 4), (-64, 4), (31, 3)):
        act = np.array([[value, 0], [0, 0]])
        assert list(cycles.step_cycles(cfg, act, wgt, rt)) == [chunks * 4], value


def test_step_takes_the_widest_of_every_window():
    cfg = _cfg(4, signed=False, windows=3)
    act = np.array([[1, 0], [0, 0], [0, 0x90]])     # Pa 8 in window 2 -> 2 chunks
    rt = cfg.runtime_values(wgt_precision=5)
    assert list(cycles.step_cycles(cfg, act, np.zeros((2, 2), np.int64), rt)) == [10]


def test_weights_are_independent_of_cycles():
    """Loom's weight cost is the layer's Pw, not the data: zero weights cost as much."""
    cfg = _cfg(2)
    act = np.array([[7, 7], [7, 7]])
    rt = cfg.runtime_values(wgt_precision=6)
    for wgt in (np.zeros((2, 2), np.int64), np.full((2, 2), -32)):
        assert list(cycles.step_cycles(cfg, act, wgt, rt)) == [2 * 6]


def test_worst_case_matches_config_peak():
    """A full-width step at full Pw costs worst_brick_cycles (the peak-throughput basis)."""
    for sb in (1, 2, 4):
        cfg = _cfg(sb, signed=True)
        act = np.array([[-128, 0], [0, 0]])
        rt = cfg.runtime_values()
        assert list(cycles.step_cycles(cfg, act, np.zeros((2, 2), np.int64), rt)) == \
            [cfg.worst_brick_cycles(8)]


def test_effective_weights_wrap_to_pw_bits():
    cfg = _cfg(2, signed=True)
    act = np.array([[1, 2], [-3, 4]])
    wgt = np.array([[5, -6], [7, 1]])
    # Pw = 3: 5 -> -3, -6 -> 2, 7 -> -1, 1 -> 1 (3-bit two's complement).
    rt = cfg.runtime_values(wgt_precision=3)
    a, w = loom.effective_operands(cfg, act, wgt, rt)
    assert np.array_equal(a, act)
    assert np.array_equal(w, [[-3, 2], [-1, 1]])
    out = tile_outputs(cfg, act, wgt, rt)
    assert np.array_equal(out, [[1 * -3 + 2 * 2, 1 * -1 + 2 * 1],
                                [-3 * -3 + 4 * 2, -3 * -1 + 4 * 1]])
    # Pw = 1: bit 0 is the sign, a weight is 0 or -1.
    rt = cfg.runtime_values(wgt_precision=1)
    assert np.array_equal(loom.effective_operands(cfg, act, wgt, rt)[1], [[-1, 0], [-1, -1]])


def test_padding_lanes_are_zero():
    """K not a multiple of lanes: the padded lanes are zeros and cost nothing extra."""
    cfg = _cfg(2, signed=False, lanes=4)
    act = np.array([[3, 0, 0, 0, 9], [0, 0, 0, 0, 0]])
    rt = cfg.runtime_values(wgt_precision=2)
    assert list(cycles.step_cycles(cfg, act, np.zeros((2, 5), np.int64), rt)) == [2, 4]
    assert cycles.run_cycles(cfg, act, np.zeros((2, 5), np.int64), rt) == 2 + 4 + 3
