"""Bit-Tactical tile regression (cocotb module, run through :mod:`termwise.tb.runner` with
``test_module="termwise.tb.tactical_cases"``).

The tile holds an offline schedule, so the host lowers the weights before sending them
(:func:`termwise.golden.arch.tactical.host_weight_rows`: two weight-stream rows per kept
step, weights then selects + original step index) and the command's ``bricks`` is the
number of kept steps; activation rows are sent dense. :class:`TacticalDriver` does this on
top of the generic :class:`~termwise.tb.driver.TileDriver`; everything else (golden
outputs = the dense dot product, golden cycles) is the generic testbench's.

Suites: the generic ones (``random``, ``corners``, ``conv``: dense random weights) and
``sparse`` (:func:`sparse_cases`): pruned weights at 50/70/90% zeros, whole zero steps, a
zero filter, all-zero weights, dense weights.
"""

from __future__ import annotations

import os

import cocotb
import numpy as np

from ..golden import cycles as cycle_model
from ..golden.arch.tactical import host_weight_rows
from ..golden.fixedpoint import value_range
from ..golden.tile_model import tile_outputs
from .cases import Case
from .driver import TileDriver

__all__ = ["TacticalDriver", "sparse_cases"]


class TacticalDriver(TileDriver):
    """The generic driver with the host-side Bit-Tactical lowering of the weights."""

    _kept = 0

    def wgt_rows(self, wgt) -> list[int]:
        return host_weight_rows(self.cfg, wgt)[0]

    def command(self, bricks: int, rt: dict) -> int:
        return super().command(self._kept, rt)

    async def run(self, act, wgt, rt=None, **kwargs):
        self._kept = host_weight_rows(self.cfg, wgt)[1]
        return await super().run(act, wgt, rt, **kwargs)


def _pruned(rng, cfg, shape, zero):
    lo, hi = value_range(cfg.wgt_bits, True)
    w = rng.integers(lo, hi + 1, size=shape)
    w[rng.random(shape) < zero] = 0
    return w


def sparse_cases(cfg, rng) -> list[Case]:
    """Pruned-weight runs (the design's purpose) and weight corner cases."""
    w_, f_, lanes, depth = cfg.windows, cfg.filters, cfg.lanes, cfg.depth
    lo, hi = value_range(cfg.act_bits, cfg.act_signed)
    cases = []

    def act(k, width=None):
        a_lo, a_hi = value_range(width, cfg.act_signed) if width else (lo, hi)
        return rng.integers(a_lo, a_hi + 1, size=(w_, k))

    for zero in (0.5, 0.7, 0.9):
        for k in (depth * lanes, int(rng.integers(1, depth * lanes))):
            width = int(rng.integers(2, cfg.act_bits + 1))
            cases.append(Case(f"pruned{int(zero * 100)}_k{k}_a{width}b", act(k, width),
                              _pruned(rng, cfg, (f_, k), zero)))
    k = 12 * lanes
    wgt = _pruned(rng, cfg, (f_, k), 0.3)
    wgt[:, 2 * lanes:5 * lanes] = 0             # whole zero steps (skipped)
    wgt[:, 9 * lanes:] = 0
    cases.append(Case("zero_steps", act(k), wgt))
    wgt = _pruned(rng, cfg, (f_, k), 0.6)
    wgt[0] = 0                                  # a filter with no weights
    cases.append(Case("zero_filter", act(k), wgt))
    cases.append(Case("all_zero_weights", act(k), np.zeros((f_, k), np.int64)))
    cases.append(Case("dense_weights_max", np.full((w_, k), hi), np.full((f_, k), -(1 << (cfg.wgt_bits - 1)))))
    wgt = _pruned(rng, cfg, (f_, depth * lanes), 0.0)
    wgt[wgt == 0] = 1
    cases.append(Case("dense_weights", act(depth * lanes), wgt))
    one = np.zeros((f_, k), np.int64)
    one[-1, -1] = 3                             # one weight, at the very end
    cases.append(Case("last_weight_only", act(k), one))
    sparse_act = act(depth * lanes)
    sparse_act[rng.random(sparse_act.shape) < 0.7] = 0
    cases.append(Case("sparse_both", sparse_act, _pruned(rng, cfg, (f_, depth * lanes), 0.7)))
    return cases


async def _sparse_suite(drv, cfg, seed, record) -> list[str]:
    failures = []
    for case in sparse_cases(cfg, np.random.default_rng(seed)):
        rt = case.runtime(cfg)
        got, cycles = await drv.run(case.act, case.wgt, rt)
        expected = tile_outputs(cfg, case.act, case.wgt, rt)
        model = cycle_model.run_cycles(cfg, case.act, case.wgt, rt)
        ok = bool(np.array_equal(got, expected))
        record.add(suite="sparse", case=case.name, outputs_match=ok, cycles=cycles,
                   model_cycles=model, runtime=rt, k=int(case.act.shape[1]),
                   kept=drv._kept, dense_steps=-(-case.act.shape[1] // cfg.lanes))
        if not ok:
            bad = tuple(np.argwhere(got != expected)[0])
            failures.append(f"sparse/{case.name}: out[w={bad[0]}][f={bad[1]}] = {got[bad]}, "
                            f"golden {expected[bad]}")
        if cycles != model:
            failures.append(f"sparse/{case.name}: {cycles} cycles measured, model says {model}")
    return failures


@cocotb.test()
async def tactical_regression(dut):
    """Every suite named in TERMWISE_SUITES through the Bit-Tactical host lowering."""
    from .tile_tests import _check, _run_conv, _run_suite, _start
    cfg, seed, drv, record = await _start(dut, TacticalDriver)
    failures = []
    for name in os.environ.get("TERMWISE_SUITES", "sparse").split(","):
        if name == "sparse":
            failures += await _sparse_suite(drv, cfg, seed, record)
        elif name == "conv":
            failures += await _run_conv(drv, cfg, seed, record)
        else:
            failures += await _run_suite(drv, cfg, name, seed, record)
    _check(seed, failures)
