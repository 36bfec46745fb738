"""Hand-computable tests of the Bit-Pragmatic cycle model (golden/arch/pragmatic.py), and a
cross-check of its vectorised greedy process against a scalar one written on the term
lists of golden/terms.py."""

import numpy as np
import pytest

from termwise.gen.config import TileConfig, preset
from termwise.golden import cycles
from termwise.golden.arch import pragmatic as prag
from termwise.golden.terms import terms


def _cfg(**kw):
    base = dict(arch="pragmatic", filters=2, windows=2, lanes=4, act_bits=8, wgt_bits=8)
    base.update(kw)
    return TileConfig(**base)


def _brick(values, B, bits=8, signed=False, encoding="plain"):
    masks = prag.term_masks(np.array([values]), bits, signed, encoding)
    return int(prag.brick_cycles(masks, B)[0])


def test_zero_brick_costs_one_cycle():
    assert _brick([0, 0, 0, 0], 2) == 1


@pytest.mark.parametrize("B,expected", [(0, 4), (1, 2), (2, 1), (3, 1), (4, 1)])
def test_staggered_single_terms(B, expected):
    # One term per lane at positions 0, 1, 2, 3: a window of 2**B positions takes them.
    assert _brick([1, 2, 4, 8], B) == expected


@pytest.mark.parametrize("B", range(5))
def test_one_lane_retires_one_term_per_cycle(B):
    assert _brick([0xFF, 0, 0, 0], B) == 8
    assert _brick([0x55, 0, 0, 0], B) == 4


@pytest.mark.parametrize("B,expected", [(0, 2), (1, 2), (2, 2), (3, 1)])
def test_far_term_waits_for_the_window(B, expected):
    # Lane 1's only term is at position 4: inside [0, 2**B - 1] only for B = 3.
    assert _brick([1, 16, 0, 0], B) == expected


def test_base_moves_to_lowest_remaining_term():
    # B = 1: cycle 1 base 0 takes lane 0's bit 0 and lane 1's bit 1; cycle 2 base 2 takes
    # lane 0's bit 2 (lane 1's bit 5 is out of [2, 3]); cycle 3 base 5 takes bit 5.
    assert _brick([0b101, 0b100010, 0, 0], 1) == 3


def test_sign_magnitude_and_booth():
    # Plain: |-128| has one oneffset (position 7), -1 one (position 0, too far from 7
    # for B = 2, not for B = 3); -127 has 7.
    assert _brick([-128, 0, 0, 0], 2, signed=True) == 1
    assert _brick([-128, -1, 0, 0], 2, signed=True) == 2
    assert _brick([-128, -1, 0, 0], 3, signed=True) == 1
    assert _brick([-127, 0, 0, 0], 2, signed=True) == 7
    # Booth: 255 unsigned = 256 - 1 (two terms), -1 signed = one term, 0x55 = 4 terms.
    assert _brick([255, 0, 0, 0], 2, encoding="booth") == 2
    assert _brick([-1, 0, 0, 0], 2, signed=True, encoding="booth") == 1
    assert _brick([0x55, 0, 0, 0], 0, signed=True, encoding="booth") == 4


def test_pallet_step_is_the_slowest_window():
    cfg = _cfg(first_stage_bits=2)
    act = np.array([[[1, 2, 4, 8], [0, 0, 0, 0]],          # window 0: 1 cycle, then 1
                    [[0xF, 0, 0, 0], [1, 16, 0, 0]]])      # window 1: 4 cycles, then 2
    wgt = np.zeros((2, 2, 4), dtype=np.int64)
    for signed in (False, True):                           # no negative value: the same
        rt = cfg.runtime_values(act_signed=signed)
        assert prag.step_cycles(cfg, act, wgt, rt).tolist() == [4, 2]


def test_run_formula_fill_steps_out():
    cfg = _cfg(first_stage_bits=2)
    act = np.array([[1, 2, 4, 8, 0xF, 0, 0, 0], [0] * 8])
    wgt = np.ones((2, 8), dtype=np.int64)
    # steps: 1 + 4 cycles, + 1 fill cycle (out.valid rises as the last step ends)
    rt = cfg.runtime_values(act_signed=False)
    assert cycles.run_cycles(cfg, act, wgt, rt) == 1 + 4 + prag.RUN_OVERHEAD == 6
    assert prag.RUN_OVERHEAD == 1


