"""Bit-Tactical (Delmas Lascorz et al., "Bit-Tactical: A Software/Hardware Approach to
Exploiting Value and Bit Sparsity in Neural Networks", ASPLOS 2019): zero weights are
skipped by an offline schedule (:mod:`termwise.golden.tactical_schedule`) within a
lookahead/lookaside window; the remaining work runs on a value-aware back end.

Functional result: the dense dot product (the schedule moves each non-zero weight to an
earlier slot together with the activation it multiplies; nothing is dropped), so no
``effective_operands``.

Per kept step ``j`` (original step ``t``), the front end offers the *window* of activation
rows ``t .. t + h`` (``h`` = the largest promotion distance) of every tile window; each
(filter, lane) slot picks one of them with its select. The activations *involved* in step
``j`` are the window activations selected by at least one slot holding a non-zero weight
(:func:`termwise.golden.tactical_schedule.involved`); the others are masked to zero before
the back end, so they cost nothing.

Back ends (``cfg.backend``):

* ``tclp`` (Dynamic Stripes datapath, bit-serial activations): the step's precision is
  detected over the involved activations of every window (the Dynamic Stripes detector,
  family.md: position of the top one + 1, plus a sign bit for signed data), at least 1.
* ``tcle`` (Bit-Pragmatic datapath, pallet synchronisation): per window, the greedy term
  retirement of Pragmatic over the involved activations (all ``(h + 1) * lanes`` window
  positions; uninvolved ones have no terms), ``first_stage_bits`` and ``encoding`` as
  Pragmatic's; the step takes the slowest window's cycles (at least 1).

Run formula (this implementation, ``rtl/tactical.py``), ``K`` kept steps::

    cycles = sum over kept steps of step cycles + 2

tclp: 1 cycle committing the last serial brick, 1 for the tile to raise out.valid; tcle: 1
fill cycle loading the first window into the term serialisers, 1 drain cycle; ``K == 0``
(all-zero weights, every step skipped): 2 cycles.

Host layout (:func:`host_weight_rows`): two weight-stream rows per kept step: the packed
weights (as a dense weight row) then a metadata row holding the select of each (filter,
lane) (``metadata_bits`` each, filter-major, lane 0 of filter 0 least significant) followed
by the original step index. Activation rows are sent dense, unchanged; the command's
``bricks`` is ``K``.
"""

from __future__ import annotations

import numpy as np

from ..fixedpoint import to_unsigned
from ..terms import precision_needed
from ..tactical_schedule import (cfg_sources, metadata_bits, schedule, window_candidates,
                                 involved as involved_mask)
from . import pragmatic

__all__ = ["RUN_OVERHEAD", "STEPS_INDEPENDENT", "run_cycles", "kept_step_cycles",
           "cfg_schedule", "host_weight_rows", "meta_layout"]

#: Cycles beyond the kept steps, both back ends (see the module docstring).
RUN_OVERHEAD = 2

#: The schedule couples the steps of a run: netsim calls :func:`run_cycles` per run.
STEPS_INDEPENDENT = False


def cfg_schedule(cfg, wgt_bricks):
    """The schedule of one run's weights (filters, steps, lanes) for ``cfg``'s
    connectivity."""
    return schedule(wgt_bricks, cfg_sources(cfg))


def _windows(cfg, act_bricks, sched):
    """(K, windows, (h+1)*lanes) window activations of every kept step, uninvolved ones
    zeroed."""
    act = np.asarray(act_bricks, dtype=np.int64)
    windows, n, lanes = act.shape
    rows = window_candidates(sched.sources)
    padded = np.pad(act, ((0, 0), (0, rows - 1), (0, 0)))
    mask = involved_mask(sched, lanes)
    out = np.zeros((sched.kept, windows, rows * lanes), dtype=np.int64)
    for j, t in enumerate(sched.steps):
        out[j] = padded[:, t:t + rows, :].reshape(windows, -1) * mask[j]
    return out


def kept_step_cycles(cfg, act_bricks, wgt_bricks) -> np.ndarray:
    """Cycles of every kept step of one run (at least 1 each)."""
    sched = cfg_schedule(cfg, wgt_bricks)
    if sched.kept == 0:
        return np.zeros(0, dtype=np.int64)
    win = _windows(cfg, act_bricks, sched)                     # (K, W, C)
    if cfg.backend == "tclp":
        need = precision_needed(win, cfg.act_bits, cfg.act_signed)
        return np.maximum(need.max(axis=(1, 2)), 1)
    masks = pragmatic.term_masks(win, cfg.act_bits, cfg.act_signed, cfg.encoding)
    return pragmatic.brick_cycles(masks, cfg.first_stage_bits).max(axis=1)


def run_cycles(cfg, act, wgt, rt) -> int:
    """Cycles from the command to ``out.valid``: ``act`` (windows, steps, lanes), ``wgt``
    (filters, steps, lanes)."""
    return int(kept_step_cycles(cfg, act, wgt).sum()) + RUN_OVERHEAD


def meta_layout(cfg) -> dict:
    """Bit fields of the metadata row: select width, index field offset and width."""
    from ...gen.config import clog2
    mb = metadata_bits(cfg_sources(cfg))
    index_bits = max(clog2(cfg.depth), 1)
    offset = cfg.filters * cfg.lanes * mb
    return {"select_bits": mb, "index_offset": offset, "index_bits": index_bits,
            "fits": offset + index_bits <= cfg.wgt_row_bits}


def host_weight_rows(cfg, wgt) -> tuple[list[int], int]:
    """The weight-stream rows of one run and its kept step count: ``wgt`` (filters, K) dense
    (zero padded to whole bricks here). Row ``2j``: kept step ``j``'s weights; row
    ``2j + 1``: its selects and original step index."""
    wgt = np.asarray(wgt, dtype=np.int64)
    pad = (-wgt.shape[1]) % cfg.lanes
    bricks = np.pad(wgt, ((0, 0), (0, pad))).reshape(cfg.filters, -1, cfg.lanes)
    sched = cfg_schedule(cfg, bricks)
    lay = meta_layout(cfg)
    mb = lay["select_bits"]
    rows = []
    for j, t in enumerate(sched.steps):
        word = 0
        for v in reversed(to_unsigned(sched.weights[:, j, :].ravel(), cfg.wgt_bits).tolist()):
            word = (word << cfg.wgt_bits) | int(v)
        rows.append(word)
        meta = int(t) << lay["index_offset"]
        for i, s in enumerate(sched.selects[:, j, :].ravel().tolist()):
            meta |= int(s) << (i * mb)
        rows.append(meta)
    return rows, sched.kept
