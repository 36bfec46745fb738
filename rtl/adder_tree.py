"""A balanced, combinational adder tree shared by every PE."""

from amaranth import Module, signed, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..gen.config import clog2

__all__ = ["AdderTree"]


class AdderTree(wiring.Component):
    """Sum of ``n`` operands in ``ceil(log2(n))`` levels of two-input adders.

    Each level widens by one bit, so the sum never overflows.

    Parameters
    ----------
    n : int
        Number of operands.
    width : int
        Width of each operand.
    is_signed : bool
        Operands (and the sum) are two's complement.

    Attributes
    ----------
    inputs : In(ArrayLayout(shape, n))
    sum : Out(width + ceil(log2(n)))
    """

    def __init__(self, n: int, width: int, *, is_signed: bool = True):
        self.n = n
        shape = signed if is_signed else unsigned
        self.sum_width = width + clog2(n)
        super().__init__({
            "inputs": In(data.ArrayLayout(shape(width), n)),
            "sum": Out(shape(self.sum_width)),
        })

    def elaborate(self, platform):
        m = Module()
        level = [self.inputs[i] for i in range(self.n)]
        while len(level) > 1:
            paired = [a + b for a, b in zip(level[0::2], level[1::2])]
            level = paired + ([level[-1]] if len(level) % 2 else [])
        m.d.comb += self.sum.eq(level[0])
        return m
