"""Bit-Pragmatic (Albericio et al., "Bit-Pragmatic Deep Neural Network Computing", MICRO
2017): only the activations' non-zero terms are processed, with two-stage shifting.

Semantics (docs/papers.md#bit-pragmatic): each activation is a set of terms -- the oneffsets of
``|a|`` (``encoding = "plain"``, sign-magnitude) or the radix-4 modified Booth terms of its
two's complement value (``"booth"``), :mod:`termwise.golden.terms`. Per cycle and per
window, ``base`` is the lowest remaining term position among the brick's lanes; each lane
retires at most one term, its lowest remaining one, if it lies in ``[base, base + 2**B -
1]`` (``B = first_stage_bits``). A window's brick takes as many cycles as this greedy
process needs, at least 1. Pallet synchronisation: all windows advance together, so a step
takes the maximum over the windows of their brick cycles. Column synchronisation with ``R``
column registers: each window proceeds on its own, at most ``R`` bricks ahead of the
slowest one (:func:`column_finish_times`).

Results are exact (every term of every activation is processed).

Run formula (this implementation, ``rtl/pragmatic.py``)::

    cycles = 1 (fill: the first rows are loaded into the term serialisers and the weight
                registers)
           + sum over steps of step_cycles

i.e. ``RUN_OVERHEAD = 1``. The array lowers ``busy`` during the last cycle of the last
step, so the tile raises ``out.valid`` at the very edge that adds the last terms to the
accumulators: no drain cycle. A run with no bricks takes 1 cycle (``golden.cycles``).

An ``fc`` run (option ``fc_columns``, ``rtl/column_weights.py``) has its own formula,
:func:`fc_run_cycles`: the array takes a round's rows into its own registers on the
round's *first* cycle, so the next round's weight reads overlap the round's work and the
generic ``max(c_k, windows)`` spacing of ``golden.cycles.fc_run_cycles`` does not hold.
"""

from __future__ import annotations

import numpy as np

from ..cycles import to_bricks
from ..terms import booth_digits, check_range
from ..work import act_terms, signed_digits

__all__ = ["RUN_OVERHEAD", "term_masks", "brick_cycles", "window_cycles",
           "column_finish_times", "step_cycles", "fc_run_cycles", "steps_independent",
           "work_factors", "ideal_work"]

#: 1 fill cycle loading the first activation row into the serialisers (and the first
#: weight row into the weight registers); ``out.valid`` rises at the end of the last step.
RUN_OVERHEAD = 1


def term_masks(values, bits: int, signed: bool, encoding: str = "plain") -> np.ndarray:
    """Bit ``e`` of the result is set iff the value has a term at position ``e``.

    ``"plain"``: the oneffsets of ``|v|`` (for unsigned values, ``v`` itself); ``"booth"``:
    Booth digit ``i`` (:func:`termwise.golden.terms.booth_digits`) non-zero gives the term
    position ``2i`` (digit +-1) or ``2i + 1`` (digit +-2); distinct digits give distinct
    positions; ``"csd"`` (a model-only encoding, :data:`termwise.golden.work.MODEL_ENCODING`):
    the non-zero digits of the non-adjacent form of ``|v|``, i.e. the bits of
    ``(3|v| ^ |v|) >> 1``.
    """
    v = check_range(values, bits, signed)
    if encoding == "plain":
        return np.abs(v)
    if encoding == "csd":
        x = np.abs(v)
        return ((3 * x) ^ x) >> 1
    if encoding == "booth":
        digits = booth_digits(v, bits, signed)                       # (..., nd) int8
        mask = np.zeros(v.shape, dtype=np.int64)
        for i in range(digits.shape[-1]):
            d = digits[..., i]
            mask |= np.where(d == 0, 0, np.where((d == 2) | (d == -2), 2 << (2 * i),
                                                 1 << (2 * i)))
        return mask
    raise ValueError(f"encoding: must be plain, booth or csd, got {encoding!r}")


