"""Bit-parallel baseline (DaDianNao, Chen et al., MICRO 2014): one brick per cycle."""

import numpy as np

#: One cycle after the last brick to see it retire and raise ``out.valid``.
RUN_OVERHEAD = 1


def step_cycles(cfg, act, wgt, rt) -> np.ndarray:
    return np.ones(act.shape[1], dtype=np.int64)


def work_factors(cfg, a, w, rt, cache=None):
    """Ideal work per MAC: ``Wa * Ww`` (every bit of both operands)."""
    return cfg.act_bits, cfg.wgt_bits


def ideal_work(act, wgt, s):
    return np.int64(s.act_bits * s.wgt_bits)
