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
  docs/papers.md#dynamic-stripes: position of the top one + 1, plus a sign bit for signed
  data), at least 1.
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

from ..twos_complement import to_unsigned
from ..terms import precision_needed
from ...gen.designs.tactical import meta_layout
from ..tactical_schedule import (cfg_sources, metadata_bits, schedule, window_candidates,
                                 involved as involved_mask)
from ..work import act_terms, group_precision_of, nonzero_weights, signed_digits
from . import pragmatic

__all__ = ["RUN_OVERHEAD", "STEPS_INDEPENDENT", "run_cycles", "kept_step_cycles",
           "cfg_schedule", "host_weight_rows", "meta_layout", "batch_involved",
           "layer_schedule", "layer_run_cycles", "work_factors"]

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


def kept_step_cycles(cfg, act_bricks, wgt_bricks, signed: bool,
                     encoding: str | None = None) -> np.ndarray:
    """Cycles of every kept step of one run (at least 1 each); ``signed``: the run's
    ``act_signed``; ``encoding``: TCLe's terms (default the configuration's)."""
    sched = cfg_schedule(cfg, wgt_bricks)
    if sched.kept == 0:
        return np.zeros(0, dtype=np.int64)
    win = _windows(cfg, act_bricks, sched)                     # (K, W, C)
    if cfg.backend == "tclp":
        need = precision_needed(win, cfg.act_bits, signed)
        return np.maximum(need.max(axis=(1, 2)), 1)
    masks = pragmatic.term_masks(win, cfg.act_bits, signed, encoding or cfg.encoding)
    return pragmatic.brick_cycles(masks, cfg.first_stage_bits).max(axis=1)


def run_cycles(cfg, act, wgt, rt) -> int:
    """Cycles from the command to ``out.valid``: ``act`` (windows, steps, lanes), ``wgt``
    (filters, steps, lanes)."""
    return int(kept_step_cycles(cfg, act, wgt, rt["act_signed"],
                                signed_digits(cfg.encoding, rt)).sum()) + RUN_OVERHEAD


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


# ----------------------------------------------------------------------------- whole layers


def batch_involved(nonzero, srcs) -> tuple[np.ndarray, np.ndarray]:
    """The greedy schedule of many runs at once, reduced to what the cycles depend on.

    Parameters
    ----------
    nonzero : array (B, filters, steps, lanes) of bool
        ``wgt != 0`` of ``B`` independent runs (a run shorter than ``steps`` is padded with
        all-zero steps: they are never kept and never promote, so the schedule of its real
        steps is unchanged).
    srcs : tuple
        Promotion sources (:func:`termwise.golden.tactical_schedule.sources`).

    Returns
    -------
    kept : array (B, steps) of bool
        Whether original step ``t`` of run ``b`` is kept.
    involved : array (B, steps, (h+1)*lanes) of bool
        For a kept step, :func:`termwise.golden.tactical_schedule.involved` of it (all False
        for a skipped step).

    The same greedy as :func:`termwise.golden.tactical_schedule.schedule` (unbounded skips),
    vectorised over runs and filters: filters never compete for a weight (each promotes only
    its own), so only the lane order and the source order within a filter matter, and both
    loops are kept sequential here. Only non-zero-ness decides the greedy's choices.
    """
    nz = np.array(nonzero, dtype=bool, copy=True)
    b, _, n, lanes = nz.shape
    rows = window_candidates(srcs)
    kept = np.zeros((b, n), dtype=bool)
    inv = np.zeros((b, n, rows * lanes), dtype=bool)
    for t in range(n):
        row = nz[:, :, t, :]                                   # (B, F, L), a view
        active = row.any(axis=(1, 2))
        kept[:, t] = active
        inv[:, t, :lanes] = row.any(axis=1)                    # own weights, select 0
        if not active.any():
            continue
        for lane in range(lanes):
            # Slots still empty in this step: zero (or promoted away) in an active run.
            empty = ~row[:, :, lane] & active[:, None]
            if not empty.any():
                continue
            for dt, dl in srcs:
                st = t + dt
                if st >= n:
                    continue
                sl = (lane + dl) % lanes
                take = empty & nz[:, :, st, sl]
                if not take.any():
                    continue
                nz[:, :, st, sl] &= ~take                      # the weight moves here
                empty &= ~take
                inv[:, t, dt * lanes + sl] |= take.any(axis=1)
        nz[:, :, t, :] = False
    return kept, inv


