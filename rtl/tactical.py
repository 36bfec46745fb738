"""Bit-Tactical array (Delmas Lascorz et al., "Bit-Tactical: A Software/Hardware Approach
to Exploiting Value and Bit Sparsity in Neural Networks", ASPLOS 2019).

Zero weights are skipped by an offline schedule (:mod:`termwise.golden.tactical_schedule`):
each kept step holds packed weights, and per (filter, lane) a select naming the activation
the weight must meet, within a lookahead window of activation rows ``t .. t + h`` of the
original step ``t``. The back end then processes the selected activations: ``backend =
"tclp"`` on the Dynamic Stripes datapath (bit-serial activations, per-step precision
detected), ``"tcle"`` on the Bit-Pragmatic datapath (activation terms, pallet sync).

Storage: the array owns its operands (``OWNS_OPERANDS``, :func:`.array.owning_array_signature`).

* Weight stream: two rows per kept step ``j`` (the host's lowering,
  :func:`termwise.golden.arch.tactical.host_weight_rows`): row ``2j`` the packed weights (a
  dense weight row's layout), row ``2j + 1`` the metadata (:func:`meta_row_layout`): the
  select of every (filter, lane), ``metadata_bits`` each, filter-major (filter 0 lane 0
  least significant), then the original step index ``t`` (``clog2(depth)`` bits). Kept in
  ``wgt_store`` and ``meta_store`` (``depth`` rows each); weights stay across runs. The
  connectivity and the metadata fields come from :mod:`termwise.gen.designs.tactical`,
  which the offline scheduler reads too.
* Activation stream: the dense rows, unchanged (row ``t`` = brick ``t`` of every window),
  in ``act_store`` with ``h + 1`` read ports at ``t .. t + h``.
* The command's ``bricks`` is the number of kept steps ``K``.

Front end (per kept step): the window's ``(h + 1) * lanes`` activations of every tile
window are the *candidates*; a candidate is *involved* when some (filter, lane) holding a
non-zero weight selects it; uninvolved candidates are masked to zero (so they cost no
cycles: rows past the run, or stale rows, are never involved). Per (filter, lane) a
multiplexer (``select`` -> candidate ``dt * lanes + (lane + dl) mod lanes``) picks the
activation (TCLp) or term stream (TCLe) for PE (filter, window) lane ``lane``; the selects
are per filter and lane, shared by the windows.

Back ends:

* TCLp: :class:`~.stripes.SerialSequencer` + :class:`~.pe.BitSerialPE` (Stripes' PEs); the
  step precision is the :class:`~.encoders.PrecisionDetector` over every window's masked
  candidates, i.e. the involved activations (Dynamic Stripes' detector).
* TCLe: per window one :class:`~.pragmatic.PragmaticWindowEncoder` over the ``(h+1)*lanes``
  masked candidates (terms generated once per activation, shared by the filters) and
  :class:`~.pragmatic.PragmaticPE` per (filter, window) taking the selected candidates'
  ``take/neg/offset`` and the window's ``base``.

Cycle model: :mod:`termwise.golden.arch.tactical` (sum of kept step cycles + 2).
"""

from amaranth import Cat, Module, Mux, Signal, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

from ..gen.designs.tactical import candidate_index, cfg_sources, meta_layout, window_candidates
from .buffer import RowStore, write_pointer
from .encoders import PrecisionDetector
from .grid import PEGrid
from .pe import BitSerialPE
from .pragmatic import (PragmaticPE, PragmaticWindowEncoder, feed_pe, hold_weights,
                        offset_bits, pallet_control, window_encoders)
from .rows import act_brick_layout, act_bricks, wgt_bricks
from .stripes import SerialSequencer, feed_serial_pe

__all__ = ["TacticalArray", "TacticalFrontEnd", "TacticalLaneMux", "TacticalTermMux",
           "meta_row_layout",
           "meta_width", "ARRAY"]


def meta_width(meta) -> int:
    """Bits of a metadata row that are used (selects, then the step index), from
    :func:`termwise.gen.designs.tactical.meta_layout`; the rest of the weight-row-wide
    transfer is padding and is not stored."""
    return meta["index_offset"] + meta["index_bits"]


