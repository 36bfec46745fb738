"""Fused output stage: bias, residual add, requantisation and activation on the way out.

Every integer tile can instantiate it (configuration flags ``bias``, ``residual``,
``activation``, ``out_bits``). It implements MIOpen's fused forms conv + bias + activation
(+ requantise) and conv + bias + residual add + activation, so partial sums never leave the
tile at full width. Per filter::

    s = acc + bias[f] + residual[f]                       (accumulator units)
    q = saturate(round_half_even(s * multiplier / 2**shift), out_bits)   if out_bits
    y = clip(q, 0 if relu/relu6, cap if relu6)

``multiplier`` (unsigned, :data:`MULTIPLIER_BITS` bits), ``shift`` and ``cap`` (in output
units) are runtime registers from the command. A non-negative multiplier keeps the
requantisation monotone with ``requant(0) == 0``, so clipping after it equals the
activation before it (the golden model, :func:`termwise.golden.primitives.conv_bias_act`,
folds it the same way).
"""

from amaranth import Module, Mux, Signal, signed, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

__all__ = ["OutputStage", "MULTIPLIER_BITS", "SHIFT_BITS", "RequantUnit"]

MULTIPLIER_BITS = 16
SHIFT_BITS = 6


class RequantUnit(wiring.Component):
    """``saturate(round_half_even(value * multiplier / 2**shift), out_bits)``, signed.
    Combinational."""

    def __init__(self, in_bits: int, out_bits: int):
        self.in_bits, self.out_bits = in_bits, out_bits
        super().__init__({
            "value": In(signed(in_bits)),
            "multiplier": In(unsigned(MULTIPLIER_BITS)),
            "shift": In(unsigned(SHIFT_BITS)),
            "result": Out(signed(out_bits)),
        })

    def elaborate(self, platform):
        m = Module()
        width = self.in_bits + MULTIPLIER_BITS + 1
        product = Signal(signed(width))
        m.d.comb += product.eq(self.value * self.multiplier)
        # Shifts past the product's width leave only its sign: clamp to keep widths finite.
        shift = Signal(range(width + 1))
        m.d.comb += shift.eq(Mux(self.shift > width, width, self.shift))
        floor = Signal(signed(width))
        rem = Signal(unsigned(width))
        half = Signal(unsigned(width + 1))
        m.d.comb += [
            floor.eq(product >> shift),                       # arithmetic: floor division
            rem.eq(product.as_unsigned() & ((1 << shift) - 1)),
            half.eq((1 << shift) >> 1),
        ]
        up = (shift != 0) & ((rem > half) | ((rem == half) & floor[0]))
        rounded = Signal(signed(width + 1))
        m.d.comb += rounded.eq(floor + up)
        lo, hi = -(1 << (self.out_bits - 1)), (1 << (self.out_bits - 1)) - 1
        m.d.comb += self.result.eq(Mux(rounded > hi, hi, Mux(rounded < lo, lo, rounded)))
        return m


class OutputStage(wiring.Component):
    """The fused output stage for one output row (``filters`` accumulators of one window).

    Attributes
    ----------
    acc, bias, residual : In(ArrayLayout(signed(acc_bits), filters))
    multiplier, shift, cap : In
        Runtime registers (``cap`` in output units, used by ReLU6).
    result : Out(ArrayLayout(signed(out_value_bits), filters))
    """

    def __init__(self, cfg):
        self.cfg = cfg
        row = data.ArrayLayout(signed(cfg.acc_bits), cfg.filters)
        super().__init__({
            "acc": In(row),
            "bias": In(row),
            "residual": In(row),
            "multiplier": In(unsigned(MULTIPLIER_BITS)),
            "shift": In(unsigned(SHIFT_BITS)),
            "cap": In(signed(cfg.out_value_bits)),
            "result": Out(data.ArrayLayout(signed(cfg.out_value_bits), cfg.filters)),
        })

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        for f in range(cfg.filters):
            total = self.acc[f]
            if cfg.bias:
                total = total + self.bias[f]
            if cfg.residual:
                total = total + self.residual[f]
            if cfg.out_bits:
                unit = RequantUnit(cfg.acc_bits + 2, cfg.out_bits)
                m.submodules[f"requant_{f}"] = unit
                m.d.comb += [unit.value.eq(total), unit.multiplier.eq(self.multiplier),
                             unit.shift.eq(self.shift)]
                value = unit.result
            else:
                # Without requantisation the sum wraps to the accumulator width.
                value = Signal(signed(cfg.acc_bits), name=f"sum_{f}")
                m.d.comb += value.eq(total)
            if cfg.activation in ("relu", "relu6"):
                value = Mux(value < 0, 0, value)
            if cfg.activation == "relu6":
                value = Mux(value > self.cap, self.cap, value)
            m.d.comb += self.result[f].eq(value)
        return m
