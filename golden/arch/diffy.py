"""Diffy (Mahmoud et al., "Diffy: a Deja vu-Free Differential Deep Neural Network
Accelerator", MICRO 2018): differential convolution along x on the Bit-Pragmatic datapath.

Semantics (docs/papers.md#diffy): ``delta = a(x) - a(x - stride)`` along x, predecessor 0 for
the first column; terms are counted on the deltas; ``out(x) = out(x - 1) + W * delta``.

A tile run's windows are consecutive output columns. Window ``w``'s activations are
differenced against window ``w - 1``'s; window 0 against the previous run's last window.
The command's ``restart`` register (one bit per window, bit ``w`` = window ``w``) sets the
predecessor of a window to 0 (the window starts an output row, or the previous run is not
its predecessor). Deltas are ``act_bits + 1`` bit two's complement values, radix-4 Booth
encoded, processed by the Bit-Pragmatic datapath with pallet synchronisation
(:mod:`.pragmatic`: per window and brick, the greedy two-stage-shifting term retirement with
``first_stage_bits``; a step takes the maximum over the windows).

Runtime registers in ``rt`` (beyond :meth:`TileConfig.runtime_values`):

``rt["restart"]`` (int)
    The run's restart bits. Missing: window 0 restarts, the others difference against
    their left neighbour (``1``).
``rt["predecessor"]`` (array (K',) or None)
    The previous run's last window activations (what the RTL's predecessor store holds),
    zero padded to whole bricks and then padded with zeros / truncated to this run's
    length (the store reads 0 beyond the previous run's length). ``None`` (or missing) is
    all zeros. Only used when bit 0 of ``restart`` is clear.

Outputs: the reconstruction makes them equal the plain dot products when the restart bits
are consistent with the data (``tile_outputs``, no ``effective_operands``).

Run formula (``rtl/diffy.py``): the delta front end and the reconstruction unit are
combinational, so the overhead is Pragmatic's::

    cycles = RUN_OVERHEAD (1, fill) + sum over steps of max over windows of
             brick_cycles(booth term masks of the window's delta brick)

A step's cost depends on the previous run's data through window 0's predecessor:
``STEPS_INDEPENDENT = False``. For whole layers use :func:`layer_deltas` /
:func:`layer_step_cycles` (vectorised; equal to the sum over the lowered runs with
:func:`restart_masks` and :func:`predecessors`, tested).
"""

from __future__ import annotations

import numpy as np

from ..work import signed_digits
from .pragmatic import brick_cycles, term_masks

__all__ = ["RUN_OVERHEAD", "STEPS_INDEPENDENT", "run_deltas", "delta_bits", "step_cycles",
           "restart_masks", "predecessors", "run_runtimes", "layer_deltas",
           "layer_step_cycles", "delta_term_stats", "layer_registers", "layer_cycles",
           "work_factors"]

#: 1 fill cycle (the first row into the term serialisers), as Pragmatic.
RUN_OVERHEAD = 1

#: Step costs depend on the previous run's last window (the predecessor store).
STEPS_INDEPENDENT = False

#: The terms a delta costs (the design has no encoding option): radix-4 Booth.
ENCODING = "booth"


def delta_bits(cfg) -> int:
    """Width of a delta: ``act_bits + 1`` bits, two's complement."""
    return cfg.act_bits + 1


def run_deltas(cfg, act, rt) -> np.ndarray:
    """Deltas of one run: ``act`` (windows, steps, lanes) -> same shape (see module doc)."""
    act = np.asarray(act, dtype=np.int64)
    windows, steps, lanes = act.shape
    restart = int(rt.get("restart", 1)) if rt else 1
    pred = np.zeros((steps, lanes), dtype=np.int64)
    p = None if rt is None else rt.get("predecessor")
    if p is not None and not restart & 1:
        p = np.asarray(p, dtype=np.int64).ravel()
        p = np.pad(p, (0, (-p.size) % lanes))[:steps * lanes]
        pred.ravel()[:p.size] = p
    prev = np.concatenate([pred[np.newaxis], act[:-1]], axis=0)
    bits = np.array([(restart >> w) & 1 for w in range(windows)], dtype=bool)
    prev[bits] = 0
    return act - prev


def step_cycles(cfg, act, wgt, rt) -> np.ndarray:
    """Cycles of each step of one run: the Pragmatic pallet step (max over windows of the
    Booth-term brick cycles) on the run's deltas."""
    act = np.asarray(act, dtype=np.int64)
    if act.shape[1] == 0:
        return np.zeros(0, dtype=np.int64)
    d = run_deltas(cfg, act, rt)
    masks = term_masks(d, delta_bits(cfg), True, signed_digits(ENCODING, rt))
    return brick_cycles(masks, cfg.first_stage_bits).max(axis=0)


# ---- lowered convolutions ----------------------------------------------------------------

def _out_width(lowering) -> int:
    return lowering.out_shape[3]


