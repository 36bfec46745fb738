"""Floating-point datapath components: bfloat16 products, float32 sums, bf16 output rounding.

All components are combinational except :class:`FloatAccumulator`. Values travel as raw bit
patterns (``unsigned(16)`` for bfloat16, ``unsigned(32)`` for float32), so the tile's buffers
and streams stay plain bit vectors.

Semantics (bit for bit those of IEEE 754 binary32 with round-to-nearest-even, as NumPy's
``float32`` arithmetic on x86; checked in ``tests/rtl/test_fp.py``):

- subnormals are supported everywhere (no flush to zero), on inputs and on results;
- a NaN result is the canonical quiet NaN ``0x7FC00000`` (inputs' payloads are not kept:
  comparisons treat any NaN as equal);
- ``inf * 0`` and ``inf - inf`` give NaN; overflow gives the signed infinity;
- ``x + (-x)`` and ``+0 + -0`` give ``+0``; ``-0 + -0`` gives ``-0``; a product's zero carries
  the XOR of the signs.

bf16 has float32's exponent range and an 8-bit significand, so the product of two bf16
values (at most 16 significant bits) is exact in float32 unless it leaves the normal range:
:class:`BF16Multiplier` rounds it once (to a float32 subnormal or zero, RNE) or overflows to
infinity.

The float32 adder aligns the smaller operand with guard, round and sticky bits (the sticky
bit ORs every bit shifted out), adds or subtracts the significands, normalises with a
leading-zero count and rounds with :func:`round_pack`, which also denormalises results
below the normal range. :class:`FloatAdderTree` sums ``n`` values pairwise in the same
order as :class:`termwise.rtl.adder_tree.AdderTree`, with any adder component: the order of
:func:`termwise.rtl.adder_tree.tree_reduce` (level by level, ``(0,1), (2,3), ...``, an odd
last operand passes to the next level), optionally with a register after chosen levels
(``register_levels``: a pipelined tree, same order, same bits).
"""

from amaranth import Cat, Const, Module, Mux, Signal, signed, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out


__all__ = [
    "F32_QNAN", "round_pack", "round_normalised", "leading_zeros", "BF16Multiplier",
    "FP32Adder", "FloatAdderTree", "FloatAccumulator", "FP32ToBF16", "local_component",
]

#: The NaN every component produces (sign 0, quiet bit set, no payload).
F32_QNAN = 0x7FC00000
F32_INF = 0x7F800000

#: Width of the signed exponents inside the datapath (covers -140 .. 383).
EXP_BITS = 11


def leading_zeros(m, value, name: str) -> Signal:
    """A signal counting the leading zeros of ``value`` (``len(value)`` when it is zero).

    A balanced tree (``ceil(log2 width)`` levels of 2:1 choices: the count of a pair of
    halves is the high half's, or the high half's width plus the low half's when the high
    half is all zero), not a priority chain as long as the value."""
    width = len(value)
    count = Signal(range(width + 1), name=name)

    def lzc(bits, lo, hi):
        """(count, all_zero) of ``bits[lo:hi]``, counting from bit ``hi - 1`` down."""
        n = hi - lo
        if n == 1:
            return ~bits[lo], ~bits[lo]
        half = 1 << ((n - 1).bit_length() - 1)       # the high part: a power of two
        c_hi, z_hi = lzc(bits, hi - half, hi)
        c_lo, z_lo = lzc(bits, lo, hi - half)
        return Mux(z_hi, half + c_lo, c_hi), z_hi & z_lo

    m.d.comb += count.eq(lzc(value, 0, width)[0])
    return count


