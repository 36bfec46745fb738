"""Cnvlutin's formal proof harness (its spec's ``formal.module``;
tests/formal/test_cnvlutin_proof.py): the owning array's loads
(:class:`~termwise.tb.formal.OwningArrayHarness`) with the plain reference and Cnvlutin's
*exact* cycle count."""

from __future__ import annotations

import itertools

from amaranth import Mux, Signal
from amaranth.hdl import Assert

from .amaranth_sim import InlineLibrary
from .formal.harness import Case, reference_sum
from .formal.owning import OwningArrayHarness, max_of

__all__ = ["CnvlutinHarness", "harness"]


class CnvlutinHarness(OwningArrayHarness):
    """One run of Cnvlutin's array (zero-free lane stores) on free operands
    (:class:`~termwise.tb.formal.OwningArrayHarness`'s loads).

    The reference is the plain ``sum act x wgt`` over bricks ``< n``. The cycle count is
    checked *exactly*, not only bounded: with run cycle 0 the ``start`` cycle, ``busy`` is
    high on run cycles ``1 .. C - 1`` and low on cycle ``C``, where
    ``C = max(1, L) + run_overhead(cfg)`` and ``L`` is the longest lane stream (the most
    non-zero activations of any lane of any window among bricks ``< n``, counted here from
    the constants), the golden model's ``run_cycles`` (golden/arch/cnvlutin.py; the tile
    sees ``busy`` low on cycle ``C`` and raises ``out.valid`` the cycle after, which
    ``run_command`` counts as ``C`` cycles). From cycle ``C + 1`` on ``acc`` holds the
    reference.

    ``cycle_slack`` shifts the expected cycle count (a test's deliberately wrong model: -1
    must fail).
    """

    def __init__(self, cfg, case: "Case | None" = None, library: InlineLibrary | None = None,
                 *, cycle_slack: int = 0):
        super().__init__(cfg, case, library)
        self.cycle_slack = cycle_slack

    @property
    def steps(self) -> int:
        """BMC depth: the loads, the longest run (every activation non-zero) and 2 more."""
        n = self.cfg.depth if self.case.bricks is None else self.case.bricks
        return self.cfg.depth + max(1, n) + self.overhead + 2

    def _properties(self, m, array, n, act_rows, wgt_rows, act_signed, started, cycle):
        """The reference and the exact cycle count (the class docstring)."""
        cfg = self.cfg
        reference = reference_sum(m, cfg, n, act_rows, wgt_rows, act_signed)
        # L: the longest lane stream among bricks < n (a non-zero pattern is a non-zero
        # value in either signedness).
        ab, lanes = cfg.act_bits, cfg.lanes
        counts = []
        for w, lane in itertools.product(range(cfg.windows), range(lanes)):
            at = (w * lanes + lane) * ab
            count = Signal(range(cfg.depth + 1), name=f"nonzero_w{w}_l{lane}")
            m.d.comb += count.eq(sum(Mux((b < n) & (act_rows[b][at:at + ab] != 0), 1, 0)
                                     for b in range(cfg.depth)))
            counts.append(count)
        longest = Signal(range(cfg.depth + 1))
        m.d.comb += longest.eq(max_of(counts))
        expected = Signal(range(self.steps + 1))
        m.d.comb += expected.eq(Mux(longest == 0, 1, longest) + self.overhead
                                + self.cycle_slack)

        with m.If(started & (cycle >= 1)):
            with m.If(cycle < expected):
                m.d.comb += Assert(array.busy)
            with m.Elif(cycle == expected):
                m.d.comb += Assert(~array.busy)
            with m.Else():
                outputs = itertools.product(range(cfg.windows), range(cfg.filters))
                for w, f in ([self.case.output] if self.case.output else outputs):
                    m.d.comb += Assert(array.acc[w][f] == reference[w][f])


def harness(cfg, case: "Case | None" = None, library: InlineLibrary | None = None,
            worst_step: int | None = None) -> CnvlutinHarness:
    """The formal hook (:attr:`termwise.gen.spec.FormalSpec.module`): the harness of a
    Cnvlutin configuration (its cycle check is exact: ``worst_step`` is not used)."""
    return CnvlutinHarness(cfg, case, library)
