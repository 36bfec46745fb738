"""cocotb tests of a generated bfloat16 tile (``cfg.dtype == "bf16"``, run through
:func:`termwise.tb.runner.run_regression` with ``test_module="termwise.tb.bf16_tests"``).

Operands are bf16 bit patterns (``uint16``), outputs float32 bit patterns. Every run's
outputs are compared bit for bit (any NaN equal to any NaN) with the hardware-order golden
model :func:`termwise.golden.arch.baseline_bf16.tile_outputs_bf16`, and every run's measured
cycle count with :func:`termwise.golden.cycles.run_cycles` (one cycle per brick
plus the pipelined PE's drain, :func:`termwise.gen.designs.baseline_bf16.pipeline`).

Suites (``TERMWISE_SUITES``, comma-separated):

``random``
    bf16-rounded normal data at several scales and lengths (one to ``depth`` bricks), a
    sparse run with zeros of both signs, a run over a wide exponent range (subnormal,
    underflowing and overflowing products), a run mixing magnitudes 2**-30..2**30 in every
    brick (brick sums round, so the tree order matters: with plain normal data most brick
    sums are exact and any order gives the same bits) and a run of uniformly random bit
    patterns (NaNs and infinities included).
``specials``
    zeros of both signs, subnormal inputs and products, the largest finite value and
    overflow to inf, infinities and NaNs (inf * 0, inf - inf within a brick and across
    bricks), exact cancellation (x + -x = +0), rounding ties, the tree's order
    (``2**24 + 1 + 1 + 1``), one value, K not a multiple of ``lanes``, weights kept between
    runs.
``edges``
    the command's fields at their edge values (:mod:`termwise.tb.edges`, the suite every
    testbench has): ``bricks`` 0, 1 and ``depth``, and the precision fields, which a bf16
    tile ignores, at 0, 1, 16 and above.
``conv``
    a 3x3 convolution (32 in / 16 out channels, 8x8, padding 1, normal data rounded to bf16)
    lowered onto the tile (:mod:`termwise.golden.lowering`; padding taps are +0.0), K split
    into chunks the host adds in float32 (:func:`~termwise.golden.arch.baseline_bf16.
    assemble_conv2d_f32`). Checked three ways: bit for bit against the golden model run by
    run; by normalised RMS error against
    :func:`termwise.golden.primitives.bf16.conv2d_bf16` (same bf16 inputs, sequential float32
    order) under ``FP32_THRESHOLD`` (1e-5); and against a float64 convolution of the
    unrounded data under ``BF16_THRESHOLD`` (1e-2).

:class:`Bf16TB` on the :mod:`termwise.tb.harness` with :class:`Bf16Driver` (bf16 bit
patterns in, float32 values out). Environment and record as in the harness;
``TERMWISE_BF16_ORDER=sequential`` only to check that a wrong golden order is caught.
"""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np

from ..golden.arch.baseline_bf16 import assemble_conv2d_f32, nan_equal, tile_outputs_bf16
from ..golden.cycles import run_cycles
from ..golden.lowering import lower_conv2d
from ..golden.primitives.bf16 import BF16_MAX, conv2d_bf16, f32_to_bf16
from ..golden.primitives.direct import conv2d_direct
from ..golden.primitives.verify import (BF16_THRESHOLD, FP32_THRESHOLD,
                                        normalized_rms_error)
from .cases import Case
from .driver import TileDriver
from .harness import TB

__all__ = ["Bf16Driver", "Bf16TB", "bf16_regression", "random_cases", "special_cases",
           "conv_operands", "bf16"]

#: The golden model's lane order; ``TERMWISE_BF16_ORDER=sequential`` makes the golden side
#: wrong on purpose (the runner's self-test), the hardware sums by a tree.
GOLDEN_ORDER = os.environ.get("TERMWISE_BF16_ORDER", "tree")

POS_ZERO, NEG_ZERO = 0x0000, 0x8000
POS_INF, NEG_INF = 0x7F80, 0xFF80
QNAN = 0x7FC0
MAX_BITS = int(f32_to_bf16(BF16_MAX))           # 0x7F7F
ONE = 0x3F80


def bf16(x) -> np.ndarray:
    """float values -> bf16 bit patterns (RNE)."""
    return f32_to_bf16(np.asarray(x, dtype=np.float32))


def _normal(rng, shape, scale=1.0):
    return bf16(rng.standard_normal(shape) * scale)


