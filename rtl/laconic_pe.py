"""Laconic's processing element (Sharify et al., ISCA 2019) and its two reductions.

Each cycle every lane of a PE receives one weight term and one activation term, each
``(-1)**neg * 2**exp``; their product is ``(-1)**(neg_w ^ neg_a) * 2**(exp_w + exp_a)``, so a
lane needs only an exponent adder and a sign XOR. The lanes' products are then reduced in
one of two ways (option ``reduction``; both exact, so the golden model and the cycle model
are the same for both):

* ``histogram`` (the paper's PE, the default): each lane's exponent is decoded to one-hot
  (the paper's "Dec."); per exponent position ``k`` the PE counts the lanes whose product
  is ``+2**k`` and those whose product is ``-2**k`` (the histogram); the counts are then
  shifted to their positions and added. A count is ``b = bit_length(lanes)`` bits wide, so
  the counts of positions ``k, k + b, k + 2b, ...`` do not overlap once shifted and are
  simply concatenated: the shift-and-add is ``b`` words for each sign, added (positive)
  and subtracted (negative) -- the paper's grouped "enhanced adder tree" (its poster
  names six groups, G0 .. G5, for its counts). :class:`HistogramReduction`.
* ``onehot`` (termwise's first Laconic PE, kept for comparison): each lane emits its
  product as a signed one-hot word (``+-1 << exp``) and an :class:`~.adder_tree.AdderTree`
  sums the ``lanes`` words at full width.

Which is smaller is measured, not assumed: synthesised in OSU018 (a 1 x 1 x 16-lane tile,
8-bit operands, ``termwise synth --arch laconic --filters 1 --windows 1 --lanes 16
--act-bits 8 --wgt-bits 8 --depth 2 [--reduction onehot]``), the histogram PE is 282k um2
(decoders and counters 258k, lanes 14k, accumulator 9k) and the one-hot PE 147k (lanes
58k, tree 80k, accumulator 9k): one-hot words share the carries of neighbouring exponents
in each adder, where per-exponent counters widen each exponent's own sum. The 8-bit
bit-parallel PE (``--arch baseline``, the same grid) is 483k, so the paper's "5x smaller than
an 8-bit bit-parallel PE" measures 1.7x here (one-hot: 3.3x); docs/papers.md#laconic.
"""

import operator

from amaranth import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .accumulator import Accumulator, accumulate
from .adder_tree import sum_lanes
from .encoders import booth_digit_count
from .grid import pe_signature
from .laconic_terms import LaneTerm

__all__ = ["LaconicPE", "HistogramReduction", "digit_counts", "pair_positions",
           "REDUCTIONS"]

REDUCTIONS = ("histogram", "onehot")


def digit_counts(cfg) -> tuple[int, int]:
    """``(nd_a, nd_w)``: radix-4 Booth digits of an activation (its ``act_bits + 1``-bit
    value, which holds a signed or an unsigned one) and of a weight (two's complement)."""
    return booth_digit_count(cfg.act_bits + 1), booth_digit_count(cfg.wgt_bits)


def pair_positions(cfg) -> int:
    """Exponent positions of a pair product: ``ew + ea`` is at most
    ``(2 nd_w - 1) + (2 nd_a - 1)``."""
    nda, ndw = digit_counts(cfg)
    return 2 * ndw + 2 * nda - 1


