"""The PE grid: ``filters`` x ``windows`` instances of one PE module, the base of the arrays.

Every array (:mod:`.array` states the contract with the tile) is a grid of one PE, emitted
once as its own Verilog module (:mod:`.library`) and instantiated as ``pe_f<f>_w<w>``; PE
(filter ``f``, window ``w``) is cleared on ``start`` and drives ``acc[w][f]``. What differs
between the arrays is only what feeds the PEs: :meth:`PEGrid.pes` (or, with something
shared by a window's PEs, :meth:`PEGrid.pe_column`) hands the array each PE to feed. With
``cfg.pe_stages`` the PE handed over is a :class:`.pe_stage.StagedPE`: whatever the array
assigns to its inputs reaches the PE through registered, replicated copies.
"""

import operator

from amaranth import Cat, signed
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..gen.config import PE_STAGE_GROUP
from .array import array_signature, owning_array_signature
from .column_stagger import ColumnRegister
from .library import ModuleLibrary
from .pe_stage import PEInputStage, StagedPE
from .rows import act_bricks, act_value_bricks, wgt_bricks

__all__ = ["PEGrid", "pe_signature"]


def pe_signature(cfg, inputs: dict, *, acc=None) -> wiring.Signature:
    """A PE's contract with the grid: its own ``inputs`` (name -> member, in port order),
    then ``clear`` (reset the accumulator; wins) and ``acc`` (the accumulator, default
    ``signed(acc_bits)``)."""
    return wiring.Signature({
        **inputs,
        "clear": In(1),
        "acc": Out(signed(cfg.acc_bits) if acc is None else acc),
    })