def random_cases(cfg, rng) -> list[Case]:
    w, f, lanes, full_k = cfg.windows, cfg.filters, cfg.lanes, cfg.depth * cfg.lanes
    cases = []
    for i, scale in enumerate((1.0, 1e-3, 1e4, 1.0)):
        k = int(rng.integers(1, full_k + 1)) if i % 2 else int(rng.integers(1, 4 * lanes + 1))
        cases.append(Case(f"normal{i}_k{k}_scale{scale:g}", _normal(rng, (w, k), scale),
                          _normal(rng, (f, k))))
    cases.append(Case(f"normal_full_depth_k{full_k}", _normal(rng, (w, full_k)),
                      _normal(rng, (f, full_k))))
    k = 3 * lanes
    act = _normal(rng, (w, k))
    zero = rng.random(act.shape) < 0.7
    act[zero] = np.where(rng.random(zero.sum()) < 0.5, POS_ZERO, NEG_ZERO)
    cases.append(Case(f"sparse_signed_zeros_k{k}", act, _normal(rng, (f, k))))
    # Wide exponents: products from float32 subnormals (and underflow) up to overflow.
    k = 4 * lanes
    e_act = rng.uniform(-130, 125, (w, k))
    e_wgt = rng.uniform(-60, 60, (f, k))
    sign = lambda shape: np.where(rng.random(shape) < 0.5, -1.0, 1.0)  # noqa: E731
    cases.append(Case(f"wide_exponents_k{k}", bf16(sign((w, k)) * 2.0 ** e_act),
                      bf16(sign((f, k)) * 2.0 ** e_wgt)))
    # Magnitudes 2**-30 .. 2**30 within a brick: brick sums need more than float32's 24
    # bits, so they round, and the tree's order shows in the result bits.
    k = 16 * lanes
    cases.append(Case(f"mixed_magnitudes_k{k}", bf16(sign((w, k)) * 2.0 ** rng.uniform(
        -15, 15, (w, k))), bf16(sign((f, k)) * 2.0 ** rng.uniform(-15, 15, (f, k)))))
    k = 2 * lanes
    cases.append(Case(f"random_bit_patterns_k{k}",
                      rng.integers(0, 1 << 16, (w, k)).astype(np.uint16),
                      rng.integers(0, 1 << 16, (f, k)).astype(np.uint16)))
    return cases


