"""bfloat16 bit-parallel baseline (DaDianNao-like, bf16 operands, float32 accumulation):
what one tile run computes, in the hardware's order, and how long it takes.

Values are bit patterns: operands ``uint16`` bf16 (as stored in the tile's buffers), results
``float32`` (the tile's 32-bit output words).

Exact model (:func:`tile_outputs_bf16`), written from the arithmetic, not the RTL: each
product ``act * wgt`` in float32 (exact for bf16 operands unless it underflows below 2**-126,
then rounded once, RNE, or overflows to inf); each brick's ``lanes`` products summed pairwise
level by level (``(p0 + p1), (p2 + p3), ...``, an odd last one passed up; the order of
:class:`termwise.rtl.fp.FloatAdderTree`), one float32 rounding per addition; the brick sums
added in brick order to an accumulator starting at ``+0.0``. The tile must match it bit for
bit (any NaN equals any NaN).

Reference comparison (the MIOpen discipline, :mod:`termwise.golden.primitives.verify`): a
convolution lowered onto the tile and assembled in float32 on the host
(:func:`assemble_conv2d_f32`) is compared with
:func:`termwise.golden.primitives.bf16.conv2d_bf16` (same bf16 inputs, float32 accumulation
in sequential ``c, r, s`` order) by the normalised RMS error
``sqrt(sum (a-b)^2) / (sqrt(n) * max|ref|)`` under ``FP32_THRESHOLD = 1e-5``: both sides
have exact products and differ only in the order of float32 additions, whose error is of
order ``sqrt(T) * 2**-24`` for ``T`` products per output (~1e-6 for T = 144).

Cycles: the PE is pipelined (:class:`termwise.rtl.baseline_bf16.BF16PE`): two registers
through the multipliers and one after every adder-tree level
(:func:`termwise.gen.designs.baseline_bf16.pipeline`, ``latency = 2 + ceil(log2 lanes)``),
then the accumulator's fp32 adder, one add per cycle (a recurrence, not pipelined). The tile
still takes one brick per cycle; a run of N >= 1 bricks takes ``N + run_overhead(cfg)``
cycles, ``run_overhead = max(latency, 1)`` (the integer baseline's 1 plus one per register
beyond the first, which hides behind the controller's own cycle), and an empty run 1 cycle.
The summation order (and so every bit of the result) is the unpipelined one: the registers
only delay each brick's tree sum, which reaches the accumulator in brick order.
:func:`run_cycles` is this module's cycle model; :class:`termwise.tb.bf16_tests.Bf16TB`
checks every run against it. (``termwise.golden.cycles.run_cycles`` looks models up by
arch alone, so it gives the integer baseline's ``N + 1`` for bf16 configurations.)
"""

from __future__ import annotations

import numpy as np

from ...gen.designs.baseline_bf16 import pipeline, run_overhead_for
from ..primitives.bf16 import bf16_to_f32
from .baseline import step_cycles

__all__ = ["RUN_OVERHEAD", "run_overhead", "run_cycles", "step_cycles", "tree_sum",
           "tile_outputs_bf16", "assemble_matmul_f32", "assemble_conv2d_f32", "nan_equal"]


#: The run overhead of the unpipelined datapath (latency 0, the integer baseline's); a
#: configuration's own is :func:`run_overhead`.
RUN_OVERHEAD = run_overhead_for(0)


def run_overhead(cfg) -> int:
    """Cycles a run of at least one brick costs beyond one per brick (module docstring)."""
    return run_overhead_for(pipeline(cfg).latency)


