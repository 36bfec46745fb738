"""Bit-Pragmatic array (Albericio et al., "Bit-Pragmatic Deep Neural Network Computing",
MICRO 2017).

Only the non-zero terms of the activations are processed. Each activation becomes a stream
of terms, lowest first: ``encoding = "plain"`` streams the *oneffsets* (set bits) of ``|a|``
with the sign of ``a`` (sign-magnitude), ``"booth"`` the radix-4 modified Booth terms of the
two's complement value (``termwise.golden.terms``). A PE multiplies by shifting: each lane
shifts its weight by a small *first-stage* offset of ``B = first_stage_bits`` bits, an adder
tree sums the lanes, and one *second-stage* shifter after the tree (shared by the lanes of
the PE) shifts the sum by the cycle's ``base``.

Per cycle and per window (a column of PEs, all filters of one window), ``base`` is the
lowest remaining term position among the window's lanes; every lane whose lowest remaining
term lies in ``[base, base + 2**B - 1]`` retires it (offset = its position - ``base``). A
brick takes as many cycles as that greedy process needs, at least 1 (an all-zero brick
costs one cycle). The term generation and the choice of ``base`` are done once per window
(:class:`PragmaticWindowEncoder`) and shared by all the window's filters (the paper's
per-column oneffset generators).

Synchronisation ``sync = "pallet"`` (the paper's pallet synchronisation): all windows work
in lockstep on the same step (they share the weight bricks), so a step takes the longest
of its windows' brick times. ``sync = "column"`` (the paper's column synchronisation,
``column_registers = R``): ``R + 1`` row slots (activation and weight rows) are shared by
the windows, each window moves on to its next brick as soon as it is done with the
current one, and a slot is freed when every window has finished it; so a window runs at
most ``R`` bricks ahead of the slowest one. Each window's PEs take their weights from the
slot of the window's current brick.

Pipeline and double buffering: on the cycle a step finishes (or when the array is idle) the
array loads the next activation row into the term serialisers and the next weight row into
its weight registers and raises ``advance``; the serialisers present terms from the next
cycle on, so consecutive steps follow each other without a bubble. A run costs one fill
cycle (loading the first row) beyond its steps; each cycle's terms are added to the
accumulators at the end of that cycle, and ``busy`` falls during the last cycle, so the
tile raises ``out.valid`` at that same edge. With column synchronisation a window loads its
next brick straight from the buffer output when no slot holds it yet, so it waits no
extra cycle either. Cycle model: ``termwise.golden.arch.pragmatic``.

Option ``fc_columns`` (fully-connected layers at batch 1, :mod:`.column_weights`): each
window column works with its own weight row (``wgt_cols``), so the weights the array holds
are per (window, filter): pallet synchronisation keeps a weight register per PE, column
synchronisation a weight row per row slot and window. In an fc run the tile holds ``valid``
low until a round's weights are on ``wgt_cols``; the array takes the round (``advance``)
on the cycle it loads it, its first, which frees the column registers for the next round
while this one is processed (:func:`termwise.golden.arch.pragmatic.fc_run_cycles`).
"""

import operator
from types import SimpleNamespace

from amaranth import Cat, Const, Module, Mux, Signal, signed, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .accumulator import Accumulator, accumulate
from .adder_tree import sum_lanes
from .encoders import BoothTermSerializer, OneffsetEncoder, PriorityEncoder, booth_digit_count
from .grid import PEGrid, pe_signature
from .rows import (act_brick_layout, act_bricks, act_value, act_value_shape, wgt_brick_layout,
                   wgt_bricks)

__all__ = ["PragmaticArray", "PragmaticPE", "PragmaticWindowEncoder", "term_positions",
           "offset_bits", "window_encoders", "pallet_control", "hold_weights", "feed_pe"]


def term_positions(cfg) -> int:
    """Number of term positions (exponents ``0 .. positions - 1``) of one activation:
    ``act_bits`` for oneffsets (of ``|a|``), ``2 * booth_digit_count`` for Booth terms of
    the ``act_bits + 1``-bit value that holds a signed or an unsigned activation."""
    if cfg.encoding == "booth":
        return 2 * booth_digit_count(cfg.act_bits + 1)
    return cfg.act_bits


