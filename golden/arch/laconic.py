"""Laconic (Sharify et al., "Laconic Deep Learning Inference Acceleration", ISCA 2019): both
operands radix-4 modified-Booth encoded, one (weight term, activation term) pair per lane
per cycle.

Per-step cycles (docs/papers.md#laconic): the largest ``terms(w) * terms(a)`` over the
lanes, at least 1 cycle, both operands Booth-encoded. A lane multiplies its
activation ``a`` and weight ``w`` by enumerating every pair of their non-zero Booth terms
(:func:`termwise.golden.terms.booth_term_count`: ``ceil(bits / 2)`` digits for two's
complement values; unsigned activations are zero-extended by one bit first), one pair per
cycle, so a lane needs ``terms(w) * terms(a)`` cycles. Every window and filter of the tile
runs in lockstep -- the windows share the weight row and the filters the activation row,
and the tile fetches the next rows only when all of them are done -- so a *step* (one
brick of every window and every filter) takes

    ``max(1, max over windows w, filters f, lanes l of terms(act[w, l]) * terms(wgt[f, l]))``

cycles. A zero operand has no terms: a step whose pairs are all empty costs the minimum,
1 cycle. The results are exact (Booth recoding loses nothing): no ``effective_operands``.

A run of steps ``S_0 .. S_{n-1}`` takes ``sum(S_i) + RUN_OVERHEAD`` cycles from the command
transfer to ``out.valid``.

Fully-connected runs (the ``fc_columns`` option, an ``fc`` run: :func:`fc_step_cycles`,
:func:`fc_run_cycles`): every window column holds its own input brick and its own weight
brick per filter, so a column's activations pair with its own weights only; a *round* (one
brick of every column) takes the most pairs of any lane of any (column, filter). Its weights
reach the array ``windows`` rows at a time (``rtl/column_weights.py``), and since this array
holds both operands in its term serializers from the cycle it takes a round, the weight
registers are free again while the round is still being computed: the schedule is not the
generic one of :func:`termwise.golden.cycles.fc_run_cycles`.
"""

import numpy as np

from ..cycles import to_bricks
from ..terms import term_count
from ..work import act_terms, signed_digits, wgt_terms

__all__ = ["RUN_OVERHEAD", "step_cycles", "pair_counts", "fc_step_cycles", "fc_run_cycles",
           "work_factors", "ideal_work"]

#: Fixed cycles of this implementation (rtl/laconic.py) beyond its steps: 1 cycle in which
#: the first rows are taken into the array (Booth-encoded into the per-lane term
#: serializers; later rows are taken during the previous step's last cycle, so there is no
#: per-step bubble), plus 1 cycle in which the controller sees ``busy`` fall after the last
#: pair has been added to the accumulators.
RUN_OVERHEAD = 2


def pair_counts(cfg, act, wgt, signed: bool = True, encoding: str = "booth") -> np.ndarray:
    """Term pairs of every lane of every PE: ``terms(a) * terms(w)``, both Booth (or both
    in the model-only ``encoding = "csd"``); ``signed``: the run's ``act_signed``.

    ``act`` is (windows, steps, lanes), ``wgt`` (filters, steps, lanes); the result is
    (windows, filters, steps, lanes).
    """
    if cfg.encoding not in (None, "booth"):
        raise ValueError(f"encoding: laconic supports booth only, got {cfg.encoding!r}")
    ta = term_count(act, cfg.act_bits, encoding, signed=signed)   # (W, S, L)
    tw = term_count(wgt, cfg.wgt_bits, encoding, signed=True)     # (F, S, L)
    return ta[:, None, :, :] * tw[None, :, :, :]


def step_cycles(cfg, act, wgt, rt) -> np.ndarray:
    """Cycles of every step: the most term pairs of any lane of any PE, at least 1."""
    pairs = pair_counts(cfg, act, wgt, rt["act_signed"], signed_digits(cfg.encoding, rt))
    if pairs.shape[2] == 0:
        return np.zeros(0, dtype=np.int64)
    return np.maximum(pairs.max(axis=(0, 1, 3)), 1).astype(np.int64)


