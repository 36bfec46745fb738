"""Laconic array (Sharify et al., "Laconic Deep Learning Inference Acceleration", ISCA 2019).

Both operands are radix-4 modified-Booth recoded into signed power-of-two terms (weights two's
complement; unsigned activations zero-extended by one bit first, see
:mod:`termwise.golden.terms`). Each lane of each PE processes one (weight term, activation
term) pair per cycle: the pair's product is ``+-2**(ew + ea)``. A lane therefore needs
``terms(w) * terms(a)`` cycles; all windows and filters of the tile run in lockstep (the
windows share the weight row and the filters the activation row), so a step takes the
largest pair count of any lane of any PE, at least 1 cycle (docs/papers.md#laconic; golden model
:mod:`termwise.golden.arch.laconic`).

Structure
---------
* **Booth encoders and term serializers, broadcast.** One :class:`TermLane` (a
  :class:`~.encoders.BoothEncoder` and a radix-4 :class:`~.encoders.DigitSerializer`) per
  filter lane and per window lane, a brick's lanes together in a :class:`TermBrick`
  (``wgt_brick_f*``, ``act_brick_w*``), each an instance of one module emitted once
  (:mod:`.library`, :mod:`.laconic_terms`). Each cycle the filter lane's current
  weight term is broadcast to the filter's PEs and the window lane's current activation
  term to the window's PEs, as in the paper's tile, where terms travel along the PE rows
  and columns. Recoding and sequencing are done once per value, not once per PE lane.
* **Pair enumeration with per-lane loop state only.** Lane ``l`` runs "for each weight
  term ``i`` (outer loop), for each activation term ``j`` (inner loop)" with an inner loop
  of ``A_l = max(1, max_w terms(a[w, l]))`` cycles shared by every window: the activation
  serializers advance every cycle and reload the step's digits (kept in the window lane's
  :class:`TermLane`) when the lane's inner counter wraps; the weight serializers advance
  on the wrap. A PE lane sees the pair ``(i, j)`` while both serializers still hold a term,
  so it processes each of its ``terms(w) * terms(a)`` pairs exactly once, within the
  ``(max_f terms(w[f, l])) * A_l`` cycles the lane's loops last -- no longer than the step
  (below). A per-PE-lane enumeration (two serializers per PE lane, 2 x filters x windows x
  lanes of them; this file's first version) finishes each PE lane earlier, but under
  lockstep that buys nothing: the step still waits for the slowest lane of any PE. The
  broadcast form leaves the PE with just an exponent adder and a decoder per lane (3.5x less
  C++ from Verilator on ``laconic-4x4``: 5.7 MB instead of 19.6 MB; far less area).
* **Reduction: the paper's histogram** (:mod:`.laconic_pe`). Each PE lane adds its pair's
  exponents and XORs the signs; the PE counts, per exponent, the lanes whose product is
  ``+2**e`` and those whose product is ``-2**e`` and adds the counts shifted to their
  exponents in a grouped shift-and-add, straight into the PE's
  :class:`~.accumulator.Accumulator` (the exponents are absolute, so no shift register is
  needed). Option ``reduction = "onehot"`` keeps termwise's first PE (each lane a signed
  one-hot word, summed by an adder tree) for comparison.
* **Step length, precomputed.** Since ``max over w, f of terms(a[w,l]) * terms(w[f,l]) =
  (max_w terms(a[w,l])) * (max_f terms(w[f,l]))`` (counts are non-negative), a
  :class:`PairCountDetector` turns the encoders' term counts into the step's cycle count
  (per lane: the largest activation count times the largest weight count; the largest over
  lanes; at least 1) and the lanes' inner-loop lengths. A counter ends the step: no
  completion signal has to be collected from the PEs.
* **Per-column weights (``fc_columns``).** With the option every window column has its own
  weight row (:meth:`~.grid.PEGrid.wgt_bricks_of`, :mod:`.column_weights`), so the weight
  encoders and serializers are per (column, filter, lane) (``wgt_brick_f*_w*``) and
  feed that column's PEs only, and the inner loops are per
  (column, lane), each of ``max(1, terms(a[w, l]))`` cycles (a shared loop over the longest
  activation of the lane would make a column whose weight has many terms wait on another
  column's activation). The step then takes ``max(1, max over w, l of terms(a[w, l]) *
  (max_f terms(wgt[w, f, l])))`` cycles, the largest pair count of any lane of any PE as
  before; a run without ``fc`` (every column's row the broadcast one) costs what it costs
  without the option. Without the option the array is built exactly as before.

Timing (double buffered)
------------------------
The array takes a row pair (``advance``) on the last cycle of the current step (or when
idle): the serializers and ``act_digits`` load at that edge, the inner counters restart and
the step counter is set to the new step's length, so the next step's first pairs are
processed in the following cycle while the tile's buffers already present the next rows: no
bubble between steps. The first
row of a run costs one fill cycle; ``busy`` stays high until the last step's last cycle has
been added to the accumulators. A run of steps ``S_i`` takes ``sum(S_i) + 2`` cycles from
the command transfer to ``out.valid`` (``RUN_OVERHEAD = 2`` in the golden model).

In an ``fc`` run the tile holds ``valid`` low until a round's weights are in the column
registers; the array waits idle (``ready`` high), takes the round as soon as it is valid
and, since the serializers hold both operands from then on, never reads the registers
again during the round, which lets them take the next round at once
(:func:`termwise.golden.arch.laconic.fc_run_cycles` gives the schedule).
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .adder_tree import tree_reduce
from .grid import PEGrid
from .laconic_pe import LaconicPE, digit_counts, pair_positions
from .laconic_terms import LaneTerm, TermBrick, TermLane
from .library import ModuleLibrary
from .rows import act_value

__all__ = ["LaneTerm", "LaconicPE", "PairCountDetector", "ColumnPairCount", "LaconicArray",
           "ARRAY", "digit_counts", "pair_positions", "TermLane", "TermBrick"]


def _max_tree(m, values, name: str):
    """Balanced maximum of unsigned values (:func:`~.adder_tree.tree_reduce`), each node a
    signal ``<name>_<level>_<index>``: as one expression, each ``Mux(a > b, a, b)`` would
    copy its operands' subtrees (16k comparators in laconic-16x16's detector instead of
    1k)."""
    def node(a, b, level, index):
        out = Signal(max(len(a), len(b)), name=f"{name}_{level}_{index}")
        m.d.comb += out.eq(Mux(a > b, a, b))
        return out
    return tree_reduce(values, node)


class PairCountDetector(wiring.Component):
    """Cycles of a Laconic step from the operands' Booth term counts. Combinational.

    ``cycles = max(1, max over lanes l of (max_w act_count[w, l]) * (max_f wgt_count[f,
    l]))``, which equals the largest ``terms(a) * terms(w)`` of any lane of any PE because
    counts are non-negative (Sharify et al., ISCA 2019: a lane takes ``terms(a) *
    terms(w)`` cycles; the tile's PEs run in lockstep).

    With ``columns`` (the ``fc_columns`` option: each window column has its own weights)
    the weight counts are per column, and ``cycles = max(1, max over windows w, lanes l of
    act_count[w, l] * (max_f wgt_count[w, f, l]))``: a column's activations pair with its
    own weights only. Each column's ``max over l`` comes in on ``column_pairs`` from an
    instance of :class:`ColumnPairCount` in the array (a 16x16 tile's 64 columns computed
    here were a flat module of 923k cells, 26.8 mm2, that synthesis and timing paid for
    whole; in the array, which has a clock, the sampled timing stubs all but 8 of the
    instances: synth/sta_sample.py).

    Parameters
    ----------
    windows, filters, lanes : int
    nda, ndw : int
        Booth digits of an activation and of a weight (the largest counts).
    columns : bool
        Per-column weight counts (see above).

    Attributes
    ----------
    act_count : In(ArrayLayout(range(nda + 1), windows * lanes))
        Term count of activation ``(w, l)`` at index ``w * lanes + l``.
    wgt_count : In(ArrayLayout(range(ndw + 1), filters * lanes))
        Term count of weight ``(f, l)`` at index ``f * lanes + l``. Not with ``columns``.
    column_pairs : In(range(nda * ndw + 1)).array(windows)
        (With ``columns``.) Column ``w``'s largest ``act_count[w, l] * max_f wgt_count[w,
        f, l]`` (:class:`ColumnPairCount`'s ``pairs``).
    cycles : Out(range(nda * ndw + 1))
    act_max : Out(ArrayLayout(range(nda + 1), lanes))
        The largest activation term count of each lane (its inner-loop length). Not with
        ``columns``, where each column's lane runs its own inner loop of ``act_count[w,
        l]`` cycles.
    """

    def __init__(self, windows: int, filters: int, lanes: int, nda: int, ndw: int,
                 columns: bool = False):
        self.windows, self.filters, self.lanes = windows, filters, lanes
        self.nda, self.ndw = nda, ndw
        self.columns = columns
        pairs = range(max(nda * ndw, 1) + 1)
        act_count = In(data.ArrayLayout(range(nda + 1), windows * lanes))
        if columns:
            members = {"act_count": act_count, "cycles": Out(pairs),
                       "column_pairs": In(pairs).array(windows)}
        else:
            members = {"act_count": act_count,
                       "wgt_count": In(data.ArrayLayout(range(ndw + 1), filters * lanes)),
                       "cycles": Out(pairs),
                       "act_max": Out(data.ArrayLayout(range(nda + 1), lanes))}
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        products = list(self.column_pairs) if self.columns else self._products(m)
        most = Signal.like(self.cycles)
        m.d.comb += [
            most.eq(_max_tree(m, products, "most")),
            self.cycles.eq(Mux(most == 0, 1, most)),
        ]
        return m

    def _products(self, m):
        """Per lane: the largest activation count times the largest weight count."""
        lanes = self.lanes
        products = []
        for lane in range(lanes):
            amax = Signal(range(self.nda + 1), name=f"act_max{lane}")
            wmax = Signal(range(self.ndw + 1), name=f"wgt_max{lane}")
            prod = Signal(range(self.nda * self.ndw + 1), name=f"pairs{lane}")
            m.d.comb += [
                amax.eq(_max_tree(m, [self.act_count[w * lanes + lane]
                                      for w in range(self.windows)], f"act_max{lane}")),
                wmax.eq(_max_tree(m, [self.wgt_count[f * lanes + lane]
                                      for f in range(self.filters)], f"wgt_max{lane}")),
                prod.eq(amax * wmax),
                self.act_max[lane].eq(amax),
            ]
            products.append(prod)
        return products


class ColumnPairCount(wiring.Component):
    """One window column's longest lane under per-column weights (``fc_columns``):
    ``pairs = max over lanes l of act_count[l] * (max_f wgt_count[f * lanes + l])``.
    Combinational; the array instantiates it per column, onto :class:`PairCountDetector`'s
    ``column_pairs``.

    Attributes
    ----------
    act_count : In(ArrayLayout(range(nda + 1), lanes))
    wgt_count : In(ArrayLayout(range(ndw + 1), filters * lanes))
    pairs : Out(range(nda * ndw + 1))
    """

    def __init__(self, filters: int, lanes: int, nda: int, ndw: int):
        self.filters, self.lanes, self.nda, self.ndw = filters, lanes, nda, ndw
        super().__init__({
            "act_count": In(data.ArrayLayout(range(nda + 1), lanes)),
            "wgt_count": In(data.ArrayLayout(range(ndw + 1), filters * lanes)),
            "pairs": Out(range(max(nda * ndw, 1) + 1)),
        })

    def fresh(self) -> "ColumnPairCount":
        """Another instance of the same module (an in-simulator library's copies)."""
        return ColumnPairCount(self.filters, self.lanes, self.nda, self.ndw)

    def elaborate(self, platform):
        m = Module()
        lanes, products = self.lanes, []
        for lane in range(lanes):
            wmax = Signal(range(self.ndw + 1), name=f"wgt_max_l{lane}")
            prod = Signal(range(self.nda * self.ndw + 1), name=f"pairs_l{lane}")
            m.d.comb += [
                wmax.eq(_max_tree(m, [self.wgt_count[f * lanes + lane]
                                      for f in range(self.filters)], f"wgt_max_l{lane}")),
                prod.eq(self.act_count[lane] * wmax),
            ]
            products.append(prod)
        m.d.comb += self.pairs.eq(_max_tree(m, products, "most"))
        return m


class LaconicArray(PEGrid):
    """``filters`` x ``windows`` Laconic PEs fed by shared Booth encoders and term
    serializers, with the step-length detector and the loop counters (see the module
    docstring and :func:`.array.array_signature`)."""

    PE = LaconicPE

    def __init__(self, cfg, library: ModuleLibrary, **kwargs):
        if cfg.encoding not in (None, "booth"):
            raise ValueError(f"encoding: laconic supports booth only, got {cfg.encoding!r}")
        super().__init__(cfg, library, **kwargs)
        if cfg.has_fc_columns:      # each column's longest lane: one module, an instance each
            nda, ndw = digit_counts(cfg)
            self.pair_column_name = self.add_module(
                "pair_column", ColumnPairCount(cfg.filters, cfg.lanes, nda, ndw))

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        nda, ndw = digit_counts(cfg)
        # With fc_columns each window column has its own weights (wgt_bricks_of): a weight
        # encoder and serializer per (column, filter, lane) and an inner loop per (column,
        # lane), so that a column's lanes pair its activations with its own weights only.
        columns = cfg.has_fc_columns

        m.submodules.pair_detector = det = PairCountDetector(
            cfg.windows, cfg.filters, cfg.lanes, nda, ndw, columns=columns)
        active, take = self._step_control(m, det)
        wrap = self._inner_loops(m, det, nda, active, take, columns)

        # Each brick's lanes are an instance of one TermBrick module (:mod:`.library`).
        wgt_brick = self.library.add(f"{cfg.top_name}__wgt_term_brick",
                                     TermBrick(cfg.wgt_bits, cfg.lanes))
        act_brick = self.library.add(f"{cfg.top_name}__act_term_brick",
                                     TermBrick(cfg.act_bits + 1, cfg.lanes, keep=True))
        # The weight term counts: the detector's, or with per-column weights each
        # column's, for its ColumnPairCount (_column_pairs).
        wgt_counts = ([Signal(data.ArrayLayout(range(ndw + 1), cfg.filters * cfg.lanes),
                              name=f"wgt_count_w{w}") for w in range(cfg.windows)]
                      if columns else det.wgt_count)
        wgt_terms = self._weight_terms(m, wgt_counts, wgt_brick, active, take, wrap,
                                       columns)
        act_terms = self._act_terms(m, det, act_brick, active, take, wrap)
        if columns:
            self._column_pairs(m, det, wgt_counts)

        for w, f, pe in self.pes(m):
            m.d.comb += [pe.wgt.eq(wgt_terms[w, f]), pe.act.eq(act_terms[w]), pe.en.eq(active)]
        return m

    def _step_control(self, m, det):
        """Step control: ``remaining`` cycles of the current step are left (this one
        included); a row pair is taken on the step's last cycle or when idle. Returns
        ``(active, take)``: a step is loaded; the next one is taken this cycle."""
        active = Signal()
        remaining = Signal.like(det.cycles)
        ready = Signal()            # the current step ends this cycle (or there is none)
        take = Signal()
        m.d.comb += [
            ready.eq(~active | (remaining == 1)),
            take.eq(ready & self.valid),
            self.advance.eq(ready),
            self.busy.eq(active),
        ]
        with m.If(self.start):
            m.d.sync += active.eq(0)
        with m.Elif(take):
            m.d.sync += [active.eq(1), remaining.eq(det.cycles)]
        with m.Elif(active):
            m.d.sync += remaining.eq(remaining - 1)
            with m.If(remaining == 1):
                m.d.sync += active.eq(0)
        return active, take

    def _inner_loops(self, m, det, nda, active, take, columns):
        """Per lane: the inner loop (activation terms) runs max(1, largest activation term
        count of the lane) cycles. With per-column weights, per (column, lane): max(1, the
        activation's term count). Returns ``wrap[w][lane]``, each loop's last cycle."""
        cfg, lanes = self.cfg, self.cfg.lanes

        def inner_loop(suffix, length_of):
            length = Signal(range(nda + 1), name=f"inner_length{suffix}")
            index = Signal(range(nda + 1), name=f"inner_index{suffix}")
            last = Signal(name=f"inner_wrap{suffix}")
            m.d.comb += last.eq((index + 1 >= length))
            with m.If(take):
                m.d.sync += [index.eq(0), length.eq(length_of)]
            with m.Elif(active):
                m.d.sync += index.eq(Mux(last, 0, index + 1))
            return last

        if columns:
            return [[inner_loop(f"_w{w}_l{lane}", det.act_count[w * lanes + lane])
                     for lane in range(lanes)] for w in range(cfg.windows)]
        shared = [inner_loop(f"{lane}", det.act_max[lane]) for lane in range(lanes)]
        return [shared] * cfg.windows

    def _weight_terms(self, m, wgt_counts, wgt_brick, active, take, wrap, columns):
        """Weights: a Booth encoder and a term serializer per filter lane (a ``wgt_brick``
        instance per filter), broadcast to the filter's PEs (outer loop: the next term when
        the lane's inner loop wraps). With per-column weights, a brick per (column,
        filter), for the column's PEs only. Returns ``{(w, f): terms}``."""
        cfg, lanes = self.cfg, self.cfg.lanes

        def weight_terms(brick, w, suffix, counts, count_base):
            tb = self.library.instantiate(m, wgt_brick, f"wgt_brick_{suffix}")
            m.d.comb += [
                tb.load.eq(take.replicate(lanes)),
                tb.advance.eq(Cat(active & wrap[w][lane] for lane in range(lanes))),
            ]
            for lane in range(lanes):
                m.d.comb += [
                    tb.value[lane].eq(brick[lane]),
                    counts[count_base + lane].eq(tb.count[lane]),
                ]
            return tb.term

        if columns:
            return {(w, f): weight_terms(self.wgt_bricks_of(w)[f], w, f"f{f}_w{w}",
                                         wgt_counts[w], f * lanes)
                    for w in range(cfg.windows) for f in range(cfg.filters)}
        per_filter = [weight_terms(self.wgt_bricks[f], 0, f"f{f}", wgt_counts, f * lanes)
                      for f in range(cfg.filters)]
        return {(w, f): per_filter[f] for w in range(cfg.windows) for f in range(cfg.filters)}

    def _column_pairs(self, m, det, wgt_counts) -> None:
        """With per-column weights: each column's longest lane from an instance of the
        ``pair_column`` module (:class:`ColumnPairCount`) in the array, on the detector's
        ``column_pairs``."""
        lanes = self.cfg.lanes
        for w in range(self.cfg.windows):
            column = self.library.instantiate(m, self.pair_column_name, f"pair_column{w}",
                                              clocked=False)
            m.d.comb += [
                column.act_count.as_value().eq(
                    Cat(det.act_count[w * lanes + lane] for lane in range(lanes))),
                column.wgt_count.as_value().eq(wgt_counts[w].as_value()),
                det.column_pairs[w].eq(column.pairs),
            ]

    def _act_terms(self, m, det, act_brick, active, take, wrap) -> list:
        """Activations: a Booth encoder and a term serializer per window lane (an
        ``act_brick`` instance per window), broadcast to the window's PEs (inner loop: the
        next term every cycle; reloaded when the loop wraps, from the step's digits the lane
        keeps). Returns each window's terms."""
        cfg, lanes = self.cfg, self.cfg.lanes
        act_terms = []
        for w in range(cfg.windows):
            brick = self.act_bricks[w]
            tb = self.library.instantiate(m, act_brick, f"act_brick_w{w}")
            m.d.comb += [
                tb.load.eq(Cat(take | (active & wrap[w][lane]) for lane in range(lanes))),
                tb.advance.eq(active.replicate(lanes)),
                tb.take.eq(take),
            ]
            for lane in range(lanes):
                m.d.comb += [
                    tb.value[lane].eq(act_value(brick[lane], self.act_signed)),
                    det.act_count[w * lanes + lane].eq(tb.count[lane]),
                ]
            act_terms.append(tb.term)
        return act_terms


ARRAY = LaconicArray
