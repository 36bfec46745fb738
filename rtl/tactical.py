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
  dense weight row's layout), row ``2j + 1`` the metadata: the select of every (filter,
  lane), ``metadata_bits`` each, filter-major (filter 0 lane 0 least significant), then the
  original step index ``t`` (``clog2(depth)`` bits). Kept in ``wgt_store`` and
  ``meta_store`` (``depth`` rows each); weights stay across runs.
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

from types import SimpleNamespace

from amaranth import Cat, Const, Module, Mux, Signal, signed, unsigned
from amaranth.lib import data, memory, wiring

from ..gen.config import ConfigError
from ..golden.arch.tactical import meta_layout
from ..golden.tactical_schedule import candidate_index, cfg_sources, window_candidates
from .array import act_brick, owning_array_signature, wgt_brick
from .encoders import PrecisionDetector
from .library import ModuleLibrary
from .pe import BitSerialPE
from .pragmatic import PragmaticPE, PragmaticWindowEncoder, offset_bits
from .stripes import SerialSequencer

__all__ = ["TacticalArray", "ARRAY"]


def _act_shape(cfg):
    return signed(cfg.act_bits) if cfg.act_signed else unsigned(cfg.act_bits)


class TacticalArray(wiring.Component):
    """Bit-Tactical front end + TCLp/TCLe back end (see the module docstring)."""

    OWNS_OPERANDS = True

    def __init__(self, cfg, library: ModuleLibrary):
        self.cfg = cfg
        self.library = library
        self.sources = cfg_sources(cfg)
        self.rows = window_candidates(self.sources)             # h + 1
        self.cands = self.rows * cfg.lanes
        self.meta = meta_layout(cfg)
        if not self.meta["fits"]:
            raise ConfigError("wgt_bits", "the metadata row (selects and step index) does not "
                              "fit in a weight row: widen wgt_bits or lanes")
        if cfg.backend == "tclp":
            self.pe_name = library.add(f"{cfg.top_name}__pe", BitSerialPE(cfg))
        else:
            self.pe_name = library.add(f"{cfg.top_name}__pe", PragmaticPE(cfg))
        super().__init__(owning_array_signature(cfg))

    # ---- storage -----------------------------------------------------------------------
    def _stores(self, m):
        cfg = self.cfg
        depth = cfg.depth
        act_ptr = Signal(range(depth + 1))
        wgt_ptr = Signal(range(2 * depth + 1))
        act_take, wgt_take = Signal(), Signal()
        m.d.comb += [
            self.act_write.ready.eq(self.load_enable & (act_ptr < depth)),
            self.wgt_write.ready.eq(self.load_enable & (wgt_ptr < 2 * depth)),
            act_take.eq(self.act_write.valid & self.act_write.ready),
            wgt_take.eq(self.wgt_write.valid & self.wgt_write.ready),
        ]
        with m.If(self.rewind):
            m.d.sync += [act_ptr.eq(0), wgt_ptr.eq(0)]
        with m.Else():
            m.d.sync += [act_ptr.eq(act_ptr + act_take), wgt_ptr.eq(wgt_ptr + wgt_take)]
        m.submodules.act_store = act_mem = memory.Memory(
            shape=unsigned(cfg.act_row_bits), depth=depth, init=[])
        m.submodules.wgt_store = wgt_mem = memory.Memory(
            shape=unsigned(cfg.wgt_row_bits), depth=depth, init=[])
        m.submodules.meta_store = meta_mem = memory.Memory(
            shape=unsigned(cfg.wgt_row_bits), depth=depth, init=[])
        awp, wwp, mwp = act_mem.write_port(), wgt_mem.write_port(), meta_mem.write_port()
        m.d.comb += [
            awp.addr.eq(act_ptr), awp.data.eq(self.act_write.payload), awp.en.eq(act_take),
            wwp.addr.eq(wgt_ptr >> 1), wwp.data.eq(self.wgt_write.payload),
            wwp.en.eq(wgt_take & ~wgt_ptr[0]),
            mwp.addr.eq(wgt_ptr >> 1), mwp.data.eq(self.wgt_write.payload),
            mwp.en.eq(wgt_take & wgt_ptr[0]),
        ]
        return act_mem, wgt_mem, meta_mem

    # ---- front end ---------------------------------------------------------------------
    def _front_end(self, m, step):
        """Kept step ``step``'s weights, candidate index per (filter, lane) and masked
        candidates per window (combinational reads)."""
        cfg = self.cfg
        act_mem, wgt_mem, meta_mem = self._stores(m)
        wrp = wgt_mem.read_port(domain="comb")
        mrp = meta_mem.read_port(domain="comb")
        m.d.comb += [wrp.addr.eq(step), mrp.addr.eq(step)]
        mb = self.meta["select_bits"]
        orig = Signal(range(max(cfg.depth, 2)))
        m.d.comb += orig.eq(mrp.data[self.meta["index_offset"]:
                                     self.meta["index_offset"] + self.meta["index_bits"]])
        rows = []
        for dt in range(self.rows):
            rp = act_mem.read_port(domain="comb")
            m.d.comb += rp.addr.eq(orig + dt)
            rows.append(rp.data)

        weights = []          # [f] -> View ArrayLayout(signed(wgt_bits), lanes)
        index = {}            # (f, l) -> candidate index signal
        nonzero = {}
        for f in range(cfg.filters):
            wv = data.View(data.ArrayLayout(signed(cfg.wgt_bits), cfg.lanes),
                           wgt_brick(cfg, wrp.data, f))
            weights.append(wv)
            for lane in range(cfg.lanes):
                sel = mrp.data[(f * cfg.lanes + lane) * mb:(f * cfg.lanes + lane + 1) * mb]
                idx = Signal(range(self.cands), name=f"cand_f{f}_l{lane}")
                with m.Switch(sel):
                    for s in range(len(self.sources) + 1):
                        with m.Case(s):
                            m.d.comb += idx.eq(candidate_index(self.sources, s, lane,
                                                               cfg.lanes))
                    with m.Default():
                        m.d.comb += idx.eq(lane)
                index[f, lane] = idx
                nonzero[f, lane] = wv[lane] != 0
        # Involvement of every candidate: selected by some slot with a non-zero weight.
        involved = Signal(self.cands)
        for c in range(self.cands):
            terms = [nonzero[f, lane] & (index[f, lane] == c)
                     for f in range(cfg.filters) for lane in range(cfg.lanes)
                     if c in self._reachable(lane)]
            m.d.comb += involved[c].eq(Cat(terms).any() if terms else 0)
        cand_layout = data.ArrayLayout(_act_shape(cfg), self.cands)
        cands = []
        for w in range(cfg.windows):
            cw = Signal(cand_layout, name=f"cands_w{w}")
            for dt in range(self.rows):
                brick = data.View(data.ArrayLayout(_act_shape(cfg), cfg.lanes),
                                  act_brick(cfg, rows[dt], w))
                for lane in range(cfg.lanes):
                    c = dt * cfg.lanes + lane
                    m.d.comb += cw[c].eq(Mux(involved[c], brick[lane], 0))
            cands.append(cw)
        return weights, index, cands

    def _reachable(self, lane):
        """Candidates a slot of ``lane`` can select."""
        return {candidate_index(self.sources, s, lane, self.cfg.lanes)
                for s in range(len(self.sources) + 1)}

    def _mux(self, m, idx, lane, values, name, shape=1):
        """``values[idx]`` over the candidates reachable from ``lane``."""
        out = Signal(shape, name=name)
        with m.Switch(idx):
            for c in sorted(self._reachable(lane)):
                with m.Case(c):
                    m.d.comb += out.eq(values[c])
        return out

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
        weights, index, cands = self._front_end(m, step)
        if cfg.backend == "tclp":
            self._tclp(m, step, valid, start_d, weights, index, cands)
        else:
            self._tcle(m, step, valid, start_d, weights, index, cands)
        return m

    def _tclp(self, m, step, valid, start_d, weights, index, cands):
        cfg = self.cfg
        m.submodules.precision_detector = det = PrecisionDetector(
            cfg.windows * self.cands, cfg.act_bits, is_signed=cfg.act_signed)
        m.d.comb += det.values.as_value().eq(Cat(c.as_value() for c in cands))
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
            bits = Signal(self.cands, name=f"cand_bits_w{w}")
            flat = cands[w].as_value()
            m.d.comb += bits.eq(Cat(
                flat[c * cfg.act_bits:(c + 1) * cfg.act_bits].bit_select(seq.bitpos, 1)
                for c in range(self.cands)))
            for f in range(cfg.filters):
                act_bits = Signal(cfg.lanes, name=f"act_bits_f{f}_w{w}")
                for lane in range(cfg.lanes):
                    m.d.comb += act_bits[lane].eq(bits.bit_select(index[f, lane], 1))
                pe = self.library.instantiate(m, self.pe_name, f"pe_f{f}_w{w}")
                m.d.comb += [
                    pe.act_bit.eq(act_bits),
                    pe.wgt.eq(weights[f]),
                    pe.en.eq(valid),
                    pe.first.eq(seq.first),
                    pe.negate.eq(seq.first & cfg.act_signed),
                    pe.commit.eq(seq.commit),
                    pe.clear.eq(self.start),
                    self.acc[w][f].eq(pe.acc),
                ]

    def _tcle(self, m, step, valid, start_d, weights, index, cands):
        cfg = self.cfg
        # The window encoder over (h+1)*lanes candidates: Pragmatic's, with more lanes.
        enc_cfg = SimpleNamespace(act_bits=cfg.act_bits, act_signed=cfg.act_signed,
                                  encoding=cfg.encoding, first_stage_bits=cfg.first_stage_bits,
                                  lanes=self.cands)
        active, step_done, load = Signal(), Signal(), Signal()
        encoders = []
        for w in range(cfg.windows):
            enc = PragmaticWindowEncoder(enc_cfg)
            m.submodules[f"encoder_w{w}"] = enc
            m.d.comb += [enc.values.eq(cands[w]), enc.load.eq(load)]
            encoders.append(enc)
        m.d.comb += [
            step_done.eq(active & Cat(enc.done for enc in encoders).all()),
            load.eq(valid & (~active | step_done)),
            # Held through the last step's final cycle, whose terms are accumulated at its
            # end: out.valid rises one cycle later (the drain cycle of the cycle model).
            self.busy.eq(valid | active | start_d),
        ]
        with m.If(self.start):
            m.d.sync += [active.eq(0), step.eq(0)]
        with m.Else():
            with m.If(load):
                m.d.sync += [active.eq(1), step.eq(step + 1)]
            with m.Elif(step_done):
                m.d.sync += active.eq(0)
        # The step's weights and candidate indexes, held while its terms are processed.
        wregs, iregs = [], {}
        for f in range(cfg.filters):
            reg = Signal(data.ArrayLayout(signed(cfg.wgt_bits), cfg.lanes), name=f"wgt_f{f}")
            with m.If(load):
                m.d.sync += reg.eq(weights[f])
            wregs.append(reg)
            for lane in range(cfg.lanes):
                ireg = Signal.like(index[f, lane], name=f"cand_reg_f{f}_l{lane}")
                with m.If(load):
                    m.d.sync += ireg.eq(index[f, lane])
                iregs[f, lane] = ireg
        for w, enc in enumerate(encoders):
            takes = [enc.take[c] for c in range(self.cands)]
            negs = [enc.neg[c] for c in range(self.cands)]
            offs = [enc.offset[c] for c in range(self.cands)]
            for f in range(cfg.filters):
                pe = self.library.instantiate(m, self.pe_name, f"pe_f{f}_w{w}")
                for lane in range(cfg.lanes):
                    idx = iregs[f, lane]
                    m.d.comb += [
                        pe.take[lane].eq(self._mux(m, idx, lane, takes, f"take_f{f}_w{w}_l{lane}")),
                        pe.neg[lane].eq(self._mux(m, idx, lane, negs, f"neg_f{f}_w{w}_l{lane}")),
                        pe.offset[lane].eq(self._mux(m, idx, lane, offs,
                                                     f"off_f{f}_w{w}_l{lane}",
                                                     offset_bits(cfg))),
                    ]
                m.d.comb += [
                    pe.wgt.eq(wregs[f]),
                    pe.base.eq(enc.base),
                    pe.en.eq(active),
                    pe.clear.eq(self.start),
                    self.acc[w][f].eq(pe.acc),
                ]


ARRAY = TacticalArray