def meta_row_layout(cfg) -> data.StructLayout:
    """The used bits of a metadata row (:func:`termwise.gen.designs.tactical.meta_layout`)
    as a layout: ``select[filter][lane]``, then ``index``, the kept step's original step."""
    fields = meta_layout(cfg)
    select = unsigned(fields["select_bits"])
    return data.StructLayout({
        "select": data.ArrayLayout(data.ArrayLayout(select, cfg.lanes), cfg.filters),
        "index": unsigned(fields["index_bits"]),
    })


def _reachable(sources, lane: int, lanes: int) -> set:
    """The candidates a slot of ``lane`` can select (its multiplexer's inputs)."""
    return {candidate_index(sources, s, lane, lanes) for s in range(len(sources) + 1)}


class TacticalFrontEnd(wiring.Component):
    """Metadata decoding and candidate masking of one kept step (combinational).

    From the step's metadata row: the original step index ``t`` (the activation rows to
    read, ``t .. t + h``) and per (filter, lane) the candidate index its select names. From
    the packed weights: which slots hold a non-zero weight; a candidate no such slot
    selects is masked to zero in every window (see the module docstring).

    Attributes
    ----------
    wgt_row : In(unsigned(wgt_row_bits))
        The kept step's packed weights.
    meta_row : In(unsigned(meta_row_layout(cfg).size))
        Its metadata: the used low bits of the metadata row (selects, step index).
    act_addr : Out(ArrayLayout(unsigned(ceil_log2(depth)), h + 1))
        Activation rows to read: ``t + dt``.
    act_rows : In(ArrayLayout(unsigned(act_row_bits), h + 1))
        Those rows.
    index : Out(ArrayLayout(unsigned(bits_for(cands - 1)), filters * lanes))
        Candidate index of slot (filter ``f``, lane ``l``) at ``f * lanes + l``.
    cands : Out(ArrayLayout(ArrayLayout(act_shape, (h + 1) * lanes), windows))
        Every window's masked candidates, candidate ``dt * lanes + lane``.
    """

    def __init__(self, cfg, sources):
        self.cfg, self.sources = cfg, sources
        self.meta = meta_row_layout(cfg)
        self.rows = window_candidates(sources)
        self.n_cands = self.rows * cfg.lanes
        self.index_shape = Signal(range(self.n_cands)).shape()
        super().__init__({
            "wgt_row": In(unsigned(cfg.wgt_row_bits)),
            "meta_row": In(unsigned(self.meta.size)),
            "act_addr": Out(data.ArrayLayout(unsigned(ceil_log2(cfg.depth)), self.rows)),
            "act_rows": In(data.ArrayLayout(unsigned(cfg.act_row_bits), self.rows)),
            "index": Out(data.ArrayLayout(self.index_shape, cfg.filters * cfg.lanes)),
            "cands": Out(data.ArrayLayout(act_brick_layout(cfg, lanes=self.n_cands),
                                          cfg.windows)),
        })

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        meta = data.View(self.meta, self.meta_row)
        orig = Signal(range(max(cfg.depth, 2)))
        m.d.comb += orig.eq(meta.index)
        for dt in range(self.rows):
            m.d.comb += self.act_addr[dt].eq(orig + dt)

        index = {}            # (f, l) -> candidate index signal
        nonzero = {}
        wgt = wgt_bricks(cfg, self.wgt_row)
        for f in range(cfg.filters):
            for lane in range(cfg.lanes):
                sel = meta.select[f][lane]
                idx = Signal(range(self.n_cands), name=f"cand_f{f}_l{lane}")
                with m.Switch(sel):
                    for s in range(len(self.sources) + 1):
                        with m.Case(s):
                            m.d.comb += idx.eq(candidate_index(self.sources, s, lane,
                                                               cfg.lanes))
                    with m.Default():
                        m.d.comb += idx.eq(lane)
                index[f, lane] = idx
                nonzero[f, lane] = wgt[f][lane] != 0
                m.d.comb += self.index[f * cfg.lanes + lane].eq(idx)
        # Involvement of every candidate: selected by some slot with a non-zero weight.
        involved = Signal(self.n_cands)
        for c in range(self.n_cands):
            terms = [nonzero[f, lane] & (index[f, lane] == c)
                     for f in range(cfg.filters) for lane in range(cfg.lanes)
                     if c in _reachable(self.sources, lane, cfg.lanes)]
            m.d.comb += involved[c].eq(Cat(terms).any() if terms else 0)
        for w in range(cfg.windows):
            for dt in range(self.rows):
                brick = act_bricks(cfg, self.act_rows[dt])[w]
                for lane in range(cfg.lanes):
                    c = dt * cfg.lanes + lane
                    m.d.comb += self.cands[w][c].eq(Mux(involved[c], brick[lane], 0))
        return m


