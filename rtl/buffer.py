"""On-tile operand storage: rows written in order through a stream.

* :func:`write_pointer` -- the row a write stream fills next, shared by every store that is
  filled row by row (:class:`OperandBuffer`, the stores of the arrays that keep their
  operands themselves);
* :class:`OperandBuffer` -- the tile's buffer, read by address one cycle later, of
  flip-flops or of SRAM macros side by side (``buffers = macros``);
* :class:`SramMacro` -- the behavioural model of one single-port SRAM macro, emitted once
  per shape (:mod:`.library`) so that synthesis can take it as a black box;
* :class:`RowStore` -- a store read combinationally through several ports.
"""

import math
import operator

from amaranth import Cat, Module, Mux, Signal, unsigned
from amaranth.lib import data, memory, stream, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

from ..gen.fields import MACRO_MAX_WIDTH

__all__ = ["write_pointer", "OperandBuffer", "SramMacro", "macro_name", "RowStore"]


def write_pointer(m, write, *, rows: int, enable, rewind, prefix: str = "", take=None):
    """The row that the next transfer of ``write`` fills.

    Each accepted transfer advances the pointer; ``rewind`` returns it to row 0 (and wins).
    ``write.ready`` is low while ``enable`` is low and once ``rows`` rows are written, so a
    row in use is never overwritten.

    Parameters
    ----------
    m : Module
    write : stream interface
        The write stream, seen from its sink (``ready`` is driven here).
    rows : int
        Rows the store holds.
    enable, rewind : Value
    prefix : str
        Of the signals' names: ``<prefix>pointer``, ``<prefix>take``.
    take : Signal, optional
        A 1-bit signal to drive with the transfer strobe (``valid & ready``); a new one
        if not given.

    Returns
    -------
    (pointer, take) : (Signal(range(rows + 1)), Signal)
    """
    rows = operator.index(rows)
    pointer = Signal(range(rows + 1), name=f"{prefix}pointer")
    if take is None:
        take = Signal(name=f"{prefix}take")
    m.d.comb += [
        write.ready.eq(enable & (pointer < rows)),
        take.eq(write.valid & write.ready),
    ]
    with m.If(rewind):
        m.d.sync += pointer.eq(0)
    with m.Elif(take):
        m.d.sync += pointer.eq(pointer + 1)
    return pointer, take


class OperandBuffer(wiring.Component):
    """A ``depth`` x ``width`` memory filled row by row (:func:`write_pointer`).

    Each accepted ``write`` transfer stores its payload at the next row; ``rewind`` returns
    the write pointer to row 0. ``write.ready`` is low while ``enable`` is low (the tile is
    running) and once all ``depth`` rows are written, so a host never overwrites a row in use.
    Reads are synchronous: ``read_data`` holds the row addressed on the previous cycle.

    Parameters
    ----------
    width, depth : int
    library : ModuleLibrary or None
        None: an Amaranth memory (flip-flops once synthesised). Otherwise the buffer is
        ``ceil(width / MACRO_MAX_WIDTH)`` :class:`SramMacro` of equal width side by side,
        recorded in ``library`` and instantiated by name, with one more input,
        ``read_enable``: the row at ``read_addr`` is used on the next cycle. A macro has
        one port and each read costs its read energy, so it is read only when a used row
        changes: ``read_enable`` high and ``read_addr`` moved, or a write since the last
        read (reads and writes never meet: ``write.ready`` is low while the tile runs).
        ``read_data`` is the flop buffer's on every cycle after one with ``read_enable``
        high; a run then reads each of its rows once, as the energy model
        (:mod:`termwise.golden.netsim.energy`) charges it.
    """

    def __init__(self, width: int, depth: int, library=None):
        self.width = operator.index(width)
        self.depth = operator.index(depth)
        self.library = library
        members = {
            "write": In(stream.Signature(unsigned(self.width))),
            "enable": In(1),
            "rewind": In(1),
            "read_addr": In(range(self.depth)),
            "read_data": Out(unsigned(self.width)),
        }
        if library is not None:
            members["read_enable"] = In(1)
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        if self.library is not None:
            self._macros(m)
            return m
        m.submodules.mem = mem = memory.Memory(shape=self.read_data.shape(), depth=self.depth,
                                               init=[])
        wp = mem.write_port()
        rp = mem.read_port()
        pointer, _ = write_pointer(m, self.write, rows=self.depth, enable=self.enable,
                                   rewind=self.rewind, take=wp.en)
        m.d.comb += [
            wp.addr.eq(pointer),
            wp.data.eq(self.write.payload),
            rp.addr.eq(self.read_addr),
            self.read_data.eq(rp.data),
        ]
        return m

    def _macros(self, m):
        columns = math.ceil(self.width / MACRO_MAX_WIDTH)
        each = math.ceil(self.width / columns)
        name = macro_name(self.depth, each)
        if name not in self.library.modules:
            self.library.add(name, SramMacro(self.depth, each))
        pointer, take = write_pointer(m, self.write, rows=self.depth, enable=self.enable,
                                      rewind=self.rewind)
        # Read when a used row changes: a new address, or the first use after a write
        # (which may have changed the row shown; no read happens while writing). Rows
        # addressed while the tile does not use them (between runs, past a run's last
        # brick) are not read: each would cost a read of its own.
        last = Signal.like(self.read_addr, name="last_read_addr")
        stale = Signal(init=1)
        read = Signal()
        m.d.comb += read.eq(~take & self.read_enable & (stale | (self.read_addr != last)))
        with m.If(read):
            m.d.sync += [last.eq(self.read_addr), stale.eq(0)]
        with m.If(take):
            m.d.sync += stale.eq(1)
        payload = Signal(columns * each)
        m.d.comb += payload.eq(self.write.payload)
        outs = []
        for c in range(columns):
            port = self.library.instantiate(m, name, f"macro_{c}")
            m.d.comb += [
                port.ce.eq(take | read),
                port.we.eq(take),
                port.addr.eq(Mux(take, pointer, self.read_addr)),
                port.din.eq(payload[c * each:(c + 1) * each]),
            ]
            outs.append(port.dout)
        m.d.comb += self.read_data.eq(Cat(*outs))


