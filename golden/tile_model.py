"""Functional model of one tile run, written from the papers' semantics, not the RTL.

A run computes ``out[w][f] = sum_k act[w][k] * wgt[f][k]`` with the configuration's
accumulator width. Precision-scaling designs (Stripes) use only the ``precision`` least
significant bits of each activation, read as two's complement when activations are signed
(Judd et al., MICRO 2016: the runtime precision P; the host quantises to P bits).
"""

from __future__ import annotations

import numpy as np

from .fixedpoint import value_range, wrap

__all__ = ["effective_activations", "tile_outputs", "check_operands"]


def effective_activations(cfg, act, precision: int | None) -> np.ndarray:
    """The activation values the design actually multiplies at runtime ``precision``."""
    act = np.asarray(act, dtype=np.int64)
    if cfg.arch == "baseline" or precision is None:
        return act
    return wrap(act, precision, cfg.act_signed)


def check_operands(cfg, act, wgt) -> None:
    """Refuse operands the configuration cannot hold (one-line ValueError naming the field)."""
    act, wgt = np.asarray(act), np.asarray(wgt)
    lo, hi = value_range(cfg.act_bits, cfg.act_signed)
    if act.size and (act.min() < lo or act.max() > hi):
        raise ValueError(f"act: values must be in {lo}..{hi} for act_bits={cfg.act_bits}")
    lo, hi = value_range(cfg.wgt_bits, True)
    if wgt.size and (wgt.min() < lo or wgt.max() > hi):
        raise ValueError(f"wgt: values must be in {lo}..{hi} for wgt_bits={cfg.wgt_bits}")
    if act.shape[-1] != wgt.shape[-1]:
        raise ValueError(f"k: activations have {act.shape[-1]} values, weights {wgt.shape[-1]}")
    if act.shape[-1] > cfg.depth * cfg.lanes:
        raise ValueError(f"k: {act.shape[-1]} exceeds depth*lanes = {cfg.depth * cfg.lanes}")


def tile_outputs(cfg, act, wgt, precision: int | None = None) -> np.ndarray:
    """Outputs of one run: ``act`` (windows, K), ``wgt`` (filters, K) -> (windows, filters)."""
    check_operands(cfg, act, wgt)
    a = effective_activations(cfg, act, precision)
    out = np.einsum("wk,fk->wf", a, np.asarray(wgt, dtype=np.int64))
    return wrap(out, cfg.acc_bits, True)