def _scalar_brick(values, bits, signed, encoding, B):
    """Straight transcription of the paper's rule on term lists, one cycle at a time."""
    pending = [[e for _, e in terms(int(v), bits, encoding, signed=signed)] for v in values]
    count = 0
    while any(pending):
        base = min(p[0] for p in pending if p)
        for p in pending:
            if p and p[0] <= base + (1 << B) - 1:
                p.pop(0)
        count += 1
    return max(count, 1)


@pytest.mark.parametrize("encoding", ["plain", "booth"])
@pytest.mark.parametrize("signed", [True, False])
@pytest.mark.parametrize("B", [0, 2, 4])
def test_vectorised_matches_scalar_reference(encoding, signed, B):
    rng = np.random.default_rng(B + 10 * signed)
    lo, hi = (-128, 127) if signed else (0, 255)
    vals = rng.integers(lo, hi + 1, size=(60, 4))
    vals[rng.random(vals.shape) < 0.3] = 0
    got = prag.brick_cycles(prag.term_masks(vals, 8, signed, encoding), B)
    want = [_scalar_brick(row, 8, signed, encoding, B) for row in vals]
    assert got.tolist() == want


def test_worst_case_is_the_configs_worst_brick():
    for enc, signed in (("plain", True), ("plain", False), ("booth", True)):
        cfg = preset("pragmatic-4x4").replace(encoding=enc)
        lo, hi = (-128, 127) if signed else (0, 255)
        vals = np.arange(lo, hi + 1).reshape(1, -1, 1)
        worst = prag.window_cycles(cfg, vals, signed).max()
        assert worst <= cfg.worst_brick_cycles(cfg.act_bits)
    # Booth terms of an unsigned run's values: those of (act_bits + 1)-bit signed values
    # (5 digits at 8 bits; 0xAA = 0 1010 1010 has five non-zero ones), the bound the
    # testbench allows an unsigned run.
    cfg = preset("pragmatic-4x4").replace(encoding="booth")
    worst = prag.window_cycles(cfg, np.arange(0, 256).reshape(1, -1, 1), False).max()
    assert worst == 5 == cfg.worst_brick_cycles(cfg.act_bits + 1)


def test_column_sync_hand_case():
    # Window bricks (2 windows, 3 steps): w0 = [4, 1, 1], w1 = [1, 4, 1].
    brick = np.array([[4, 1, 1], [1, 4, 1]])
    # R = 1 (Q = 2 rows held). Rows accepted at 1, 2, then row 2 waits for row 0 to be
    # freed at T(0) = 5. w0: 1+4 = 5, max(5, 2)+1 = 6, max(6, 5)+1 = 7.
    # w1: 1+1 = 2, max(2, 2)+4 = 6, max(6, 5)+1 = 7. T = 5, 6, 7.
    assert prag.column_finish_times(brick, 1).tolist() == [[5, 6, 7], [2, 6, 7]]
    # Pallet would take 1 + 4 + 4 + 1 = 10; column with R = 8: rows at 1, 2, 3.
    # w0: 5, 6, 7; w1: 2, 6, 7.
    assert prag.column_finish_times(brick, 8).max(axis=0).tolist() == [5, 6, 7]


def test_column_sync_step_charges_sum_to_the_run():
    cfg = _cfg(sync="column", column_registers=1, first_stage_bits=2)
    # bricks: w0 = [4 (0xF), 1, 1], w1 = [1, 4, 1]
    act = np.array([[0xF, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0],
                    [1, 0, 0, 0, 0xF, 0, 0, 0, 0, 0, 0, 0]])
    wgt = np.zeros((2, 12), dtype=np.int64)
    rt = cfg.runtime_values(act_signed=False)
    assert prag.step_cycles(cfg, cycles.to_bricks(cfg, act), None, rt).tolist() == [4, 1, 1]
    assert cycles.run_cycles(cfg, act, wgt, rt) == 7
    pallet = cfg.replace(sync="pallet", column_registers=0)
    assert cycles.run_cycles(pallet, act, wgt, rt) == 1 + 4 + 4 + 1


@pytest.mark.parametrize("R", [1, 3])
def test_column_sync_never_slower_than_pallet_and_bounded_lead(R):
    rng = np.random.default_rng(R)
    brick = rng.integers(1, 9, size=(6, 40))
    fin = prag.column_finish_times(brick, R)
    pallet = 1 + np.cumsum(brick.max(axis=0))
    assert (fin.max(axis=0) <= pallet).all()
    # A window starts brick i only after every window finished brick i - R - 1.
    start = fin - brick
    for i in range(R + 1, brick.shape[1]):
        assert (start[:, i] >= fin[:, i - R - 1].max()).all()
