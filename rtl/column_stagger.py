"""Staggered window columns: fully-connected runs with one weight register per PE.

The papers' fc mapping (Stripes, MICRO 2016, Section 4; Loom, DAC 2018) gives each PE one
weight register and runs the window columns a cycle apart: the weight buffer delivers one
row per cycle, row ``c`` of a round goes to column ``c``, and column ``c`` starts its round
``c`` cycles after column 0. :class:`.column_weights.ColumnWeights` instead reads the next
round into ``windows - 1`` shadow rows while the array works, and hands the whole round to
the columns at once (double buffering); the stagger saves those rows.

Here the array's shared control (its sequencers, the precision detector, the serialisers)
runs as before, in lockstep on the buffers' rows: the *reference* timeline. In an ``fc``
run every value a column's PEs read, except their weights, reaches column ``c`` through
``c`` registers (:class:`ColumnDelays`), so column ``c`` does exactly what the lockstep
array did, ``c`` cycles late. Its weights come from :class:`StaggeredColumnWeights`: row
``c`` of a round is read ``c`` cycles after the reference starts the round, is on the
buffer's output when column ``c`` starts it (the PEs read it there on that cycle) and stays
in column ``c``'s register until its next round. Each column's register and the choice of
what the column reads are one small module (:class:`ColumnRegister`), emitted once and
instantiated in the array beside the column's PEs (:meth:`.grid.PEGrid.column_rows`,
:mod:`.library`): at 16x16 and 16 bits the registers are 262,144 flops and the choice as
many multiplexers, which synthesis then maps once, and the columns' rows never cross a
module's ports (the tile's and the loader's modules took yosys 509 s and 270 s on them
when the registers were the loader's and the choice the tile's).

Timing (:func:`termwise.golden.cycles.fc_run_cycles`): the reference starts round 0 the
cycle after the command (row 0 is read on the command cycle), as a conv run's first step;
rounds start ``max(c_k, windows)`` apart (a round's ``windows`` reads end before the next
round's begin: the reference waits on its last cycle while they do, unless no round
follows), and the run ends ``windows - 1`` cycles after the reference's, when the last
column commits::

    sum(max(c_k, windows) for k < n - 1) + c_{n-1} + (windows - 1) + RUN_OVERHEAD

one cycle fewer than the double buffer's (whose round 0 starts once its ``windows`` rows
are in registers).
Outside an fc run the delays are bypassed and every
column reads the broadcast weight row, as without the option.
"""

import operator

from amaranth import Cat, Elaboratable, Module, Mux, Signal, unsigned
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .column_weights import loader_members

__all__ = ["StaggeredColumnWeights", "ColumnRegister", "ColumnDelays"]


class StaggeredColumnWeights(wiring.Component):
    """The weight loader of a staggered fc run: the reads, and when each column's register
    takes its row (the registers are the array's, :class:`ColumnRegister`).

    Attributes
    ----------
    enable : In(1)
        An fc run is in progress (from its command cycle on).
    start : In(1)
        The command cycle: read round 0's first row.
    rounds : In(range(depth + 1))
        The run's rounds (the command's ``bricks``), valid while ``enable``.
    row : In(unsigned(wgt_row_bits))
        The weight buffer's read data (the row addressed on the previous cycle).
    read_addr : Out(range(depth))
        The weight row to read.
    read : Out(1)
        A row is read this cycle (the buffer's read enable in an fc run).
    take : In(1)
        The reference takes its round's last cycle: read the next round's first row.
    reading : Out(1)
        A row of the round just begun is read this cycle and another round follows: the
        reference must not take (finish) its round now, so that the next round's reads
        start after these.
    clear : In(1)
        The run's results have been delivered: back to round 0.
    load : Out(windows)
        Bit ``c``: column ``c``'s row of the round is on the buffer's output (``row``) this
        cycle, its first of the round: its register takes it (and the column reads it
        there this cycle).
    """

    def __init__(self, cfg):
        self.cfg = cfg
        super().__init__(loader_members(cfg, {"start": In(1), "read": Out(1),
                                              "reading": Out(1),
                                              "load": Out(cfg.windows)}))

    def elaborate(self, platform):
        cfg = self.cfg
        cols = cfg.windows
        m = Module()
        request = Signal(range(cfg.depth + 1))     # the next row to read
        col = Signal(range(cols))                  # the column of row `request`
        requested = Signal(range(cfg.depth + 1))   # rounds whose first row is read
        burst = Signal()                           # a round's rows 1 .. cols - 1 to read
        pending = Signal()                         # `row` holds the row read last cycle
        pending_col = Signal(range(cols))
        begin = Signal()
        m.d.comb += [
            begin.eq(self.enable & (self.start | self.take) & (requested < self.rounds)),
            self.read.eq(begin | burst),
            self.read_addr.eq(request),
            # The next round's first row may be read only once this one's are all read
            # (the last round may end while they are: no round follows).
            self.reading.eq(burst & (requested < self.rounds)),
        ]
        m.d.sync += [pending.eq(self.read), pending_col.eq(col)]
        with m.If(self.read):
            m.d.sync += [request.eq(request + 1), col.eq(col + 1)]
            with m.If(begin):
                m.d.sync += [requested.eq(requested + 1), burst.eq(1)]
            with m.If(col == cols - 1):
                m.d.sync += [col.eq(0), burst.eq(0)]
        m.d.comb += self.load.eq(Cat(pending & (pending_col == c) for c in range(cols)))
        with m.If(self.clear):
            m.d.sync += [request.eq(0), col.eq(0), requested.eq(0), burst.eq(0)]
        return m


