"""Hand-computable checks of the Loom golden model (Sharify et al., DAC 2018): a step takes
ceil(Pa / serial_bits) * Pw cycles, Pa the widest activation of the step (sign bit
included, at least 1), Pw the runtime weight precision; a run adds RUN_OVERHEAD = 3."""

import numpy as np
import pytest

from termwise.gen.config import TileConfig
from termwise.golden import cycles
from termwise.golden.arch import loom
from termwise.golden.tile_model import tile_outputs


def _cfg(sb=2, **kw):
    base = dict(arch="loom", filters=2, windows=2, lanes=2, act_bits=8, wgt_bits=8,
                depth=8, serial_bits=sb)
    base.update(kw)
    return TileConfig(**base)


def _rt(cfg, signed=True, **kw):
    """The run's registers; ``signed``: its act_signed."""
    return cfg.runtime_values(act_signed=signed, **kw)


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
    cfg = _cfg(sb)
    act = np.array([[5, 1, 200, 0, 0, 0],
                    [0, 4, 3, 17, 0, 0]])          # (windows, K): 3 steps of 2 lanes
    wgt = np.ones((2, 6), np.int64)
    rt = _rt(cfg, False, wgt_precision=pw)
    assert list(cycles.step_cycles(cfg, act, wgt, rt)) == expected
    assert cycles.run_cycles(cfg, act, wgt, rt) == sum(expected) + 3


def test_signed_precision_counts_the_sign_bit():
    cfg = _cfg(2)
    rt = _rt(cfg, True, wgt_precision=4)
    wgt = np.zeros((2, 2), np.int64)
    # -1 and 0 need 1 bit -> 1 chunk; 1 and -2 need 2 -> 1 chunk; 2 needs 3 -> 2 chunks;
    # -128 needs 8 -> 4 chunks.
    for value, chunks in ((-1, 1), (0, 1), (1, 1), (-2, 1), (2, 2), (-3, 2), (-128, 4),
                          (127, 4), (-65, 4), (-64, 4), (31, 3)):
        act = np.array([[value, 0], [0, 0]])
        assert list(cycles.step_cycles(cfg, act, wgt, rt)) == [chunks * 4], value


def test_step_takes_the_widest_of_every_window():
    cfg = _cfg(4, windows=3)
    act = np.array([[1, 0], [0, 0], [0, 0x90]])     # Pa 8 in window 2 -> 2 chunks
    rt = _rt(cfg, False, wgt_precision=5)
    assert list(cycles.step_cycles(cfg, act, np.zeros((2, 2), np.int64), rt)) == [10]


@pytest.mark.parametrize("signed", [True, False])
def test_weights_are_independent_of_cycles(signed):
    """Loom's weight cost is the layer's Pw, not the data: zero weights cost as much.
    (7 needs 4 bits signed, 3 unsigned: 2 chunks of 2 bits either way.)"""
    cfg = _cfg(2)
    act = np.array([[7, 7], [7, 7]])
    rt = _rt(cfg, signed, wgt_precision=6)
    for wgt in (np.zeros((2, 2), np.int64), np.full((2, 2), -32)):
        assert list(cycles.step_cycles(cfg, act, wgt, rt)) == [2 * 6]


def test_worst_case_matches_config_peak():
    """A full-width step at full Pw costs worst_brick_cycles (the peak-throughput basis)."""
    for sb in (1, 2, 4):
        cfg = _cfg(sb)
        act = np.array([[-128, 0], [0, 0]])
        rt = _rt(cfg, True)
        assert list(cycles.step_cycles(cfg, act, np.zeros((2, 2), np.int64), rt)) == \
            [cfg.worst_brick_cycles(8)]


def test_effective_weights_wrap_to_pw_bits():
    cfg = _cfg(2)
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
    cfg = _cfg(2, lanes=4)
    act = np.array([[3, 0, 0, 0, 9], [0, 0, 0, 0, 0]])
    rt = _rt(cfg, False, wgt_precision=2)
    assert list(cycles.step_cycles(cfg, act, np.zeros((2, 5), np.int64), rt)) == [2, 4]
    assert cycles.run_cycles(cfg, act, np.zeros((2, 5), np.int64), rt) == 2 + 4 + 3


@pytest.mark.parametrize("pa", [4, 8, 12])
@pytest.mark.parametrize("pw", [16, 5])
def test_unsigned_run_saves_the_sign_chunk_on_loom_16x16(pa, pw):
    """loom-16x16 (4-bit chunks) on a step of non-negative activations whose widest value
    needs exactly ``pa`` bits unsigned, a whole number of chunks: an unsigned run
    (act_signed False, post-ReLU data) takes ceil(Pa / sb) * Pw cycles; the same values
    read as two's complement need a sign bit, Pa + 1 bits, one more chunk."""
    from termwise.gen.config import preset
    cfg = preset("loom-16x16")
    sb = cfg.serial_bits
    assert sb == 4 and pa % sb == 0
    rng = np.random.default_rng(pa)
    act = rng.integers(0, 1 << pa, size=(cfg.windows, cfg.lanes))
    act[rng.integers(cfg.windows), rng.integers(cfg.lanes)] = (1 << pa) - 1
    act[0, 0] = 1 << (pa - 1)                      # widest needs exactly pa bits
    assert int(act.max()).bit_length() == pa and act.min() >= 0
    wgt = rng.integers(-(1 << 15), 1 << 15, size=(cfg.filters, cfg.lanes))

    def rt(signed):        # a plain dict update: the golden model reads rt["act_signed"]
        return dict(cfg.runtime_values(wgt_precision=pw), act_signed=signed)

    unsigned = cycles.step_cycles(cfg, act, wgt, rt(False))
    signed = cycles.step_cycles(cfg, act, wgt, rt(True))
    assert list(unsigned) == [-(-pa // sb) * pw] == [pa // sb * pw]
    assert list(signed) == [-(-(pa + 1) // sb) * pw] == [(pa // sb + 1) * pw]
    assert unsigned[0] < signed[0]
    # Whole runs too: the same saving per step, plus the fixed overhead (the design's and
    # the 16x16 tile's registered PE inputs).
    assert cfg.pe_stages == 1
    assert cycles.run_cycles(cfg, act, wgt, rt(False)) == pa // sb * pw + loom.RUN_OVERHEAD + 1
