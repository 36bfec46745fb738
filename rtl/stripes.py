"""Stripes array (Judd et al., "Stripes: Bit-Serial Deep Neural Network Computing",
MICRO 2016).

Activations are processed one bit per cycle, most significant first, at a runtime precision
P (1..act_bits): a brick takes P cycles. Only the P least significant bits of each
activation are used; with signed activations bit P-1 is the sign. Lowering P trades
accuracy for speed without regenerating the hardware. The serialiser (one bit-select per
lane per window) is shared by the window's filters.
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, wiring

from .array import act_brick, array_signature, wgt_brick
from .library import ModuleLibrary
from .pe import BitSerialPE

__all__ = ["StripesArray", "SerialSequencer"]


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


class StripesArray(wiring.Component):
    """``filters`` x ``windows`` bit-serial PEs (see :func:`.array.array_signature`).

    Subclasses change where each step's precision comes from (:meth:`step_precision`).
    """

    def __init__(self, cfg, library: ModuleLibrary):
        self.cfg = cfg
        self.library = library
        self.pe_name = library.add(f"{cfg.top_name}__pe", BitSerialPE(cfg))
        super().__init__(array_signature(cfg))

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
            self.busy.eq(seq.commit),
        ]
        act_layout = data.ArrayLayout(cfg.act_bits, cfg.lanes)
        for w in range(cfg.windows):
            # The window's serialiser: bit `bitpos` of every lane, shared by all filters.
            bricks = data.View(act_layout, act_brick(cfg, self.act_row, w))
            bits = Signal(cfg.lanes, name=f"act_bits_w{w}")
            m.d.comb += bits.eq(
                Cat(bricks[lane].bit_select(seq.bitpos, 1) for lane in range(cfg.lanes)))
            for f in range(cfg.filters):
                pe = self.library.instantiate(m, self.pe_name, f"pe_f{f}_w{w}")
                m.d.comb += [
                    pe.act_bit.eq(bits),
                    pe.wgt.eq(wgt_brick(cfg, self.wgt_row, f)),
                    pe.en.eq(self.valid),
                    pe.first.eq(seq.first),
                    pe.negate.eq(seq.first & cfg.act_signed),
                    pe.commit.eq(seq.commit),
                    pe.clear.eq(self.start),
                    self.acc[w][f].eq(pe.acc),
                ]
        return m


ARRAY = StripesArray
