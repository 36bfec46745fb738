"""Functional model of one tile run, written from the papers' semantics, not the RTL.

A run computes ``out[w][f] = sum_k act[w][k] * wgt[f][k]`` on the values the design
actually multiplies (see each :mod:`termwise.golden.arch` module's ``effective_operands``:
e.g. Stripes uses the ``precision`` least significant bits of each activation), wrapped to
the configuration's accumulator width.
"""

from __future__ import annotations

import numpy as np

from .arch import model_of
from .twos_complement import value_range, wrap
from .registers import command_registers

__all__ = ["effective_operands", "tile_outputs", "check_operands", "fc_column_outputs"]


def effective_operands(cfg, act, wgt, rt=None):
    """The operand values the design multiplies with runtime registers ``rt`` (as the
    command sends them: the precisions are clamped as the tile clamps them,
    :func:`~termwise.golden.registers.command_registers`)."""
    rt = command_registers(cfg, rt or cfg.runtime_values())
    act, wgt = np.asarray(act, dtype=np.int64), np.asarray(wgt, dtype=np.int64)
    fn = getattr(model_of(cfg), "effective_operands", None)
    return fn(cfg, act, wgt, rt) if fn else (act, wgt)


def check_operands(cfg, act, wgt, rt=None) -> None:
    """Refuse operands the configuration cannot hold with runtime registers ``rt`` (one-line
    ValueError naming the field): activations in the ``act_bits`` range of the run's
    signedness (``rt["act_signed"]``; bf16 patterns are unsigned)."""
    act, wgt = np.asarray(act), np.asarray(wgt)
    rt = rt or cfg.runtime_values()
    signed = rt.get("act_signed", False)
    lo, hi = value_range(cfg.act_bits, signed)
    if act.size and (act.min() < lo or act.max() > hi):
        kind = "signed" if signed else "unsigned"
        raise ValueError(f"act: values must be in {lo}..{hi} for act_bits={cfg.act_bits} "
                         f"({kind} run)")
    lo, hi = value_range(cfg.wgt_bits, True)
    if wgt.size and (wgt.min() < lo or wgt.max() > hi):
        raise ValueError(f"wgt: values must be in {lo}..{hi} for wgt_bits={cfg.wgt_bits}")
    if act.shape[-1] != wgt.shape[-1]:
        raise ValueError(f"k: activations have {act.shape[-1]} values, weights {wgt.shape[-1]}")
    if act.shape[-1] > cfg.depth * cfg.lanes:
        raise ValueError(f"k: {act.shape[-1]} exceeds depth*lanes = {cfg.depth * cfg.lanes}")


def tile_outputs(cfg, act, wgt, rt=None, *, bias=None, residual=None) -> np.ndarray:
    """Outputs of one run: ``act`` (windows, K), ``wgt`` (filters, K) -> (windows, filters).

    With a fused output stage (``cfg.output_stage``) the run is the golden fused operator
    :func:`~termwise.golden.primitives.conv_bias_add_act` / ``conv_bias_act`` on the run
    seen as a 1x1 convolution, with ``bias`` (filters,) and ``residual`` (windows, filters)
    in accumulator units and the requantisation and cap from ``rt``.
    """
    rt = rt or cfg.runtime_values()
    check_operands(cfg, act, wgt, rt)
    a, w = effective_operands(cfg, act, wgt, rt)
    if not cfg.output_stage:
        return wrap(np.einsum("wk,fk->wf", a, w), cfg.acc_bits, True)
    from .primitives import conv_bias_act, conv_bias_add_act
    if a.shape[1] == 0:     # a run of 0 bricks sums nothing: one zero product stands for
        a = np.zeros((a.shape[0], 1), np.int64)     # it (the operators need a channel)
        w = np.zeros((w.shape[0], 1), np.int64)
    x = a.T[np.newaxis, :, np.newaxis, :]              # (1, K, 1, windows)
    kernel = w[:, :, np.newaxis, np.newaxis]            # (filters, K, 1, 1)
    b = np.zeros(w.shape[0], np.int64) if bias is None or not cfg.bias else np.asarray(bias)
    kwargs = stage_arguments(cfg, rt)
    if cfg.residual:
        res = np.zeros((a.shape[0], w.shape[0]), np.int64) if residual is None else residual
        out = conv_bias_add_act(x, kernel, b, np.asarray(res).T[np.newaxis, :, np.newaxis, :],
                                **kwargs)
    else:
        out = conv_bias_act(x, kernel, b, **kwargs)
    out = out[0, :, 0, :].T
    return out if cfg.out_bits else wrap(out, cfg.acc_bits, True)


def stage_arguments(cfg, rt) -> dict:
    """The keyword arguments that make the golden fused operators
    (:func:`~termwise.golden.primitives.conv_bias_act`, ``conv_bias_add_act``) compute what
    ``cfg``'s fused output stage does with the runtime registers ``rt``: its activation, its
    requantisation and (ReLU6) its cap."""
    from .primitives import Requant
    requant = Requant(rt["multiplier"], rt["shift"], cfg.out_bits) if cfg.out_bits else None
    kwargs = dict(activation="identity" if cfg.activation == "none" else cfg.activation,
                  requant=requant)
    if cfg.activation == "relu6":
        # The hardware's cap is in output units; the golden operator takes it in accumulator
        # units and requantises it. Pass a cap whose requantised value is rt["cap"] exactly
        # when requantising, else the cap itself.
        kwargs["cap"] = rt["cap"] if requant is None else _acc_cap(requant, rt["cap"])
    return kwargs


def fc_column_outputs(cfg, act, wgt_cols, rt) -> np.ndarray:
    """Outputs of one ``fc`` run (:class:`~termwise.golden.lowering.FcRun`): ``act``
    (windows, K), ``wgt_cols`` (windows, filters, K) -> (windows, filters), column ``c``
    the inner products of its own activations and weights."""
    act = np.asarray(act, dtype=np.int64)
    return np.stack([tile_outputs(cfg, act[c:c + 1], wgt_cols[c], rt)[0]
                     for c in range(act.shape[0])])


def _acc_cap(requant, cap_out: int) -> int:
    """An accumulator-unit cap that requantises to exactly ``cap_out`` (the largest such)."""
    lo, hi = 0, 1 << 62
    while lo < hi:                      # largest c with requant(c) <= cap_out
        mid = (lo + hi + 1) // 2
        if int(requant(np.array([mid]))[0]) <= cap_out:
            lo = mid
        else:
            hi = mid - 1
    return lo
