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


# --- fc runs (fc_columns): per-column round costs and the round schedule -----------------

#: An 8-bit value with each Booth term count (the table in the module docstring).
WITH_TERMS = {0: 0, 1: 1, 2: 3, 3: 21, 4: 85}


def _fc_cfg(windows=2, filters=1, lanes=1, depth=None):
    return _cfg(filters=filters, windows=windows, lanes=lanes, fc_columns=1,
                depth=depth or 8 * windows)


def _fc_rt(cfg, signed=True):
    return cfg.runtime_values(fc=True, act_signed=signed)


def _generic(cfg, costs):
    """The generic schedule of golden/cycles.fc_run_cycles (rounds max(c_k, windows) apart)
    on given round costs."""
    w = cfg.windows
    return w + sum(max(c, w) for c in costs[:-1]) + costs[-1] + laconic.RUN_OVERHEAD


def test_fc_round_cost_pairs_a_column_with_its_own_weights():
    cfg = _fc_cfg(windows=2, filters=2)
    rt = _fc_rt(cfg)
    # Column 0: activation 85 (4 terms) x weights (1, 0): 4 pairs. Column 1: activation 1
    # x weights (0, 85): 4 pairs. Own weights: 4 cycles; any column's activation with any
    # column's weight (the filters stacked) would pair 85 with 85: 16.
    act = np.array([[85], [1]])
    wgt = np.array([[[1], [0]], [[0], [85]]])
    assert laconic.fc_step_cycles(cfg, act, wgt, rt).tolist() == [4]
    assert cycles.step_cycles(cfg, act, wgt.reshape(-1, 1), rt).tolist() == [16]
    # The columns' weights swapped: 85 x 85 in column 0 now.
    assert laconic.fc_step_cycles(cfg, act, wgt[::-1], rt).tolist() == [16]
    # An activation with terms only where its column's weights are zero: no pair at all.
    assert laconic.fc_step_cycles(cfg, np.array([[85], [0]]),
                                  np.array([[[0], [0]], [[85], [85]]]), rt).tolist() == [1]


def test_fc_round_costs_per_round_and_lane():
    # Two lanes, two columns, three rounds (K = 6 per column); round k is bricks k.
    cfg = _fc_cfg(windows=2, filters=1, lanes=2)
    rt = _fc_rt(cfg)
    act = np.array([[21, 0, 0, 0, 3, 85],      # column 0
                    [0, 85, 1, 0, 0, 85]])     # column 1
    wgt = np.array([[[21, 85, 0, 0, 85, 0]],   # column 0, filter 0
                    [[85, 1, 85, 0, 85, 85]]])  # column 1, filter 0
    # Round 0: col 0 lane 0 3x3 = 9, col 1 lane 1 4x1 = 4 (not 4x4 with col 0's weight).
    # Round 1: col 1 lane 0 1x4 = 4. Round 2: col 0 lane 0 2x4 = 8 (col 0 lane 1: 85 x 0;
    # col 1 lane 0: 0 x 85), col 1 lane 1 4x4 = 16.
    assert laconic.fc_step_cycles(cfg, act, wgt, rt).tolist() == [9, 4, 16]
    # K not a multiple of lanes: zero padded (round 2's lane 1 empty): 8.
    assert laconic.fc_step_cycles(cfg, act[:, :5], wgt[:, :, :5], rt).tolist() == [9, 4, 8]


def test_fc_unsigned_round_cost():
    cfg = _fc_cfg(windows=2)
    # 170 unsigned: 5 Booth terms (zero-extended); x 85 (4): 20.
    act, wgt = np.array([[170], [0]]), np.array([[[85]], [[0]]])
    assert laconic.fc_step_cycles(cfg, act, wgt, _fc_rt(cfg, signed=False)).tolist() == [20]


def _fc_operands(cfg, pairs):
    """One lane, one filter: round ``k``'s column 0 holds (activation, weight) with the
    term counts ``pairs[k]``, every other column zero: round costs ``max(1, ta * tw)``."""
    n = len(pairs)
    act = np.zeros((cfg.windows, n), np.int64)
    wgt = np.zeros((cfg.windows, 1, n), np.int64)
    for k, (ta, tw) in enumerate(pairs):
        act[0, k], wgt[0, 0, k] = WITH_TERMS[ta], WITH_TERMS[tw]
    return act, wgt


