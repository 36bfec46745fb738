"""The harness of an array that owns its operands (:func:`termwise.rtl.array.
owning_array_signature`): the tile's side of the loads and the start, shared by every such
design; what a run must compute and how long it may take is the design's own (its
harness subclasses :class:`OwningArrayHarness`, in its formal module)."""

from __future__ import annotations

from amaranth import Elaboratable, Module, Mux, ResetSignal, Signal
from amaranth.asserts import AnySeq
from amaranth.hdl import Assume

from ...golden.cycles import run_overhead
from ...rtl.tile import array_class
from ..amaranth_sim import InlineLibrary
from .harness import Case, free_run

__all__ = ["owns_operands", "max_of", "OwningArrayHarness"]


def owns_operands(cfg) -> bool:
    """Whether ``cfg``'s array keeps its operands itself (``OWNS_OPERANDS``, e.g. Cnvlutin:
    :func:`termwise.rtl.array.owning_array_signature`)."""
    return bool(getattr(array_class(cfg), "OWNS_OPERANDS", False))


def max_of(values):
    """The largest of ``values`` (Amaranth expressions), as a tree of plain compares."""
    values = list(values)
    while len(values) > 1:
        pairs = [Mux(a > b, a, b) for a, b in zip(values[::2], values[1::2])]
        values = pairs + ([values[-1]] if len(values) % 2 else [])
    return values[0]


class OwningArrayHarness(Elaboratable):
    """One run of an array that owns its operands on free operands, the tile's side of
    :func:`termwise.rtl.array.owning_array_signature`: with ``load_enable`` high, weight
    rows (:attr:`WGT_ROWS` per brick) and activation row ``b`` (free constants) are offered
    on ``wgt_write`` / ``act_write`` until taken, ``b = 0 .. depth - 1`` (the host writes
    whole buffers; a run of ``n < depth`` bricks must ignore the rows past ``n``); then
    ``start`` pulses with ``bricks = n`` (free) and ``load_enable`` falls. ``act_signed`` is
    free until the cycle after ``start``, ``bricks`` on every other cycle, the write
    payloads whenever their ``valid`` is low.

    A design's harness subclasses this one with :attr:`steps` (the BMC depth) and
    ``_properties(m, array, n, act_rows, wgt_rows, act_signed, started, cycle)``: the
    reference and the cycle check, ``cycle`` counting from 0 on the ``start`` cycle
    (Cnvlutin's in tb/cnvlutin_formal.py, Bit-Tactical's in tb/tactical_formal.py).
    """

    #: Weight-stream rows per brick.
    WGT_ROWS = 1

    def __init__(self, cfg, case: "Case | None" = None, library: InlineLibrary | None = None):
        if cfg.pipeline_latency:
            raise ValueError("the owning-array harness drives the array alone: no PE "
                             "input stages or output stage (pipeline_latency 0)")
        self.cfg = cfg
        self.case = case or Case()
        self.array = array_class(cfg)(cfg, library or InlineLibrary({}))
        if not getattr(self.array, "OWNS_OPERANDS", False):
            raise ValueError(f"{cfg.arch}: the array is on the generic contract "
                             "(use ArrayHarness)")

    @property
    def overhead(self) -> int:
        return run_overhead(self.cfg)

    @property
    def steps(self) -> int:
        """BMC depth: the design's harness says."""
        raise NotImplementedError(f"{type(self).__name__}: steps")

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        m.d.comb += Assume(~ResetSignal())
        m.submodules.array = array = self.array

        n, precision, wgt_precision, act_signed, act_rows, wgt_rows = \
            free_run(m, cfg, self.case, wgt_rows=self.WGT_ROWS * cfg.depth)

        # The loads: each stream offers row b until the array takes it.
        loaded = []
        for name, write, rows, bits in (("act", array.act_write, act_rows, cfg.act_row_bits),
                                        ("wgt", array.wgt_write, wgt_rows, cfg.wgt_row_bits)):
            index = Signal(range(len(rows) + 1), name=f"{name}_loaded")
            payload = Signal(bits, name=f"{name}_payload")
            m.d.comb += [write.valid.eq(index < len(rows)), payload.eq(AnySeq(bits))]
            for b in range(len(rows)):
                with m.If(index == b):
                    m.d.comb += payload.eq(rows[b])
            m.d.comb += write.payload.eq(payload)
            with m.If(write.valid & write.ready):
                m.d.sync += index.eq(index + 1)
            loaded.append(index == len(rows))

        started = Signal()
        start = Signal()
        m.d.comb += start.eq(loaded[0] & loaded[1] & ~started)
        with m.If(start):
            m.d.sync += started.eq(1)
        m.d.comb += [
            array.load_enable.eq(~started),
            array.rewind.eq(0),
            array.start.eq(start),
            array.bricks.eq(Mux(start, n, AnySeq(len(array.bricks)))),
            array.precision.eq(precision),
            array.wgt_precision.eq(wgt_precision),
            array.act_signed.eq(Mux(started, act_signed, AnySeq(1))),
        ]

        cycle = Signal(range(self.steps + 1))                 # 0 on the start cycle
        with m.If((start | started) & (cycle < self.steps)):
            m.d.sync += cycle.eq(cycle + 1)
        self._properties(m, array, n, act_rows, wgt_rows, act_signed, started, cycle)
        return m

    def _properties(self, m, array, n, act_rows, wgt_rows, act_signed, started, cycle):
        """The reference and the cycle check: the design's harness says."""
        raise NotImplementedError(f"{type(self).__name__}: _properties")
