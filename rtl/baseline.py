"""Bit-parallel baseline array (DaDianNao-like: Chen et al., MICRO 2014).

Every PE takes one brick per cycle, so a run of N bricks computes for N cycles.
"""

from amaranth import Module

from .grid import PEGrid
from .pe import BitParallelPE

__all__ = ["BaselineArray"]


class BaselineArray(PEGrid):
    """``filters`` x ``windows`` bit-parallel PEs (see :func:`.array.array_signature`)."""

    PE = BitParallelPE

    def elaborate(self, platform):
        m = Module()
        m.d.comb += [self.advance.eq(1), self.busy.eq(0)]
        act, wgt = self.act_values(m), self.wgt_bricks
        for w, f, pe in self.pes(m):
            m.d.comb += [pe.act.eq(act[w]), pe.wgt.eq(wgt[f]), pe.en.eq(self.valid)]
        return m


ARRAY = BaselineArray