def brick_cycles(masks, first_stage_bits: int) -> np.ndarray:
    """Cycles of the greedy term retirement of every brick, vectorised over bricks.

    Each iteration is one cycle of every brick still holding terms: ``base`` is the lowest
    set bit of the OR of the lanes' lowest set bits, and each lane clears its lowest set bit
    if it is below ``base * 2**(2**B)``. Finished bricks are dropped from the working set.

    Parameters
    ----------
    masks : array (..., lanes) of int64
        Term-position masks of each lane (:func:`term_masks`).
    first_stage_bits : int
        ``B``: a lane retires its lowest term if it lies within ``2**B`` positions of the
        brick's lowest remaining term.

    Returns
    -------
    array (...) of int64, at least 1 per brick.
    """
    m = np.asarray(masks, dtype=np.int64)
    shape, lanes_n = m.shape[:-1], m.shape[-1]
    lanes = m.reshape(-1, lanes_n).T                          # (lanes, bricks)
    cycles = np.zeros(lanes.shape[1], dtype=np.int64)
    idx = np.flatnonzero(lanes.any(axis=0))
    lanes = np.ascontiguousarray(lanes[:, idx])
    span = 1 << first_stage_bits
    while idx.size:
        cycles[idx] += 1
        low = lanes & -lanes                                   # each lane's lowest term
        union = np.bitwise_or.reduce(low, axis=0)
        base = union & -union                                  # the brick's lowest term
        low[low >= (base << span)] = 0                         # outside [base, base+2**B)
        lanes ^= low                                           # retire the others
        live = lanes.any(axis=0)
        if not live.all():
            idx, lanes = idx[live], lanes[:, live]
    return np.maximum(cycles, 1).reshape(shape)


def window_cycles(cfg, act, signed: bool, encoding: str | None = None) -> np.ndarray:
    """Brick cycles of every window and step: ``act`` (windows, steps, lanes) ->
    (windows, steps); ``signed``: the run's ``act_signed``; ``encoding``: the terms counted
    (default the configuration's)."""
    masks = term_masks(act, cfg.act_bits, signed, encoding or cfg.encoding)
    return brick_cycles(masks, cfg.first_stage_bits)


def column_finish_times(brick: np.ndarray, column_registers: int, *,
                        round_reads: int = 0) -> np.ndarray:
    """Column synchronisation: the edge (cycles after the command) at which every window
    finishes every step of one run, ``brick`` (windows, steps) -> (windows, steps).

    ``Q = column_registers + 1`` rows may be held at once; a row is freed when every window
    has finished it, and row ``i`` is accepted (one row per cycle, the first one cycle
    after the command) no earlier than the edge freeing row ``i - Q``. A window starts a
    brick when it has finished its previous one and the row is accepted::

        A(0) = 1,  A(i) = max(A(i-1) + 1, T(i - Q))       T(j) = max_w F_w(j)
        F_w(i) = max(F_w(i-1), A(i)) + brick[w, i]

    so a window is at most ``column_registers`` bricks ahead of the slowest. A recurrence
    over the steps of one run (vectorised over windows); runs are independent.
    ``column_registers = 0`` is pallet synchronisation (``A(i) >= T(i-1)``: every window
    starts step ``i`` together, once the slowest has finished step ``i - 1``).

    ``round_reads = W > 0``: an ``fc`` run, whose step ``i`` (round ``i``) also needs its
    ``W`` weight rows, read one per cycle by the tile's per-column weight loader
    (``rtl/column_weights.py``) and handed over whole on cycle ``H(i)``. Round 0's rows are
    read on cycles ``0 .. W-1`` (from the command cycle) and handed over on cycle ``W``;
    round ``i``'s reads start on round ``i - 1``'s hand-over cycle, and the hand-over waits
    for them (``W`` cycles) and for the array to have taken round ``i - 1`` (which may be
    on the hand-over cycle itself); the array may take a round from the cycle after its
    hand-over::

        H(0) = W,  H(i) = max(H(i-1) + W, A(i-1)),   A(i) >= H(i) + 1
    """
    q = column_registers + 1
    windows, steps = brick.shape
    finish = np.zeros((windows, steps), dtype=np.int64)
    done = np.zeros(steps, dtype=np.int64)             # T(j)
    last = np.zeros(windows, dtype=np.int64)            # F_w(i - 1)
    accepted = 0                                        # A(i - 1)
    handed = 0                                          # H(i - 1) (fc runs)
    for i in range(steps):
        earliest = max(accepted + 1, int(done[i - q]) if i >= q else 0)
        if round_reads:
            handed = round_reads if i == 0 else max(handed + round_reads, accepted)
            earliest = max(earliest, handed + 1)
        accepted = earliest
        last = np.maximum(last, accepted) + brick[:, i]
        finish[:, i] = last
        done[i] = last.max()
    return finish


