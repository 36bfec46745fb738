"""Loom (Sharify et al., "Loom: Exploiting Weight and Activation Precisions to Accelerate
Convolutional Neural Networks", DAC 2018): weights and activations both bit-serial.

Semantics (docs/papers.md#loom: ``ceil(Pa / serial_bits) * Pw`` cycles per step):

* ``Pw`` is the layer's weight precision, the runtime register ``wgt_precision``
  (1..wgt_bits). The design uses the ``Pw`` least significant bits of each weight, read as
  two's complement (bit ``Pw - 1`` is the sign): :func:`effective_operands` wraps the
  weights to ``Pw`` signed bits.
* ``Pa`` is detected per step, as in Dynamic Stripes: the bits needed by the widest
  activation of the step (every window's brick; all windows share the weight bits), sign
  bit included for signed activations, at least 1 (:func:`..terms.precision_needed`).
  Activations are processed exactly (never truncated).
* Activations are consumed ``serial_bits`` bits per cycle, so a step takes
  ``ceil(Pa / serial_bits) * Pw`` cycles.

A run therefore takes ``sum over steps of ceil(Pa_s / serial_bits) * Pw + RUN_OVERHEAD``
cycles from the command transfer to the first result.
"""

import numpy as np

from ..twos_complement import wrap
from ..terms import precision_needed
from ..work import group_precision_of, grouped_precision

__all__ = ["RUN_OVERHEAD", "step_cycles", "effective_operands", "work_factors", "ideal_work"]

#: Fixed cost of a run in this implementation (``rtl/loom.py``), beyond its steps:
#: 1 cycle in which the last step's final activation-chunk partial sum is committed into
#: the weight-bit shift accumulator, 1 cycle in which that brick result is added into the
#: output accumulator (two nested MSB-first accumulations, each committed the cycle after
#: its last term, one stage more than Stripes), and 1 cycle for the controller to raise
#: ``out.valid``. There is no row-load fill cycle beyond these: the first row is read from
#: the buffers on the command cycle itself.
RUN_OVERHEAD = 3


def step_cycles(cfg, act, wgt, rt) -> np.ndarray:
    """Cycles of every step: ``ceil(Pa / serial_bits) * Pw``.

    Parameters
    ----------
    cfg : TileConfig
    act : ndarray, (windows, steps, lanes)
    wgt : ndarray, (filters, steps, lanes)
    rt : dict
        Runtime registers; ``rt["wgt_precision"]`` is ``Pw``.
    """
    sb = cfg.serial_bits
    pa = np.maximum(precision_needed(act, cfg.act_bits, rt["act_signed"]).max(axis=(0, 2)), 1)
    chunks = -(-pa // sb)
    return (chunks * int(rt["wgt_precision"])).astype(np.int64)


def effective_operands(cfg, act, wgt, rt):
    """Activations exact; weights reduced to their ``Pw`` low bits, two's complement."""
    return act, wrap(wgt, int(rt["wgt_precision"]), True)


def work_factors(cfg, a, w, rt, cache=None):
    """Ideal work per MAC: ``width_group(a) * Pw``, ``Pw`` the weight precision register."""
    return group_precision_of(cfg, a, rt["act_signed"], cache), rt["wgt_precision"]


def ideal_work(act, wgt, s):
    return grouped_precision(act, s.act_bits, s.act_signed, s.group) * s.wgt_precision
