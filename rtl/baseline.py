"""Bit-parallel baseline array (DaDianNao-like: Chen et al., MICRO 2014).

Every PE takes one brick per cycle, so a run of N bricks computes for N cycles.
"""

from amaranth import Module
from amaranth.lib import wiring

from .array import act_brick, array_signature, wgt_brick
from .library import ModuleLibrary
from .pe import BitParallelPE

__all__ = ["BaselineArray"]


class BaselineArray(wiring.Component):
    """``filters`` x ``windows`` bit-parallel PEs (see :func:`.array.array_signature`)."""

    def __init__(self, cfg, library: ModuleLibrary):
        self.cfg = cfg
        self.library = library
        self.pe_name = library.add(f"{cfg.top_name}__pe", BitParallelPE(cfg))
        super().__init__(array_signature(cfg))

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        m.d.comb += [self.advance.eq(1), self.busy.eq(0)]
        for w in range(cfg.windows):
            for f in range(cfg.filters):
                pe = self.library.instantiate(m, self.pe_name, f"pe_f{f}_w{w}")
                m.d.comb += [
                    pe.act.eq(act_brick(cfg, self.act_row, w)),
                    pe.wgt.eq(wgt_brick(cfg, self.wgt_row, f)),
                    pe.en.eq(self.valid),
                    pe.clear.eq(self.start),
                    self.acc[w][f].eq(pe.acc),
                ]
        return m


ARRAY = BaselineArray
