"""Functional model of one tile run, written from the papers' semantics, not the RTL.

A run computes ``out[w][f] = sum_k act[w][k] * wgt[f][k]`` on the values the design
actually multiplies (see each :mod:`termwise.golden.arch` module's ``effective_operands``:
e.g. Stripes uses the ``precision`` least significant bits of each activation), wrapped to
the configuration's accumulator width.
"""

from __future__ import annotations

import numpy as np

from .arch import model
from .fixedpoint import value_range, wrap

__all__ = ["effective_operands", "tile_outputs", "check_operands"]


def effective_operands(cfg, act, wgt, rt=None):
    """The operand values the design multiplies with runtime registers ``rt``."""
    rt = rt or cfg.runtime_values()
    act, wgt = np.asarray(act, dtype=np.int64), np.asarray(wgt, dtype=np.int64)
    fn = getattr(model(cfg.arch), "effective_operands", None)
    return fn(cfg, act, wgt, rt) if fn else (act, wgt)


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


def tile_outputs(cfg, act, wgt, rt=None) -> np.ndarray:
    """Outputs of one run: ``act`` (windows, K), ``wgt`` (filters, K) -> (windows, filters)."""
    check_operands(cfg, act, wgt)
    a, w = effective_operands(cfg, act, wgt, rt)
    out = np.einsum("wk,fk->wf", a, w)
    return wrap(out, cfg.acc_bits, True)
