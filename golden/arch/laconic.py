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
"""

import numpy as np

from ..terms import term_count
from ..work import act_terms, signed_digits, wgt_terms

__all__ = ["RUN_OVERHEAD", "step_cycles", "pair_counts", "work_factors", "ideal_work"]

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


def work_factors(cfg, a, w, rt, cache=None):
    """Ideal work per MAC: ``terms(a) * terms(w)``, both Booth."""
    encoding = signed_digits(cfg.encoding, rt)
    return (act_terms(cfg, a, encoding, rt["act_signed"], cache),
            wgt_terms(cfg, w, encoding, cache))


def ideal_work(act, wgt, s):
    from ..terms import term_count
    return (term_count(act, s.act_bits, s.encoding, signed=s.act_signed)
            * term_count(wgt, s.wgt_bits, s.encoding, signed=s.wgt_signed))