def run_cycles(cfg, act, wgt, rt=None) -> int:
    """Cycles from the command transfer to ``out.valid`` for one run: ``act`` (windows, K)
    or (windows, steps, lanes), ``wgt`` likewise; 1 for an empty run, else one per brick
    plus :func:`run_overhead`."""
    act = np.asarray(act)
    bricks = act.shape[1] if act.ndim == 3 else -(-act.shape[1] // cfg.lanes)
    return 1 if bricks == 0 else bricks + run_overhead(cfg)


def tree_sum(values: np.ndarray) -> np.ndarray:
    """Pairwise float32 sum over the last axis, level by level (the hardware tree)."""
    level = [values[..., i] for i in range(values.shape[-1])]
    with np.errstate(all="ignore"):
        while len(level) > 1:
            paired = [x + y for x, y in zip(level[0::2], level[1::2])]
            level = paired + ([level[-1]] if len(level) % 2 else [])
    return np.asarray(level[0], dtype=np.float32)


def tile_outputs_bf16(cfg, act, wgt, *, order: str = "tree") -> np.ndarray:
    """One run: ``act`` (windows, K), ``wgt`` (filters, K) bf16 bit patterns -> float32
    (windows, filters), in the hardware's order (module docstring). K is padded with +0.0
    to whole bricks, as the driver does. ``order="sequential"`` sums each brick's lanes
    left to right instead of by the tree: not the hardware, used to show that the bit-exact
    comparison tells the two apart."""
    if order not in ("tree", "sequential"):
        raise ValueError(f"order: expected 'tree' or 'sequential', got {order!r}")
    act = np.asarray(act, dtype=np.uint16)
    wgt = np.asarray(wgt, dtype=np.uint16)
    if act.shape[-1] != wgt.shape[-1]:
        raise ValueError(f"k: activations have {act.shape[-1]} values, weights {wgt.shape[-1]}")
    if act.shape[-1] > cfg.depth * cfg.lanes:
        raise ValueError(f"k: {act.shape[-1]} exceeds depth*lanes = {cfg.depth * cfg.lanes}")
    pad = (-act.shape[-1]) % cfg.lanes
    a = bf16_to_f32(np.pad(act, ((0, 0), (0, pad)))).reshape(act.shape[0], -1, cfg.lanes)
    w = bf16_to_f32(np.pad(wgt, ((0, 0), (0, pad)))).reshape(wgt.shape[0], -1, cfg.lanes)
    with np.errstate(all="ignore"):
        products = a[:, None] * w[None, :]                  # (W, F, bricks, lanes), float32
    if order == "tree":
        sums = tree_sum(products)                           # (W, F, bricks)
    else:
        sums = products[..., 0]
        with np.errstate(all="ignore"):
            for lane in range(1, cfg.lanes):
                sums = sums + products[..., lane]
    acc = np.zeros(sums.shape[:2], dtype=np.float32)
    with np.errstate(all="ignore"):
        for i in range(sums.shape[2]):
            acc = acc + sums[:, :, i]
    return acc


def assemble_matmul_f32(runs, results, m: int, n: int) -> np.ndarray:
    """The host's assembly of float32 run results into (M, N): the output starts at +0.0
    and each run's result is added in float32 in run order (K chunks in order)."""
    out = np.zeros((m, n), dtype=np.float32)
    with np.errstate(all="ignore"):
        for run, res in zip(runs, results):
            r, c = run.rows >= 0, run.cols >= 0
            idx = np.ix_(run.rows[r], run.cols[c])
            out[idx] = out[idx] + np.asarray(res, dtype=np.float32)[np.ix_(r, c)]
    return out


def assemble_conv2d_f32(lowering, results) -> np.ndarray:
    """:func:`termwise.golden.lowering.assemble_conv2d` in float32 (see
    :func:`assemble_matmul_f32`), packed depthwise lowerings included."""
    from ..lowering import assemble_conv2d
    return assemble_conv2d(lowering, results, dtype=np.float32, assemble=assemble_matmul_f32)


def nan_equal(a, b) -> np.ndarray:
    """Elementwise bit equality of float32 arrays, any NaN equal to any NaN."""
    a = np.asarray(a, dtype=np.float32)
    b = np.asarray(b, dtype=np.float32)
    return (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))
