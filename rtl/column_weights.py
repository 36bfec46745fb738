"""Per-column weight registers: fully-connected layers at batch 1 on every window column.

A convolution's windows share each step's weight bricks, which the tile broadcasts from its
weight buffer. A fully-connected layer at batch 1 has one window; the papers (Stripes,
MICRO 2016; Loom, DAC 2018) keep every column busy by dealing successive input bricks over
the columns, so each column needs its own weight brick per filter. With the design option
``fc_columns`` a run whose ``fc`` register is set works in *rounds*: round ``k``'s
activation row holds input brick ``k * windows + c`` in column ``c``, and weight rows
``k * windows .. k * windows + windows - 1`` hold those bricks' weights, one row per column.

The buffer delivers one weight row per cycle, so a round needs ``windows`` cycles of weight
reads. :class:`ColumnWeights` reads the next round's rows while the array works on the
current one (double buffering: ``windows - 1`` shadow rows plus the last row, which the
buffer's read port holds), and hands the whole round to the array at once. Successive
rounds therefore start ``max(step cycles, windows)`` cycles apart, and the first one
``windows`` cycles after the command. The registers are not the loader's: each column's
shadow row and round row, and the choice between its round and the broadcast row, are one
small module (:class:`ColumnSlot`) the tile instantiates per column through its module
library, so synthesis maps one column's registers once (at 16x16 and 16 bits the rows are
520,192 flops; kept in the loader's module they were one flat netlist of about a million
cells, 11.6 GB in the synthesis flow's netlist stage), and the loader keeps the control:
which shadow row takes the buffer's row (``load``) and when the round is handed over
(``swap``). Laconic's and Pragmatic's arrays use it (they take a
round into registers of their own, so a short round may follow a long one sooner: their
models' ``fc_run_cycles``). The other arrays stagger their columns instead, as the papers
do (:mod:`.column_stagger`: one weight register per PE, ``windows - 1`` rows fewer, and
per-column delayed control).
"""

from amaranth import Module, Mux, Signal, unsigned
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["ColumnWeights", "ColumnSlot", "loader_members"]


def loader_members(cfg, own: dict) -> dict:
    """The members every fc weight loader has (:class:`ColumnWeights`,
    :class:`.column_stagger.StaggeredColumnWeights`), with the loader's ``own`` after
    ``take``: ``enable``, ``rounds``, ``row``, ``read_addr``, ``take``, ``clear``."""
    return {
        "enable": In(1),
        "rounds": In(range(cfg.depth + 1)),
        "row": In(unsigned(cfg.wgt_row_bits)),
        "read_addr": Out(range(cfg.depth)),
        "take": In(1),
        **own,
        "clear": In(1),
    }


