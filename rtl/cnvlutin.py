"""Cnvlutin array (Albericio et al., "Cnvlutin: Ineffectual-Neuron-Free Deep Neural Network
Computing", ISCA 2016): zero activations are skipped, lanes are decoupled.

Storage (the paper's zero-free neuron array format, ZFNAf). The array owns its operands
(``OWNS_OPERANDS``, :func:`.array.owning_array_signature`):

* Activations arrive as dense rows, as the host sends them (row ``b`` holds brick ``b`` of
  every window). Per window, a :class:`ZeroFreeEncoder` in the write path keeps only the
  non-zero values of lane ``l`` with their brick index ``b`` as the *offset*, appended to
  that lane's own store (:class:`ZeroFreeStore`, one memory per lane). This is the paper's
  encoder that turns dense output bricks into the zero-free format.
* Weights are kept per lane (:class:`WeightStore`): memory ``lane<l>`` row ``b`` holds
  ``wgt[f][b * lanes + l]`` of every filter ``f``, with one read port per window, so each
  lane reads its own weights at its own offset every cycle (the paper's per-subunit
  synapse buffers).

Submodules (for the synthesis area breakdown): ``act_store_w<w>`` (zero-free activation
stores) with its ``encoder``, ``wgt_store`` (weight stores), ``pe_f<f>_w<w>`` (the shared
PE with its ``tree`` and ``accumulator``); the array level holds the step control and the
per-lane value registers.

Schedule. Every cycle (a *step*) each lane of each window takes its next (value, offset)
pair, or nothing once its stream is empty (or its next offset is not below the command's
``bricks``: rows beyond the run are ignored). The offset addresses the lane's weight store;
one cycle later PE (filter ``f``, window ``w``) -- the shared bit-parallel
:class:`~termwise.rtl.pe.BitParallelPE`, emitted once -- adds
``sum_l value_l * wgt[f][offset_l * lanes + l]`` (a lane that took nothing contributes 0).
Since every lane advances one pair per cycle, all lanes sit at the same stream position:
one step counter addresses every lane store, and a lane is live while the step is below its
count. The run ends on the first step where no lane has a pair (at least one step is
taken), which is hidden behind the weight read of the last pairs. Cycle model:
:mod:`termwise.golden.arch.cnvlutin` (``max(1, longest lane stream) + 2``).

Activation rows must be written for every run: ``rewind`` empties the zero-free stores
(rows not written read as zero). Weights stay in their stores across runs.
"""

from amaranth import Module, Mux, Signal, signed, unsigned
from amaranth.lib import data, memory, wiring
from amaranth.lib.wiring import In, Out

from .adder_tree import tree_reduce
from .buffer import write_pointer
from .grid import PEGrid
from .pe import BitParallelPE
from .rows import (act_bricks, act_brick_layout, act_shape, act_value, act_value_brick_layout,
                   wgt_bricks)

__all__ = ["CnvlutinArray", "ZeroFreeEncoder", "ZeroFreeStore", "WeightStore", "entry_layout",
           "ARRAY"]


def _addr_shape(cfg):
    """A brick index / store address (never zero bits wide)."""
    return range(max(cfg.depth, 2))


def entry_layout(cfg) -> data.StructLayout:
    """One zero-free pair: a non-zero ``value`` and its brick index ``offset``."""
    return data.StructLayout({"value": act_shape(cfg), "offset": _addr_shape(cfg)})


def _dense_write(cfg) -> dict:
    """The dense write path's ports: a brick, its index in the run, its strobe and
    ``rewind``."""
    return {
        "brick": In(act_brick_layout(cfg)),
        "index": In(_addr_shape(cfg)),
        "valid": In(1),
        "rewind": In(1),
    }


