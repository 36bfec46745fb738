"""On-tile operand buffer: rows written in order through a stream, read by address."""

from amaranth import Module, Signal, unsigned
from amaranth.lib import memory, stream, wiring
from amaranth.lib.wiring import In, Out

__all__ = ["OperandBuffer"]


class OperandBuffer(wiring.Component):
    """A ``depth`` x ``width`` memory filled row by row.

    Each accepted ``write`` transfer stores its payload at the next row; ``rewind`` returns
    the write pointer to row 0. ``write.ready`` is low while ``enable`` is low (the tile is
    running) and once all ``depth`` rows are written, so a host never overwrites a row in use.
    Reads are synchronous: ``read_data`` holds the row addressed on the previous cycle.
    """

    def __init__(self, width: int, depth: int):
        self.depth = depth
        super().__init__({
            "write": In(stream.Signature(unsigned(width))),
            "enable": In(1),
            "rewind": In(1),
            "read_addr": In(range(depth)),
            "read_data": Out(unsigned(width)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.mem = mem = memory.Memory(shape=self.read_data.shape(), depth=self.depth,
                                               init=[])
        wp = mem.write_port()
        rp = mem.read_port()
        pointer = Signal(range(self.depth + 1))
        m.d.comb += [
            self.write.ready.eq(self.enable & (pointer < self.depth)),
            wp.addr.eq(pointer),
            wp.data.eq(self.write.payload),
            wp.en.eq(self.write.valid & self.write.ready),
            rp.addr.eq(self.read_addr),
            self.read_data.eq(rp.data),
        ]
        with m.If(self.rewind):
            m.d.sync += pointer.eq(0)
        with m.Elif(wp.en):
            m.d.sync += pointer.eq(pointer + 1)
        return m
