"""Term encoders shared by the value-based designs (issue 4).

Building blocks that turn values into the work a value-based PE performs:

* :class:`PrecisionDetector` -- the bits needed by the widest value of a group (Dynamic
  Stripes: Delmas et al., "Dynamic Stripes: Exploiting the Dynamic Precision Requirements of
  Activation Values in Neural Networks", arXiv 1706.00504; Loom: Sharify et al., "Loom:
  Exploiting Weight and Activation Precisions to Accelerate Convolutional Neural Networks",
  DAC 2018), built on :class:`LeadingOneDetector`.
* :class:`OneffsetEncoder` -- the serial oneffset generator of Bit-Pragmatic (Albericio et
  al., "Bit-Pragmatic Deep Neural Network Computing", MICRO 2017), built on
  :class:`PriorityEncoder`.
* :class:`BoothEncoder` / :class:`BoothTermSerializer` -- radix-4 modified Booth recoding
  (optional for Bit-Pragmatic's activations; both operands of Laconic: Sharify et al.,
  "Laconic Deep Learning Inference Acceleration", ISCA 2019), combinational and serial.

The golden model is :mod:`termwise.golden.terms`; its module docstring defines the
encodings. A *term* is a signed power of two, :class:`Term` ``{exp, neg}`` meaning
``(-1)**neg * 2**exp``.

Serial protocol (all serializers)
---------------------------------
``load`` captures ``value`` at the clock edge. From the next cycle on, ``term`` is the
lowest remaining term, ``valid`` says that there is one and ``last`` that it is the final
one; asserting ``next`` consumes it (it is cleared at the edge). A value with ``t`` terms
therefore takes ``max(t, 1)`` cycles: a zero value presents one null cycle with
``valid = 0, last = 1`` so that every value takes at least one cycle, as in the published
cycle models. Once everything is consumed (and before the first ``load``) the outputs stay
at ``valid = 0, last = 1``. ``load`` wins over ``next``: to stream values without a bubble,
assert ``load`` together with ``next`` on the cycle ``last`` is seen. Holding ``next`` low
stalls (the term is presented again), which is how a Bit-Pragmatic lane waits for the
terms outside the current window.
"""

import operator

from amaranth import Cat, Const, Module, Mux, Signal, signed, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..gen.designs.common import booth_digits
from .adder_tree import tree_reduce

__all__ = [
    "Term", "BoothDigit", "booth_digit_count",
    "LeadingOneDetector", "PriorityEncoder", "PrecisionDetector",
    "DigitSerializer", "OneffsetEncoder",
    "BoothEncoder", "BoothTermSerializer",
]


def booth_digit_count(bits: int, signed: bool = True) -> int:
    """Radix-4 Booth digits of a ``bits``-wide value: ``ceil(bits / 2)`` if signed, else
    ``ceil((bits + 1) / 2)`` (zero-extended by one bit so the top bit is not a sign); the
    count the configuration's peak throughput is based on
    (:func:`termwise.gen.designs.common.booth_digits`)."""
    bits = operator.index(bits)
    return booth_digits(bits if signed else bits + 1)


def _shape(bits: int, is_signed: bool):
    return signed(bits) if is_signed else unsigned(bits)


class Term(data.StructLayout):
    """One signed power of two, ``(-1)**neg * 2**exp``, with ``exp`` in ``range(positions)``."""

    def __init__(self, positions: int):
        self.positions = positions
        super().__init__({"exp": range(max(positions, 2)), "neg": 1})


class BoothDigit(data.StructLayout):
    """A radix-4 Booth digit in ``{-2, -1, 0, 1, 2}``.

    Digit ``i`` is ``zero``, or the term ``(-1)**neg * 2**exp`` with ``exp = 2i`` (digit
    ``+-1``) or ``2i + 1`` (digit ``+-2``). For a zero digit ``neg = 0`` and ``exp = 2i``.
    """

    def __init__(self, ndigits: int):
        self.ndigits = ndigits
        super().__init__({"zero": 1, "neg": 1, "exp": range(2 * ndigits)})