class ZeroFreeEncoder(wiring.Component):
    """Dense brick -> zero-free lane streams (Cnvlutin, ISCA 2016: the encoder
    that writes output bricks in ZFNAf).

    For each lane whose value in the incoming ``brick`` is non-zero, ``write[l]`` is raised
    with ``entry[l] = {value, offset: index}`` at ``addr[l]``, the lane's next free slot;
    ``count[l]`` counts the pairs written since ``rewind``. Combinational but for the counts.

    Attributes
    ----------
    brick : In(ArrayLayout(act_shape, lanes))
    index : In(range(depth))
        The brick's position in the run (the offset of its pairs).
    valid, rewind : In(1)
        Encode ``brick`` this cycle; empty the streams (``rewind`` wins).
    write : Out(lanes)
    addr : Out(ArrayLayout(range(depth), lanes))
    entry : Out(ArrayLayout(entry_layout(cfg), lanes))
    count : Out(ArrayLayout(range(depth + 1), lanes))
    """

    def __init__(self, cfg):
        self.cfg = cfg
        lanes = cfg.lanes
        super().__init__({
            **_dense_write(cfg),
            "write": Out(lanes),
            "addr": Out(data.ArrayLayout(_addr_shape(cfg), lanes)),
            "entry": Out(data.ArrayLayout(entry_layout(cfg), lanes)),
            "count": Out(data.ArrayLayout(range(cfg.depth + 1), lanes)),
        })

    def elaborate(self, platform):
        m = Module()
        for lane in range(self.cfg.lanes):
            value, count = self.brick[lane], self.count[lane]
            write = self.write[lane]
            m.d.comb += [
                write.eq(self.valid & (value != 0)),
                self.addr[lane].eq(count),
                self.entry[lane].value.eq(value),
                self.entry[lane].offset.eq(self.index),
            ]
            with m.If(self.rewind):
                m.d.sync += count.eq(0)
            with m.Elif(write):
                m.d.sync += count.eq(count + 1)
        return m


class ZeroFreeStore(wiring.Component):
    """One window's zero-free activation streams: a :class:`ZeroFreeEncoder` (``encoder``)
    in the write path and one memory per lane (``lane<l>``), read at a shared stream
    position.

    Reads are synchronous: drive ``read_addr`` with the position of the next cycle; the
    lane outputs then describe position ``step``. Lane ``l`` has a pair (``has[l]``) when
    ``step`` is below its count and the pair's offset is below ``bricks``.

    Attributes
    ----------
    brick, index, valid, rewind : In
        As :class:`ZeroFreeEncoder` (the dense write path).
    read_addr : In(range(depth))
    step : In(range(depth + 1))
    bricks : In(range(depth + 1))
    has : Out(lanes)
    value : Out(ArrayLayout(act_shape, lanes))
    offset : Out(ArrayLayout(range(depth), lanes))
    count : Out(ArrayLayout(range(depth + 1), lanes))
    """

    def __init__(self, cfg):
        self.cfg = cfg
        lanes = cfg.lanes
        super().__init__({
            **_dense_write(cfg),
            "read_addr": In(_addr_shape(cfg)),
            "step": In(range(cfg.depth + 1)),
            "bricks": In(range(cfg.depth + 1)),
            "has": Out(lanes),
            "value": Out(act_brick_layout(cfg)),
            "offset": Out(data.ArrayLayout(_addr_shape(cfg), lanes)),
            "count": Out(data.ArrayLayout(range(cfg.depth + 1), lanes)),
        })

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        m.submodules.encoder = enc = ZeroFreeEncoder(cfg)
        m.d.comb += [enc.brick.eq(self.brick), enc.index.eq(self.index),
                     enc.valid.eq(self.valid), enc.rewind.eq(self.rewind),
                     self.count.eq(enc.count)]
        for lane in range(cfg.lanes):
            mem = memory.Memory(shape=entry_layout(cfg), depth=cfg.depth, init=[])
            m.submodules[f"lane{lane}"] = mem
            wp, rp = mem.write_port(), mem.read_port()
            head = rp.data
            m.d.comb += [
                wp.addr.eq(enc.addr[lane]),
                wp.data.eq(enc.entry[lane]),
                wp.en.eq(enc.write[lane]),
                rp.addr.eq(self.read_addr),
                self.has[lane].eq((self.step < enc.count[lane]) & (head.offset < self.bricks)),
                self.value[lane].eq(head.value),
                self.offset[lane].eq(head.offset),
            ]
        return m