def round_pack(m, sign, exp, sig, name: str) -> Signal:
    """Round a normalised significand to a float32 bit pattern (RNE).

    ``sig`` (``W >= 26`` bits, ``sig[W-1]`` set) represents ``sig * 2**(exp - 127 - (W-1))``:
    ``exp`` is the biased exponent the result has if it is normal. Results below the normal
    range (``exp < 1``) are shifted right by ``1 - exp`` (every bit shifted out ORed into the
    sticky bit) and rounded as subnormals; a carry out of the mantissa increments the
    exponent (to the smallest normal, or to infinity); ``exp >= 255`` overflows to infinity.
    ``sig`` must not be zero (callers handle zeros).
    """
    width = len(sig)
    assert width >= 26
    shift = Signal(range(width + 1), name=f"{name}_denorm_shift")
    with m.If(exp < 1 - width):
        m.d.comb += shift.eq(width)
    with m.Elif(exp < 1):
        m.d.comb += shift.eq(1 - exp)
    shifted = Signal(width, name=f"{name}_shifted")
    lost = Signal(name=f"{name}_lost")
    low_mask = Signal(width, name=f"{name}_low_mask")    # the bits the shift drops
    m.d.comb += [
        shifted.eq(sig >> shift),
        low_mask.eq(~(Const((1 << width) - 1, width) << shift)[:width]),
        lost.eq((sig & low_mask) != 0),
    ]
    mant = shifted[width - 24:]                 # 24 bits with the hidden bit on top
    guard = shifted[width - 25]
    sticky = (shifted[:width - 25] != 0) | lost
    exp_field = Mux(exp < 1, 0, exp[:8])
    return _round_half_even(m, sign, exp, exp_field, mant, guard, sticky, name)


def _round_half_even(m, sign, exp, exp_field, mant, guard, sticky, name: str) -> Signal:
    """The float32 pattern of ``mant`` (24 bits, hidden bit on top) with exponent field
    ``exp_field``, rounded to nearest even by ``guard`` and ``sticky`` (a mantissa carry
    moves into the exponent); ``exp >= 255`` overflows to infinity."""
    increment = guard & (sticky | mant[0])
    rounded = Signal(31, name=f"{name}_rounded")
    m.d.comb += rounded.eq(Cat(mant[:23], exp_field) + increment)
    result = Signal(32, name=f"{name}_packed")
    m.d.comb += result.eq(Mux(exp >= 255, Cat(Const(F32_INF, 31), sign), Cat(rounded, sign)))
    return result


def round_normalised(m, sign, exp, sig, name: str) -> Signal:
    """Round to a float32 bit pattern (RNE) a significand that needs no denormalising:
    ``sig`` (``W >= 26`` bits) represents ``sig * 2**(exp - 127 - (W-1))`` with either
    ``sig[W-1]`` set and ``exp >= 1``, or ``sig[W-1]`` clear and ``exp == 1`` (a subnormal).
    The result is :func:`round_pack`'s for these inputs: a carry out of the mantissa
    increments the exponent (a subnormal to the smallest normal, the largest finite to
    infinity); ``exp >= 255`` overflows to infinity."""
    width = len(sig)
    assert width >= 26
    mant = sig[width - 24:]                     # 24 bits with the hidden bit on top
    guard = sig[width - 25]
    sticky = sig[:width - 25] != 0
    exp_field = Mux(sig[width - 1], exp[:8], 0)
    return _round_half_even(m, sign, exp, exp_field, mant, guard, sticky, name)


