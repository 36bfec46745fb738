"""Stripes array (Judd et al., "Stripes: Bit-Serial Deep Neural Network Computing",
MICRO 2016).

Activations are processed one bit per cycle, most significant first, at a runtime precision
P (1..act_bits): a brick takes P cycles. Only the P least significant bits of each
activation are used; in a run of signed activations (the ``act_signed`` runtime register)
bit P-1 is the sign, in an unsigned run it is the top magnitude bit. Lowering P trades
accuracy for speed without regenerating the hardware. The serialiser (one bit-select per
lane per window) is shared by the window's filters.
"""

from typing import NamedTuple

from amaranth import Cat, Module, Mux, Signal, Value
from amaranth.lib import wiring

from .column_stagger import ColumnDelays
from .grid import PEGrid
from .pe import BitSerialPE
from .rows import wgt_bricks

__all__ = ["StripesArray", "SerialSequencer", "feed_serial_pe"]


class SerialSequencer(wiring.Component):
    """Walks the bit positions of each step from ``precision - 1`` down to 0.

    ``precision`` may change from step to step (Dynamic Stripes detects it per step); it
    must hold steady within a step. ``first`` marks the most significant position, ``last``
    position 0 (the step's ``advance``). ``commit`` is ``last`` delayed by one cycle: the
    PEs add the finished brick to their accumulators while the next brick's first bit
    enters.
    """

    def __init__(self, max_precision: int):
        super().__init__({
            "precision": wiring.In(range(max_precision + 1)),
            "start": wiring.In(1),
            "valid": wiring.In(1),
            "bitpos": wiring.Out(range(max_precision)),
            "first": wiring.Out(1),
            "last": wiring.Out(1),
            "commit": wiring.Out(1),
        })
        self.max_precision = max_precision

    def elaborate(self, platform):
        m = Module()
        done = Signal(range(self.max_precision))      # bits of this step already processed
        top = Signal.like(self.bitpos)
        m.d.comb += [
            top.eq(self.precision - 1),
            self.bitpos.eq(top - done),
            self.first.eq(done == 0),
            self.last.eq(done == top),
        ]
        with m.If(self.start):
            m.d.sync += done.eq(0)
        with m.Elif(self.valid):
            m.d.sync += done.eq(Mux(self.last, 0, done + 1))
        m.d.sync += self.commit.eq(self.valid & self.last & ~self.start)
        return m


def feed_serial_pe(pe, seq, *, act_bit, wgt, en, is_signed) -> list:
    """The statements feeding a :class:`~.pe.BitSerialPE` this cycle's activation bits
    ``act_bit`` and its weight brick ``wgt``, walked by the :class:`SerialSequencer`
    ``seq`` (or anything with its ``first`` and ``commit``: a staggered column's delayed
    copies; the top bit of a run's activations carries negative weight when the run's
    ``is_signed``, its ``act_signed`` register, says they are two's complement)."""
    return [
        pe.act_bit.eq(act_bit),
        pe.wgt.eq(wgt),
        pe.en.eq(en),
        pe.first.eq(seq.first),
        pe.negate.eq(seq.first & is_signed),
        pe.commit.eq(seq.commit),
    ]


class _Control(NamedTuple):
    """A sequencer's ``first`` and ``commit`` as a staggered column sees them."""
    first: Value
    commit: Value


class StripesArray(PEGrid):
    """``filters`` x ``windows`` bit-serial PEs (see :func:`.array.array_signature`).

    Subclasses change where each step's precision comes from (:meth:`step_precision`).
    With ``fc_columns`` the window columns of an fc run are staggered
    (:mod:`.column_stagger`): column ``w``'s serialised bits and control reach its PEs
    ``w`` cycles late, its weights from its own register.
    """

    PE = BitSerialPE
    FC_STAGGER = True

    def step_precision(self, m):
        """The precision of the current step: Stripes' runtime register."""
        return self.precision

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        m.submodules.sequencer = seq = SerialSequencer(cfg.act_bits)
        m.d.comb += [
            seq.precision.eq(self.step_precision(m)),
            seq.start.eq(self.start),
            seq.valid.eq(self.valid),
            self.advance.eq(seq.last),
        ]
        if not cfg.has_fc_columns:
            m.d.comb += self.busy.eq(seq.commit)
        stagger = ColumnDelays(m, self.fc) if cfg.has_fc_columns else None
        act = self.act_bricks
        rows = self.column_rows(m)
        for w in range(cfg.windows):
            wgt = wgt_bricks(cfg, rows[w])
            # The window's serialiser: bit `bitpos` of every lane (of its bit pattern),
            # shared by all filters.
            bits = Signal(cfg.lanes, name=f"act_bits_w{w}")
            m.d.comb += bits.eq(Cat(act[w][lane].as_unsigned().bit_select(seq.bitpos, 1)
                                    for lane in range(cfg.lanes)))
            ctl, act_bit, en = seq, bits, self.valid
            if stagger is not None:     # the column's copies, `w` cycles late in fc runs
                ctl = _Control(
                    first=stagger.delayed(seq.first, w, name="first", control=True),
                    commit=stagger.delayed(seq.commit, w, name="commit", control=True))
                act_bit = stagger.delayed(bits, w, name=f"act_bits_w{w}")
                en = stagger.delayed(self.valid, w, name="valid", control=True)
            for f, pe in self.pe_column(m, w):
                m.d.comb += feed_serial_pe(pe, ctl, act_bit=act_bit, wgt=wgt[f], en=en,
                                           is_signed=self.act_signed)
        if stagger is not None:     # busy until the last column has committed
            m.d.comb += self.busy.eq(seq.commit | stagger.any_late(seq.commit))
        return m


ARRAY = StripesArray