def _popcount(bits):
    return sum((bits[i] for i in range(len(bits))), Const(0, range(len(bits) + 1)))


class LeadingOneDetector(wiring.Component):
    """Position of the top one + 1 of ``value`` (0 when ``value`` is zero). Combinational.

    Parameters
    ----------
    width : int

    Attributes
    ----------
    value : In(width)
    length : Out(range(width + 1))
    """

    def __init__(self, width: int):
        self.width = width
        super().__init__({
            "value": In(width),
            "length": Out(range(width + 1)),
        })

    def elaborate(self, platform):
        m = Module()
        for i in range(self.width):          # the highest set bit is assigned last and wins
            with m.If(self.value[i]):
                m.d.comb += self.length.eq(i + 1)
        return m


class PriorityEncoder(wiring.Component):
    """Lowest set bit of ``value``. Combinational.

    Parameters
    ----------
    width : int

    Attributes
    ----------
    value : In(width)
    valid : Out(1)
        ``value`` is non-zero.
    pos : Out(range(width))
        Index of the lowest set bit (0 when ``value`` is zero).
    onehot : Out(width)
        The lowest set bit alone, ``value & -value``.
    rest : Out(width)
        ``value`` with its lowest set bit cleared.
    """

    def __init__(self, width: int):
        self.width = width
        super().__init__({
            "value": In(width),
            "valid": Out(1),
            "pos": Out(range(max(width, 2))),
            "onehot": Out(width),
            "rest": Out(width),
        })

    def elaborate(self, platform):
        m = Module()
        for i in reversed(range(self.width)):  # the lowest set bit is assigned last and wins
            with m.If(self.value[i]):
                m.d.comb += self.pos.eq(i)
        m.d.comb += [
            self.valid.eq(self.value.any()),
            self.onehot.eq(self.value & (~self.value + 1)),
            self.rest.eq(self.value & ~self.onehot),
        ]
        return m


class PrecisionDetector(wiring.Component):
    """Bits needed by the widest of a group of ``n`` values, at least 1. Combinational.

    The dynamic precision detector of Dynamic Stripes (arXiv 1706.00504), also used by Loom
    (DAC 2018) for activations. Whether the values are two's complement is a runtime input
    (the run's ``act_signed`` register), so one detector serves signed and unsigned layers.
    Unsigned: position of the top one of the OR of the values, + 1 (the papers' detector on
    post-ReLU activations). Signed: each value is sign-folded (``~v`` for negative values),
    the top one of the OR of the folded values + 1, plus one sign bit; so ``0`` and ``-1``
    need 1 bit, ``1`` and ``-2`` need 2, ``-128`` needs 8. Matches
    :func:`termwise.golden.terms.group_precision`.

    Parameters
    ----------
    n : int
        Values per group.
    bits : int
        Width of each value.

    Attributes
    ----------
    values : In(ArrayLayout(unsigned(bits), n))
        The values' bit patterns.
    is_signed : In(1)
        The patterns are two's complement (else unsigned).
    precision : Out(range(bits + 1))
    """

    def __init__(self, n: int, bits: int):
        self.n = operator.index(n)
        self.bits = operator.index(bits)
        super().__init__({
            "values": In(data.ArrayLayout(unsigned(bits), n)),
            "is_signed": In(1),
            "precision": Out(range(bits + 1)),
        })

    def elaborate(self, platform):
        m = Module()
        bits = self.bits
        # Sign-fold negative values of a signed group (their top bit becomes 0); an
        # unsigned group's values are taken as they are.
        folded = [Mux(self.is_signed & v[bits - 1], ~v, v)
                  for v in (self.values[i] for i in range(self.n))]
        m.submodules.lod = lod = LeadingOneDetector(bits)
        m.d.comb += lod.value.eq(tree_reduce(folded, lambda a, b, *_: a | b))
        with m.If(lod.length == 0):
            m.d.comb += self.precision.eq(1)
        with m.Else():
            m.d.comb += self.precision.eq(lod.length + self.is_signed)
        return m


