"""Bit-Tactical tile regression (cocotb module, run through :mod:`termwise.tb.runner` with
``test_module="termwise.tb.tactical_cases"``).

The tile holds an offline schedule, so the host lowers the weights before sending them
(:func:`termwise.golden.arch.tactical.host_weight_rows`: two weight-stream rows per kept
step, weights then selects + original step index) and the command's ``bricks`` is the
number of kept steps; activation rows are sent dense. :class:`TacticalDriver` does this on
top of the generic :class:`~termwise.tb.driver.TileDriver`; everything else (golden
outputs = the dense dot product, golden cycles) is the generic testbench's: :class:`TacticalTB`
is :class:`~termwise.tb.tile_tests.TileTB` with this driver, and records each case's kept
and dense step counts.

Suites: the generic ones (``random``, ``corners``, ``conv``: dense random weights;
``edges``: the command's fields at their edge values, ``bricks`` being the kept steps) and
``sparse`` (:func:`sparse_cases`): pruned weights at 50/70/90% zeros, whole zero steps, a
zero filter, all-zero weights, dense weights.
"""

from __future__ import annotations

import numpy as np

from ..golden.arch.tactical import host_weight_rows
from ..golden.twos_complement import value_range
from .cases import Case
from .driver import TileDriver
from .tile_tests import TileTB

__all__ = ["TacticalDriver", "TacticalTB", "sparse_cases", "tactical_regression"]


class TacticalDriver(TileDriver):
    """The generic driver with the host-side Bit-Tactical lowering of the weights."""

    #: Steps the schedule kept in the last run (the command's ``bricks``).
    kept = 0

    def wgt_rows(self, wgt) -> list[int]:
        return host_weight_rows(self.cfg, wgt)[0]

    def command(self, bricks: int, rt: dict) -> int:
        return super().command(self.kept, rt)

    async def run(self, act, wgt, rt=None, **kwargs):
        self.kept = host_weight_rows(self.cfg, wgt)[1]
        return await super().run(act, wgt, rt, **kwargs)


class TacticalTB(TileTB):
    """The generic tile regression through the Bit-Tactical host lowering."""

    driver = TacticalDriver

    def describe(self, act, wgt, rt, expected) -> dict:
        return dict(super().describe(act, wgt, rt, expected), kept=self.drv.kept,
                    dense_steps=-(-np.asarray(act).shape[1] // self.cfg.lanes))


def _pruned(rng, cfg, shape, zero):
    lo, hi = value_range(cfg.wgt_bits, True)
    w = rng.integers(lo, hi + 1, size=shape)
    w[rng.random(shape) < zero] = 0
    return w


def sparse_cases(cfg, rng) -> list[Case]:
    """Pruned-weight runs (the design's purpose) and weight corner cases."""
    w_, f_, lanes, depth = cfg.windows, cfg.filters, cfg.lanes, cfg.depth
    # Post-ReLU (unsigned) activations, as in the pruned networks the design is for, except
    # in the pruned runs with odd indexes, which are signed.
    lo, hi = value_range(cfg.act_bits, False)
    cases = []

    def act(k, width=None, signed=False):
        a_lo, a_hi = value_range(width or cfg.act_bits, signed)
        return rng.integers(a_lo, a_hi + 1, size=(w_, k))

    for zero in (0.5, 0.7, 0.9):
        for i, k in enumerate((depth * lanes, int(rng.integers(1, depth * lanes)))):
            width = int(rng.integers(1, cfg.act_bits + 1))
            signed = bool(i % 2)
            cases.append(Case(f"pruned{int(zero * 100)}_k{k}_a{width}{'s' if signed else 'u'}",
                              act(k, width, signed), _pruned(rng, cfg, (f_, k), zero),
                              act_signed=signed))
    k = 12 * lanes
    wgt = _pruned(rng, cfg, (f_, k), 0.3)
    wgt[:, 2 * lanes:5 * lanes] = 0             # whole zero steps (skipped)
    wgt[:, 9 * lanes:] = 0
    cases.append(Case("zero_steps", act(k), wgt, act_signed=False))
    wgt = _pruned(rng, cfg, (f_, k), 0.6)
    wgt[0] = 0                                  # a filter with no weights
    cases.append(Case("zero_filter", act(k), wgt, act_signed=False))
    cases.append(Case("all_zero_weights", act(k), np.zeros((f_, k), np.int64),
                      act_signed=False))
    cases.append(Case("dense_weights_max", np.full((w_, k), hi),
                      np.full((f_, k), -(1 << (cfg.wgt_bits - 1))), act_signed=False))
    wgt = _pruned(rng, cfg, (f_, depth * lanes), 0.0)
    wgt[wgt == 0] = 1
    cases.append(Case("dense_weights", act(depth * lanes), wgt, act_signed=False))
    one = np.zeros((f_, k), np.int64)
    one[-1, -1] = 3                             # one weight, at the very end
    cases.append(Case("last_weight_only", act(k), one, act_signed=False))
    sparse_act = act(depth * lanes)
    sparse_act[rng.random(sparse_act.shape) < 0.7] = 0
    cases.append(Case("sparse_both", sparse_act, _pruned(rng, cfg, (f_, depth * lanes), 0.7),
                      act_signed=False))
    return cases


@TacticalTB.suite("sparse")
async def sparse_suite(tb, suite):
    await tb.run_cases(suite, sparse_cases(tb.cfg, tb.rng()))


tactical_regression = TacticalTB.cocotb_test("tactical_regression")
