"""Cycle models: how many cycles a tile run takes, from the command to the first result.

The per-step costs are the papers' (docs/papers.md, one section per design) and
live in :mod:`termwise.golden.arch`, one module per design; this module pads operands into
bricks and adds each implementation's fixed run overhead. Simulation must match exactly.

The runtime registers ``rt`` are taken as the command sends them: every entry point reads
them through :func:`~termwise.golden.registers.command_registers`, which clamps the
precisions as ``rtl/tile.py`` promises (a precision of 0 runs as 1, one above the
datapath's width as the width), the same clamping as the functional model's.
"""

from __future__ import annotations

import math

import numpy as np

from .arch import model_of
from .registers import command_registers

__all__ = ["to_bricks", "step_cycles", "run_cycles", "run_overhead", "bricks_for",
           "fc_step_cycles", "fc_run_cycles"]


def bricks_for(cfg, k: int) -> int:
    return math.ceil(k / cfg.lanes)


def to_bricks(cfg, values) -> np.ndarray:
    """(..., K) -> (..., steps, lanes), zero padded to whole bricks (e.g. (rows, K), or an
    fc run's per-column weights (windows, filters, K))."""
    values = np.asarray(values, dtype=np.int64)
    pad = (-values.shape[-1]) % cfg.lanes
    values = np.pad(values, ((0, 0),) * (values.ndim - 1) + ((0, pad),))
    return values.reshape(values.shape[:-1] + (-1, cfg.lanes))


def run_overhead(cfg) -> int:
    """The fixed cycles of every run on ``cfg``: its design's ``RUN_OVERHEAD`` and the
    pipeline registers outside the design's model (``cfg.pipeline_latency``: the PE input
    stages and the fused output stage). A model whose overhead depends on the configuration
    gives it as ``run_overhead(cfg)`` (the bf16 baseline's pipelined datapath)."""
    arch = model_of(cfg)
    own = getattr(arch, "run_overhead", None)
    return (own(cfg) if own else arch.RUN_OVERHEAD) + cfg.pipeline_latency


def step_cycles(cfg, act, wgt, rt=None) -> np.ndarray:
    """Cycles of each step of a run on ``act`` (windows, K) and ``wgt`` (filters, K)."""
    rt = command_registers(cfg, rt or cfg.runtime_values())
    cycles = model_of(cfg).step_cycles(cfg, to_bricks(cfg, act), to_bricks(cfg, wgt), rt)
    return np.maximum(np.asarray(cycles, dtype=np.int64), 1)


def run_cycles(cfg, act, wgt, rt=None) -> int:
    """Cycles from the command transfer to ``out.valid`` for one run: the steps, the
    design's ``RUN_OVERHEAD`` and the pipeline registers outside its model (the PE input
    stages and the fused output stage, ``cfg.pipeline_latency``).

    Designs whose lanes are not in lockstep per step (Cnvlutin's decoupled lanes) define
    ``run_cycles(cfg, act_bricks, wgt_bricks, rt)`` in their model instead of per-step
    costs."""
    arch = model_of(cfg)
    rt = command_registers(cfg, rt or cfg.runtime_values())
    if hasattr(arch, "run_cycles"):
        return int(arch.run_cycles(cfg, to_bricks(cfg, act), to_bricks(cfg, wgt), rt)) \
            + cfg.pipeline_latency
    if np.asarray(act).shape[1] == 0:
        return 1 + cfg.pipeline_latency
    return int(step_cycles(cfg, act, wgt, rt).sum()) + run_overhead(cfg)


def fc_step_cycles(cfg, act, wgt_cols, rt=None) -> np.ndarray:
    """Cycles of every round of an ``fc`` run (``act`` (windows, K), ``wgt_cols``
    (windows, filters, K)) on the array, its weights aside: the model's own
    ``fc_step_cycles`` when it has one, else its ``step_cycles`` with every column's filters
    stacked (right for a design that costs a step by its activations and runtime registers
    only)."""
    arch = model_of(cfg)
    rt = command_registers(cfg, rt or cfg.runtime_values(fc=True))
    if hasattr(arch, "fc_step_cycles"):
        return np.asarray(arch.fc_step_cycles(cfg, act, wgt_cols, rt), dtype=np.int64)
    act = np.asarray(act, dtype=np.int64)
    wgt = np.asarray(wgt_cols, dtype=np.int64).reshape(-1, act.shape[1])
    return step_cycles(cfg, act, wgt, rt)


def fc_run_cycles(cfg, act, wgt_cols, rt=None) -> int:
    """Cycles of one ``fc`` run (``rtl/column_weights.py``): ``act`` (windows, K) and
    ``wgt_cols`` (windows, filters, K), ``n`` rounds of costs ``c_k``
    (:func:`fc_step_cycles`); a design whose model defines ``fc_run_cycles(cfg, act,
    wgt_cols, rt)`` gives its own.

    The columns run a cycle apart, one weight register per PE (``rtl/column_stagger.py``):
    the buffer delivers round ``k``'s rows one per cycle, column ``c``'s on the cycle it
    starts the round. Column 0 starts round 0 on the cycle after the command (as a conv
    run's first step); rounds start ``max(c_k, windows)`` apart (a round's ``windows``
    reads end before the next round's begin), and the last column ends ``windows - 1``
    cycles after column 0::

        sum(max(c_k, windows) for k < n - 1) + c_{n-1} + (windows - 1) + RUN_OVERHEAD
    """
    arch = model_of(cfg)
    rt = command_registers(cfg, rt or cfg.runtime_values(fc=True))
    if hasattr(arch, "fc_run_cycles"):     # a design whose array times fc rounds its own way
        return int(arch.fc_run_cycles(cfg, act, wgt_cols, rt)) + cfg.pipeline_latency
    if np.asarray(act).shape[1] == 0:
        return 1 + cfg.pipeline_latency
    c = fc_step_cycles(cfg, act, wgt_cols, rt)
    cols = cfg.windows
    return int(np.maximum(c[:-1], cols).sum() + c[-1] + cols - 1) + run_overhead(cfg)