def _layer_layout(cfg, k: int) -> tuple[int, int, int]:
    """Steps, K chunks and the bricks held per chunk (``depth``, or fewer when the whole
    layer fits one chunk: padding a one-chunk layer to ``depth`` would only add zero steps,
    which are never kept and never promote)."""
    steps = -(-k // cfg.lanes)
    chunks = -(-steps // cfg.depth)
    return steps, chunks, min(cfg.depth, steps)


def layer_schedule(cfg, wm) -> tuple[np.ndarray, np.ndarray]:
    """Kept steps and involved window positions of every (group, filter group, chunk) of a
    lowered layer's weights ``wm`` (G, kg, K): arrays (G, FG, chunks, D) and
    (G, FG, chunks, D, (h+1)*lanes), ``D`` the bricks per chunk (:func:`_layer_layout`).
    The schedule depends only on the weights, so every window group of the layer reuses
    it."""
    wm = np.asarray(wm)
    g, kg, k = wm.shape
    lanes, fil = cfg.lanes, cfg.filters
    _, chunks, dpt = _layer_layout(cfg, k)
    fgc = -(-kg // fil)
    nz = np.zeros((g, fgc * fil, chunks * dpt * lanes), dtype=bool)
    nz[:, :kg, :k] = wm != 0
    # (G, FG, F, chunks, D, L) -> runs (G, FG, chunks) of (F, D, L)
    nz = nz.reshape(g, fgc, fil, chunks, dpt, lanes).transpose(0, 1, 3, 2, 4, 5)
    kept, inv = batch_involved(nz.reshape(-1, fil, dpt, lanes), cfg_sources(cfg))
    return (kept.reshape(g, fgc, chunks, dpt),
            inv.reshape(g, fgc, chunks, dpt, -1))


def layer_run_cycles(cfg, a, wm, rt, window_groups, *, block_elems: int = 1 << 22) -> int:
    """Steady-state cycles of a whole lowered layer, vectorised (the network simulator's
    path).

    Parameters
    ----------
    cfg : TileConfig
        A ``tactical`` tile.
    a, wm : array (G, M, K), array (G, kg, K)
        The lowered layer (:func:`termwise.golden.netsim.lowered_operands`); runs are laid
        out exactly as :func:`termwise.golden.lowering.lower_matmul` does.
    rt : dict
        Runtime registers (``act_signed``).
    window_groups : sequence of int
        The window groups simulated (all of them for an exact total).
    block_elems : int
        Bound of the gathered elements per block (memory).

    Returns
    -------
    int
        ``sum(run_cycles - RUN_OVERHEAD)`` over the runs of those window groups, i.e. the
        sum of :func:`kept_step_cycles` (tested equal in tests/golden/test_tactical_sim.py).

    Each (group, filter group, K chunk) is scheduled once (:func:`layer_schedule`); a kept
    step then costs, for every window group, the back end's cycles over its involved window
    activations: TCLp the widest involved activation of any window (``max`` commutes with
    the window axis, so the per-position precisions are reduced over the windows first);
    TCLe Pragmatic's greedy over the ``(h+1)*lanes`` involved positions of each window, the
    slowest window. A window position beyond its chunk is never involved (nothing is
    promoted from beyond a run), so its index is clipped into the chunk and masked out.
    """
    a = np.asarray(a, dtype=np.int64)
    wm = np.asarray(wm, dtype=np.int64)
    g, m, k = a.shape
    lanes, win = cfg.lanes, cfg.windows
    _, chunks, dpt = _layer_layout(cfg, k)
    wgc = -(-m // win)
    sel = np.asarray(list(window_groups), dtype=np.int64)
    ns = len(sel)
    rows = window_candidates(cfg_sources(cfg))
    kept, inv = layer_schedule(cfg, wm)
    gi, fi, ci, ti = np.nonzero(kept)                  # every kept step of every run
    if gi.size == 0 or ns == 0:
        return 0
    mask = inv[gi, fi, ci, ti]                         # (kept, C)
    # Window position c = dt * lanes + lane reads step t + dt (clipped), lane ``lane``.
    dt = np.repeat(np.arange(rows), lanes)
    ln = np.tile(np.arange(lanes), rows)
    ap = np.zeros((g, wgc * win, chunks * dpt * lanes), dtype=np.int64)
    ap[:, :m, :k] = a
    act = ap.reshape(g, wgc, win, chunks, dpt, lanes)[:, sel]   # (G, S, W, chunks, D, L)
    del ap
    if cfg.backend == "tclp":
        per = precision_needed(act, cfg.act_bits, rt["act_signed"]).max(axis=2)
        per = np.ascontiguousarray(per.transpose(0, 2, 3, 4, 1))   # (G, chunks, D, L, S)
        block = max(1, block_elems // (ns * rows * lanes))
        total = 0
        for s in range(0, gi.size, block):
            e = slice(s, s + block)
            step = np.minimum(ti[e, None] + dt[None, :], dpt - 1)
            v = per[gi[e, None], ci[e, None], step, ln[None, :]]       # (blk, C, S)
            v = np.where(mask[e][:, :, None], v, 0).max(axis=1)
            total += int(np.maximum(v, 1).sum())
        return total
    tm = pragmatic.term_masks(act, cfg.act_bits, rt["act_signed"],
                              signed_digits(cfg.encoding, rt))
    del act
    tm = np.ascontiguousarray(tm.transpose(0, 3, 4, 5, 1, 2))     # (G, chunks, D, L, S, W)
    block = max(1, block_elems // (ns * win * rows * lanes))
    total = 0
    for s in range(0, gi.size, block):
        e = slice(s, s + block)
        step = np.minimum(ti[e, None] + dt[None, :], dpt - 1)
        v = tm[gi[e, None], ci[e, None], step, ln[None, :]]            # (blk, C, S, W)
        v = np.where(mask[e][:, :, None, None], v, 0).transpose(0, 2, 3, 1)
        total += int(pragmatic.brick_cycles(v, cfg.first_stage_bits).max(axis=2).sum())
    return total


def work_factors(cfg, a, w, rt, cache=None):
    """Ideal work per MAC: the back end's, every zero weight skipped (TCLp: Dynamic Stripes'
    ``width_group(a)``; TCLe: Pragmatic's ``terms(a)`` in the configured encoding)."""
    fw = nonzero_weights(cfg, w, cache)
    if cfg.backend == "tclp":
        return group_precision_of(cfg, a, rt["act_signed"], cache), fw
    return act_terms(cfg, a, signed_digits(cfg.encoding, rt), rt["act_signed"], cache), fw