class BF16Multiplier(wiring.Component):
    """bfloat16 x bfloat16 -> float32, exactly rounded (see the module docstring).

    Parameters
    ----------
    stages : int
        0: combinational. 1: a pipeline register between the significand product (with
        the exponent sum and the special-value flags) and the normalisation and rounding;
        ``product`` is then the product of the operands one cycle earlier. Same bits.

    Attributes
    ----------
    a, b : In(16)
        bfloat16 bit patterns.
    product : Out(32)
        float32 bit pattern of ``a * b``.
    latency : int
        ``stages``.
    """

    def __init__(self, stages: int = 0):
        if stages not in (0, 1):
            raise ValueError(f"stages: expected 0 or 1, got {stages!r}")
        self.stages = self.latency = stages
        super().__init__({"a": In(16), "b": In(16), "product": Out(32)})

    def elaborate(self, platform):
        m = Module()
        a, b = self.a, self.b
        ea, eb = a[7:15], b[7:15]
        fa, fb = a[:7], b[:7]
        nan_a, nan_b = (ea == 0xFF) & (fa != 0), (eb == 0xFF) & (fb != 0)
        inf_a, inf_b = (ea == 0xFF) & (fa == 0), (eb == 0xFF) & (fb == 0)
        zero_a, zero_b = (ea == 0) & (fa == 0), (eb == 0) & (fb == 0)

        # Stage 1: the significand product (hidden bits: subnormals none, and exponent 1),
        # the exponent sum and what the special values decide.
        # Pipeline data registers (when staged): no reset, only their data matters.
        sign = Signal(name="sign", reset_less=True)
        prod = Signal(16, name="prod", reset_less=True)
        exp_sum = Signal(signed(EXP_BITS), name="exp_sum", reset_less=True)
        is_nan, is_inf, is_zero = (Signal(name=n, reset_less=True)
                                   for n in ("is_nan", "is_inf", "is_zero"))
        stage = m.d.sync if self.stages else m.d.comb
        stage += [
            sign.eq(a[15] ^ b[15]),
            prod.eq(Cat(fa, ea != 0) * Cat(fb, eb != 0)),
            exp_sum.eq(Mux(ea == 0, 1, ea) + Mux(eb == 0, 1, eb) - 126),
            is_nan.eq(nan_a | nan_b | (inf_a & zero_b) | (inf_b & zero_a)),
            is_inf.eq(inf_a | inf_b),
            is_zero.eq(zero_a | zero_b),
        ]

        # Stage 2: normalise and round.
        lz = leading_zeros(m, prod, "prod_lz")
        norm = Signal(16)
        m.d.comb += norm.eq((prod << lz)[:16])
        # prod * 2**(Ea + Eb - 254 - 14); with norm = prod << lz on bit 15 and the 28-bit
        # significand norm << 12, the biased result exponent is Ea + Eb - 126 - lz.
        exp = Signal(signed(EXP_BITS))
        m.d.comb += exp.eq(exp_sum - lz)
        packed = round_pack(m, sign, exp, Cat(Const(0, 12), norm), "mul")

        with m.If(is_nan):
            m.d.comb += self.product.eq(F32_QNAN)
        with m.Elif(is_inf):
            m.d.comb += self.product.eq(Cat(Const(F32_INF, 31), sign))
        with m.Elif(is_zero):
            m.d.comb += self.product.eq(Cat(Const(0, 31), sign))
        with m.Else():
            m.d.comb += self.product.eq(packed)
        return m


