"""The cycle bound of a proof: the golden cycle model's worst step over every brick value,
both precisions and both signednesses (:func:`worst_step_cycles`), a run's worst case
(:func:`cycle_bound`) and the bounded model check's depth past it (:func:`bmc_depth`)."""

from __future__ import annotations

import itertools

import numpy as np

from ...golden.arch import model_of
from ...golden.cycles import run_overhead, step_cycles
from .hooks import design_hook

__all__ = ["bricks_of", "act_values", "every_pair", "worst_step_cycles", "cycle_bound",
           "bmc_depth"]


def bricks_of(values: np.ndarray, lanes: int) -> np.ndarray:
    """Every brick of ``lanes`` values drawn from ``values``: (count, lanes)."""
    return np.array(list(itertools.product(values, repeat=lanes)), dtype=np.int64
                    ).reshape(-1, lanes)


def act_values(cfg, act_signed: bool) -> np.ndarray:
    """Every ``act_bits``-bit activation value of a run of this signedness."""
    if act_signed:
        return np.arange(-(1 << (cfg.act_bits - 1)), 1 << (cfg.act_bits - 1))
    return np.arange(0, 1 << cfg.act_bits)


def every_pair(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``(x[i], y[j])`` for every ``i, j``: two arrays of ``len(x) * len(y)`` rows."""
    return np.repeat(x, len(y), axis=0), np.tile(y, (len(x), 1))


def worst_step_cycles(cfg, *, weights: bool = True) -> int:
    """The most cycles one step takes in the golden cycle model, over every brick value,
    both precisions and both signednesses (or the design's own ``worst_step_cycles`` hook,
    :attr:`termwise.gen.spec.FormalSpec.module`, when one brick of each operand does not
    reach its worst case).

    ``weights=False``: every activation brick with one weight brick only, for a design
    whose step cycles do not read the weights (Bit-Pragmatic's ``step_cycles``): the
    pairs with every weight brick are ``8**lanes`` times as many at 3 bits (TCLe's encoder
    over 4 candidates: 1.7e7 pairs per signedness; that enumeration took 5 GB and had not
    finished after 12 minutes).

    Every window holds the same brick and every filter the same one: each design's step
    costs the most of its windows' and filters' costs (pallet synchronisation), so one
    brick of each reaches the worst case. Each step is costed as a run of its own, so the
    sum over a run's steps bounds the run also where steps overlap (column
    synchronisation)."""
    own = design_hook(cfg, "worst_step_cycles")
    if own is not None:
        return own(cfg)
    model = model_of(cfg)
    independent = getattr(model, "steps_independent", lambda _: True)(cfg)
    lo, hi = -(1 << (cfg.wgt_bits - 1)), 1 << (cfg.wgt_bits - 1)
    wgts = bricks_of(np.arange(lo, hi), cfg.lanes) if weights else \
        np.ones((1, cfg.lanes), dtype=np.int64)
    worst = 1
    for act_signed in (True, False):
        acts = bricks_of(act_values(cfg, act_signed), cfg.lanes)
        a, w = every_pair(acts, wgts)       # every (activation, weight brick) pair a step
        act = np.broadcast_to(a.reshape(1, -1), (cfg.windows, a.size))
        wgt = np.broadcast_to(w.reshape(1, -1), (cfg.filters, w.size))
        for p in range(1, cfg.act_bits + 1):
            for pw in range(1, cfg.wgt_bits + 1):
                rt = cfg.runtime_values(p, pw, act_signed=act_signed)
                worst = max(worst, _worst_of(cfg, act, wgt, rt, independent))
    return worst


def _worst_of(cfg, act, wgt, rt, independent: bool) -> int:
    """The costliest step of ``act`` / ``wgt`` (each ``lanes`` values one step)."""
    if independent:
        return int(step_cycles(cfg, act, wgt, rt).max())
    lanes = cfg.lanes
    return max(int(step_cycles(cfg, act[:, i:i + lanes], wgt[:, i:i + lanes], rt).sum())
               for i in range(0, act.shape[1], lanes))


def cycle_bound(cfg, bricks: int, worst_step: int | None = None) -> int:
    """Cycles from the ``start`` cycle to the finished run (the tile's command transfer to
    ``out.valid``, :func:`termwise.golden.cycles.run_cycles`) in the worst case of
    ``bricks`` steps: the design's fixed overhead plus ``bricks`` worst steps (an empty run
    takes 1 cycle, and the PE input stages' ``pipeline_latency``)."""
    if worst_step is None:
        worst_step = worst_step_cycles(cfg)
    return run_overhead(cfg) + bricks * worst_step if bricks else 1 + cfg.pipeline_latency


def bmc_depth(cfg, bricks: int | None = None, worst_step: int | None = None) -> int:
    """Steps the bounded model check needs: the cycles up to the bound of a run of
    ``bricks`` (default ``cfg.depth``; step 0 is the ``start`` cycle) and one more, in
    which the result must hold."""
    return cycle_bound(cfg, cfg.depth if bricks is None else bricks, worst_step) + 2