def fc_step_cycles(cfg, act, wgt_cols, rt) -> np.ndarray:
    """Cycles of every round of an ``fc`` run on the array, the weight reads aside.

    ``act`` is (windows, K): column ``c``'s input bricks, one per round; ``wgt_cols``
    (windows, filters, K): column ``c``'s weights for them. A lane of PE (column ``c``,
    filter ``f``) enumerates the pairs of its own activation's and its own weight's terms,
    and every PE runs in lockstep, so round ``k`` takes

        ``max(1, max over c, f, l of terms(act[c, k, l]) * terms(wgt_cols[c, f, k, l]))``

    cycles -- not the product of the largest activation count of any column and the largest
    weight count of any column, as stacking every column's filters into one step would
    give. (In a run without ``fc`` every column has the same weights and this is
    :func:`step_cycles`.)
    """
    if cfg.encoding not in (None, "booth"):
        raise ValueError(f"encoding: laconic supports booth only, got {cfg.encoding!r}")
    encoding = signed_digits(cfg.encoding, rt)
    # (windows, rounds, lanes) and (windows, filters, rounds, lanes)
    ta = term_count(to_bricks(cfg, act), cfg.act_bits, encoding, signed=rt["act_signed"])
    tw = term_count(to_bricks(cfg, wgt_cols), cfg.wgt_bits, encoding, signed=True)
    if ta.shape[1] == 0:
        return np.zeros(0, dtype=np.int64)
    pairs = ta[:, None, :, :] * tw
    return np.maximum(pairs.max(axis=(0, 1, 3)), 1).astype(np.int64)


def fc_run_cycles(cfg, act, wgt_cols, rt) -> int:
    """Cycles of one ``fc`` run from the command transfer to ``out.valid`` (operands as in
    :func:`fc_step_cycles`, whose round costs ``c_k`` it schedules).

    Count the command transfer as cycle 0; a run without ``fc`` takes its first rows on
    cycle 1 and its last step ``S`` on cycle ``t``, and takes ``t + S + RUN_OVERHEAD - 1``
    cycles in all (``sum(S_i) + RUN_OVERHEAD``). In an ``fc`` run two things pace the
    rounds:

    * **Weight reads** (``rtl/column_weights.py``): the weight buffer gives one row per
      cycle and a round needs one per column, ``windows`` cycles of reads; round 0's
      reads start on the command cycle. A round's rows are *handed over* to the array's
      weight registers, all at once, on the cycle after its last read at the earliest (the
      last row is then on the buffer's output), and only when the registers are free: they
      hold no round, or the array takes the one they hold on that very cycle. The next
      round's reads begin on the hand-over cycle. So with ``h_k`` the hand-over cycle of
      round ``k`` and ``t_k`` the cycle the array takes it::

          h_0 = windows,    h_{k+1} = max(h_k + windows, t_k)

    * **The array**: it takes a round on the first cycle after the hand-over on which it
      is ready -- idle, or on the last cycle of the round before (the steps follow each
      other without a bubble, as in a plain run)::

          t_0 = h_0 + 1,    t_{k+1} = max(h_{k+1} + 1, t_k + c_k)

    The result is ``t_{n-1} + c_{n-1} + RUN_OVERHEAD - 1``. The array copies the round's
    operands into its term serializers on the cycle it takes it (rtl/laconic.py), so the
    weight registers are free while the round is computed, and a round's weights may be
    read up to two rounds ahead of the round being computed (one in the registers, one
    being read). A short round after a long one therefore starts right after it:
    consecutive rounds start ``max(c_k, windows)`` cycles apart at most (the generic
    :func:`termwise.golden.cycles.fc_run_cycles`, for arrays that read their weights
    throughout a step), but can start ``c_k`` apart even when ``c_k < windows``.
    An empty run takes 1 cycle, as a plain one does.
    """
    costs = fc_step_cycles(cfg, act, wgt_cols, rt)
    if len(costs) == 0:
        return 1
    cols = cfg.windows
    hand = cols
    take = hand + 1
    for cost in costs[:-1]:
        hand = max(hand + cols, take)
        take = max(hand + 1, take + int(cost))
    return take + int(costs[-1]) + RUN_OVERHEAD - 1


def work_factors(cfg, a, w, rt, cache=None):
    """Ideal work per MAC: ``terms(a) * terms(w)``, both Booth."""
    encoding = signed_digits(cfg.encoding, rt)
    return (act_terms(cfg, a, encoding, rt["act_signed"], cache),
            wgt_terms(cfg, w, encoding, cache))


def ideal_work(act, wgt, s):
    from ..terms import term_count
    return (term_count(act, s.act_bits, s.encoding, signed=s.act_signed)
            * term_count(wgt, s.wgt_bits, s.encoding, signed=s.wgt_signed))