class TacticalTermMux(wiring.Component):
    """One window's TCLe term multiplexers: per (filter, lane) slot, the current term of the
    candidate it selects (``take``, ``neg``, ``offset``), combinational.

    Every window routes with the same (held) candidate indexes, so this is one module,
    emitted once and instantiated per window by :class:`TacticalLaneMux` (:mod:`.library`).
    Only the candidates a lane can reach are multiplexer inputs.

    Attributes
    ----------
    index : In(ArrayLayout(index_shape, filters * lanes))
        Candidate index of slot (filter ``f``, lane ``l``) at ``f * lanes + l``.
    take, neg : In(unsigned(cands))
    offset : In(ArrayLayout(unsigned(offset_bits), cands))
        The window encoder's current term of every candidate.
    lane_take, lane_neg : Out(ArrayLayout(unsigned(lanes), filters))
    lane_offset : Out(ArrayLayout(ArrayLayout(unsigned(offset_bits), lanes), filters))
    """

    def __init__(self, cfg, sources, index_shape):
        self.cfg, self.sources, self.index_shape = cfg, sources, index_shape
        self.n_cands = window_candidates(sources) * cfg.lanes
        ob = offset_bits(cfg)
        per_filter = lambda shape: data.ArrayLayout(shape, cfg.filters)  # noqa: E731
        super().__init__({
            "index": In(data.ArrayLayout(index_shape, cfg.filters * cfg.lanes)),
            "take": In(unsigned(self.n_cands)),
            "neg": In(unsigned(self.n_cands)),
            "offset": In(data.ArrayLayout(unsigned(ob), self.n_cands)),
            "lane_take": Out(per_filter(unsigned(cfg.lanes))),
            "lane_neg": Out(per_filter(unsigned(cfg.lanes))),
            "lane_offset": Out(per_filter(data.ArrayLayout(unsigned(ob), cfg.lanes))),
        })

    def fresh(self) -> "TacticalTermMux":
        """Another multiplexer of the same parameters (for an inlined library,
        tb/amaranth_sim)."""
        return TacticalTermMux(self.cfg, self.sources, self.index_shape)

    def _mux(self, m, idx, lane, values, name, shape=1):
        """``values[idx]`` over the candidates reachable from ``lane``."""
        out = Signal(shape, name=name)
        with m.Switch(idx):
            for c in sorted(_reachable(self.sources, lane, self.cfg.lanes)):
                with m.Case(c):
                    m.d.comb += out.eq(values[c])
        return out

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        takes = [self.take[c] for c in range(self.n_cands)]
        negs = [self.neg[c] for c in range(self.n_cands)]
        offs = [self.offset[c] for c in range(self.n_cands)]
        for f in range(cfg.filters):
            for lane in range(cfg.lanes):
                idx = self.index[f * cfg.lanes + lane]
                m.d.comb += [
                    self.lane_take[f][lane].eq(
                        self._mux(m, idx, lane, takes, f"take_f{f}_l{lane}")),
                    self.lane_neg[f][lane].eq(
                        self._mux(m, idx, lane, negs, f"neg_f{f}_l{lane}")),
                    self.lane_offset[f][lane].eq(
                        self._mux(m, idx, lane, offs, f"off_f{f}_l{lane}", offset_bits(cfg))),
                ]
        return m