class FP32Adder(wiring.Component):
    """float32 + float32 -> float32, round to nearest even (see the module docstring).

    Attributes
    ----------
    a, b : In(32)
    sum : Out(32)
    """

    #: Extra bits below the significand during alignment: guard, round, sticky.
    GRS = 3

    def __init__(self):
        super().__init__({"a": In(32), "b": In(32), "sum": Out(32)})

    def elaborate(self, platform):
        m = Module()
        a, b = self.a, self.b
        nan_a = (a[23:31] == 0xFF) & (a[:23] != 0)
        nan_b = (b[23:31] == 0xFF) & (b[:23] != 0)
        inf_a = (a[23:31] == 0xFF) & (a[:23] == 0)
        inf_b = (b[23:31] == 0xFF) & (b[:23] == 0)

        # Order by magnitude: large, small.
        swap = b[:31] > a[:31]
        big = Signal(32)
        small = Signal(32)
        m.d.comb += [big.eq(Mux(swap, b, a)), small.eq(Mux(swap, a, b))]
        e_big, e_small = big[23:31], small[23:31]
        ee_big = Mux(e_big == 0, 1, e_big)
        sig_big = Cat(Const(0, self.GRS), big[:23], e_big != 0)       # 27 bits
        sig_small = Cat(Const(0, self.GRS), small[:23], e_small != 0)
        width = len(sig_big)

        # Align the small operand; every bit shifted out goes into the sticky bit (a mask of
        # the low `shift` bits, built beside the shifter rather than after it).
        # ee_big - ee_small, from both differences of the unswapped exponents computed beside
        # the magnitude comparison (not after the swap): the order of magnitudes orders the
        # exponents, so the difference the swap picks is never negative.
        ee_a = Mux(a[23:31] == 0, 1, a[23:31])
        ee_b = Mux(b[23:31] == 0, 1, b[23:31])
        d_ab, d_ba = Signal(8), Signal(8)
        m.d.comb += [d_ab.eq(ee_a - ee_b), d_ba.eq(ee_b - ee_a)]
        diff = Signal(8)
        m.d.comb += diff.eq(Mux(swap, d_ba, d_ab))
        shift = Signal(range(width + 1))
        m.d.comb += shift.eq(Mux(diff > width, width, diff))
        aligned = Signal(width)
        lost = Signal()
        low_mask = Signal(width)
        m.d.comb += [
            aligned.eq(sig_small >> shift),
            low_mask.eq(~(Const((1 << width) - 1, width) << shift)[:width]),
            lost.eq((sig_small & low_mask) != 0),
        ]
        small_op = Cat(aligned[0] | lost, aligned[1:])

        subtract = big[31] ^ small[31]
        total = Signal(width + 1)
        m.d.comb += total.eq(Mux(subtract, sig_big - small_op, sig_big + small_op))
        lz = leading_zeros(m, total, "sum_lz")
        # total's bit width-1 is the hidden bit of exponent ee_big; a carry sits one above.
        # Normalising by lz gives the exponent ee_big + 1 - lz; below the normal range the
        # shift stops at ee_big (exponent 1, hidden bit clear: a subnormal). Such a result is
        # exact (both operands are multiples of the smallest subnormal), so no bit is lost
        # and round_pack's denormalising shift is not needed: this is its rounding alone.
        norm_shift = Signal(range(width + 2))
        m.d.comb += norm_shift.eq(Mux(lz > ee_big, ee_big, lz))
        norm = Signal(width + 1)
        m.d.comb += norm.eq((total << norm_shift)[:width + 1])
        exp = Signal(signed(EXP_BITS))
        m.d.comb += exp.eq(ee_big + 1 - norm_shift)
        packed = round_normalised(m, big[31], exp, norm, "add")

        with m.If(nan_a | nan_b | (inf_a & inf_b & (a[31] != b[31]))):
            m.d.comb += self.sum.eq(F32_QNAN)
        with m.Elif(inf_a):
            m.d.comb += self.sum.eq(a)
        with m.Elif(inf_b):
            m.d.comb += self.sum.eq(b)
        with m.Elif(total == 0):
            # Exact zero: +0 in RNE, unless both operands are zeros of the same sign.
            m.d.comb += self.sum.eq(Cat(Const(0, 31), big[31] & ~subtract))
        with m.Else():
            m.d.comb += self.sum.eq(packed)
        return m


def local_component(cls):
    """An adder/multiplier factory that adds a fresh ``cls()`` as a submodule: the default
    for :class:`FloatAdderTree`, :class:`FloatAccumulator` and the bf16 PE. A factory is a
    callable ``(m, name) -> interface`` whose result has the component's ports; a tile
    passes one that instantiates a module emitted once (:mod:`termwise.rtl.library`)."""
    def make(m, name):
        component = cls()
        m.submodules[name] = component
        return component
    return make