def offset_bits(cfg) -> int:
    """Width of a lane's first-stage offset port (``first_stage_bits``, at least 1 so that no
    signal is zero bits wide; with ``first_stage_bits = 0`` the offset is always 0)."""
    return max(cfg.first_stage_bits, 1)


def _base_shape(cfg):
    return range(max(term_positions(cfg), 2))


class PragmaticPE(wiring.Component):
    """Bit-Pragmatic inner-product unit (MICRO 2017, Section "Pragmatic"): per cycle
    ``acc += (sum_l take_l * (-1)**neg_l * (wgt_l << offset_l)) << base``.

    Each lane's first-stage shifter shifts its (optionally negated) weight by a
    ``first_stage_bits``-bit offset; an adder tree sums the lanes; the second-stage shifter
    shifts the sum by ``base`` before the accumulator (LSB-first terms: no partial-sum
    register is needed, every cycle's contribution is final).

    Attributes
    ----------
    wgt : In(ArrayLayout(signed(wgt_bits), lanes))
    take, neg : In(lanes)
        The lane retires a term this cycle; the term is negative.
    offset : In(ArrayLayout(unsigned(offset_bits), lanes))
        The term's position minus ``base`` (first-stage shift).
    base : In(range(positions))
        Second-stage shift, shared by the lanes.
    en, clear : In(1)
        Accumulate this cycle's terms; reset the accumulator (``clear`` wins).
    acc : Out(signed(acc_bits))
    """

    def __init__(self, cfg):
        self.cfg = cfg
        self.positions = term_positions(cfg)
        super().__init__(pe_signature(cfg, {
            "wgt": In(wgt_brick_layout(cfg)),
            "take": In(cfg.lanes),
            "neg": In(cfg.lanes),
            "offset": In(data.ArrayLayout(unsigned(offset_bits(cfg)), cfg.lanes)),
            "base": In(_base_shape(cfg)),
            "en": In(1),
        }))

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        span = 1 << cfg.first_stage_bits                 # offsets 0 .. span - 1
        lane_bits = cfg.wgt_bits + 1 + span - 1          # -w needs one bit more than w

        def first_stage(lane):
            w = self.wgt[lane]
            signed_w = Signal(signed(cfg.wgt_bits + 1), name=f"signed_w{lane}")
            m.d.comb += signed_w.eq(Mux(self.neg[lane], -w, w))
            if cfg.first_stage_bits:
                shifted = signed_w << self.offset[lane]
            else:
                shifted = signed_w
            return Mux(self.take[lane], shifted, 0)

        tree = sum_lanes(m, cfg.lanes, lane_bits, first_stage)
        # Second stage: the sum moved to the cycle's base. The widest true value needs
        # sum_width + positions - 1 bits; the accumulator wraps at acc_bits anyway.
        addend_bits = min(tree.sum_width + self.positions - 1, cfg.acc_bits)
        addend = Signal(signed(addend_bits))
        m.d.comb += addend.eq(tree.sum << self.base)
        m.submodules.accumulator = acc = Accumulator(addend_bits, cfg.acc_bits)
        accumulate(m, self, acc, addend, en=self.en)
        return m