class TacticalLaneMux(wiring.Component):
    """The per-(filter, window, lane) multiplexers that route the selected candidate of
    every slot to its PE lane (Bit-Tactical's activation multiplexers).

    TCLp routes one bit per candidate (the bit-serial activations at ``bitpos``); TCLe
    routes each candidate's current term (``take``, ``neg``, ``offset``) and holds the
    step's candidate indexes in registers loaded on ``load`` (the step's terms take
    several cycles), routing each window through an instance ``term_mux_w<w>`` of the
    library module ``term_mux`` (:class:`TacticalTermMux`). Only the candidates a lane can
    reach are multiplexer inputs.

    Parameters
    ----------
    cfg, sources, index_shape
        The configuration, its lookahead/lookaside sources and the candidate index shape.
    library : ModuleLibrary, optional
    term_mux : str, optional
        TCLe: the library and the name of its :class:`TacticalTermMux` module.

    Attributes
    ----------
    index : In(ArrayLayout(index_shape, filters * lanes))
        Candidate index of slot (filter ``f``, lane ``l``) at ``f * lanes + l``.
    TCLp: bits : In(ArrayLayout(unsigned(cands), windows)); act_bit : Out(ArrayLayout(
        ArrayLayout(unsigned(lanes), windows), filters)).
    TCLe: load : In(1); take, neg : In(ArrayLayout(unsigned(cands), windows)); offset :
        In(ArrayLayout(ArrayLayout(unsigned(offset_bits), cands), windows)); lane_take,
        lane_neg : Out(ArrayLayout(ArrayLayout(unsigned(lanes), windows), filters));
        lane_offset : Out(... ArrayLayout(unsigned(offset_bits), lanes) ...).
    """

    def __init__(self, cfg, sources, index_shape, *, library=None, term_mux=None):
        self.cfg, self.sources = cfg, sources
        self.library, self.term_mux = library, term_mux
        self.n_cands = window_candidates(sources) * cfg.lanes
        fw = lambda shape: data.ArrayLayout(data.ArrayLayout(shape, cfg.windows),  # noqa: E731
                                            cfg.filters)
        sig = {"index": In(data.ArrayLayout(index_shape, cfg.filters * cfg.lanes))}
        if cfg.backend == "tclp":
            sig.update(bits=In(data.ArrayLayout(unsigned(self.n_cands), cfg.windows)),
                       act_bit=Out(fw(unsigned(cfg.lanes))))
        else:
            if library is None or term_mux is None:
                raise ValueError("a TCLe lane multiplexer needs the library and its "
                                 "term_mux module")
            ob = offset_bits(cfg)
            sig.update(load=In(1),
                       take=In(data.ArrayLayout(unsigned(self.n_cands), cfg.windows)),
                       neg=In(data.ArrayLayout(unsigned(self.n_cands), cfg.windows)),
                       offset=In(data.ArrayLayout(data.ArrayLayout(unsigned(ob), self.n_cands),
                                                  cfg.windows)),
                       lane_take=Out(fw(unsigned(cfg.lanes))),
                       lane_neg=Out(fw(unsigned(cfg.lanes))),
                       lane_offset=Out(fw(data.ArrayLayout(unsigned(ob), cfg.lanes))))
        super().__init__(sig)

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        if cfg.backend == "tclp":
            for w in range(cfg.windows):
                for f in range(cfg.filters):
                    for lane in range(cfg.lanes):
                        m.d.comb += self.act_bit[f][w][lane].eq(
                            self.bits[w].bit_select(self.index[f * cfg.lanes + lane], 1))
            return m
        # TCLe: the step's candidate indexes, held while its terms are processed.
        held = Signal(self.index.shape(), name="cand_regs")
        with m.If(self.load):
            m.d.sync += held.eq(self.index)
        for w in range(cfg.windows):
            tm = self.library.instantiate(m, self.term_mux, f"term_mux_w{w}", clocked=False)
            m.d.comb += [tm.index.eq(held), tm.take.eq(self.take[w]), tm.neg.eq(self.neg[w]),
                         tm.offset.eq(self.offset[w])]
            for f in range(cfg.filters):
                m.d.comb += [self.lane_take[f][w].eq(tm.lane_take[f]),
                             self.lane_neg[f][w].eq(tm.lane_neg[f]),
                             self.lane_offset[f][w].eq(tm.lane_offset[f])]
        return m


