"""Cnvlutin (Albericio et al., "Cnvlutin: Ineffectual-Neuron-Free Deep Neural Network
Computing", ISCA 2016): zero activations are never multiplied.

Format (the paper's zero-free neuron array format, ZFNAf, as this tile uses it): lane ``l``
of window ``w`` sees the activations ``act[w][b * lanes + l]`` of bricks ``b = 0 .. n-1``.
It keeps only the non-zero ones, each with its *offset* ``b`` (:func:`pack_zero_free`).
Lanes are decoupled: every cycle each lane of each window takes its next (value, offset)
pair, or nothing once its stream is empty, and the offset selects the matching weight
``wgt[f][b * lanes + l]`` of every filter ``f`` from the lane's own weight bank.

Outputs are exact: every non-zero product is taken once, so the result is the ordinary dot
product (:mod:`termwise.golden.tile_model`).

Run formula (this implementation, ``rtl/cnvlutin.py``)::

    cycles = max(1, max over windows and lanes of the lane's non-zero count)
           + 1 (the last pairs' weights are read from the lane banks, then accumulated)
           + 1 (the tile raises out.valid the cycle after the accumulators are final)

i.e. ``RUN_OVERHEAD = 2``. An all-zero run still takes one step cycle. A run with no
bricks takes 1 cycle (``golden.cycles``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["RUN_OVERHEAD", "STEPS_INDEPENDENT", "pack_zero_free", "lane_counts", "run_cycles", "work_factors"]

#: 1 cycle reading the last pairs' weights (the lane banks are synchronous memories) and
#: accumulating them, plus 1 cycle for the tile to raise ``out.valid``.
RUN_OVERHEAD = 2

#: Lanes are decoupled: a run's cycles are not a sum of per-step costs, so the network
#: simulator (:mod:`termwise.golden.netsim`) calls :func:`run_cycles` once per run.
STEPS_INDEPENDENT = False


def pack_zero_free(bricks) -> list[tuple[list[int], list[int]]]:
    """Pack dense bricks into zero-free lane streams (pure Python, no NumPy semantics).

    Parameters
    ----------
    bricks : array-like of shape (n, lanes)
        Brick ``b`` of one window, lane 0 first (the rows the host sends).

    Returns
    -------
    list of (values, offsets), one per lane
        Lane ``l``'s non-zero values ``bricks[b][l]`` in brick order, and their brick
        indices ``b`` (the offsets).
    """
    rows = [[int(v) for v in row] for row in bricks]
    lanes = len(rows[0]) if rows else 0
    streams = []
    for lane in range(lanes):
        pairs = [(row[lane], b) for b, row in enumerate(rows) if row[lane] != 0]
        streams.append(([v for v, _ in pairs], [b for _, b in pairs]))
    return streams


def lane_counts(act) -> np.ndarray:
    """Length of every lane's zero-free stream: ``act`` (windows, steps, lanes) ->
    (windows, lanes) non-zero counts."""
    return np.count_nonzero(np.asarray(act), axis=1).astype(np.int64)


def run_cycles(cfg, act, wgt, rt) -> int:
    """Cycles from the command transfer to ``out.valid``: the longest lane stream (at least
    1 cycle) plus :data:`RUN_OVERHEAD`. ``act`` is (windows, steps, lanes); the weights and
    runtime registers do not matter (zero weights are not skipped)."""
    counts = lane_counts(act)
    longest = int(counts.max()) if counts.size else 0
    return max(longest, 1) + RUN_OVERHEAD


def layer_run_cycles(cfg, a, wm, rt, window_groups) -> int:
    """Steady-state cycles of a whole lowered layer, vectorised (the network simulator's
    path): for every channel group, K chunk, filter group and the selected window groups,
    the longest lane stream of the run (at least 1), summed. Runs are laid out exactly as
    :func:`termwise.golden.lowering.lower_matmul` does; ``a`` is (groups, M, K), ``wm``
    (groups, filters, K). Equal to ``sum(run_cycles - RUN_OVERHEAD)`` over those runs."""
    a = np.asarray(a)
    g, m, k = a.shape
    lanes, win, depth = cfg.lanes, cfg.windows, cfg.depth
    steps = -(-k // lanes)
    chunks = -(-steps // depth)
    wgc = -(-m // win)
    fgc = -(-np.asarray(wm).shape[1] // cfg.filters)
    ap = np.zeros((g, wgc * win, chunks * depth * lanes), dtype=bool)
    ap[:, :m, :k] = a != 0
    # (groups, window groups, windows, chunks, bricks per chunk, lanes)
    nz = ap.reshape(g, wgc, win, chunks, depth, lanes)[:, list(window_groups)]
    longest = nz.sum(axis=4).max(axis=(2, 4))          # (groups, window groups, chunks)
    return int(np.maximum(longest, 1).sum()) * fgc


def work_factors(cfg, a, w, rt, cache=None):
    """Ideal work per MAC: a zero activation's whole bit-parallel MAC is skipped."""
    return (np.asarray(a) != 0).astype(np.int64) * cfg.act_bits, cfg.wgt_bits