def special_cases(cfg, rng) -> list[Case]:
    w, f, lanes = cfg.windows, cfg.filters, cfg.lanes
    k2 = 2 * lanes

    def full(shape, bits):
        return np.full(shape, bits, dtype=np.uint16)

    def with_lane(base, row, col, bits):
        out = base.copy()
        out[row, col] = bits
        return out

    cases = [
        Case("all_pos_zero", full((w, k2), POS_ZERO), full((f, k2), POS_ZERO)),
        Case("neg_zero_act", full((w, k2), NEG_ZERO), _normal(rng, (f, k2))),
        Case("neg_zero_both", full((w, k2), NEG_ZERO), full((f, k2), NEG_ZERO)),
        Case("signed_zero_mix", rng.choice([POS_ZERO, NEG_ZERO], (w, k2)).astype(np.uint16),
             _normal(rng, (f, k2))),
    ]
    # Subnormal bf16 inputs (exponent field 0) times moderate and tiny weights: products
    # are float32 subnormals, some rounded (RNE) or underflowing to zero.
    sub = (rng.integers(1, 0x80, (w, 3 * lanes)) |
           (rng.integers(0, 2, (w, 3 * lanes)) << 15)).astype(np.uint16)
    cases += [
        Case("subnormal_act", sub, _normal(rng, (f, 3 * lanes))),
        Case("subnormal_act_tiny_wgt", sub,
             bf16(rng.uniform(0.5, 1, (f, 3 * lanes)) * 2.0 ** rng.integers(-24, -1,
                                                                             (f, 3 * lanes)))),
        Case("subnormal_both", sub, (rng.integers(1, 0x80, (f, 3 * lanes))).astype(np.uint16)),
        Case("min_normal_products", full((w, k2), 0x0080), full((f, k2), 0x3F00)),   # 2**-127
    ]
    # The largest finite value: overflow to inf in the product, the tree, the accumulator.
    cases += [
        Case("max_times_one", full((w, lanes), MAX_BITS), full((f, lanes), ONE)),
        Case("max_times_max", full((w, lanes), MAX_BITS), full((f, lanes), MAX_BITS)),
        Case("max_times_half_one_lane", with_lane(full((w, lanes), POS_ZERO), slice(None), 0,
                                                  MAX_BITS),
             full((f, lanes), 0x3F00)),
        Case("max_over_bricks", full((w, 2 * lanes), MAX_BITS),
             np.tile(np.where(np.arange(2 * lanes) % lanes == 0, ONE, POS_ZERO),
                     (f, 1)).astype(np.uint16)),
        Case("max_minus_max", np.tile(np.array([MAX_BITS, MAX_BITS | 0x8000] * lanes,
                                               np.uint16)[:k2], (w, 1)),
             full((f, k2), ONE)),
    ]
    # Infinities and NaNs.
    finite_a, finite_w = _normal(rng, (w, k2)), _normal(rng, (f, k2))
    cases += [
        Case("pos_inf_one_lane", with_lane(finite_a, slice(None), 1, POS_INF), finite_w),
        Case("neg_inf_one_lane", with_lane(finite_a, slice(None), 1, NEG_INF), finite_w),
        Case("inf_minus_inf_in_brick",
             with_lane(with_lane(finite_a, slice(None), 0, POS_INF), slice(None), 1, POS_INF),
             with_lane(with_lane(finite_w, slice(None), 0, ONE), slice(None), 1, 0xBF80)),
        Case("inf_minus_inf_across_bricks",
             with_lane(with_lane(finite_a, slice(None), 0, POS_INF), slice(None), lanes,
                       NEG_INF),
             full((f, k2), ONE)),
        Case("inf_times_zero", with_lane(finite_a, slice(None), 0, POS_INF),
             with_lane(finite_w, slice(None), 0, NEG_ZERO)),
        Case("nan_act", with_lane(finite_a, 0, k2 - 1, QNAN), finite_w),
        Case("nan_wgt_signalling", finite_a, with_lane(finite_w, 0, 0, 0xFF81)),
    ]
    # Cancellation to exact zero (+0) and to tiny residues; rounding ties in the tree and
    # in the accumulator (1 + 2**-24 ties to 1, 1 + 2**-23 + 2**-24 ties up).
    x = _normal(rng, (w, lanes))
    cancel = np.concatenate([x, x ^ 0x8000], axis=1)
    ties_act = np.tile(np.array([ONE, 0x3380, 0x3400, 0x3380], np.uint16), (w, lanes))[:, :k2]
    cases += [
        Case("exact_cancellation", cancel, full((f, k2), ONE)),
        Case("cancellation_residue", np.concatenate(
            [x, x ^ 0x8000, bf16(rng.standard_normal((w, lanes)) * 1e-30)], axis=1),
             full((f, 3 * lanes), ONE)),
        Case("rounding_ties", ties_act, full((f, k2), ONE)),
        Case("rounding_ties_bricks", np.tile(np.array([ONE] + [POS_ZERO] * (lanes - 1) +
                                                      [0x3380] + [POS_ZERO] * (lanes - 1),
                                                      np.uint16), (w, 3)),
             full((f, 6 * lanes), ONE)),
        # 2**24 + 1 + 1 + 1: the tree gives (2**24 + 1) + (1 + 1) = 2**24 + 2, a sequential
        # sum 2**24 (each + 1 ties to even): the tree order shows in the bits.
        Case("tree_order", np.tile(np.array([0x4B80] + [ONE] * (lanes - 1), np.uint16),
                                   (w, 2)), full((f, k2), ONE)),
        Case("full_depth_ones", full((w, cfg.depth * lanes), ONE),
             full((f, cfg.depth * lanes), ONE)),
        Case("single_value", _normal(rng, (w, 1)), _normal(rng, (f, 1))),
        Case("k_not_multiple_of_lanes", _normal(rng, (w, 3 * lanes + 1)),
             _normal(rng, (f, 3 * lanes + 1))),
    ]
    last = cases[-1]
    cases.append(Case("weights_kept", _normal(rng, last.act.shape), last.wgt,
                      reload_weights=False))
    return cases


