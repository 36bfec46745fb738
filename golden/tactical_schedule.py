"""Bit-Tactical's offline weight schedule (Delmas Lascorz et al., "Bit-Tactical: A
Software/Hardware Approach to Exploiting Value and Bit Sparsity in Neural Networks",
ASPLOS 2019).

Connectivity (docs/papers.md#bit-tactical): a weight slot (step ``t``, lane ``l``) may be
filled by a *promotion source* ``(dt, dl)``: the weight of step ``t + dt``, lane
``(l + dl) mod lanes`` (lane shifts wrap in the brick), which is then multiplied by the
activation of that original position (``act[t + dt][(l + dl) mod lanes]``).

* ``'T' <2,5>``: ``(1,-1), (1,0), (1,1), (1,3), (2,-2), (2,0), (2,2)``.
* ``'L' <h,d>``: ``(1,0), (2,0), .. (h,0)`` then ``(1,-1) .. (1,-d)``.

Greedy schedule (pure function): the steps are visited in order; at step ``t``, for every
filter and every lane whose slot is empty (zero, or its weight already promoted to an
earlier step), the sources are tried in the order above and the first one holding a
not-yet-scheduled non-zero weight is moved into the slot. All filters are scheduled
together: when the greedy reaches a step whose weights have all been promoted already (or
were zero), in every filter, the step is *skipped* (the front end's window jumps over it);
otherwise it is *kept* and its empty slots are filled from the steps ahead. ``max_skip`` (optional) bounds the number of
consecutive skipped steps for a front end that streams the activation rows; termwise's
front end addresses activation rows by their original step index (sent with each kept
step), so the default is unbounded and an all-zero run keeps **no** step.

Per kept step the schedule records the packed weights, a select per (filter, lane)
(``0`` = the slot's own weight, ``s >= 1`` = source ``s - 1`` of the list) and the
original step index. Metadata per weight: ``ceil(log2(sources + 1))`` bits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# The connectivity is part of the configuration (the RTL front end reads it too).
from ..gen.designs.tactical import (T_SOURCES, candidate_index, cfg_sources, metadata_bits,
                                    sources, window_candidates)

__all__ = ["T_SOURCES", "sources", "metadata_bits", "Schedule", "schedule", "apply_schedule",
           "window_candidates", "candidate_index", "cfg_sources", "involved", "efficiency"]

@dataclass
class Schedule:
    """One run's schedule: ``K`` kept steps of ``filters`` x ``lanes`` slots."""
    weights: np.ndarray     # (filters, K, lanes) packed weights
    selects: np.ndarray     # (filters, K, lanes) 0 = own weight, s = source s-1
    steps: np.ndarray       # (K,) original step index of each kept step
    dense_steps: int        # N, steps before scheduling
    sources: tuple

    @property
    def kept(self) -> int:
        return int(self.steps.size)

    @property
    def metadata_bits(self) -> int:
        return metadata_bits(self.sources)


def schedule(wgt, srcs=T_SOURCES, *, max_skip: int | None = None) -> Schedule:
    """Greedy schedule of ``wgt`` (filters, steps, lanes) for promotion sources ``srcs``.

    ``max_skip``: at most this many consecutive steps are skipped (``None``: unbounded).
    Deterministic; never promotes from beyond the last step.
    """
    w = np.array(wgt, dtype=np.int64, copy=True)
    if w.ndim != 3:
        raise ValueError("wgt: expected (filters, steps, lanes)")
    filters, n, lanes = w.shape
    kept_w, kept_s, kept_t = [], [], []
    skipped = 0
    for t in range(n):
        row = w[:, t, :].copy()
        if not row.any() and (max_skip is None or skipped < max_skip):
            skipped += 1            # every weight of the step was promoted already
            continue
        sel = np.zeros((filters, lanes), dtype=np.int64)
        for f in range(filters):
            for lane in range(lanes):
                if row[f, lane] != 0:
                    continue
                for s, (dt, dl) in enumerate(srcs, 1):
                    src_t, src_l = t + dt, (lane + dl) % lanes
                    if src_t < n and w[f, src_t, src_l] != 0:
                        row[f, lane] = w[f, src_t, src_l]
                        w[f, src_t, src_l] = 0
                        sel[f, lane] = s
                        break
        w[:, t, :] = 0
        skipped = 0
        kept_w.append(row)
        kept_s.append(sel)
        kept_t.append(t)
    k = len(kept_t)
    weights = np.stack(kept_w, axis=1) if k else np.zeros((filters, 0, lanes), np.int64)
    selects = np.stack(kept_s, axis=1) if k else np.zeros((filters, 0, lanes), np.int64)
    return Schedule(weights, selects, np.array(kept_t, dtype=np.int64), n, tuple(srcs))


def apply_schedule(sched: Schedule, act) -> np.ndarray:
    """What the front end computes: ``act`` (windows, steps, lanes) -> (windows, filters)
    = sum over kept steps, filters' lanes of weight * selected activation."""
    act = np.asarray(act, dtype=np.int64)
    windows, n, lanes = act.shape
    h = window_candidates(sched.sources) - 1
    padded = np.pad(act, ((0, 0), (0, h), (0, 0)))
    filters = sched.weights.shape[0]
    out = np.zeros((windows, filters), dtype=np.int64)
    for j, t in enumerate(sched.steps):
        win = padded[:, t:t + h + 1, :].reshape(windows, -1)        # (W, (h+1)*L)
        for f in range(filters):
            for lane in range(lanes):
                c = candidate_index(sched.sources, int(sched.selects[f, j, lane]), lane, lanes)
                out[:, f] += sched.weights[f, j, lane] * win[:, c]
    return out


def involved(sched: Schedule, lanes: int) -> np.ndarray:
    """(K, (h+1)*lanes) bool: the window activations a kept step multiplies by a non-zero
    weight (the ones the back end must process)."""
    c = window_candidates(sched.sources) * lanes
    out = np.zeros((sched.kept, c), dtype=bool)
    filters = sched.weights.shape[0]
    for j in range(sched.kept):
        for f in range(filters):
            for lane in range(lanes):
                if sched.weights[f, j, lane] != 0:
                    out[j, candidate_index(sched.sources, int(sched.selects[f, j, lane]),
                                           lane, lanes)] = True
    return out


def efficiency(wgt, srcs) -> dict:
    """Step reduction achieved vs the ideal (the zero fraction of the weights)."""
    w = np.asarray(wgt)
    sched = schedule(w, srcs)
    n = w.shape[1]
    reduction = 1 - sched.kept / n if n else 0.0
    zero = float(np.mean(w == 0))
    return {"steps": n, "kept": sched.kept, "reduction": reduction, "zero_fraction": zero,
            "efficiency": reduction / zero if zero else 1.0}
