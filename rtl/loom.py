"""Loom array (Sharify et al., "Loom: Exploiting Weight and Activation Precisions to
Accelerate Convolutional Neural Networks", DAC 2018).

Weights *and* activations are bit-serial, so the work of a brick scales with both
precisions: a step (one brick of every window and of every filter) takes
``ceil(Pa / serial_bits) * Pw`` cycles (docs/papers.md#loom), where

* ``Pw`` is the layer's weight precision, the runtime register ``wgt_precision``: the ``Pw``
  least significant bits of each weight are used, as two's complement;
* ``Pa`` is detected per step over every activation of the current row (all windows run in
  lockstep since they share the weight bits), as in Dynamic Stripes, with the shared
  :class:`~.encoders.PrecisionDetector`; activations are processed exactly;
* ``serial_bits`` (1, 2 or 4) activation bits are consumed per cycle.

Datapath (this implementation)
------------------------------
Each cycle a PE lane ANDs one weight bit with a ``serial_bits``-wide activation chunk; an
adder tree sums the lanes. Two nested MSB-first shift accumulators (the shared
:class:`~.accumulator.ShiftAccumulator`) rebuild the brick's dot product:

* the inner one (``serial``, ``shift = serial_bits``) walks the activation chunks from the
  top one down to chunk 0 for a fixed weight bit; activations are sign-extended to a
  multiple of ``serial_bits`` and the top chunk is read as a signed chunk (for signed
  activations), so the inner result is ``sum_lanes act * wgt_bit`` exactly;
* the outer one (``serial_wgt``, ``shift = 1``) takes the inner result the cycle after its
  last chunk (commit) and walks the weight bits from ``Pw - 1`` down to 0, negating on the
  weight's sign bit ``Pw - 1``;
* the output :class:`~.accumulator.Accumulator` adds the outer result the cycle after the
  step's last weight bit has been committed.

The loops: weight bits outer, activation chunks inner. Selecting the chunks (sign
extension included) is done once per window and selecting the weight bits once per
filter, in the array (the serialisers), not per PE. Control comes from two shared
:class:`~.stripes.SerialSequencer` instances, one walking the chunks (its precision is
``ceil(Pa / serial_bits)``) and one walking the weight bits (advanced once per chunk loop).

Fixed cost of a run: the two commit stages after the last step's final cycle, plus the
controller's cycle to raise ``out.valid`` (``golden/arch/loom.py:RUN_OVERHEAD = 3``).
"""

from amaranth import Cat, Module, Mux, Signal, signed, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..gen.config import clog2
from .accumulator import Accumulator, ShiftAccumulator, accumulate, shift_in
from .adder_tree import sum_lanes
from .column_stagger import ColumnDelays
from .encoders import PrecisionDetector
from .grid import PEGrid, pe_signature
from .rows import wgt_bricks
from .stripes import SerialSequencer

__all__ = ["LoomPE", "LoomArray", "WeightBitSelect", "chunk_shape", "act_chunks"]