def _as_f32(rows) -> np.ndarray:
    """The driver's signed 32-bit fields -> float32 values."""
    return (np.asarray(rows, dtype=np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.float32)


class Bf16Driver(TileDriver):
    """The generic driver on bf16 bit patterns; outputs as float32 values."""

    async def run(self, act, wgt, rt=None, **kwargs):
        rows, cycles = await super().run(act, wgt, rt, **kwargs)
        return _as_f32(rows), cycles


class Bf16TB(TB):
    """The bf16 regression: outputs compared bit for bit (any NaN equal to any NaN) with
    the hardware-order golden model, shown as hex bit patterns."""

    driver = Bf16Driver

    def __init__(self, dut, cfg, *args):
        assert cfg.dtype == "bf16", f"bf16_tests needs a bf16 tile, got dtype {cfg.dtype}"
        super().__init__(dut, cfg, *args)

    def model_cycles(self, act, wgt, rt: dict) -> int:
        return run_cycles(self.cfg, act, wgt, rt)

    def golden(self, act, wgt, rt, **operands):
        return tile_outputs_bf16(self.cfg, act, wgt, order=GOLDEN_ORDER)

    def equal(self, got, expected):
        return nan_equal(got, expected)

    def show(self, value) -> str:
        return f"{int(np.float32(value).view(np.uint32)):#010x}"

    def edge_operands(self, cfg, rng, act_shape, wgt_shape, signed):
        """bf16 normal data for the ``edges`` suite (whose registers a bf16 tile ignores)."""
        return _normal(rng, act_shape), _normal(rng, wgt_shape)

    def describe(self, act, wgt, rt, expected) -> dict:
        return dict(k=int(np.asarray(act).shape[1]), nan=int(np.isnan(expected).sum()),
                    inf=int(np.isinf(expected).sum()), zero=int((expected == 0).sum()),
                    subnormal=int(np.sum((expected != 0) & (np.abs(expected) < 2.0 ** -126))))


@Bf16TB.suite("random")
async def random_suite(tb, suite):
    await tb.run_cases(suite, random_cases(tb.cfg, tb.rng()))


@Bf16TB.suite("specials")
async def specials_suite(tb, suite):
    await tb.run_cases(suite, special_cases(tb.cfg, tb.rng()))


def conv_operands(rng, *, channels=32, filters=16, size=8, kernel=3):
    """Normal data (float32) for a conv layer, activations post-ReLU-like (a third zero)."""
    x = rng.standard_normal((1, channels, size, size)).astype(np.float32)
    x[rng.random(x.shape) < 1 / 3] = 0
    w = (rng.standard_normal((filters, channels, kernel, kernel)) * 0.2).astype(np.float32)
    return x, w


@Bf16TB.suite("conv")
async def conv_suite(tb, suite):
    x, w = conv_operands(tb.rng())
    geometry = dict(stride=1, padding=1, dilation=1, groups=1)
    xb, wb = bf16(x), bf16(w)
    lowering = lower_conv2d(tb.cfg, xb, wb, **geometry)
    runs = [replace(r, act=r.act.astype(np.uint16), wgt=r.wgt.astype(np.uint16))
            for r in lowering.runs]
    done = await tb.run_lowered(runs, tb.cfg.runtime_values(), compare=True)
    out = assemble_conv2d_f32(lowering, done.outputs)
    exact = assemble_conv2d_f32(lowering, done.expected)
    reference = conv2d_bf16(xb, wb, **geometry)
    float64_ref = conv2d_direct(x.astype(np.float64), w.astype(np.float64), **geometry)
    err_bf16 = normalized_rms_error(out, reference)
    err_f64 = normalized_rms_error(out, float64_ref)
    if done.mismatches:
        mismatch = f"run {done.mismatches[0][0]} differs from the golden model"
    elif not nan_equal(out, exact).all():
        mismatch = "assembled output differs from the golden model"
    else:
        mismatch = None
    name = (f"conv3x3_c{x.shape[1]}_k{w.shape[0]}_{x.shape[2]}x{x.shape[3]}"
            f"_chunks{1 + max(r.chunk for r in lowering.runs)}")
    tb.check(suite, name, mismatch=mismatch, cycles=done.cycles,
             model_cycles=done.model_cycles, runs=len(lowering.runs),
             macs=int(np.prod(reference.shape) * np.prod(w.shape[1:])),
             nrms_vs_conv2d_bf16=err_bf16, threshold_vs_conv2d_bf16=FP32_THRESHOLD,
             nrms_vs_float64=err_f64, threshold_vs_float64=BF16_THRESHOLD,
             bits_equal_conv2d_bf16=float(np.mean(nan_equal(out, reference))))
    if not err_bf16 < FP32_THRESHOLD:
        tb.fail(suite, name, f"normalised RMS error {err_bf16:.3e} vs conv2d_bf16 "
                f">= {FP32_THRESHOLD:.0e}")
    if not err_f64 < BF16_THRESHOLD:
        tb.fail(suite, name, f"normalised RMS error {err_f64:.3e} vs float64 "
                f">= {BF16_THRESHOLD:.0e}")


bf16_regression = Bf16TB.cocotb_test("bf16_regression")