def macro_name(words: int, width: int) -> str:
    """The Verilog module of a ``words`` x ``width`` macro (one per shape)."""
    return f"termwise_sram_{operator.index(words)}x{operator.index(width)}"


class SramMacro(wiring.Component):
    """Behavioural model of a single-port SRAM macro of ``words`` x ``width`` bits, the
    interface of an OpenRAM macro (docs/sram.md) with active-high enables.

    At a rising clock edge with ``ce``: ``we`` writes ``din`` at ``addr``; otherwise the
    word at ``addr`` is read and ``dout`` shows it from then on (it holds between reads).
    Synthesis keeps it as a black box with the macro's area, timing and access energy.
    """

    def __init__(self, words: int, width: int):
        self.words = operator.index(words)
        self.width = operator.index(width)
        super().__init__({
            "ce": In(1),
            "we": In(1),
            "addr": In(range(self.words)),
            "din": In(unsigned(self.width)),
            "dout": Out(unsigned(self.width)),
        })

    def fresh(self) -> "SramMacro":
        """Another macro of this shape (:class:`termwise.tb.amaranth_sim.InlineLibrary`)."""
        return SramMacro(self.words, self.width)

    def elaborate(self, platform):
        m = Module()
        m.submodules.mem = mem = memory.Memory(shape=unsigned(self.width), depth=self.words,
                                               init=[])
        wp = mem.write_port()
        rp = mem.read_port()
        m.d.comb += [
            wp.addr.eq(self.addr), wp.data.eq(self.din), wp.en.eq(self.ce & self.we),
            rp.addr.eq(self.addr), rp.en.eq(self.ce & ~self.we), self.dout.eq(rp.data),
        ]
        return m


class RowStore(wiring.Component):
    """A memory of ``depth`` rows of ``width`` bits, one write port and ``reads``
    combinational read ports.

    A component of its own (rather than a bare memory in an array) so that synthesis
    reports the operand stores as buffers, apart from the logic around them
    (``synth/kinds.py``).

    Parameters
    ----------
    width, depth : int
    reads : int
        Read ports.

    Attributes
    ----------
    waddr, wdata, wen : In
        Write port: row ``waddr`` takes ``wdata`` at the clock edge when ``wen``.
    raddr : In(ArrayLayout(unsigned(ceil_log2(depth)), reads))
    rdata : Out(ArrayLayout(unsigned(width), reads))
        Row ``raddr[i]`` on ``rdata[i]``, combinationally.
    """

    def __init__(self, width: int, depth: int, reads: int = 1):
        self.width = operator.index(width)
        self.depth = operator.index(depth)
        self.reads = operator.index(reads)
        addr = unsigned(ceil_log2(self.depth))
        super().__init__({
            "waddr": In(addr),
            "wdata": In(unsigned(self.width)),
            "wen": In(1),
            "raddr": In(data.ArrayLayout(addr, self.reads)),
            "rdata": Out(data.ArrayLayout(unsigned(self.width), self.reads)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.mem = mem = memory.Memory(shape=unsigned(self.width), depth=self.depth,
                                               init=[])
        wp = mem.write_port()
        m.d.comb += [wp.addr.eq(self.waddr), wp.data.eq(self.wdata), wp.en.eq(self.wen)]
        for i in range(self.reads):
            rp = mem.read_port(domain="comb")
            m.d.comb += [rp.addr.eq(self.raddr[i]), self.rdata[i].eq(rp.data)]
        return m
