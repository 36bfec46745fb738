"""Cycle models: how many cycles a tile run takes, from the command to the first result.

The per-brick costs are the papers' (shared/reference/family.md, "Semantics (model)"):

- baseline (DaDianNao): 1 cycle per brick;
- Stripes (MICRO 2016): P cycles per brick at runtime precision P.

Fixed overheads of this implementation, part of the model so simulation must match it
exactly: 1 cycle to see the last brick retire and raise ``out.valid``; bit-serial designs
add 1 more cycle in which the last finished brick is added to the accumulators.
"""

from __future__ import annotations

import math

__all__ = ["brick_cycles", "run_cycles", "bricks_for", "RUN_OVERHEAD"]

#: Cycles a run costs beyond its bricks' own cycles, per architecture (see module doc).
RUN_OVERHEAD = {"baseline": 1, "stripes": 2}


def brick_cycles(cfg, precision: int | None = None) -> int:
    """Cycles one brick occupies the array."""
    if cfg.arch == "baseline":
        return 1
    if cfg.arch == "stripes":
        return cfg.check_precision(cfg.act_bits if precision is None else precision)
    raise ValueError(f"arch: no cycle model for {cfg.arch!r}")


def run_cycles(cfg, bricks: int, precision: int | None = None) -> int:
    """Cycles from the command transfer to ``out.valid`` for a run of ``bricks`` bricks."""
    if bricks == 0:
        return 1
    return bricks * brick_cycles(cfg, precision) + RUN_OVERHEAD[cfg.arch]


def bricks_for(cfg, k: int) -> int:
    return math.ceil(k / cfg.lanes)