class FloatAdderTree(wiring.Component):
    """Sum of ``n`` float32 values, pairwise level by level (``ceil(log2 n)`` levels).

    Order: level 0 adds ``(x0 + x1), (x2 + x3), ...``; an odd last value passes unchanged to
    the next level; repeat until one value remains. With ``n == 1`` the sum is ``x0`` itself
    (no addition, so a ``-0`` stays ``-0``).

    Parameters
    ----------
    n : int
    adder : callable ``(m, name) -> interface with a, b, sum``
        Default: a local :class:`FP32Adder` per node.
    register_levels : iterable of int
        Levels followed by a pipeline register (every value of the level, a passed-up odd
        one included, so the values stay aligned): ``sum`` is the sum of the inputs
        :attr:`latency` cycles earlier. Default: none (combinational). The order of the
        additions, and so every bit of the result, does not depend on it.

    Attributes
    ----------
    inputs : In(ArrayLayout(32, n))
    sum : Out(32)
    latency : int
        Registers between ``inputs`` and ``sum``.
    """

    def __init__(self, n: int, adder=None, *, register_levels=()):
        self.n = n
        self.adder = adder or local_component(FP32Adder)
        levels = max(n - 1, 0).bit_length()
        self.register_levels = frozenset(register_levels)
        if not self.register_levels <= set(range(levels)):
            raise ValueError(f"register_levels: the tree of {n} values has levels "
                             f"0..{levels - 1}, got {sorted(self.register_levels)}")
        self.latency = len(self.register_levels)
        super().__init__({
            "inputs": In(data.ArrayLayout(unsigned(32), n)),
            "sum": Out(32),
        })

    def elaborate(self, platform):
        m = Module()

        def add(x, y, level, index):
            node = self.adder(m, f"add_l{level}_{index}")
            m.d.comb += [node.a.eq(x), node.b.eq(y)]
            return node.sum

        def stage(values, level):
            """The level's values, registered when ``level`` is a register level."""
            if level not in self.register_levels:
                return values
            # Data registers: no reset (the valid pipeline says which hold a brick).
            regs = [Signal(32, name=f"l{level}_q{i}", reset_less=True)
                    for i in range(len(values))]
            m.d.sync += [r.eq(v) for r, v in zip(regs, values)]
            return regs

        # tree_reduce's order, level by level, with a register stage after chosen levels.
        level, depth = [self.inputs[i] for i in range(self.n)], 0
        while len(level) > 1:
            paired = [add(a, b, depth, j)
                      for j, (a, b) in enumerate(zip(level[0::2], level[1::2]))]
            level = stage(paired + ([level[-1]] if len(level) % 2 else []), depth)
            depth += 1
        m.d.comb += self.sum.eq(level[0])
        return m


class FloatAccumulator(wiring.Component):
    """float32 accumulator register: ``value <= clear ? +0 : en ? value + addend : value``.

    Attributes
    ----------
    addend : In(32)
    en, clear : In(1)
        Accumulate; reset to ``+0.0`` (``clear`` wins).
    value : Out(32)
    """

    def __init__(self, adder=None):
        self.adder = adder or local_component(FP32Adder)
        super().__init__({"addend": In(32), "en": In(1), "clear": In(1), "value": Out(32)})

    def elaborate(self, platform):
        m = Module()
        add = self.adder(m, "add")
        m.d.comb += [add.a.eq(self.value), add.b.eq(self.addend)]
        with m.If(self.clear):
            m.d.sync += self.value.eq(0)
        with m.Elif(self.en):
            m.d.sync += self.value.eq(add.sum)
        return m


class FP32ToBF16(wiring.Component):
    """float32 -> bfloat16, round to nearest even, as
    :func:`termwise.golden.primitives.bf16.f32_to_bf16`: ``(u + 0x7FFF + ((u >> 16) & 1))
    >> 16``; a NaN keeps its sign and top mantissa bits and gets the quiet bit ``0x0040``.
    Infinities stay infinities, subnormals are rounded like any value, values at or above
    ``max_bf16 + ulp/2`` become infinity.

    The tile outputs float32 accumulators; this is the optional output conversion for hosts
    or output stages that store bf16.

    Attributes
    ----------
    f32 : In(32)
    bf16 : Out(16)
    """

    def __init__(self):
        super().__init__({"f32": In(32), "bf16": Out(16)})

    def elaborate(self, platform):
        m = Module()
        u = self.f32
        is_nan = (u[23:31] == 0xFF) & (u[:23] != 0)
        rounded = Signal(33)
        m.d.comb += rounded.eq(u + 0x7FFF + u[16])
        m.d.comb += self.bf16.eq(Mux(is_nan, u[16:32] | 0x0040, rounded[16:32]))
        return m
