"""Processing elements: one filter x one window, ``lanes`` wide.

A PE is emitted once per configuration as its own Verilog module and instantiated by name
(see :mod:`.library`), so emission, Verilator builds and synthesis see one PE, not F x W
copies.
"""

from amaranth import Module, Mux
from amaranth.lib import wiring
from amaranth.lib.wiring import In

from .accumulator import Accumulator, ShiftAccumulator, accumulate, shift_in
from .adder_tree import sum_lanes
from .grid import pe_signature
from .rows import act_value_brick_layout, wgt_brick_layout

__all__ = ["BitParallelPE", "BitSerialPE"]


class BitParallelPE(wiring.Component):
    """Bit-parallel inner-product unit (DaDianNao NFU slice): ``lanes`` multipliers, an adder
    tree and an accumulator. One brick per cycle when ``en`` is set.

    Attributes
    ----------
    act : In(ArrayLayout(signed(act_bits + 1), lanes))
        The activation values (:func:`.rows.act_value_shape`: signed and unsigned runs).
    wgt : In(ArrayLayout(signed(wgt_bits), lanes))
    en, clear : In(1)
        Accumulate this cycle's brick; reset the accumulator (``clear`` wins).
    acc : Out(signed(acc_bits))
    """

    def __init__(self, cfg):
        self.cfg = cfg
        super().__init__(pe_signature(cfg, {
            "act": In(act_value_brick_layout(cfg)),
            "wgt": In(wgt_brick_layout(cfg)),
            "en": In(1),
        }))

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        tree = sum_lanes(m, cfg.lanes, cfg.product_bits,
                         lambda lane: self.act[lane] * self.wgt[lane])
        m.submodules.accumulator = acc = Accumulator(tree.sum_width, cfg.acc_bits)
        accumulate(m, self, acc, tree.sum, en=self.en)
        return m


class BitSerialPE(wiring.Component):
    """Stripes serial inner-product unit (Judd et al., MICRO 2016): each lane ANDs one
    activation bit with its bit-parallel weight, an adder tree sums the lanes, and a shift
    accumulator builds the brick MSB first over P cycles; the finished brick is added to the
    output accumulator on the cycle after its last bit (``commit``).

    Attributes
    ----------
    act_bit : In(lanes)
        This cycle's bit of each lane's activation.
    wgt : In(ArrayLayout(signed(wgt_bits), lanes))
    en, first, negate : In(1)
        Process this cycle's bits; the bits are the brick's most significant ones; the bits
        carry negative weight (sign bit of a two's complement activation).
    commit : In(1)
        Add the finished brick to the accumulator.
    clear : In(1)
    acc : Out(signed(acc_bits))
    """

    def __init__(self, cfg):
        self.cfg = cfg
        super().__init__(pe_signature(cfg, {
            "act_bit": In(cfg.lanes),
            "wgt": In(wgt_brick_layout(cfg)),
            "en": In(1),
            "first": In(1),
            "negate": In(1),
            "commit": In(1),
        }))

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        tree = sum_lanes(m, cfg.lanes, cfg.wgt_bits,
                         lambda lane: Mux(self.act_bit[lane], self.wgt[lane], 0))
        m.submodules.serial = serial = ShiftAccumulator(tree.sum_width, cfg.brick_sum_bits)
        m.submodules.accumulator = acc = Accumulator(cfg.brick_sum_bits, cfg.acc_bits)
        shift_in(m, serial, tree.sum, en=self.en, first=self.first, negate=self.negate)
        accumulate(m, self, acc, serial.value, en=self.commit)
        return m