class PragmaticWindowEncoder(wiring.Component):
    """One window's term generation and per-cycle term selection, shared by all filters.

    ``lanes`` serial term encoders (the shared :class:`~.encoders.OneffsetEncoder` on
    ``|a|`` with a sign register, or :class:`~.encoders.BoothTermSerializer`) present each
    lane's lowest remaining term. A priority encoder over the OR of the lanes' one-hot term
    positions gives ``base``, the lowest; a lane whose term lies within
    ``[base, base + 2**first_stage_bits - 1]`` retires it (``take``, and ``offset = exp -
    base``), the others stall (MICRO 2017: two-stage shifting).

    Parameters
    ----------
    cfg : TileConfig
        Of a design with Bit-Pragmatic's term options (``encoding``, ``first_stage_bits``).
    lanes : int, optional
        Activations per window (default ``cfg.lanes``; Bit-Tactical's TCLe encodes its
        whole candidate window).

    Attributes
    ----------
    values : In(ArrayLayout(unsigned(act_bits), lanes))
        The activations' bit patterns.
    is_signed : In(1)
        The patterns are two's complement (else unsigned): the run's ``act_signed``.
    load : In(1)
        Capture ``values`` at the clock edge (wins over consuming terms).
    take, neg : Out(lanes)
    offset : Out(ArrayLayout(unsigned(offset_bits), lanes))
    base : Out(range(positions))
    done : Out(1)
        This cycle retires every remaining term of the brick (also for a zero brick, and
        when nothing is loaded).
    """

    def __init__(self, cfg, *, lanes: int | None = None):
        self.cfg = cfg
        self.lanes = cfg.lanes if lanes is None else operator.index(lanes)
        self.positions = term_positions(cfg)
        super().__init__({
            "values": In(act_brick_layout(cfg, lanes=self.lanes)),
            "is_signed": In(1),
            "load": In(1),
            "take": Out(self.lanes),
            "neg": Out(self.lanes),
            "offset": Out(data.ArrayLayout(unsigned(offset_bits(cfg)), self.lanes)),
            "base": Out(_base_shape(cfg)),
            "done": Out(1),
        })

    def fresh(self) -> "PragmaticWindowEncoder":
        """Another encoder of the same parameters (for an inlined library, tb/amaranth_sim)."""
        return PragmaticWindowEncoder(self.cfg, lanes=self.lanes)

    def _serializer(self, m, lane):
        """The lane's term serialiser; returns (serializer, neg signal of its term)."""
        cfg = self.cfg
        value = Signal(act_value_shape(cfg), name=f"value_l{lane}")
        m.d.comb += value.eq(act_value(self.values[lane], self.is_signed))
        if cfg.encoding == "booth":
            # Radix-4 Booth of the (act_bits + 1)-bit value: an unsigned activation is
            # zero-extended first, so its top bit is not read as a sign.
            ser = BoothTermSerializer(cfg.act_bits + 1, is_signed=True)
            m.submodules[f"serializer_l{lane}"] = ser
            m.d.comb += ser.value.eq(value)
            return ser, ser.term.neg
        ser = OneffsetEncoder(cfg.act_bits)
        m.submodules[f"serializer_l{lane}"] = ser
        # Sign-magnitude: oneffsets of |a| (|-2**(n-1)| = 2**(n-1) and the largest unsigned
        # value fit in n unsigned bits), every term carrying the sign of a, kept in a
        # register beside the encoder.
        sign = Signal(name=f"sign_l{lane}")
        m.d.comb += ser.value.eq(Mux(value < 0, -value, value)[:cfg.act_bits])
        with m.If(self.load):
            m.d.sync += sign.eq(value < 0)
        return ser, sign

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        positions = self.positions
        span = 1 << cfg.first_stage_bits
        sers, negs = zip(*(self._serializer(m, lane) for lane in range(self.lanes)))

        # base: the lowest term position among the lanes.
        m.submodules.base_detector = pick = PriorityEncoder(positions)
        union = 0
        for ser in sers:
            onehot = Mux(ser.valid, (Const(1, positions) << ser.term.exp)[:positions], 0)
            union = union | onehot
        m.d.comb += [pick.value.eq(union), self.base.eq(pick.pos)]

        finishing = []
        for lane, ser in enumerate(sers):
            diff = Signal(range(max(positions, 2)), name=f"diff_l{lane}")
            m.d.comb += diff.eq(ser.term.exp - pick.pos)       # exp >= base when valid
            in_window = (diff < span) if span < positions else Const(1, 1)
            m.d.comb += [
                self.take[lane].eq(ser.valid & in_window),
                self.neg[lane].eq(negs[lane]),
                self.offset[lane].eq(diff[:offset_bits(cfg)] if cfg.first_stage_bits else 0),
                ser.load.eq(self.load),
                ser.next.eq(self.take[lane]),
            ]
            finishing.append(~ser.valid | (self.take[lane] & ser.last))
        m.d.comb += self.done.eq(Cat(finishing).all())
        return m