class CnvlutinArray(PEGrid):
    """``filters`` x ``windows`` PEs fed by decoupled zero-free lanes (see the module
    docstring; contract :func:`.array.owning_array_signature`)."""

    PE = BitParallelPE
    OWNS_OPERANDS = True

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        # Rows accepted since `rewind`, while `load_enable`.
        act_pointer, act_take = write_pointer(m, self.act_write, rows=cfg.depth,
                                              enable=self.load_enable, rewind=self.rewind,
                                              prefix="act_")
        wgt_pointer, wgt_take = write_pointer(m, self.wgt_write, rows=cfg.depth,
                                              enable=self.load_enable, rewind=self.rewind,
                                              prefix="wgt_")

        # Run control: one stream position for every lane of every window.
        bricks = Signal(range(cfg.depth + 1))
        step = Signal(range(cfg.depth + 1))
        stepping, first, pe_en = Signal(), Signal(), Signal()
        any_has, done = Signal(), Signal()
        step_next = Signal(range(cfg.depth + 1))
        m.d.comb += [
            done.eq(stepping & ~any_has & ~first),
            step_next.eq(Mux(self.start, 0, Mux(stepping & ~done, step + 1, step))),
            self.busy.eq((stepping & ~done) | pe_en),
        ]
        m.d.sync += [step.eq(step_next), pe_en.eq(stepping & ~done)]
        with m.If(self.start):
            m.d.sync += [bricks.eq(self.bricks), stepping.eq(1), first.eq(1)]
        with m.Elif(stepping):
            m.d.sync += first.eq(0)
            with m.If(done):
                m.d.sync += stepping.eq(0)

        m.submodules.wgt_store = wgt_store = WeightStore(cfg)
        m.d.comb += [wgt_store.row.eq(self.wgt_write.payload), wgt_store.addr.eq(wgt_pointer),
                     wgt_store.en.eq(wgt_take)]
        act = act_bricks(cfg, self.act_write.payload)
        has_bits = []
        for w in range(cfg.windows):
            store = ZeroFreeStore(cfg)
            m.submodules[f"act_store_w{w}"] = store
            values = Signal(act_value_brick_layout(cfg), name=f"values_w{w}")
            m.d.comb += [
                store.brick.eq(act[w]),
                store.index.eq(act_pointer),
                store.valid.eq(act_take),
                store.rewind.eq(self.rewind),
                store.read_addr.eq(step_next),
                store.step.eq(step),
                store.bricks.eq(bricks),
            ]
            for lane in range(cfg.lanes):
                live = stepping & store.has[lane]
                has_bits.append(store.has[lane])
                m.d.comb += wgt_store.read_addr[w][lane].eq(store.offset[lane])
                m.d.sync += values[lane].eq(
                    Mux(live, act_value(store.value[lane], self.act_signed), 0))
            for f, pe in self.pe_column(m, w):
                m.d.comb += [pe.act.eq(values), pe.en.eq(pe_en)]
                m.d.comb += [pe.wgt[lane].eq(wgt_store.data[w][lane][f])
                             for lane in range(cfg.lanes)]
        m.d.comb += any_has.eq(stepping & tree_reduce(has_bits, lambda a, b, *_: a | b))
        return m


class WeightStore(wiring.Component):
    """Per-lane weight stores (Cnvlutin, ISCA 2016: each subunit's own synapse buffer).

    Memory ``lane<l>`` row ``b`` holds ``wgt[f][b * lanes + l]`` of every filter ``f``,
    written from the dense weight row ``b`` (the host's format); it has one synchronous read
    port per window, so every lane of every window reads its own offset each cycle.

    Attributes
    ----------
    row : In(unsigned(wgt_row_bits))
    addr : In(range(depth))
    en : In(1)
        Write ``row`` at ``addr``.
    read_addr : In(ArrayLayout(ArrayLayout(range(depth), lanes), windows))
    data : Out(ArrayLayout(ArrayLayout(ArrayLayout(signed(wgt_bits), filters), lanes),
        windows))
        ``data[w][l]``: the weights of every filter at the offset ``read_addr[w][l]`` of
        the previous cycle.
    """

    def __init__(self, cfg):
        self.cfg = cfg
        word = data.ArrayLayout(signed(cfg.wgt_bits), cfg.filters)
        super().__init__({
            "row": In(unsigned(cfg.wgt_row_bits)),
            "addr": In(_addr_shape(cfg)),
            "en": In(1),
            "read_addr": In(data.ArrayLayout(data.ArrayLayout(_addr_shape(cfg), cfg.lanes),
                                             cfg.windows)),
            "data": Out(data.ArrayLayout(data.ArrayLayout(word, cfg.lanes), cfg.windows)),
        })

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        wgt = wgt_bricks(cfg, self.row)
        for lane in range(cfg.lanes):
            mem = memory.Memory(shape=data.ArrayLayout(signed(cfg.wgt_bits), cfg.filters),
                                depth=cfg.depth, init=[])
            m.submodules[f"lane{lane}"] = mem
            wp = mem.write_port()
            m.d.comb += [wp.addr.eq(self.addr), wp.en.eq(self.en)]
            for f in range(cfg.filters):
                m.d.comb += wp.data[f].eq(wgt[f][lane])
            for w in range(cfg.windows):
                rp = mem.read_port()
                m.d.comb += [rp.addr.eq(self.read_addr[w][lane]),
                             self.data[w][lane].eq(rp.data)]
        return m


ARRAY = CnvlutinArray