class DigitSerializer(wiring.Component):
    """Emits the non-zero digits of a loaded signed-digit number one per cycle, lowest
    first (see the module docstring for the protocol).

    Digit ``i`` has weight ``2**(radix_log2 * i)``; a non-zero digit is the term
    ``(-1)**neg * 2**(radix_log2 * i + shift)``. Radix 2 (``radix_log2 = 1``, no ``shift``)
    serves oneffsets; radix 4 (``radix_log2 = 2``, ``shift`` in {0, 1}) serves
    Booth. One priority encoder over the pending-digit mask picks the term; consuming it
    clears its bit.

    Parameters
    ----------
    ndigits : int
    radix_log2 : 1 or 2

    Attributes
    ----------
    load : In(1)
    nonzero, neg, shift : In(ndigits)
        Digit masks captured on ``load``; ``shift`` only for radix 4.
    next : In(1)
    term : Out(Term(radix_log2 * ndigits))
    valid, last : Out(1)
    pending : Out(ndigits)
        Digits not yet consumed.
    """

    def __init__(self, ndigits: int, radix_log2: int = 1):
        if radix_log2 not in (1, 2):
            raise ValueError(f"radix_log2 must be 1 or 2, got {radix_log2}")
        self.ndigits = ndigits
        self.radix_log2 = radix_log2
        members = {
            "load": In(1),
            "nonzero": In(ndigits),
            "neg": In(ndigits),
        }
        if radix_log2 == 2:
            members["shift"] = In(ndigits)
        members.update({
            "next": In(1),
            "term": Out(Term(radix_log2 * ndigits)),
            "valid": Out(1),
            "last": Out(1),
            "pending": Out(ndigits),
        })
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        m.submodules.pick = pick = PriorityEncoder(self.ndigits)
        neg = Signal(self.ndigits)
        m.d.comb += [
            pick.value.eq(self.pending),
            self.valid.eq(pick.valid),
            self.last.eq(~pick.rest.any()),
            self.term.neg.eq((pick.onehot & neg).any()),
        ]
        with m.If(self.load):
            m.d.sync += [self.pending.eq(self.nonzero), neg.eq(self.neg & self.nonzero)]
        with m.Elif(self.next):
            m.d.sync += self.pending.eq(pick.rest)
        if self.radix_log2 == 2:
            shift = Signal(self.ndigits)
            with m.If(self.load):
                m.d.sync += shift.eq(self.shift)
            m.d.comb += self.term.exp.eq(Cat((pick.onehot & shift).any(), pick.pos))
        else:
            m.d.comb += self.term.exp.eq(pick.pos)
        return m


def _serializer_ports(bits, is_signed, positions):
    return {
        "value": In(_shape(bits, is_signed)),
        "load": In(1),
        "next": In(1),
        "term": Out(Term(positions)),
        "valid": Out(1),
        "last": Out(1),
    }


def _connect_serial_outputs(m, outer, ser):
    m.d.comb += [
        ser.load.eq(outer.load),
        ser.next.eq(outer.next),
        outer.term.eq(ser.term),
        outer.valid.eq(ser.valid),
        outer.last.eq(ser.last),
    ]


class OneffsetEncoder(wiring.Component):
    """Serial oneffset generator of Bit-Pragmatic (MICRO 2017): emits the positions of the
    non-zero bits of an unsigned value (or magnitude) one per cycle, lowest first, as
    ``term.exp`` (``term.neg`` is always 0). Protocol: see the module docstring; a value
    takes ``max(popcount, 1)`` cycles.

    Bit-Pragmatic's windowing (a lane retires a term only if it lies in ``[base, base +
    2**B - 1]``) is left to the consumer, which holds ``next`` low to stall a lane.

    Parameters
    ----------
    bits : int

    Attributes
    ----------
    value : In(bits)
    load, next : In(1)
    term : Out(Term(bits))
    valid, last : Out(1)
    """

    def __init__(self, bits: int):
        self.bits = bits
        super().__init__(_serializer_ports(bits, False, bits))

    def elaborate(self, platform):
        m = Module()
        m.submodules.serial = ser = DigitSerializer(self.bits, 1)
        m.d.comb += [ser.nonzero.eq(self.value), ser.neg.eq(0)]
        _connect_serial_outputs(m, self, ser)
        return m


