"""Laconic's term sources: a value's Booth terms one per cycle (:class:`TermLane`), and a
brick's (:class:`TermBrick`, one library module per brick of the array).

A Laconic array recodes each weight and activation once and broadcasts its terms to the PEs
(:mod:`.laconic`). The lanes of one brick always load together, so the array instantiates
one :class:`TermBrick` per brick rather than one :class:`TermLane` per lane: a 16x16 tile
with per-column weights has 1,024 weight bricks, which as lanes were 16,384 instances in
the array's netlist (Amaranth's emission of that tile took 2 min 52 s, most of it on the
instances; synthesis, Verilator and the sampled power flow all see the brick as the unit).
"""

import operator

from amaranth import Cat, Module, Mux, Signal, signed
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .encoders import BoothEncoder, DigitSerializer, booth_digit_count

__all__ = ["LaneTerm", "TermLane", "TermBrick"]


class LaneTerm(data.StructLayout):
    """One lane's term of this cycle: ``valid``, and the term ``(-1)**neg * 2**exp``."""

    def __init__(self, positions: int):
        self.positions = positions
        super().__init__({"valid": 1, "neg": 1, "exp": range(max(positions, 2))})


class TermLane(wiring.Component):
    """One value's Booth terms, one per cycle: a :class:`~.encoders.BoothEncoder` and a
    radix-4 :class:`~.encoders.DigitSerializer` (Laconic's per-lane term source, emitted
    once and instantiated by name per lane, :mod:`.library`).

    Parameters
    ----------
    bits : int
        Of the value (two's complement).
    keep : bool
        Keep the digits loaded on ``take`` in a register and reload the serializer from it
        when ``load`` rises without ``take`` (the activations' inner loop wraps); without
        it the serializer loads the encoder's digits.

    Attributes
    ----------
    value : In(signed(bits))
    count : Out(range(ndigits + 1))
        The value's term count.
    load, advance : In(1)
        The serializer's ``load`` and ``next``.
    take : In(1)
        Only with ``keep``: a new value is taken this cycle.
    term : Out(LaneTerm(2 * ndigits))
        The serializer's current term.
    """

    def __init__(self, bits: int, *, keep: bool = False):
        self.bits = operator.index(bits)
        self.keep = bool(keep)
        self.ndigits = nd = booth_digit_count(self.bits)
        members = {
            "value": In(signed(self.bits)),
            "count": Out(range(nd + 1)),
            "load": In(1),
            "advance": In(1),
            "term": Out(LaneTerm(2 * nd)),
        }
        if self.keep:
            members["take"] = In(1)
        super().__init__(members)

    def fresh(self) -> "TermLane":
        """Another lane of the same parameters (for an inlined library, tb/amaranth_sim)."""
        return TermLane(self.bits, keep=self.keep)

    def elaborate(self, platform):
        m = Module()
        m.submodules.encoder = enc = BoothEncoder(self.bits, is_signed=True)
        m.submodules.serializer = ser = DigitSerializer(enc.ndigits, 2)
        nd = enc.ndigits
        digits = Cat(enc.nonzero, Cat(enc.digits[i].neg for i in range(nd)),
                     Cat(enc.digits[i].exp[0] for i in range(nd)))
        if self.keep:
            kept = Signal(len(digits))
            with m.If(self.take):
                m.d.sync += kept.eq(digits)
            digits = Mux(self.take, digits, kept)
        m.d.comb += [
            enc.value.eq(self.value),
            self.count.eq(enc.count),
            Cat(ser.nonzero, ser.neg, ser.shift).eq(digits),
            ser.load.eq(self.load),
            ser.next.eq(self.advance),
            self.term.valid.eq(ser.valid),
            self.term.neg.eq(ser.term.neg),
            self.term.exp.eq(ser.term.exp),
        ]
        return m


class TermBrick(wiring.Component):
    """A brick's Booth terms: ``lanes`` :class:`TermLane` s side by side (one library module,
    emitted once and instantiated by name per weight or activation brick, :mod:`.library`).

    Parameters
    ----------
    bits, keep
        Of each lane (:class:`TermLane`).
    lanes : int
        Values in the brick.

    Attributes
    ----------
    value : In(ArrayLayout(signed(bits), lanes))
    count : Out(ArrayLayout(range(ndigits + 1), lanes))
        Each value's term count.
    load, advance : In(lanes)
        Each lane's serializer ``load`` and ``next`` (the lanes' loops wrap apart).
    take : In(1)
        Only with ``keep``: a new brick is taken this cycle.
    term : Out(ArrayLayout(LaneTerm(2 * ndigits), lanes))
        Each lane's current term.
    """

    def __init__(self, bits: int, lanes: int, *, keep: bool = False):
        self.bits = operator.index(bits)
        self.lanes = operator.index(lanes)
        self.keep = bool(keep)
        self.ndigits = nd = booth_digit_count(self.bits)
        members = {
            "value": In(data.ArrayLayout(signed(self.bits), self.lanes)),
            "count": Out(data.ArrayLayout(range(nd + 1), self.lanes)),
            "load": In(self.lanes),
            "advance": In(self.lanes),
            "term": Out(data.ArrayLayout(LaneTerm(2 * nd), self.lanes)),
        }
        if self.keep:
            members["take"] = In(1)
        super().__init__(members)

    def fresh(self) -> "TermBrick":
        """Another brick of the same parameters (for an inlined library, tb/amaranth_sim)."""
        return TermBrick(self.bits, self.lanes, keep=self.keep)

    def elaborate(self, platform):
        m = Module()
        for lane in range(self.lanes):
            m.submodules[f"lane{lane}"] = tl = TermLane(self.bits, keep=self.keep)
            m.d.comb += [
                tl.value.eq(self.value[lane]),
                self.count[lane].eq(tl.count),
                tl.load.eq(self.load[lane]),
                tl.advance.eq(self.advance[lane]),
                self.term[lane].eq(tl.term),
            ]
            if self.keep:
                m.d.comb += tl.take.eq(self.take)
        return m
