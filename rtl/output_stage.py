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

The stage is pipelined, one register after each step (``cfg.output_latency``): the sum
``s``; with ``out_bits`` the products of ``s`` and the multiplier's two halves, their sum
``s * multiplier``, its floor after the shift with the rounding flags; the result
(rounded, saturated, clipped). So the requantisation multiplier is never on a path with the accumulator's
adder or the window multiplexer, and a tile with the stage keeps its Fmax (issue 15). A
row enters when the stage moves (``en``) and leaves ``cfg.output_latency`` moves later.
"""

from amaranth import Module, Mux, Signal, signed, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

__all__ = ["OutputStage", "MULTIPLIER_BITS", "SHIFT_BITS"]

MULTIPLIER_BITS = 16
SHIFT_BITS = 6


def _round_saturate(m, product, shift, en, out_bits: int, name: str):
    """``saturate(round_half_even(product / 2**shift), out_bits)``, signed, in two
    registered steps (under ``en``): the floor and the rounding flags, then the rounded and
    saturated value (returned, combinational from the first step's registers). The masks
    derived from ``shift`` (a run's register, steady from the cycle after the command) are
    registered free-running, so no path holds a decoder and the barrel shifter together."""
    width = len(product)
    # Shifts past the product's width leave only its sign: clamp to keep widths finite.
    clamped = Signal(range(width + 1), name=f"{name}_shift", reset_less=True)
    low_mask = Signal(unsigned(width), name=f"{name}_low_mask", reset_less=True)
    half = Signal(unsigned(width + 1), name=f"{name}_half", reset_less=True)
    m.d.sync += [
        clamped.eq(Mux(shift > width, width, shift)),
        low_mask.eq((1 << clamped) - 1),
        half.eq((1 << clamped) >> 1),
    ]
    floor = Signal(signed(width), name=f"{name}_floor", reset_less=True)
    above = Signal(name=f"{name}_above", reset_less=True)     # remainder > half
    tie = Signal(name=f"{name}_tie", reset_less=True)         # remainder == half
    rem = product.as_unsigned() & low_mask
    with m.If(en):
        m.d.sync += [
            floor.eq(product >> clamped),                     # arithmetic: floor division
            above.eq((clamped != 0) & (rem > half)),
            tie.eq((clamped != 0) & (rem == half)),
        ]
    up = above | (tie & floor[0])
    rounded = Signal(signed(width + 1), name=f"{name}_rounded")
    m.d.comb += rounded.eq(floor + up)
    lo, hi = -(1 << (out_bits - 1)), (1 << (out_bits - 1)) - 1
    return Mux(rounded > hi, hi, Mux(rounded < lo, lo, rounded))


class OutputStage(wiring.Component):
    """The fused output stage, pipelined: one output row (``filters`` accumulators of one
    window) per move.

    Attributes
    ----------
    en : In(1)
        Move: every register takes its input (the row on ``acc``/``residual`` enters).
    acc, bias, residual : In(ArrayLayout(signed(acc_bits), filters))
    multiplier, shift, cap : In
        Runtime registers (``cap`` in output units, used by ReLU6), steady during a run.
    result : Out(ArrayLayout(signed(out_value_bits), filters))
        The row that entered ``cfg.output_latency`` moves ago.
    """

    def __init__(self, cfg):
        self.cfg = cfg
        row = data.ArrayLayout(signed(cfg.acc_bits), cfg.filters)
        super().__init__({
            "en": In(1),
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
        # Data registers: no reset (the tile's valid pipeline says which hold a row).
        for f in range(cfg.filters):
            total = self.acc[f]
            if cfg.bias:
                total = total + self.bias[f]
            if cfg.residual:
                total = total + self.residual[f]
            if cfg.out_bits:
                s = Signal(signed(cfg.acc_bits + 2), name=f"sum_{f}", reset_less=True)
                # The multiplier in two halves, each product registered, then their sum: no
                # register-to-register path holds more than a sum x half-multiplier array.
                half = MULTIPLIER_BITS // 2
                partial = [Signal(signed(cfg.acc_bits + 2 + half + 1), name=f"partial{i}_{f}",
                                  reset_less=True) for i in range(2)]
                product = Signal(signed(cfg.acc_bits + 2 + MULTIPLIER_BITS + 1),
                                 name=f"product_{f}", reset_less=True)
                with m.If(self.en):
                    m.d.sync += [
                        s.eq(total),
                        partial[0].eq(s * self.multiplier[:half]),
                        partial[1].eq(s * self.multiplier[half:]),
                        product.eq(partial[0] + (partial[1] << half)),
                    ]
                value = _round_saturate(m, product, self.shift, self.en, cfg.out_bits,
                                        f"requant_{f}")
            else:
                # Without requantisation the sum wraps to the accumulator width.
                value = Signal(signed(cfg.acc_bits), name=f"sum_{f}", reset_less=True)
                with m.If(self.en):
                    m.d.sync += value.eq(total)
            if cfg.activation in ("relu", "relu6"):
                value = Mux(value < 0, 0, value)
            if cfg.activation == "relu6":
                value = Mux(value > self.cap, self.cap, value)
            result = Signal(signed(cfg.out_value_bits), name=f"result_{f}", reset_less=True)
            with m.If(self.en):
                m.d.sync += result.eq(value)
            m.d.comb += self.result[f].eq(result)
        return m
