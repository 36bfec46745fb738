"""Bit-Pragmatic (Albericio et al., "Bit-Pragmatic Deep Neural Network Computing", MICRO
2017): only the activations' non-zero terms are processed, with two-stage shifting.

Semantics (family.md, "Pragmatic"): each activation is a set of terms -- the oneffsets of
``|a|`` (``encoding = "plain"``, sign-magnitude) or the radix-4 modified Booth terms of its
two's complement value (``"booth"``), :mod:`termwise.golden.terms`. Per cycle and per
window, ``base`` is the lowest remaining term position among the brick's lanes; each lane
retires at most one term, its lowest remaining one, if it lies in ``[base, base + 2**B -
1]`` (``B = first_stage_bits``). A window's brick takes as many cycles as this greedy
process needs, at least 1. Pallet synchronisation: all windows advance together, so a step
takes the maximum over the windows of their brick cycles.

Results are exact (every term of every activation is processed).

Run formula (this implementation, ``rtl/pragmatic.py``)::

    cycles = 1 (fill: the first rows are loaded into the term serialisers and the weight
                registers)
           + sum over steps of step_cycles

i.e. ``RUN_OVERHEAD = 1``. The array lowers ``busy`` during the last cycle of the last
step, so the tile raises ``out.valid`` at the very edge that adds the last terms to the
accumulators: no drain cycle. A run with no bricks takes 1 cycle (``golden.cycles``).
"""

from __future__ import annotations

import numpy as np

from ..terms import booth_digits, check_range

__all__ = ["RUN_OVERHEAD", "term_masks", "brick_cycles", "window_cycles", "step_cycles"]

#: 1 fill cycle loading the first activation row into the serialisers (and the first
#: weight row into the weight registers); ``out.valid`` rises at the end of the last step.
RUN_OVERHEAD = 1


def term_masks(values, bits: int, signed: bool, encoding: str = "plain") -> np.ndarray:
    """Bit ``e`` of the result is set iff the value has a term at position ``e``.

    ``"plain"``: the oneffsets of ``|v|`` (for unsigned values, ``v`` itself); ``"booth"``:
    Booth digit ``i`` (:func:`termwise.golden.terms.booth_digits`) non-zero gives the term
    position ``2i`` (digit +-1) or ``2i + 1`` (digit +-2); distinct digits give distinct
    positions.
    """
    v = check_range(values, bits, signed)
    if encoding == "plain":
        return np.abs(v)
    if encoding == "booth":
        digits = booth_digits(v, bits, signed)                       # (..., nd) int8
        mask = np.zeros(v.shape, dtype=np.int64)
        for i in range(digits.shape[-1]):
            d = digits[..., i]
            mask |= np.where(d == 0, 0, np.where((d == 2) | (d == -2), 2 << (2 * i),
                                                 1 << (2 * i)))
        return mask
    raise ValueError(f"encoding: must be plain or booth for pragmatic, got {encoding!r}")


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


def window_cycles(cfg, act) -> np.ndarray:
    """Brick cycles of every window and step: ``act`` (windows, steps, lanes) ->
    (windows, steps)."""
    masks = term_masks(act, cfg.act_bits, cfg.act_signed, cfg.encoding)
    return brick_cycles(masks, cfg.first_stage_bits)


def step_cycles(cfg, act, wgt, rt) -> np.ndarray:
    """Pallet synchronisation: a step takes its slowest window's brick cycles."""
    if cfg.sync != "pallet":
        raise ValueError("sync: only pallet synchronisation is modelled (column is not "
                         "built yet)")
    act = np.asarray(act, dtype=np.int64)
    if act.shape[1] == 0:
        return np.zeros(0, dtype=np.int64)
    return window_cycles(cfg, act).max(axis=0)