class PEGrid(wiring.Component):
    """Base class of the arrays: the configuration, the module library, the PE module and
    the array contract.

    Subclasses set :attr:`PE` (built as ``PE(cfg)``) or override :meth:`make_pe`, and
    build their PEs with :meth:`pes` or :meth:`pe_column` in ``elaborate``.

    Parameters
    ----------
    cfg : TileConfig
    library : ModuleLibrary
        Where the PE module is recorded (see :mod:`.library`).
    top_name : str, optional
        The tile whose name prefixes the grid's library modules (default
        ``cfg.top_name``): the PE is ``<top_name>__pe``. A datapath built inside another
        tile (Diffy's Bit-Pragmatic array) takes the outer tile's name, so that its modules
        are named, and their area counted, as the outer tile's.

    Attributes
    ----------
    PE : type
        Class attribute: the PE component.
    OWNS_OPERANDS : bool
        Class attribute: the array keeps its operands itself
        (:func:`.array.owning_array_signature`) rather than reading the tile's buffers
        (:func:`.array.array_signature`).
    FC_STAGGER : bool
        Class attribute: with ``fc_columns``, the array staggers its window columns in fc
        runs (:mod:`.column_stagger`); else the tile double-buffers the round's weights
        (:mod:`.column_weights`).
    top_name : str
    pe_name : str
        The PE's module name in ``library``.
    """

    PE = None
    OWNS_OPERANDS = False
    FC_STAGGER = False

    def __init__(self, cfg, library: ModuleLibrary, *, top_name: str | None = None):
        self.cfg = cfg
        self.library = library
        self.top_name = cfg.top_name if top_name is None else top_name
        self.pe_name = self.add_module("pe", self.make_pe(cfg, library))
        if self.FC_STAGGER and cfg.has_fc_columns:
            self.fc_column_name = self.add_module("fc_column", ColumnRegister(cfg))
        if self.OWNS_OPERANDS:
            super().__init__(owning_array_signature(cfg))
        else:
            super().__init__(array_signature(cfg, stagger=self.FC_STAGGER))

    def add_module(self, what: str, component: wiring.Component) -> str:
        """Record ``component`` in the library as ``<top_name>__<what>`` (emitted once,
        instantiated by name: :meth:`.library.ModuleLibrary.instantiate`); returns the
        name. Arrays add their repeated modules at construction, so that elaborating an
        array twice records nothing new."""
        return self.library.add(f"{self.top_name}__{what}", component)

    def make_pe(self, cfg, library: ModuleLibrary) -> wiring.Component:
        """The PE component (default ``PE(cfg)``); ``library`` takes any module the PE
        instantiates by name."""
        return self.PE(cfg)

    @property
    def act_bricks(self) -> data.View:
        """The activation row on the tile's buffer output, ``act_bricks[window][lane]``
        (:func:`.rows.act_row_layout`)."""
        return act_bricks(self.cfg, self.act_row)

    def act_values(self, m):
        """The activation row's values (:func:`.rows.act_value_bricks`: each pattern
        extended by the run's ``act_signed``), ``act_values[window][lane]``, built once per
        call for all the PEs that read it. A tile without the register (a floating-point
        one) reads its patterns as they are."""
        if "act_signed" not in self.cfg.runtime:
            return self.act_bricks
        return act_value_bricks(m, self.cfg, self.act_bricks, self.act_signed)

    @property
    def wgt_bricks(self) -> data.View:
        """The weight row on the tile's buffer output, ``wgt_bricks[filter][lane]``."""
        return wgt_bricks(self.cfg, self.wgt_row)

    def wgt_bricks_of(self, w: int) -> data.View:
        """The weight bricks window column ``w`` works with, ``[filter][lane]``: the broadcast
        row, or with the ``fc_columns`` option the column's own (``wgt_cols[w]``). A
        staggered array's columns hold theirs: :meth:`column_rows`."""
        if self.cfg.has_fc_columns:
            return wgt_bricks(self.cfg, self.wgt_cols[operator.index(w)])
        return self.wgt_bricks

    def column_rows(self, m) -> list:
        """The weight row each window column of a staggered array (``FC_STAGGER``) works
        with: ``wgt_row``, or with the ``fc_columns`` option the column's own register
        (:class:`.column_stagger.ColumnRegister`, instantiated in ``m`` as
        ``fc_column<w>``), which takes ``wgt_row`` on the column's ``wgt_load`` bit and
        gives it on that cycle and outside fc runs."""
        if not self.cfg.has_fc_columns:
            return [self.wgt_row] * self.cfg.windows
        rows = []
        for w in range(self.cfg.windows):
            column = self.library.instantiate(m, self.fc_column_name, f"fc_column{w}")
            m.d.comb += [column.row.eq(self.wgt_row), column.load.eq(self.wgt_load[w]),
                         column.fc.eq(self.fc)]
            rows.append(column.weights)
        return rows

    def pe_column(self, m, w: int):
        """Instantiate the PEs of window ``w`` (a column of the grid), filter by filter.

        Yields ``(f, pe)``: PE (``f``, ``w``) instantiated as ``pe_f<f>_w<w>``, ``pe`` its
        interface (the PE's signature). The caller wires the PE's inputs in the loop body;
        then (when the loop asks for the next PE) it is cleared on ``start`` and drives
        ``acc[w][f]``. So the loop must run to its end.

        Parameters
        ----------
        m : Module
        w : int
            The window.
        """
        w = operator.index(w)
        accs = []
        for f in range(self.cfg.filters):
            pe = self.library.instantiate(m, self.pe_name, f"pe_f{f}_w{w}")
            if self.cfg.pe_stages:      # every input through the registered copies
                pe = StagedPE(pe, self._pe_stage(m), self._pe_inputs, tag=f"f{f}_w{w}")
            yield f, pe
            m.d.comb += pe.clear.eq(self.start)
            accs.append(pe.acc)
        # One assignment per column: Amaranth checks every bit of an assignment's target
        # signal (the whole ``acc``, 40k bits at 16x16) per statement, so one per PE made
        # elaboration quadratic in the PE count.
        m.d.comb += self.acc[w].as_value().eq(Cat(accs))

    @property
    def _pe_inputs(self) -> list:
        signature = self.library.modules[self.pe_name].signature
        return [name for name, member in signature.members.items() if member.flow == In]

    def _pe_stage(self, m) -> PEInputStage:
        """The PE input stage of this array (``cfg.pe_stages``, :mod:`.pe_stage`), a
        submodule ``pe_stage`` of the array's module ``m``."""
        stage = getattr(self, "_stage", None)
        if stage is None:
            stage = self._stage = PEInputStage(stages=self.cfg.pe_stages, group=PE_STAGE_GROUP)
            m.submodules.pe_stage = stage
        return stage

    def pes(self, m):
        """Every PE of the grid, window by window (:meth:`pe_column`): yields
        ``(w, f, pe)``."""
        for w in range(self.cfg.windows):
            for f, pe in self.pe_column(m, w):
                yield w, f, pe
