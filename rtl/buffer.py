"""On-tile operand storage: rows written in order through a stream.

* :func:`write_pointer` -- the row a write stream fills next, shared by every store that is
  filled row by row (:class:`OperandBuffer`, the stores of the arrays that keep their
  operands themselves);
* :class:`OperandBuffer` -- the tile's buffer, read by address one cycle later;
* :class:`RowStore` -- a store read combinationally through several ports.
"""

import operator

from amaranth import Module, Signal, unsigned
from amaranth.lib import data, memory, stream, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

__all__ = ["write_pointer", "OperandBuffer", "RowStore"]


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
    """

    def __init__(self, width: int, depth: int):
        width = operator.index(width)
        self.depth = operator.index(depth)
        super().__init__({
            "write": In(stream.Signature(unsigned(width))),
            "enable": In(1),
            "rewind": In(1),
            "read_addr": In(range(self.depth)),
            "read_data": Out(unsigned(width)),
        })

    def elaborate(self, platform):
        m = Module()
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