def step_cycles(cfg, act, wgt, rt) -> np.ndarray:
    """Cycles of each step of one run.

    Pallet synchronisation: a step takes its slowest window's brick cycles (vectorised over
    windows and steps). Column synchronisation: the steps overlap, so step ``i`` is charged
    ``T(i) - T(i - 1)`` (``T(-1) = RUN_OVERHEAD``), the cycles by which it moves the finish
    of the slowest window (:func:`column_finish_times`); their sum plus ``RUN_OVERHEAD`` is
    the run's cycles. These charges are per run: ``act`` must hold the steps of one run.
    """
    act = np.asarray(act, dtype=np.int64)
    if act.shape[1] == 0:
        return np.zeros(0, dtype=np.int64)
    brick = window_cycles(cfg, act, rt["act_signed"], signed_digits(cfg.encoding, rt))
    if cfg.sync == "pallet":
        return brick.max(axis=0)
    done = column_finish_times(brick, cfg.column_registers).max(axis=0)
    return np.diff(done, prepend=RUN_OVERHEAD)


def fc_run_cycles(cfg, act, wgt_cols, rt) -> int:
    """Cycles of one ``fc`` run (option ``fc_columns``): ``act`` (windows, K) holds round
    ``k``'s input brick ``k * windows + c`` in column ``c``, ``wgt_cols`` (windows, filters,
    K) each column's weights (which do not change the cost: terms are the activations').

    The array takes a round (its activation row and every column's weight row) into its
    own registers on the cycle it starts it, so the loader reads the next round's weights
    while this one is processed and the round after that may already be read while the
    next one waits for the array. The rounds are the steps of
    :func:`column_finish_times` with ``round_reads = windows`` (column synchronisation:
    each column's weights travel with its brick in the row slots; pallet: ``R = 0``)::

        cycles = T(n - 1)    (the last round's slowest window finishes; out.valid rises)

    A run with no rounds takes 1 cycle, as any other run. (``golden.cycles.fc_run_cycles``
    adds a fused output stage's latency.)
    """
    act = np.asarray(act, dtype=np.int64)
    if act.shape[1] == 0:
        return 1
    bricks = to_bricks(cfg, act)
    brick = window_cycles(cfg, bricks, rt["act_signed"], signed_digits(cfg.encoding, rt))
    registers = cfg.column_registers if cfg.sync == "column" else 0
    finish = column_finish_times(brick, registers, round_reads=cfg.windows)
    return int(finish[:, -1].max())


def steps_independent(cfg) -> bool:
    """Column synchronisation lets a column run ahead: its steps depend on each other."""
    return cfg.sync != "column"


def work_factors(cfg, a, w, rt, cache=None):
    """Ideal work per MAC: ``terms(a) * Ww`` in the configured encoding."""
    return (act_terms(cfg, a, signed_digits(cfg.encoding, rt), rt["act_signed"], cache),
            cfg.wgt_bits)


def ideal_work(act, wgt, s):
    from ..terms import term_count
    return term_count(act, s.act_bits, s.encoding, signed=s.act_signed) * s.wgt_bits