class ColumnWeights(wiring.Component):
    """The weight loader and registers of an fc run (see the module docstring).

    Attributes
    ----------
    enable : In(1)
        An fc run is in progress (from its command cycle on): read weight rows.
    rounds : In(range(depth + 1))
        The run's rounds (the command's ``bricks``), valid while ``enable``.
    row : In(unsigned(wgt_row_bits))
        The weight buffer's read data (the row addressed on the previous cycle).
    read_addr : Out(range(depth))
        The weight row to read (held on the last one read while the shadow is full, so that
        ``row`` keeps the round's last row until the hand-over).
    take : In(1)
        The array takes the round on ``cols`` this cycle (its last cycle on it).
    present : Out(1)
        The columns' round registers hold the weights of the array's current round.
    clear : In(1)
        The run's results have been delivered: back to round 0 (and wins).
    load : Out(windows - 1)
        Bit ``c``: column ``c``'s shadow row takes ``row`` at the end of this cycle.
    swap : Out(1)
        Every column's round register takes the next round at the end of this cycle (column
        ``c < windows - 1`` from its shadow row, the last column from ``row``).
    """

    def __init__(self, cfg):
        self.cfg = cfg
        super().__init__({**loader_members(cfg, {"present": Out(1)}),
                          "load": Out(cfg.windows - 1), "swap": Out(1)})

    def elaborate(self, platform):
        cfg = self.cfg
        cols = cfg.windows
        m = Module()
        # The next round's rows 0 .. cols - 2 go to the columns' shadow rows (ColumnSlot);
        # its last row stays on the buffer's output.
        request = Signal(range(cfg.depth + 1))     # the next row to read
        last = Signal(range(cfg.depth))            # the row read most recently
        col = Signal(range(cols))                  # the column of row `request`
        requested = Signal(range(cfg.depth + 1))   # rounds whose rows are all requested
        full = Signal()      # the shadow and the buffer output hold a whole round
        pending = Signal()   # `row` holds the row requested on the previous cycle
        pending_col = Signal(range(cols))
        swap = Signal()
        issue = Signal()
        m.d.comb += [
            swap.eq(full & (~self.present | self.take)),
            # A new round's first row may be read on the hand-over cycle: the shadow
            # registers are copied at its end, the row arrives a cycle later.
            issue.eq(self.enable & (requested < self.rounds) & (~full | swap)),
            self.read_addr.eq(Mux(issue, request, last)),
        ]
        m.d.sync += [pending.eq(issue), pending_col.eq(col)]
        m.d.comb += [self.load[c].eq(pending & (pending_col == c)) for c in range(cols - 1)]
        m.d.comb += self.swap.eq(swap)
        with m.If(issue):
            m.d.sync += [request.eq(request + 1), last.eq(request),
                         col.eq(col + 1)]
            with m.If(col == cols - 1):
                m.d.sync += [col.eq(0), requested.eq(requested + 1), full.eq(1)]
        with m.If(swap):
            m.d.sync += [full.eq(0), self.present.eq(1)]
        with m.Elif(self.take):
            m.d.sync += self.present.eq(0)
        with m.If(self.clear):
            m.d.sync += [request.eq(0), col.eq(0), requested.eq(0), full.eq(0),
                         self.present.eq(0)]
        return m


class ColumnSlot(wiring.Component):
    """One window column's fc weight registers under :class:`ColumnWeights`: the shadow row
    the loader fills (absent in the last column, whose row the buffer's output holds) and
    the round row the column works with, and the row the column's PEs read.

    Parameters
    ----------
    cfg : TileConfig
    shadow : bool
        The column has a shadow row (every column but the last).

    Attributes
    ----------
    row : In(unsigned(wgt_row_bits))
        The weight buffer's read data (a round's row, and outside an fc run the broadcast
        row).
    load : In(1)
        (With ``shadow``.) The shadow row takes ``row``.
    swap : In(1)
        The round row takes the shadow row (without ``shadow``: ``row``).
    fc : In(1)
        The current run is an fc run: the column reads its round row, else ``row``.
    weights : Out(unsigned(wgt_row_bits))
        The row the column's PEs read.
    """

    def __init__(self, cfg, *, shadow: bool):
        self.cfg = cfg
        self.shadow = bool(shadow)
        row = unsigned(cfg.wgt_row_bits)
        super().__init__({"row": In(row), **({"load": In(1)} if self.shadow else {}),
                          "swap": In(1), "fc": In(1), "weights": Out(row)})

    def fresh(self) -> "ColumnSlot":
        """Another instance of the same module (an in-simulator library's copies)."""
        return ColumnSlot(self.cfg, shadow=self.shadow)

    def elaborate(self, platform):
        m = Module()
        source = self.row
        if self.shadow:
            source = Signal(self.cfg.wgt_row_bits)
            with m.If(self.load):
                m.d.sync += source.eq(self.row)
        held = Signal(self.cfg.wgt_row_bits)
        with m.If(self.swap):
            m.d.sync += held.eq(source)
        m.d.comb += self.weights.eq(Mux(self.fc, held, self.row))
        return m