class TacticalArray(PEGrid):
    """Bit-Tactical front end + TCLp/TCLe back end (see the module docstring).

    Submodules (for the synthesis area breakdown, ``synth/kinds.py``): ``act_store``,
    ``wgt_store``, ``meta_store`` (:class:`RowStore`, buffers), ``front_end``
    (:class:`TacticalFrontEnd`), ``lane_mux`` (:class:`TacticalLaneMux`), the back end's
    detector / sequencer / encoders and the PEs; the array itself keeps the write
    pointers, the step control and (TCLp) the per-window bit selection.
    """

    OWNS_OPERANDS = True

    def __init__(self, cfg, library, **kwargs):
        # (The configuration guarantees that a metadata row fits in a weight row.)
        self.sources = cfg_sources(cfg)
        self.rows = window_candidates(self.sources)             # h + 1
        self.cands = self.rows * cfg.lanes
        self.index_shape = Signal(range(self.cands)).shape()
        super().__init__(cfg, library, **kwargs)
        self.term_mux = None
        if cfg.backend == "tcle":
            # Emitted once each, instantiated per window (:mod:`.library`).
            self.window_encoder = self.add_module(
                "window_encoder", PragmaticWindowEncoder(cfg, lanes=self.cands))
            self.term_mux = self.add_module("term_mux", TacticalTermMux(cfg, self.sources,
                                                                        self.index_shape))

    def make_pe(self, cfg, library):
        """The back end's PE: Stripes' (TCLp) or Bit-Pragmatic's (TCLe)."""
        return BitSerialPE(cfg) if cfg.backend == "tclp" else PragmaticPE(cfg)

    # ---- storage -----------------------------------------------------------------------
    def _stores(self, m, step):
        """Write pointers and the three stores; returns the front end, wired to them and
        reading kept step ``step``."""
        cfg = self.cfg
        depth = cfg.depth
        # Two weight-stream rows per kept step: its weights, then its metadata.
        act_ptr, act_take = write_pointer(m, self.act_write, rows=depth,
                                          enable=self.load_enable, rewind=self.rewind,
                                          prefix="act_")
        wgt_ptr, wgt_take = write_pointer(m, self.wgt_write, rows=2 * depth,
                                          enable=self.load_enable, rewind=self.rewind,
                                          prefix="wgt_")
        m.submodules.act_store = act_mem = RowStore(cfg.act_row_bits, depth, self.rows)
        m.submodules.wgt_store = wgt_mem = RowStore(cfg.wgt_row_bits, depth)
        # Only the used bits of a metadata row are stored: the store is a module of its own,
        # so synthesis could not drop unused columns by itself.
        mw = meta_row_layout(cfg).size
        m.submodules.meta_store = meta_mem = RowStore(mw, depth)
        m.submodules.front_end = fe = TacticalFrontEnd(cfg, self.sources)
        m.d.comb += [
            act_mem.waddr.eq(act_ptr), act_mem.wdata.eq(self.act_write.payload),
            act_mem.wen.eq(act_take),
            wgt_mem.waddr.eq(wgt_ptr >> 1), wgt_mem.wdata.eq(self.wgt_write.payload),
            wgt_mem.wen.eq(wgt_take & ~wgt_ptr[0]),
            meta_mem.waddr.eq(wgt_ptr >> 1), meta_mem.wdata.eq(self.wgt_write.payload[:mw]),
            meta_mem.wen.eq(wgt_take & wgt_ptr[0]),
            wgt_mem.raddr[0].eq(step), meta_mem.raddr[0].eq(step),
            fe.wgt_row.eq(wgt_mem.rdata[0]), fe.meta_row.eq(meta_mem.rdata[0]),
            act_mem.raddr.eq(fe.act_addr), fe.act_rows.eq(act_mem.rdata),
        ]
        return fe

    # ---- front end ---------------------------------------------------------------------
    def _front_end(self, m, step):
        """Kept step ``step``'s weights, candidate index per (filter, lane) and masked
        candidates per window (combinational reads)."""
        cfg = self.cfg
        fe = self._stores(m, step)
        weights = wgt_bricks(cfg, fe.wgt_row)
        m.submodules.lane_mux = mux = TacticalLaneMux(
            cfg, self.sources, fe.index_shape, library=self.library,
            term_mux=self.term_mux)
        m.d.comb += mux.index.eq(fe.index)
        return weights, mux, fe.cands

    # ---- control + back ends -----------------------------------------------------------
    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        kept = Signal(range(cfg.depth + 1))
        step = Signal(range(cfg.depth + 1))
        stepping = Signal()
        start_d = Signal()
        valid = Signal()
        m.d.comb += valid.eq(stepping & (step < kept))
        m.d.sync += start_d.eq(self.start)
        with m.If(self.start):
            m.d.sync += [kept.eq(self.bricks), stepping.eq(1)]
        weights, mux, cands = self._front_end(m, step)
        if cfg.backend == "tclp":
            self._tclp(m, step, valid, start_d, weights, mux, cands)
        else:
            self._tcle(m, step, valid, start_d, weights, mux, cands)
        return m

    def _tclp(self, m, step, valid, start_d, weights, mux, cands):
        cfg = self.cfg
        m.submodules.precision_detector = det = PrecisionDetector(
            cfg.windows * self.cands, cfg.act_bits)
        m.d.comb += [det.values.as_value().eq(Cat(c.as_value() for c in cands)),
                     det.is_signed.eq(self.act_signed)]
        m.submodules.sequencer = seq = SerialSequencer(cfg.act_bits)
        m.d.comb += [
            seq.precision.eq(det.precision),
            seq.start.eq(self.start),
            seq.valid.eq(valid),
            self.busy.eq(valid | seq.commit | start_d),
        ]
        with m.If(self.start):
            m.d.sync += step.eq(0)
        with m.Elif(valid & seq.last):
            m.d.sync += step.eq(step + 1)
        for w in range(cfg.windows):
            # Bit `bitpos` of every candidate of the window, shared by the filters.
            m.d.comb += mux.bits[w].eq(Cat(cands[w][c].as_unsigned().bit_select(seq.bitpos, 1)
                                           for c in range(self.cands)))
            for f, pe in self.pe_column(m, w):
                m.d.comb += feed_serial_pe(pe, seq, act_bit=mux.act_bit[f][w],
                                           wgt=weights[f], en=valid,
                                           is_signed=self.act_signed)

    def _tcle(self, m, step, valid, start_d, weights, mux, cands):
        cfg = self.cfg
        # The window encoder over (h+1)*lanes candidates: Pragmatic's, with more lanes,
        # pallet synchronised.
        load = Signal()
        encoders = window_encoders(m, self, self.act_signed, values=cands, load=load)
        active, _ = pallet_control(m, encoders, load=load, start=self.start, valid=valid,
                                   ready=Signal(name="ready"))
        m.d.comb += [
            # Held through the last step's final cycle, whose terms are accumulated at its
            # end: out.valid rises one cycle later (the drain cycle of the cycle model).
            self.busy.eq(valid | active | start_d),
            mux.load.eq(load),
        ]
        with m.If(self.start):
            m.d.sync += step.eq(0)
        with m.Elif(load):
            m.d.sync += step.eq(step + 1)
        # The step's weights, held while its terms are processed (the candidate indexes
        # are held in the lane multiplexers).
        wregs = hold_weights(m, cfg, weights, load)
        for w, enc in enumerate(encoders):
            m.d.comb += [mux.take[w].eq(enc.take), mux.neg[w].eq(enc.neg),
                         mux.offset[w].eq(enc.offset)]
            for f, pe in self.pe_column(m, w):
                m.d.comb += feed_pe(pe, enc, wgt=wregs[f], en=active, take=mux.lane_take[f][w],
                                    neg=mux.lane_neg[f][w], offset=mux.lane_offset[f][w])


ARRAY = TacticalArray
