"""Hand-computed cases of the Laconic cycle model (golden/arch/laconic.py).

Radix-4 Booth term counts used below, worked out by hand from the digits
``d_i = -2 b[2i+1] + b[2i] + b[2i-1]`` of the 8-bit two's complement pattern:

======  =========================  =====
value   terms                      count
======  =========================  =====
0       --                         0
1       +1                         1
-1      -1                         1
2       -2 +4                      2
3       -1 +4                      2
85      +1 +4 +16 +64 (0x55)       4
-86     -2 -4 -16 -64 (0xAA)       4
51      -1 +4 -16 +64 (0x33)       4
127     -1 +128                    2
-128    -128                       1
128u    -128 +256 (zero-extended)  2
255u    -1 +256 (zero-extended)    2
======  =========================  =====
"""

import numpy as np
import pytest

from termwise.gen.config import TileConfig
from termwise.golden import cycles
from termwise.golden.arch import laconic
from termwise.golden.terms import booth_term_count


def _cfg(filters=1, windows=1, lanes=1, **kw):
    return TileConfig("laconic", filters=filters, windows=windows, lanes=lanes, act_bits=8,
                      wgt_bits=8, **kw)


def _steps(cfg, act, wgt, signed=True):
    """act (W, K), wgt (F, K) -> cycles of every step of a run whose act_signed is
    ``signed``."""
    rt = cfg.runtime_values(act_signed=signed)
    return cycles.step_cycles(cfg, np.array(act), np.array(wgt), rt).tolist()


def test_hand_term_counts():
    assert booth_term_count([0, 1, -1, 2, 3, 85, -86, 51, 127, -128], 8, True).tolist() == \
        [0, 1, 1, 2, 2, 4, 4, 4, 2, 1]
    assert booth_term_count([128, 255, 0, 1], 8, False).tolist() == [2, 2, 0, 1]


@pytest.mark.parametrize("a, w, want", [
    (85, 85, 16),        # 4 x 4 pairs: the 8-bit worst case, cfg.worst_brick_cycles(8)
    (85, -86, 16),
    (51, 1, 4),
    (3, 2, 4),
    (127, -128, 2),
    (-1, -1, 1),
    (0, 85, 1),          # zero activation: no pairs, the minimum step
    (85, 0, 1),          # zero weight
    (0, 0, 1),
])
def test_single_lane(a, w, want):
    assert _steps(_cfg(), [[a]], [[w]]) == [want]


def test_worst_case_matches_config():
    cfg = _cfg()
    assert _steps(cfg, [[85]], [[85]]) == [cfg.worst_brick_cycles(8)] == [16]
    # Unsigned: 170 = 0 1010 1010 zero-extended has 5 Booth digits, all non-zero. The
    # config's worst case is for signed operands of a precision; an unsigned run's 8-bit
    # activations are 9-bit signed values (5 digits x 4 weight digits).
    assert booth_term_count([170], 8, False).tolist() == [5]
    assert _steps(cfg, [[170]], [[85]], signed=False) == [20]
    assert cfg.worst_brick_cycles(8) < 20 <= cfg.worst_brick_cycles(9)


def test_unsigned_activations_are_zero_extended():
    # 128 is -128 (1 term) as signed 8 bits but 2 terms as unsigned (zero-extended).
    assert _steps(_cfg(), [[128]], [[1]], signed=False) == [2]
    assert _steps(_cfg(), [[-128]], [[1]], signed=True) == [1]
    assert _steps(_cfg(), [[255]], [[85]], signed=False) == [8]
    # The same bit pattern, read by the run's register: 0x80 is -128 signed, 128 unsigned.
    assert laconic.pair_counts(_cfg(), np.array([[[128]]]), np.array([[[1]]]),
                               signed=False).ravel().tolist() == [2]


def test_max_is_per_lane_not_across_lanes():
    # Lane 0: 4 x 1 pairs, lane 1: 1 x 4 pairs -> 4 cycles (not 4 x 4 = 16).
    assert _steps(_cfg(lanes=2), [[85, 1]], [[1, 85]]) == [4]


def test_lockstep_over_windows_and_filters():
    # Two windows, two filters, two lanes; steps of 2 lanes.
    # Step 0, lane 0: acts (3, 0) -> 2, 0 terms; wgts (1, 85) -> 1, 4 terms; worst 2 x 4 = 8
    #         (window 0 with filter 1). Lane 1: acts (0, 127) -> 0, 2; wgts (-128, 0) -> 1, 0;
    #         worst 2 x 1 = 2. Step: 8.
    # Step 1: every value zero -> 1.
    # Step 2 (K = 5: one value, padded): act (51, 2) -> 4, 2; wgt (-1, 3) -> 1, 2: 4 x 2 = 8.
    cfg = _cfg(filters=2, windows=2, lanes=2)
    act = [[3, 0, 0, 0, 51], [0, 127, 0, 0, 2]]
    wgt = [[1, -128, 0, 0, -1], [85, 0, 0, 0, 3]]
    assert _steps(cfg, act, wgt) == [8, 1, 8]
    assert cycles.run_cycles(cfg, np.array(act), np.array(wgt), cfg.runtime_values()) == \
        8 + 1 + 8 + laconic.RUN_OVERHEAD == 19


def test_run_overhead_and_empty_run():
    cfg = _cfg()
    assert laconic.RUN_OVERHEAD == 2
    assert cycles.run_cycles(cfg, np.zeros((1, 1), np.int64), np.zeros((1, 1), np.int64)) == 3
    assert cycles.run_cycles(cfg, np.zeros((1, 0), np.int64), np.zeros((1, 0), np.int64)) == 1


def test_pair_counts_match_potential_work():
    """Summed over lanes, the per-PE pair counts are the potential model's Laconic work."""
    from termwise.golden.potential import mac_work
    rng = np.random.default_rng(3)
    cfg = _cfg(filters=3, windows=2, lanes=4)
    act = rng.integers(-128, 128, (2, 1, 4))
    wgt = rng.integers(-128, 128, (3, 1, 4))
    pairs = laconic.pair_counts(cfg, act, wgt)            # (W, F, 1, L), signed
    work = mac_work(act[:, None, 0, :], wgt[None, :, 0, :], "laconic", encoding="booth",
                    act_bits=8, wgt_bits=8, act_signed=True)
    assert np.array_equal(pairs[:, :, 0, :], work)
    # An unsigned run (post-ReLU values up to 255).
    act = rng.integers(0, 256, (2, 1, 4))
    pairs = laconic.pair_counts(cfg, act, wgt, signed=False)
    work = mac_work(act[:, None, 0, :], wgt[None, :, 0, :], "laconic", encoding="booth",
                    act_bits=8, wgt_bits=8, act_signed=False)
    assert np.array_equal(pairs[:, :, 0, :], work)