class BoothEncoder(wiring.Component):
    """Radix-4 modified Booth recoding. Combinational.

    Digit ``i`` is ``-2 b[2i+1] + b[2i] + b[2i-1]`` (``b[-1] = 0``) of the two's complement
    value, sign-extended to ``2 * ndigits`` bits (zero-extended for unsigned values, which
    get one more bit so that their top bit is not a sign); see :class:`BoothDigit`. Used on
    activations by Bit-Pragmatic (MICRO 2017) and on both operands by Laconic (ISCA 2019).

    Parameters
    ----------
    bits : int
    is_signed : bool

    Attributes
    ----------
    value : In(shape(bits))
    digits : Out(ArrayLayout(BoothDigit(ndigits), ndigits))
    nonzero : Out(ndigits)
        Mask of the non-zero digits.
    count : Out(range(ndigits + 1))
        Number of non-zero digits (terms).
    """

    def __init__(self, bits: int, *, is_signed: bool = True):
        self.bits = bits
        self.is_signed = is_signed
        self.ndigits = nd = booth_digit_count(bits, is_signed)
        super().__init__({
            "value": In(_shape(bits, is_signed)),
            "digits": Out(data.ArrayLayout(BoothDigit(nd), nd)),
            "nonzero": Out(nd),
            "count": Out(range(nd + 1)),
        })

    def elaborate(self, platform):
        m = Module()
        nd = self.ndigits
        ext = Signal(2 * nd + 1)              # b[-1] = 0 at index 0, then b[0..2nd-1]
        m.d.comb += ext.eq(Cat(Const(0, 1), self.value))
        if self.is_signed and 2 * nd > self.bits:   # odd width: sign-extend by one bit
            m.d.comb += ext[2 * nd].eq(self.value[self.bits - 1])
        for i in range(nd):
            prev, lo, hi = ext[2 * i], ext[2 * i + 1], ext[2 * i + 2]
            zero = ~(hi ^ lo) & ~(lo ^ prev)  # 000 and 111
            two = (hi ^ lo) & ~(lo ^ prev)    # 011 (+2) and 100 (-2)
            digit = self.digits[i]
            m.d.comb += [
                digit.zero.eq(zero),
                digit.neg.eq(hi & ~zero),
                digit.exp.eq(2 * i + two),
                self.nonzero[i].eq(~zero),
            ]
        m.d.comb += self.count.eq(_popcount(self.nonzero))
        return m


class BoothTermSerializer(wiring.Component):
    """Emits the non-zero radix-4 Booth terms of a value one per cycle, lowest first
    (Bit-Pragmatic with Booth-encoded activations, MICRO 2017; Laconic, ISCA 2019).
    Protocol: see the module docstring; a value takes ``max(terms, 1)`` cycles.

    Parameters
    ----------
    bits : int
    is_signed : bool

    Attributes
    ----------
    value : In(shape(bits))
    load, next : In(1)
    term : Out(Term(2 * ndigits))
    valid, last : Out(1)
    """

    def __init__(self, bits: int, *, is_signed: bool = True):
        self.bits = bits
        self.is_signed = is_signed
        self.ndigits = nd = booth_digit_count(bits, is_signed)
        super().__init__(_serializer_ports(bits, is_signed, 2 * nd))

    def elaborate(self, platform):
        m = Module()
        nd = self.ndigits
        m.submodules.booth = booth = BoothEncoder(self.bits, is_signed=self.is_signed)
        m.submodules.serial = ser = DigitSerializer(nd, 2)
        m.d.comb += [
            booth.value.eq(self.value),
            ser.nonzero.eq(booth.nonzero),
            ser.neg.eq(Cat(booth.digits[i].neg for i in range(nd))),
            ser.shift.eq(Cat(booth.digits[i].exp[0] for i in range(nd))),
        ]
        _connect_serial_outputs(m, self, ser)
        return m