def restart_masks(lowering) -> list[int]:
    """The restart bits of every run of a :class:`~termwise.golden.lowering.ConvLowering`.

    Rows are output positions ``(n, oh, ow)`` row-major. Window ``w`` (row ``r``) restarts
    when ``ow == 0`` or it is padding (``r = -1``); window 0 also restarts unless the
    previous run is its predecessor: same conv group, K chunk and filter group, and its last
    window is row ``r - 1``."""
    ow = _out_width(lowering)
    masks = []
    previous = None
    for first, count, g in lowering.groups:
        for run in lowering.runs[first:first + count]:
            mask = 0
            for w, r in enumerate(run.rows):
                if r < 0 or r % ow == 0:
                    mask |= 1 << w
            prev_ok = (previous is not None and previous[0] == g
                       and previous[1].chunk == run.chunk
                       and np.array_equal(previous[1].cols, run.cols)
                       and previous[1].rows[-1] >= 0
                       and previous[1].rows[-1] == run.rows[0] - 1)
            if not prev_ok:
                mask |= 1
            masks.append(mask)
            previous = (g, run)
    return masks


def predecessors(lowering) -> list:
    """``rt["predecessor"]`` of every run: the previous run's last window activations,
    ``None`` when window 0 restarts."""
    masks = restart_masks(lowering)
    out = []
    for i, (run, mask) in enumerate(zip(lowering.runs, masks)):
        out.append(None if mask & 1 else lowering.runs[i - 1].act[-1].copy())
    return out


def run_runtimes(cfg, lowering, rt=None) -> list[dict]:
    """The runtime registers of every run of a lowered convolution: ``rt`` (default
    ``cfg.runtime_values()``) with ``restart`` and ``predecessor``."""
    base = dict(rt or cfg.runtime_values())
    return [dict(base, restart=m, predecessor=p)
            for m, p in zip(restart_masks(lowering), predecessors(lowering))]


def layer_deltas(a, out_width: int) -> np.ndarray:
    """Deltas of whole im2col matrices: ``a`` (..., M, K), rows ``(n, oh, ow)`` row-major
    with ``out_width`` columns; row ``m`` minus row ``m - 1``, except at ``ow == 0``."""
    a = np.asarray(a, dtype=np.int64)
    d = a.copy()
    d[..., 1:, :] -= a[..., :-1, :]
    m = a.shape[-2]
    starts = np.arange(0, m, out_width)
    d[..., starts, :] = a[..., starts, :]
    return d


def layer_step_cycles(cfg, a, wm, out_width: int, encoding: str = "booth") -> dict:
    """Cycles of a lowered layer (``a`` (G, M, K), ``wm`` (G, kg, K), as
    :func:`termwise.golden.netsim.lowered_operands`) on a Diffy ``cfg``, vectorised:
    the deltas of the whole matrix (:func:`layer_deltas`) cut into steps exactly as the
    lowering does (K chunks of ``depth`` bricks x filter groups x window groups).
    Returns ``{"cycles" (sum of step cycles), "rtl_cycles" (plus each run's fixed cycles,
    :func:`termwise.golden.cycles.run_overhead`),
    "runs", "steps"}``; ``rtl_cycles`` equals the sum of ``run_cycles`` over the runs with
    :func:`run_runtimes`."""
    a = np.asarray(a, dtype=np.int64)
    g, m, k = a.shape
    kg = np.asarray(wm).shape[1]
    lanes, win = cfg.lanes, cfg.windows
    st = -(-k // lanes)
    chunks = -(-st // cfg.depth)
    wgc, fgc = -(-m // win), -(-kg // cfg.filters)
    d = np.zeros((g, wgc * win, st * lanes), dtype=np.int64)
    d[:, :m, :k] = layer_deltas(a, out_width)
    masks = term_masks(d.reshape(g, wgc, win, st, lanes), delta_bits(cfg), True, encoding)
    per_window = brick_cycles(masks, cfg.first_stage_bits)          # (g, wgc, win, st)
    steps = per_window.max(axis=2)                                  # (g, wgc, st)
    total = int(steps.sum()) * fgc
    runs = g * chunks * fgc * wgc
    from ..cycles import run_overhead
    return {"cycles": total, "rtl_cycles": total + run_overhead(cfg) * runs, "runs": runs,
            "steps": g * fgc * wgc * st}


def delta_term_stats(cfg, a, out_width: int) -> dict:
    """Mean Booth terms per value of the activations and of their deltas over a lowered
    layer's matrices (both as ``act_bits + 1``-bit values, which hold activations of
    either signedness and their deltas)."""
    from ..terms import booth_term_count
    a = np.asarray(a, dtype=np.int64)
    d = layer_deltas(a, out_width)
    return {"act_terms": float(booth_term_count(a, delta_bits(cfg), True).mean()),
            "delta_terms": float(booth_term_count(d, delta_bits(cfg), True).mean()),
            "act_zero": float((a == 0).mean()), "delta_zero": float((d == 0).mean())}


def layer_registers(cfg, layer, *, out_width: int) -> dict:
    """Per-layer values the model needs beyond the runtime registers: the output row width
    (deltas restart at every row)."""
    return {"out_width": out_width}


def layer_cycles(cfg, a, wm, rt) -> dict:
    """Whole-layer cycles (exact): see :func:`layer_step_cycles`."""
    return layer_step_cycles(cfg, a, wm, rt["out_width"], signed_digits(ENCODING, rt))


def work_factors(cfg, a, w, rt, cache=None):
    """Ideal work per MAC: Booth terms of the deltas along x (one bit wider) times ``Ww``."""
    from ..terms import term_count
    deltas = layer_deltas(a, rt["out_width"])
    return (term_count(deltas, cfg.act_bits + 1, signed_digits(ENCODING, rt), signed=True),
            cfg.wgt_bits)
