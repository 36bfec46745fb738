"""Dynamic Stripes (Delmas et al., arXiv 1706.00504): bit-serial at the precision of the
widest activation of each step (docs/papers.md#dynamic-stripes: its top one's position plus
one, plus a sign bit for signed data), at least 1 cycle. Exact results."""

import numpy as np

from ..terms import precision_needed
from ..work import group_precision_of, grouped_precision

#: As Stripes: 1 cycle to raise ``out.valid`` and 1 to commit the last brick.
RUN_OVERHEAD = 2


def step_cycles(cfg, act, wgt, rt) -> np.ndarray:
    need = precision_needed(act, cfg.act_bits, rt["act_signed"])   # (W, steps, L)
    return np.maximum(need.max(axis=(0, 2)), 1)


def work_factors(cfg, a, w, rt, cache=None):
    """Ideal work per MAC: ``width_group(a) * Ww`` (the group is one brick's lanes)."""
    return group_precision_of(cfg, a, rt["act_signed"], cache), cfg.wgt_bits


def ideal_work(act, wgt, s):
    return grouped_precision(act, s.act_bits, s.act_signed, s.group) * s.wgt_bits