class ColumnRegister(wiring.Component):
    """One column's weight register of a staggered fc run and the row the column reads.

    Attributes
    ----------
    row : In(unsigned(wgt_row_bits))
        The weight buffer's read data.
    load : In(1)
        The column's row of the round is on ``row`` (its first cycle of the round).
    fc : In(1)
        The run is an fc run.
    weights : Out(unsigned(wgt_row_bits))
        ``row`` outside an fc run and on a ``load`` cycle, else the register (the row of the
        last ``load``).
    """

    def __init__(self, cfg):
        self.cfg = cfg
        super().__init__({"row": In(unsigned(cfg.wgt_row_bits)), "load": In(1), "fc": In(1),
                          "weights": Out(unsigned(cfg.wgt_row_bits))})

    def elaborate(self, platform):
        m = Module()
        reg = Signal(self.cfg.wgt_row_bits, name="weights_reg")
        # The register's own hold multiplexer stays its own: were ``weights`` the same
        # ``load ? row : reg``, yosys would share the two and the register, its enable
        # lost, would not be clock-gated (16,384 ungated flops on stripes-16x16-8b).
        with m.If(self.load):
            m.d.sync += reg.eq(self.row)
        m.d.comb += self.weights.eq(Mux(self.fc & ~self.load, reg, self.row))
        return m


class ColumnDelays:
    """Column ``c``'s view of the reference timeline in a staggered fc run: a value
    ``c`` cycles late while ``fc`` is high, as it is otherwise.

    One register chain per distinct value (a signal, or the same signal twice), as long as
    the deepest column that reads it: a value every column reads (a sequencer's ``first``)
    is one chain tapped per column, a column's own value (its serialised bits) a chain of
    its own. The chains shift only while ``fc`` is high: a column reads a stage before the
    reference's values reach it only on an fc run's first cycles, when the reference was
    idle and a control chain holds an idle value (zero after reset, the end of the
    previous fc run after); operand chains are reset-less.

    The chains are a submodule ``column_delays`` of the array's module (so that synthesis
    reports their area apart); the selection between a chain's tap and the value stays in
    the array.

    Parameters
    ----------
    m : Module
        The array's module.
    fc : Value
        The run is an fc run (the tile's ``fc`` register; steady through the run).
    """

    def __init__(self, m, fc):
        self._chains_module = Module()
        m.submodules.column_delays = _Chains(self._chains_module)
        self._fc = fc
        self._chains = {}       # id(signal) -> (signal, [stage 1, stage 2, ...])

    def delayed(self, value: Signal, c: int, *, name: str, control: bool = False):
        """``value`` as column ``c`` reads it (``value`` a :class:`Signal`; ``name`` names the
        chain's registers). ``control=True`` for a value a PE acts on whatever its
        operands (an enable, a commit): its chain is reset, so that no column acts on the
        first fc run after reset before the reference's values reach it; an operand's
        chain is reset-less (read only under its column's delayed enable)."""
        c = operator.index(c)
        if not isinstance(value, Signal):
            raise TypeError("ColumnDelays delays signals (name the value first)")
        if c == 0:
            return value
        return Mux(self._fc, self._stage(value, c, name, control), value)

    def any_late(self, value: Signal):
        """Whether ``value`` was high on any of the last ``windows - 1`` cycles of an fc run
        that a column has yet to see (every stage of its chain): the array is still busy."""
        _, stages = self._chains[id(value)]
        return self._fc & Cat(*stages).any()

    def _stage(self, value, c, name, control):
        _, stages = self._chains.setdefault(id(value), (value, []))
        while len(stages) < c:
            reg = Signal(value.shape(), name=f"{name}_d{len(stages) + 1}",
                         reset_less=not control)
            # Shifting only in fc runs: the chains hold still (their clocks gated with
            # ``clock_gating``) through conv runs. They hold the reference's idle values
            # then (an fc run ends with ``windows - 1`` idle cycles shifted in), which is
            # what a column reads before the reference's first cycle reaches it.
            with self._chains_module.If(self._fc):
                self._chains_module.d.sync += reg.eq(stages[-1] if stages else value)
            stages.append(reg)
        return stages[c - 1]


class _Chains(Elaboratable):
    """The register chains of a :class:`ColumnDelays`, filled in while the array is built."""

    def __init__(self, module):
        self._module = module

    def elaborate(self, platform):
        return self._module
