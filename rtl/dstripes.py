"""Dynamic Stripes array (Delmas et al., "Dynamic Stripes: Exploiting the Dynamic Precision
Requirements of Activation Values in Neural Networks", arXiv 1706.00504).

Stripes with the precision detected at run time: a leading-one detector over every
activation of the current step (a brick of each window: all windows run in lockstep, as
they share the weight bricks) gives the bits the widest one needs, sign bit included, at
least 1; the step takes that many cycles. The values are processed exactly (no
truncation), so no runtime precision register is needed.
"""

from .encoders import PrecisionDetector
from .stripes import StripesArray

__all__ = ["DynamicStripesArray"]


class DynamicStripesArray(StripesArray):
    """Stripes' PEs and sequencer, with the per-step precision detected from the data."""

    def step_precision(self, m):
        cfg = self.cfg
        m.submodules.precision_detector = det = PrecisionDetector(
            cfg.windows * cfg.lanes, cfg.act_bits)
        # The activation row is windows x lanes values, lane-minor: the detector's layout.
        m.d.comb += [det.values.as_value().eq(self.act_row),
                     det.is_signed.eq(self.act_signed)]
        return det.precision


ARRAY = DynamicStripesArray