def act_chunks(cfg) -> int:
    """Activation chunks of a full-width value: ``ceil(act_bits / serial_bits)``."""
    return -(-cfg.act_bits // cfg.serial_bits)


def chunk_shape(cfg):
    """Shape of one lane's activation chunk as the PE sees it: ``signed(serial_bits + 1)``
    (in a run of signed activations the top chunk is sign-extended by one bit; every other
    chunk, and every chunk of an unsigned run, is zero-extended)."""
    return signed(cfg.serial_bits + 1)


class LoomPE(wiring.Component):
    """Loom serial inner-product unit (DAC 2018): ``lanes`` AND gates between one weight bit
    and one activation chunk each, an adder tree, two nested MSB-first shift accumulators
    (activation chunks inner, weight bits outer) and the output accumulator.

    Attributes
    ----------
    act_chunk : In(ArrayLayout(chunk_shape(cfg), lanes))
        This cycle's activation chunk of each lane (already sign-extended if it is the top
        chunk of a signed run's activations).
    wgt_bit : In(lanes)
        This cycle's bit of each lane's weight.
    en, first : In(1)
        Process this cycle's chunk; the chunk is the top one (restart the inner sum).
    commit : In(1)
        Add the finished inner sum (one weight bit's worth) into the weight-bit accumulator.
    wgt_first : In(1)
        With ``commit``: the inner sum belongs to the weight's sign bit ``Pw - 1`` (restart
        the weight-bit sum and negate).
    acc_commit : In(1)
        Add the finished brick (the weight-bit sum) into the output accumulator.
    clear : In(1)
    acc : Out(signed(acc_bits))
    """

    def __init__(self, cfg):
        self.cfg = cfg
        super().__init__(pe_signature(cfg, {
            "act_chunk": In(data.ArrayLayout(chunk_shape(cfg), cfg.lanes)),
            "wgt_bit": In(cfg.lanes),
            "en": In(1),
            "first": In(1),
            "commit": In(1),
            "wgt_first": In(1),
            "acc_commit": In(1),
        }))

    @staticmethod
    def inner_width(cfg) -> int:
        """Signed width of ``sum_lanes act * wgt_bit`` (``act_bits + 1``-bit values hold
        signed and unsigned activations)."""
        return cfg.act_bits + 1 + clog2(cfg.lanes)

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        shape = chunk_shape(cfg)
        tree = sum_lanes(m, cfg.lanes, shape.width,
                         lambda lane: Mux(self.wgt_bit[lane], self.act_chunk[lane], 0))
        term_width = tree.sum_width
        inner_width = max(self.inner_width(cfg), term_width)
        m.submodules.serial = inner = ShiftAccumulator(term_width, inner_width,
                                                       shift=cfg.serial_bits)
        m.submodules.serial_wgt = outer = ShiftAccumulator(inner_width, cfg.brick_sum_bits,
                                                           shift=1)
        m.submodules.accumulator = acc = Accumulator(cfg.brick_sum_bits, cfg.acc_bits)
        shift_in(m, inner, tree.sum, en=self.en, first=self.first, negate=0)
        shift_in(m, outer, inner.value, en=self.commit, first=self.wgt_first,
                 negate=self.wgt_first)
        accumulate(m, self, acc, outer.value, en=self.acc_commit)
        return m


class WeightBitSelect(wiring.Component):
    """One weight-bit serialiser: bit ``bitpos`` of each lane's weight of a brick. With
    ``fc_columns`` there is one per PE (1,024 at 16x16), a library module instantiated
    per PE (:mod:`.library`) so that synthesis maps it once (the array's module: 245k
    multiplexers at 16 bits, 312 s of yosys inline).

    Attributes
    ----------
    weights : In(unsigned(lanes * wgt_bits))
        The brick, lane 0 in the low bits.
    bitpos : In(range(max(wgt_bits, 2)))
        The weight bit (:class:`~.stripes.SerialSequencer`'s position).
    bits : Out(lanes)
        Bit ``bitpos`` of each lane's weight.
    """

    def __init__(self, cfg):
        self.cfg = cfg
        super().__init__({"weights": In(unsigned(cfg.lanes * cfg.wgt_bits)),
                          "bitpos": In(range(max(cfg.wgt_bits, 2))),
                          "bits": Out(cfg.lanes)})

    def elaborate(self, platform):
        m = Module()
        wb = self.cfg.wgt_bits
        m.d.comb += self.bits.eq(Cat(self.weights[lane * wb:(lane + 1) * wb].bit_select(
            self.bitpos, 1) for lane in range(self.cfg.lanes)))
        return m


class LoomArray(PEGrid):
    """``filters`` x ``windows`` Loom PEs (see :func:`.array.array_signature`), the shared
    precision detector, the per-window chunk serialisers, the per-filter weight-bit
    serialisers and the two sequencers. The rows are used straight from the buffer outputs
    (they hold still until ``advance``)."""

    PE = LoomPE
    FC_STAGGER = True

    def __init__(self, cfg, library, **kwargs):
        super().__init__(cfg, library, **kwargs)
        if cfg.fc_columns:
            self.select_name = self.add_module("wgt_bits", WeightBitSelect(cfg))

    def elaborate(self, platform):
        cfg = self.cfg
        sb = cfg.serial_bits
        nch = act_chunks(cfg)
        m = Module()

        # Per-step activation precision Pa (Dynamic Stripes' detector over the whole row),
        # in chunks: ceil(Pa / serial_bits).
        m.submodules.precision_detector = det = PrecisionDetector(
            cfg.windows * cfg.lanes, cfg.act_bits)
        m.d.comb += [det.values.as_value().eq(self.act_row),
                     det.is_signed.eq(self.act_signed)]
        step_chunks = Signal(range(nch + 1))
        m.d.comb += step_chunks.eq((det.precision + (sb - 1)) >> clog2(sb))

        # Activation chunks (inner loop) and weight bits (outer loop), MSB first. Never
        # narrower than 2 positions so that no signal is zero bits wide (lint).
        m.submodules.sequencer = seq = SerialSequencer(max(nch, 2))
        m.submodules.wgt_sequencer = wseq = SerialSequencer(max(cfg.wgt_bits, 2))
        m.d.comb += [
            seq.precision.eq(step_chunks),
            seq.start.eq(self.start),
            seq.valid.eq(self.valid),
            wseq.precision.eq(self.wgt_precision),
            wseq.start.eq(self.start),
            wseq.valid.eq(self.valid & seq.last),
            self.advance.eq(seq.last & wseq.last),
        ]
        # Commit stages: inner -> weight-bit accumulator (seq.commit, with the weight bit's
        # "first" delayed alongside), weight-bit accumulator -> output (wseq.commit delayed).
        wgt_first = Signal()
        acc_commit = Signal()
        m.d.sync += [
            wgt_first.eq(wseq.first),
            acc_commit.eq(wseq.commit & ~self.start),
        ]
        if not cfg.fc_columns:
            m.d.comb += self.busy.eq(seq.commit | wseq.commit | acc_commit)

        act = self.act_bricks
        shape = chunk_shape(cfg)
        ext_bits = nch * sb
        chunks = []
        for w in range(cfg.windows):
            # The window's chunk serialiser, shared by all filters: chunk `bitpos` of every
            # lane (activations sign- or zero-extended to a whole number of chunks); the top
            # chunk of a signed run's activation carries the sign into the PE's extra bit.
            lanes = []
            for lane in range(cfg.lanes):
                value = act[w][lane].as_unsigned()
                pad = ext_bits - cfg.act_bits
                sign = value[-1] & self.act_signed
                extended = Cat(value, sign.replicate(pad)) if pad else value
                chunk = extended.word_select(seq.bitpos, sb)
                lanes.append(Cat(chunk, chunk[-1] & seq.first & self.act_signed))
            sig = Signal(shape.width * cfg.lanes, name=f"act_chunks_w{w}")
            m.d.comb += sig.eq(Cat(lanes))
            chunks.append(sig)

        stagger = ColumnDelays(m, self.fc) if cfg.fc_columns else None
        wbits = self._weight_bits(m, wseq, stagger, self.column_rows(m))

        def late(value, w, name, control=True):
            """``value`` as column ``w``'s PEs see it (``w`` cycles late in an fc run)."""
            if stagger is None:
                return value
            return stagger.delayed(value, w, name=name, control=control)

        for w, f, pe in self.pes(m):
            m.d.comb += [
                pe.act_chunk.as_value().eq(late(chunks[w], w, f"act_chunks_w{w}", False)),
                pe.wgt_bit.eq(wbits[w, f]),
                pe.en.eq(late(self.valid, w, "valid")),
                pe.first.eq(late(seq.first, w, "first")),
                pe.commit.eq(late(seq.commit, w, "commit")),
                pe.wgt_first.eq(late(wgt_first, w, "wgt_first")),
                pe.acc_commit.eq(late(acc_commit, w, "acc_commit")),
            ]
        if stagger is not None:     # busy until the last column has committed
            m.d.comb += self.busy.eq(seq.commit | wseq.commit | acc_commit
                                     | stagger.any_late(acc_commit))
        return m

    def _weight_bits(self, m, wseq, stagger, rows) -> dict:
        """The weight-bit serialisers: ``{(window, filter): this cycle's bit of each lane's
        weight}``. With ``fc_columns`` each column has its own weights (fc runs): a
        serialiser per PE (:class:`WeightBitSelect`, a library module), walking the weight
        bits on its column's (staggered) timeline; else one per filter, shared by all
        windows (inline: 16 at 16x16). ``rows``: each column's weight row
        (:meth:`~.grid.PEGrid.column_rows`)."""
        cfg = self.cfg
        if stagger is None:
            shared = []
            for f in range(cfg.filters):
                sig = Signal(cfg.lanes, name=f"wgt_bits_f{f}")
                m.d.comb += sig.eq(Cat(
                    self.wgt_bricks[f][lane].as_unsigned().bit_select(wseq.bitpos, 1)
                    for lane in range(cfg.lanes)))
                shared.append(sig)
            return {(w, f): shared[f] for w in range(cfg.windows) for f in range(cfg.filters)}
        wbits = {}
        for w in range(cfg.windows):
            bitpos = stagger.delayed(wseq.bitpos, w, name="wgt_bitpos")     # an operand
            bricks = wgt_bricks(cfg, rows[w])
            for f in range(cfg.filters):
                select = self.library.instantiate(m, self.select_name, f"wgt_bits_f{f}_w{w}",
                                                  clocked=False)   # combinational
                m.d.comb += [select.weights.eq(bricks[f].as_value()),
                             select.bitpos.eq(bitpos)]
                wbits[w, f] = select.bits
        return wbits


ARRAY = LoomArray