class HistogramReduction(wiring.Component):
    """Sum of ``lanes`` signed powers of two by a histogram over the exponents and a
    grouped shift-and-add (the Laconic paper's PE reduction; see the module docstring).

    Parameters
    ----------
    lanes : int
    positions : int
        Exponents ``0 .. positions - 1``.

    Attributes
    ----------
    exp : In(ArrayLayout(range(positions), lanes))
    neg : In(lanes)
    valid : In(lanes)
        Lane ``l`` contributes ``(-1)**neg[l] * 2**exp[l]`` when ``valid[l]``.
    sum : Out(signed(sum_width))
    """

    def __init__(self, lanes: int, positions: int):
        self.lanes = operator.index(lanes)
        self.positions = operator.index(positions)
        if self.lanes < 1 or self.positions < 1:
            raise ValueError(f"lanes and positions must be positive, got {lanes}, {positions}")
        self.count_bits = self.lanes.bit_length()
        # Either sign's total is at most lanes * 2**(positions - 1), so the difference
        # fits a signed word one bit wider than lanes * 2**positions.
        self.sum_width = (self.lanes * (1 << self.positions)).bit_length() + 1
        super().__init__({
            "exp": In(data.ArrayLayout(range(max(self.positions, 2)), self.lanes)),
            "neg": In(self.lanes),
            "valid": In(self.lanes),
            "sum": Out(signed(self.sum_width)),
        })

    def elaborate(self, platform):
        m = Module()
        b, npos = self.count_bits, self.positions
        # The decoder: each lane's exponent one-hot, when its pair is valid.
        hot = [Signal(npos, name=f"hot{lane}") for lane in range(self.lanes)]
        for lane, h in enumerate(hot):
            with m.If(self.valid[lane]):
                m.d.comb += h.eq(Const(1, npos) << self.exp[lane])
        words = {}
        for sign, name in ((0, "pos"), (1, "neg")):
            # The histogram: per exponent, the lanes whose product is +2**k (-2**k).
            counts = []
            for k in range(npos):
                count = Signal(b, name=f"{name}_count{k}")
                # One sum over the lanes' bits: Yosys maps it as a multi-operand addition
                # (measured on the 16-lane, 8-bit PE: 258k um2 for the reduction; counters
                # of explicit full adders 282k, a balanced tree of binary adders 259k).
                m.d.comb += count.eq(sum(
                    hot[lane][k] & (self.neg[lane] if sign else ~self.neg[lane])
                    for lane in range(self.lanes)))
                counts.append(count)
            # Shift-and-add, grouped: the counts of exponents r, r + b, r + 2b, ... do
            # not overlap at their exponents, so each group is one concatenated word.
            words[sign] = []
            for r in range(min(b, npos)):
                word = Signal(npos + b, name=f"{name}_group{r}")
                m.d.comb += word.eq(Cat(Const(0, r), *counts[r::b]))
                words[sign].append(word)
        m.d.comb += self.sum.eq(sum(words[0]) - sum(words[1]))
        return m


class LaconicPE(wiring.Component):
    """Laconic PE (ISCA 2019): one filter x one window, ``lanes`` term-pair lanes, a
    reduction (``cfg.reduction``: the histogram, or one-hot words in an adder tree) and an
    accumulator.

    Each cycle every lane receives one weight term (broadcast to the filter's PEs) and one
    activation term (broadcast to the window's PEs); if both are valid the lane's product
    ``+-2**(ew + ea)`` enters the reduction, whose sum is added to the accumulator on every
    ``en`` cycle.

    Attributes
    ----------
    wgt : In(ArrayLayout(LaneTerm(2 nd_w), lanes))
    act : In(ArrayLayout(LaneTerm(2 nd_a), lanes))
        This cycle's term of each lane's weight and activation (``valid`` low: none).
    en : In(1)
        A step is in progress: accumulate.
    clear : In(1)
        Reset the accumulator (wins).
    acc : Out(signed(acc_bits))
    """

    def __init__(self, cfg):
        self.cfg = cfg
        self.nda, self.ndw = digit_counts(cfg)
        self.positions = pair_positions(cfg)
        self.reduction = cfg.option("reduction", default="onehot")
        super().__init__(pe_signature(cfg, {
            "wgt": In(data.ArrayLayout(LaneTerm(2 * self.ndw), cfg.lanes)),
            "act": In(data.ArrayLayout(LaneTerm(2 * self.nda), cfg.lanes)),
            "en": In(1),
        }))

    def _pair_exp(self, m, lane):
        """Lane ``lane``'s exponent adder: ``ew + ea``."""
        wgt, act = self.wgt[lane], self.act[lane]
        exp = Signal(range(self.positions), name=f"pair_exp{lane}")
        m.d.comb += exp.eq(wgt.exp + act.exp)
        return exp

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        npos = self.positions
        if self.reduction == "histogram":
            m.submodules.histogram = red = HistogramReduction(cfg.lanes, npos)
            for lane in range(cfg.lanes):
                wgt, act = self.wgt[lane], self.act[lane]
                m.d.comb += [red.exp[lane].eq(self._pair_exp(m, lane)),
                             red.neg[lane].eq(wgt.neg ^ act.neg),
                             red.valid[lane].eq(self.en & wgt.valid & act.valid)]
            total, width = red.sum, red.sum_width
        else:
            def pair(lane):
                wgt, act = self.wgt[lane], self.act[lane]
                exp = self._pair_exp(m, lane)
                word = Signal(signed(npos + 1), name=f"pair{lane}")
                with m.If(self.en & wgt.valid & act.valid):
                    m.d.comb += word.eq(Mux(wgt.neg ^ act.neg, -1, 1) << exp)
                return word
            tree = sum_lanes(m, cfg.lanes, npos + 1, pair)
            total, width = tree.sum, tree.sum_width
        m.submodules.accumulator = acc = Accumulator(width, cfg.acc_bits)
        accumulate(m, self, acc, total, en=self.en)
        return m
