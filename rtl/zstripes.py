"""Zero-skipping Stripes array: Stripes' PEs and sequencer; a step whose activation row is
all zero runs at precision 1 (one cycle: every bit it would add is zero), any other step at
the runtime precision P."""

from amaranth import Mux

from .stripes import StripesArray

__all__ = ["ZeroSkippingStripesArray"]


class ZeroSkippingStripesArray(StripesArray):
    """:class:`StripesArray` with the step precision 1 on an all-zero activation row."""

    def step_precision(self, m):
        return Mux(self.act_row.any(), self.precision, 1)


ARRAY = ZeroSkippingStripesArray