def window_encoders(m, grid, is_signed, *, values=None, load=None) -> list:
    """An instance of the grid's window encoder module (``grid.window_encoder``: the
    :class:`PragmaticWindowEncoder` the array recorded with :meth:`.grid.PEGrid.add_module`)
    per window, instance ``encoder_w<w>``; returns their interfaces.

    One module for every window: emitted once, so that the Verilog, the Verilator build
    and synthesis grow with one window's encoder, not ``windows`` copies of it.

    Parameters
    ----------
    m : Module
    grid : PEGrid
        The array: its configuration, library and ``window_encoder`` module name.
    is_signed : Value
        The run's ``act_signed`` register (every encoder's ``is_signed``).
    values : indexable by window, optional
        Window ``w``'s brick (e.g. :attr:`.grid.PEGrid.act_bricks`); with ``load``, the
        encoders' inputs. Without them the caller wires the inputs.
    load : Value, optional
    """
    encoders = []
    for w in range(grid.cfg.windows):
        enc = grid.library.instantiate(m, grid.window_encoder, f"encoder_w{w}")
        m.d.comb += enc.is_signed.eq(is_signed)
        if values is not None:
            m.d.comb += [enc.values.eq(values[w]), enc.load.eq(load)]
        encoders.append(enc)
    return encoders


def pallet_control(m, encoders, *, load, start, valid, ready):
    """Pallet synchronisation (MICRO 2017) of the window ``encoders``: every window works
    on the same step, which ends on the cycle all of them are ``done``.

    ``active`` says a step is loaded in the encoders; ``ready`` (driven here) that a row
    may be loaded: the step ends now or none is loaded; ``load`` (driven here; the
    encoders' ``load``) that it is loaded at this edge, ``valid & ready``. ``start``
    empties the pipeline.

    Returns
    -------
    (active, step_done) : (Signal, Signal)
    """
    active = Signal()
    step_done = Signal()
    m.d.comb += [
        step_done.eq(active & Cat(enc.done for enc in encoders).all()),
        ready.eq(~active | step_done),
        load.eq(valid & ready),
    ]
    with m.If(start):
        m.d.sync += active.eq(0)
    with m.Elif(load):
        m.d.sync += active.eq(1)
    with m.Elif(step_done):
        m.d.sync += active.eq(0)
    return active, step_done


def hold_weights(m, cfg, wgt, load, *, suffix: str = "") -> list:
    """A step's weight bricks held while its terms are processed (the next row waits on
    the buffer output): one register per filter, ``wgt_f<f><suffix>``, loaded from
    ``wgt[f]`` on ``load``."""
    regs = []
    for f in range(cfg.filters):
        reg = Signal(wgt_brick_layout(cfg), name=f"wgt_f{f}{suffix}")
        with m.If(load):
            m.d.sync += reg.eq(wgt[f])
        regs.append(reg)
    return regs


def feed_pe(pe, enc, *, wgt, en, take=None, neg=None, offset=None) -> list:
    """The statements feeding a :class:`PragmaticPE` from a window's
    :class:`PragmaticWindowEncoder` ``enc``: its terms (unless ``take``, ``neg``, ``offset``
    are routed otherwise, as by Bit-Tactical's lane multiplexers) and its ``base``."""
    return [
        pe.wgt.eq(wgt),
        pe.take.eq(enc.take if take is None else take),
        pe.neg.eq(enc.neg if neg is None else neg),
        pe.offset.eq(enc.offset if offset is None else offset),
        pe.base.eq(enc.base),
        pe.en.eq(en),
    ]


