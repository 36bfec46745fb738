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


# ---- fc runs (option fc_columns): the round schedule ------------------------------------

def _simulate_fc_run(brick, registers=None) -> int:
    """An fc run simulated cycle by cycle from the protocol (``rtl/column_weights.py``,
    ``rtl/pragmatic.py``), independently of the recurrence of ``column_finish_times``:
    ``brick`` (windows, rounds) the windows' brick cycles, ``registers`` ``None`` for pallet
    synchronisation, else the column registers. Returns the cycle (the command's is 0) on
    which the last brick finishes, when ``out.valid`` rises.

    Per cycle: the array takes the round on the column registers if it was handed over on an
    earlier cycle and the array has room (pallet: every window is idle or in its last cycle;
    column: fewer than ``registers + 1`` rounds held, or the oldest is finished by every
    window this cycle); the loader hands a fully read round over once its last row has
    arrived (a cycle after the read) if the column registers hold no round not taken; it
    reads one weight row per cycle from the command on unless a fully read round waits for
    its hand-over; a window starts its next taken round when idle or on its brick's last
    cycle (the round taken this very cycle included).
    """
    brick = np.asarray(brick)
    cols, rounds = brick.shape                  # a round's weight rows: one per column
    q = None if registers is None else registers + 1
    rows_read = 0
    waiting = None            # (round, cycle of its last read): read, not handed over
    present = None            # (round, hand-over cycle): on the column registers, not taken
    taken = []                # cycle each round was taken
    freed = 0                 # rounds whose row slot was freed (column sync)
    finish = [[None] * rounds for _ in range(cols)]
    nxt = [0] * cols          # each window's next round to start
    for t in range(10_000):
        def finished_by_all(j):
            return all(finish[w][j] is not None and finish[w][j] <= t for w in range(cols))

        def idle(w):
            return nxt[w] == 0 or finish[w][nxt[w] - 1] <= t

        if q is None:
            room = all(idle(w) for w in range(cols))
            free_now = False
        else:
            free_now = len(taken) > freed and finished_by_all(freed)
            room = len(taken) - freed < q or free_now
        if present is not None and present[1] < t and room:
            assert present[0] == len(taken)
            taken.append(t)
            present = None
        if free_now:
            freed += 1
        if waiting is not None and waiting[1] < t and present is None:
            present, waiting = (waiting[0], t), None
        if rows_read < rounds * cols and waiting is None:
            rows_read += 1
            if rows_read % cols == 0:
                waiting = (rows_read // cols - 1, t)
        for w in range(cols):
            if idle(w) and nxt[w] < len(taken):
                finish[w][nxt[w]] = t + int(brick[w, nxt[w]])
                nxt[w] += 1
        if len(taken) == rounds and all(nxt[w] == rounds and idle(w) for w in range(cols)):
            return t
    raise AssertionError("the simulated run did not finish")


def _fc_cfg(**kw):
    base = dict(windows=4, first_stage_bits=2, fc_columns=1)
    base.update(kw)
    return _cfg(**base)


def _fc_act(costs):
    """Activations (windows, rounds * lanes) whose window ``w`` brick of round ``r`` takes
    ``costs[w][r]`` cycles (1..8): ``costs`` set bits in lane 0 (one term per cycle)."""
    costs = np.asarray(costs)
    act = np.zeros(costs.shape + (4,), dtype=np.int64)
    act[..., 0] = (1 << costs) - 1
    return act.reshape(costs.shape[0], -1)


def _generic_fc_formula(cols, c):
    """The generic ``golden.cycles`` formula (an array that takes a round on its last
    cycle): rounds ``max(c_k, windows)`` apart."""
    return cols + sum(max(x, cols) for x in c[:-1]) + c[-1] + prag.RUN_OVERHEAD


def test_fc_hand_case_long_round_then_short_ones():
    # Pallet, 4 columns, rounds of 8, 1, 1, 1, 1 cycles. Round 0's rows are read on cycles
    # 0..3, handed over on 4, taken on 5 (works 6..13). Round 1's are read on 4..7 and
    # handed over on 8, taken on 13 (the array is busy until then); round 2's are read on
    # 8..11 and wait for round 1's take, handed over on 13, taken on 14; round 3: read
    # 13..16, handed over 17, taken 18; round 4: read 17..20, handed over 21, taken 22,
    # finishes on 23. The generic formula would say 4 + 8 + 4 + 4 + 4 + 1 + 1 = 26.
    cfg = _fc_cfg(windows=4)
    costs = [[8, 1, 1, 1, 1]] * 4
    act = _fc_act(costs)
    wgt = np.zeros((4, 2, act.shape[1]), dtype=np.int64)
    rt = cfg.runtime_values(fc=True, act_signed=False)
    assert prag.window_cycles(cfg, cycles.to_bricks(cfg, act), False).tolist() == costs
    assert prag.fc_run_cycles(cfg, act, wgt, rt) == 23
    assert cycles.fc_run_cycles(cfg, act, wgt, rt) == 23          # the design's own
    assert _generic_fc_formula(4, [8, 1, 1, 1, 1]) == 26
    assert _simulate_fc_run(np.array(costs)) == 23


def test_fc_short_rounds_are_paced_by_the_weight_reads():
    # Every round at most `windows` cycles: a round every `windows` cycles, as the generic
    # formula says (first taken on cycle windows + 1).
    cfg = _fc_cfg(windows=4)
    rng = np.random.default_rng(3)
    for _ in range(20):
        c = rng.integers(1, 5, size=int(rng.integers(1, 10))).tolist()
        act = _fc_act([c] * 4)
        rt = cfg.runtime_values(fc=True, act_signed=False)
        wgt = np.zeros((4, 2, act.shape[1]), dtype=np.int64)
        assert prag.fc_run_cycles(cfg, act, wgt, rt) == _generic_fc_formula(4, c)


def test_fc_run_without_rounds_takes_one_cycle():
    cfg = _fc_cfg()
    rt = cfg.runtime_values(fc=True, act_signed=False)
    assert prag.fc_run_cycles(cfg, np.zeros((4, 0)), np.zeros((4, 2, 0)), rt) == 1


@pytest.mark.parametrize("registers", [None, 1, 2, 4])
@pytest.mark.parametrize("cols", [2, 4, 8])
def test_fc_schedule_matches_cycle_simulation(registers, cols):
    rng = np.random.default_rng(cols + 10 * (registers or 0))
    for _ in range(60):
        rounds = int(rng.integers(1, 12))
        hi = int(rng.choice([cols, 2 * cols + 3]))         # rounds shorter or longer
        brick = rng.integers(1, hi + 1, size=(cols, rounds))
        if rng.random() < 0.5:                               # skewed windows
            brick[int(rng.integers(cols))] *= 2
        want = _simulate_fc_run(brick, registers)
        got = prag.column_finish_times(brick, registers or 0, round_reads=cols)
        assert int(got[:, -1].max()) == want, (brick.tolist(), registers)


@pytest.mark.parametrize("sync,registers", [("pallet", 0), ("column", 1), ("column", 3)])
def test_fc_run_cycles_from_activations_match_simulation(sync, registers):
    cfg = _fc_cfg(windows=4, sync=sync, column_registers=registers)
    rng = np.random.default_rng(registers)
    for signed in (False, True):
        for _ in range(15):
            rounds = int(rng.integers(1, cfg.fc_rounds + 1))
            lo = -128 if signed else 0
            act = rng.integers(lo, 128 if signed else 256, size=(4, rounds * 4 - 1))
            act[rng.random(act.shape) < 0.4] = 0
            wgt = rng.integers(-128, 128, size=(4, 2, act.shape[1]))
            rt = cfg.runtime_values(fc=True, act_signed=signed)
            brick = prag.window_cycles(cfg, cycles.to_bricks(cfg, act), signed)
            want = _simulate_fc_run(brick, registers if sync == "column" else None)
            assert prag.fc_run_cycles(cfg, act, wgt, rt) == want
            assert cycles.fc_run_cycles(cfg, act, wgt, rt) == want


def test_fc_column_sync_never_slower_than_pallet():
    rng = np.random.default_rng(7)
    for _ in range(50):
        brick = rng.integers(1, 12, size=(4, int(rng.integers(1, 12))))
        pallet = prag.column_finish_times(brick, 0, round_reads=4)[:, -1].max()
        column = prag.column_finish_times(brick, 2, round_reads=4)[:, -1].max()
        assert column <= pallet
