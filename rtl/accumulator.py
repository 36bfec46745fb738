"""Accumulator registers shared by every PE, and the PE's output accumulation."""

from amaranth import Module, Mux, signed
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["Accumulator", "ShiftAccumulator", "accumulate", "shift_in"]


def accumulate(m, pe, accumulator, addend, *, en):
    """Wire a PE's output ``accumulator`` (a submodule of ``m`` with ``addend``, ``en``,
    ``clear`` and ``value``, e.g. :class:`Accumulator`): it adds ``addend`` when ``en``, is
    reset by the PE's ``clear`` and drives the PE's ``acc``."""
    m.d.comb += [
        accumulator.addend.eq(addend),
        accumulator.en.eq(en),
        accumulator.clear.eq(pe.clear),
        pe.acc.eq(accumulator.value),
    ]


class Accumulator(wiring.Component):
    """``value <= clear ? 0 : value + (en ? addend : 0)``, wrapping at ``acc_width`` bits.

    Parameters
    ----------
    in_width, acc_width : int
        Signed widths of the addend and of the running sum.
    """

    def __init__(self, in_width: int, acc_width: int):
        super().__init__({
            "addend": In(signed(in_width)),
            "en": In(1),
            "clear": In(1),
            "value": Out(signed(acc_width)),
        })

    def elaborate(self, platform):
        m = Module()
        with m.If(self.clear):
            m.d.sync += self.value.eq(0)
        with m.Elif(self.en):
            m.d.sync += self.value.eq(self.value + self.addend)
        return m


class ShiftAccumulator(wiring.Component):
    """Most-significant-term-first serial accumulation of one brick.

    ``value <= (first ? 0 : value << shift) + (negate ? -term : term)``. With ``shift = 1``
    this evaluates a two's complement bit-serial operand MSB first: the sign bit is fed
    with ``negate`` set (Stripes, MICRO 2016, serial inner-product unit).

    Parameters
    ----------
    in_width, width : int
        Signed widths of the term and of the partial sum (which must hold a whole brick).
    shift : int
        Bits consumed per step.
    """

    def __init__(self, in_width: int, width: int, *, shift: int = 1):
        self.shift = shift
        super().__init__({
            "term": In(signed(in_width)),
            "en": In(1),
            "first": In(1),
            "negate": In(1),
            "value": Out(signed(width)),
        })

    def elaborate(self, platform):
        m = Module()
        signed_term = Mux(self.negate, -self.term, self.term)
        base = Mux(self.first, 0, self.value << self.shift)
        with m.If(self.en):
            m.d.sync += self.value.eq(base + signed_term)
        return m


def shift_in(m, serial, term, *, en, first, negate):
    """Wire a :class:`ShiftAccumulator`: it takes ``term`` when ``en`` (restarting on
    ``first``, negating on ``negate``)."""
    m.d.comb += [
        serial.term.eq(term),
        serial.en.eq(en),
        serial.first.eq(first),
        serial.negate.eq(negate),
    ]