class PragmaticArray(PEGrid):
    """``filters`` x ``windows`` Bit-Pragmatic PEs, pallet or column synchronised (see
    :func:`.array.array_signature` and the module docstring).

    Pallet control: ``active`` says a step is loaded in the serialisers. The step ends on
    the cycle every window's encoder reports ``done``; on that cycle (or whenever the array
    is idle) the next rows are loaded and ``advance`` is raised. ``busy`` covers a loaded
    step before its last cycle: the accumulators take the last terms at the end of that
    cycle. Column control: see :meth:`_elaborate_column`.
    """

    PE = PragmaticPE

    def __init__(self, cfg, library, **kwargs):
        super().__init__(cfg, library, **kwargs)
        self.window_encoder = self.add_module("window_encoder", PragmaticWindowEncoder(cfg))

    def elaborate(self, platform):
        if self.cfg.sync == "column":
            return self._elaborate_column()
        return self._elaborate_pallet()

    def _elaborate_pallet(self):
        cfg = self.cfg
        m = Module()
        load = Signal()
        encoders = window_encoders(m, self, self.act_signed, values=self.act_bricks, load=load)
        active, step_done = pallet_control(m, encoders, load=load, start=self.start,
                                           valid=self.valid, ready=self.advance)
        m.d.comb += self.busy.eq(active & ~step_done)
        if cfg.fc_columns:
            # Each column its own weights (an fc run's round): a register per PE.
            wgt_regs = {w: hold_weights(m, cfg, self.wgt_bricks_of(w), load, suffix=f"_w{w}")
                        for w in range(cfg.windows)}
        else:
            shared = hold_weights(m, cfg, self.wgt_bricks, load)
            wgt_regs = {w: shared for w in range(cfg.windows)}
        for w, f, pe in self.pes(m):
            m.d.comb += feed_pe(pe, encoders[w], wgt=wgt_regs[w][f], en=active)
        return m

    def _elaborate_column(self):
        """Column synchronisation: ``Q = column_registers + 1`` row slots (activation and
        weight row) shared by the windows; each window starts its next brick as soon as it
        finishes the current one and the row is there (straight from the buffer output when
        no slot holds it yet). The oldest slot is freed when every window has finished it;
        a row is accepted while a slot is free (or being freed), so the fastest window runs
        at most ``column_registers`` bricks ahead of the slowest."""
        m = Module()
        ring = self._column_slots()
        encoders = window_encoders(m, self, self.act_signed)
        windows = [self._column_window(m, ring, w, enc) for w, enc in enumerate(encoders)]
        self._column_occupancy(m, ring, windows)
        self._column_pes(m, ring, encoders, windows)
        return m

    def _column_slots(self) -> SimpleNamespace:
        """The ``q`` row slots of column synchronisation, a ring from ``head`` with ``occ``
        occupied (``accept``: a row enters, ``free``: the head leaves, this cycle), and
        ``index(offset)``; ``wgt[i]`` holds a weight row per column with ``fc_columns``."""
        cfg = self.cfg
        q = cfg.column_registers + 1
        slot_shape = range(max(q, 2))
        act_slots = [Signal(cfg.act_row_bits, name=f"act_slot{i}") for i in range(q)]
        if cfg.fc_columns:
            # A weight row per slot and column (an fc run's round: each column its own).
            wgt_slots = [[Signal(cfg.wgt_row_bits, name=f"wgt_slot{i}_w{w}")
                          for w in range(cfg.windows)] for i in range(q)]
            wgt_rows = list(self.wgt_cols)
        else:
            # A weight row per slot, shared by the windows.
            wgt_slots = [[Signal(cfg.wgt_row_bits, name=f"wgt_slot{i}")] for i in range(q)]
            wgt_rows = [self.wgt_row]
        head = Signal(slot_shape)                  # oldest occupied slot
        occ = Signal(range(q + 1))                 # occupied slots
        accept = Signal()
        free = Signal()

        def slot(offset):
            """Slot index ``(head + offset) mod q`` for ``0 <= offset <= q``."""
            total = head + offset
            return Mux(total >= q, total - q, total)[:len(head)]

        return SimpleNamespace(q=q, shape=slot_shape, act=act_slots, wgt=wgt_slots,
                               wgt_rows=wgt_rows, head=head, occ=occ, accept=accept,
                               free=free, index=slot)

    def _column_window(self, m, ring, w, enc) -> SimpleNamespace:
        """Window ``w``'s progress through the slots (``pos``, ``active``, ``done``,
        ``fin``): its encoder ``enc`` loads the next brick from a queued slot, else from the
        buffer output as the row is accepted."""
        cfg, q = self.cfg, ring.q
        pos = Signal(range(q + 1), name=f"pos_w{w}")     # next slot to start (rel.)
        active = Signal(name=f"active_w{w}")
        load = Signal(name=f"load_w{w}")
        fin = Signal(name=f"fin_w{w}")                   # has finished the oldest slot
        finishing = active & enc.done
        queued = pos < ring.occ
        bypass = (pos == ring.occ) & ring.accept
        m.d.comb += [
            load.eq((~active | finishing) & (queued | bypass)),
            enc.load.eq(load),
            fin.eq((pos >= 2) | ((pos == 1) & (~active | finishing))),
        ]
        # The brick to load: a queued slot's, else the row on the buffer output.
        queued_act = Signal(cfg.lanes * cfg.act_bits, name=f"queued_act_w{w}")
        with m.Switch(ring.index(pos)):
            for i in range(q):
                with m.Case(i):
                    m.d.comb += queued_act.eq(act_bricks(cfg, ring.act[i])[w])
        m.d.comb += enc.values.eq(Mux(queued, queued_act, self.act_bricks[w].as_value()))
        with m.If(self.start):
            m.d.sync += [active.eq(0), pos.eq(0)]
        with m.Else():
            m.d.sync += pos.eq(pos + load - ring.free)
            with m.If(load):
                m.d.sync += active.eq(1)
            with m.Elif(finishing):
                m.d.sync += active.eq(0)
        return SimpleNamespace(active=active, done=enc.done, pos=pos, fin=fin)

    def _column_occupancy(self, m, ring, windows):
        """The ring's head and occupancy: the head is freed once every window has finished
        it; a row is accepted while a slot is free or being freed."""
        q, occ, free, accept = ring.q, ring.occ, ring.free, ring.accept
        m.d.comb += [
            free.eq(Cat([win.fin for win in windows]).all() & (occ != 0)),
            self.advance.eq((occ < q) | free),
            accept.eq(self.valid & self.advance),
            self.busy.eq(Cat((win.active & ~win.done) | (win.pos < occ)
                             for win in windows).any()),
        ]
        with m.If(self.start):
            m.d.sync += [occ.eq(0), ring.head.eq(0)]
        with m.Else():
            m.d.sync += occ.eq(occ + accept - free)
            with m.If(free):
                m.d.sync += ring.head.eq(ring.index(1))
        with m.If(accept):
            tail = ring.index(occ)                 # occ == q only when the head is freed
            with m.Switch(tail):
                for i in range(q):
                    with m.Case(i):
                        m.d.sync += [ring.act[i].eq(self.act_row),
                                     *(reg.eq(row) for reg, row in zip(ring.wgt[i],
                                                                       ring.wgt_rows))]

    def _column_pes(self, m, ring, encoders, windows):
        """Each window's PEs: its encoder's terms and its current slot's weights."""
        cfg = self.cfg
        for w, enc in enumerate(encoders):
            pos = windows[w].pos
            cur = Signal(ring.shape, name=f"cur_slot_w{w}")
            m.d.comb += cur.eq(ring.index(Mux(pos == 0, 0, pos - 1)))
            for f, pe in self.pe_column(m, w):
                wgt = Signal(cfg.lanes * cfg.wgt_bits, name=f"wgt_f{f}_w{w}")
                with m.Switch(cur):
                    for i in range(ring.q):
                        with m.Case(i):
                            row = ring.wgt[i][w if cfg.fc_columns else 0]
                            m.d.comb += wgt.eq(wgt_bricks(cfg, row)[f])
                m.d.comb += feed_pe(pe, enc, wgt=wgt, en=windows[w].active)


ARRAY = PragmaticArray
