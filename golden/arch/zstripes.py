"""Zero-skipping Stripes: Stripes (docs/papers.md#stripes) in which a step whose
activations are all zero (a brick of every window) takes one cycle instead of P; results
are Stripes' (the P low bits of each activation)."""

import numpy as np

from .stripes import RUN_OVERHEAD, effective_operands

__all__ = ["RUN_OVERHEAD", "step_cycles", "effective_operands", "work_factors"]


def step_cycles(cfg, act, wgt, rt) -> np.ndarray:
    zero = ~np.asarray(act).any(axis=(0, 2))               # (steps,)
    return np.where(zero, 1, rt["precision"]).astype(np.int64)


def work_factors(cfg, a, w, rt, cache=None):
    """Ideal work per MAC: Stripes' ``p * Ww`` for a non-zero activation, none for a zero
    one (the bound of skipping every zero, which the tile reaches only for whole steps)."""
    return (np.asarray(a) != 0).astype(np.int64) * rt["precision"], cfg.wgt_bits