def test_fc_schedule_by_hand():
    # 4 columns; rounds of 9, 1, 1 cycles (3 x 3 terms, then 1 x 1). Command = cycle 0.
    # Round 0's rows are read on cycles 0-3 and handed over on 4; the array takes it on 5
    # and computes on 6-14. Round 1's rows are read on 4-7; the registers are free from 6
    # (round 0 is in the serializers), so it is handed over on 8 and taken on 14 (round
    # 0's last cycle). Round 2's rows are read on 8-11 and wait for the registers until 14;
    # taken on 15 (round 1's only cycle). The controller sees the array idle on 17:
    # 15 + 1 + RUN_OVERHEAD - 1 = 17. The generic schedule spaces rounds max(c, 4) apart:
    # 4 + 9 + 4 + 1 + 2 = 20.
    cfg = _fc_cfg(windows=4)
    act, wgt = _fc_operands(cfg, [(3, 3), (1, 1), (1, 1)])
    rt = _fc_rt(cfg)
    assert laconic.fc_step_cycles(cfg, act, wgt, rt).tolist() == [9, 1, 1]
    assert laconic.fc_run_cycles(cfg, act, wgt, rt) == 17
    assert cycles.fc_run_cycles(cfg, act, wgt, rt) == 17     # the design's own model
    assert _generic(cfg, [9, 1, 1]) == 20
    # Short rounds only: paced by the weight reads, 4 cycles apart: 5 + 4 + 4 + 1 + 1.
    act, wgt = _fc_operands(cfg, [(1, 1)] * 3)
    assert laconic.fc_run_cycles(cfg, act, wgt, rt) == 15 == _generic(cfg, [1, 1, 1])
    # One round: read, handed over, taken on 5; 16 cycles; 5 + 16 + 1.
    act, wgt = _fc_operands(cfg, [(4, 4)])
    assert laconic.fc_run_cycles(cfg, act, wgt, rt) == 22


def test_fc_empty_run():
    cfg = _fc_cfg(windows=2)
    assert laconic.fc_run_cycles(cfg, np.zeros((2, 0), np.int64),
                                 np.zeros((2, 1, 0), np.int64), _fc_rt(cfg)) == 1


def _event_simulation(costs, windows, fc=True):
    """Cycle by cycle (command transfer = cycle 0), the tile's events in a run of rounds
    costing ``costs``; returns the cycle on which the controller sees the array idle after
    the last round, which the driver counts as the run's cycles (it counts from the edge
    that ends the command cycle, and ``out.valid`` rises one cycle later).

    Weight path of an fc run: one weight row read per cycle from the command cycle on, a
    round needing ``windows``; its rows are handed over to the column registers together
    on the cycle after the last one is read (the row is on the buffer's output then), if
    the registers hold no round or the array takes theirs on that cycle; reads continue
    from the hand-over cycle. Without ``fc`` the round's rows are read on the command cycle
    and on each take, and are there on the next cycle. The array takes the round on the
    registers when it is idle or on its current round's last cycle, then computes it for
    its cost in the cycles that follow."""
    n = len(costs)
    remaining = 0           # cycles of the array's round left, this cycle included
    taken = 0               # rounds the array has taken
    on_regs = None          # round on the column registers (or on the buffer's output)
    next_on_regs = 0 if not fc else None
    rows = 0                # rows of the round being read, read so far
    read_rounds = 0         # rounds whose rows are all read
    full = False            # a round's rows are all read, waiting for the hand-over
    cycle = 0
    while True:
        if taken == n and remaining == 0:
            return cycle
        ready = remaining <= 1
        take = on_regs is not None and ready
        # next cycle's state
        new_remaining = costs[on_regs] if take else max(remaining - 1, 0)
        new_on_regs = None if take else on_regs
        if fc:
            hand = full and (on_regs is None or take)
            if hand:
                new_on_regs = read_rounds - 1
                full = False
            if read_rounds < n and (not full):
                rows += 1
                if rows == windows:
                    rows, read_rounds, full = 0, read_rounds + 1, True
        else:
            # the buffer reads round 0 on the command cycle, round k + 1 on round k's take
            if cycle == 0:
                new_on_regs = 0
            elif take and on_regs + 1 < n:
                new_on_regs = on_regs + 1
        if take:
            taken += 1
        remaining = new_remaining
        on_regs = new_on_regs
        cycle += 1


def test_event_simulation_reproduces_plain_runs():
    """Anchor: without fc the simulation gives run_cycles (sum of steps + RUN_OVERHEAD)."""
    rng = np.random.default_rng(5)
    for _ in range(50):
        costs = rng.integers(1, 17, rng.integers(1, 9)).tolist()
        assert _event_simulation(costs, 4, fc=False) == sum(costs) + laconic.RUN_OVERHEAD


@pytest.mark.parametrize("windows", [2, 3, 4, 5, 8])
def test_fc_run_cycles_match_event_simulation(windows):
    cfg = _fc_cfg(windows=windows, depth=16 * windows)
    rt = _fc_rt(cfg)
    rng = np.random.default_rng(windows)
    differs = 0
    for trial in range(300):
        n = int(rng.integers(1, 17))
        # mostly short rounds with some long ones: every mix of c < windows and c > windows
        pairs = [(int(rng.integers(0, 5)), int(rng.integers(0, 5))) if rng.random() < 0.4
                 else (1, 1) for _ in range(n)]
        act, wgt = _fc_operands(cfg, pairs)
        costs = laconic.fc_step_cycles(cfg, act, wgt, rt).tolist()
        assert costs == [max(1, ta * tw) for ta, tw in pairs]
        got = laconic.fc_run_cycles(cfg, act, wgt, rt)
        assert got == _event_simulation(costs, windows), (pairs, costs)
        # Never slower than the generic schedule, never faster than the weight reads or
        # the compute allow.
        assert got <= _generic(cfg, costs)
        assert got >= max(windows * n + 1, windows + sum(costs)) + laconic.RUN_OVERHEAD - 1
        if all(c >= windows for c in costs[:-1]):
            assert got == _generic(cfg, costs)
        differs += got != _generic(cfg, costs)
    assert differs > 0      # the cases do exercise the difference
