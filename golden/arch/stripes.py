"""Stripes (Judd et al., MICRO 2016): activations bit-serial at a runtime precision P.

A step takes P cycles whatever the values (docs/papers.md#stripes). Only the
P least significant bits of each activation are used, read as two's complement when
activations are signed: the host quantises to P bits, and lowering P at run time trades
accuracy for speed.
"""

import numpy as np

from ..twos_complement import wrap

#: 1 cycle to raise ``out.valid`` plus 1 in which the last brick is added to the
#: accumulators (the serial partial sum is committed the cycle after its last bit).
RUN_OVERHEAD = 2


def step_cycles(cfg, act, wgt, rt) -> np.ndarray:
    return np.full(act.shape[1], rt["precision"], dtype=np.int64)


def effective_operands(cfg, act, wgt, rt):
    return wrap(act, rt["precision"], rt["act_signed"]), wgt


def work_factors(cfg, a, w, rt, cache=None):
    """Ideal work per MAC: ``p * Ww``, ``p`` the layer's precision register."""
    return rt["precision"], cfg.wgt_bits


def ideal_work(act, wgt, s):
    return np.int64(s.act_precision * s.wgt_bits)
