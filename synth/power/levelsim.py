"""A zero-delay, two-state, cycle-based simulation of a flattened gate-level netlist in
NumPy: the toggle counts a Verilator gate-level model with SAIF tracing gives, without
compiling one.

Why: a Verilated gate-level model costs memory and time per cell before it simulates a
cycle (loom-16x16-8b's fc weight module alone, 290k cells: 5.2 GB and 5 minutes to
verilate, then its 0.7 GB of C++ to compile). Here the netlist is levelised once
(seconds) and every cycle evaluates each level's cells of one type and output pin as one
vector operation over the nets (that module: about 6 ms a cycle, 1 GB).

The model (:class:`LevelSim`):

* every net is one boolean (two-state, initial 0, as Verilator's default); liberty cells
  are evaluated from their ``function`` (:mod:`.cell_functions`);
* combinational cells in level order (a cell's level is one past its inputs' drivers');
  a latch (``latch`` group: OSU018's ``LATCH``, the clock gate's) is a cell of its level
  whose output is its data while its enable is 1 and its state otherwise;
* flip-flops (``ff`` groups: ``DFFPOSX1``, ``DFFNEGX1``) hold their state on their ``Q``
  net; at a rising edge of their ``clocked_on`` expression (gated clocks included: the
  clock nets are evaluated like any other) they take their data as the phase's new inputs
  and the old state settle it (Verilator's order: an ``eval`` applies its inputs first);
  asynchronous ``clear``/``preset`` (``DFFSR``) are not modelled: a netlist with them is
  refused;
* SRAM macros (``termwise_sram_<words>x<width>``, the black boxes of ``buffers =
  macros``) as :class:`termwise.rtl.buffer.SramMacro` behaves: at a rising ``clk`` with
  ``ce``, ``we`` writes ``din`` at ``addr``, else ``dout`` takes the word at ``addr``;
* a cycle is two phases, as the tile-run harness drives Verilator: the inputs change and
  the clock falls, everything settles; the clock rises, the clocked state updates,
  everything settles. A net's toggle count is the number of phases whose settled value
  differs from the previous phase's (from 0 before the first, as Verilator counts), its
  time at 1 the phases it ended at 1 (the last excepted: Verilator's SAIF ends there).

A zero-delay simulation has no glitches, as Verilator's; the activity of nets between the
settled states of two phases is not seen by either.

The instances of a replicated module (``groups``: the PEs) are simulated instance-parallel
(:mod:`.levelsim_groups`), the same simulation with every module's counts in total.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .levelsim_groups import Group
from .levels import (UnsupportedCell, combinational_graph, compile_function, cone,
                     flop_groups, run_steps, vector_steps)

#: Rounds of the shared logic and the groups in one settle (a combinational path through
#: instance ports takes one per crossing): more is a combinational loop.
_MAX_ROUNDS = 64

__all__ = ["LevelSim", "Activity", "UnsupportedCell"]


@dataclass
class Activity:
    """Per net (:attr:`LevelSim.nets` order): settled-value changes (``tc``) and the half
    periods it spent at 1 (``t1``) over ``halves`` half periods (the SAIF's duration)."""
    tc: np.ndarray
    t1: np.ndarray
    halves: int


def _compile(tree, ins: dict):
    """A cell function of the net values (:func:`.levels.compile_function`)."""
    return compile_function(tree, ins, np.True_, np.False_)


class _Macro:
    """One SRAM macro instance: its pins' nets and its words."""

    def __init__(self, pins: dict, words: int, width: int):
        self.clk, self.ce, self.we = pins["clk"], pins["ce"], pins["we"]
        abits = max(1, (words - 1).bit_length())
        self.addr = np.array([pins[f"addr[{i}]"] for i in range(abits)])
        self.din = np.array([pins[f"din[{i}]"] for i in range(width)])
        self.dout = np.array([pins[f"dout[{i}]"] for i in range(width)])
        self.weights = 1 << np.arange(abits)
        self.mem = np.zeros((words, width), dtype=bool)

    def edge(self, before: np.ndarray, v: np.ndarray) -> None:
        """A rising clock: the access of the values ``before`` it, into ``v``."""
        if not before[self.ce]:
            return
        a = int(self.weights @ before[self.addr])
        if a >= len(self.mem):
            return                      # past the last word: no access (as the model)
        if before[self.we]:
            self.mem[a] = before[self.din]
        else:
            v[self.dout] = self.mem[a]


class LevelSim:
    """The netlist flattened by :func:`.compute.flatten` (``leaves``, ``uf``), with the
    liberty ``lib`` (macros included), ready to simulate.

    Parameters
    ----------
    leaves, uf
        :func:`.compute.flatten`'s (its ``stubs`` must be empty: every instance simulated;
        its ``names`` give each of :attr:`nets`' hierarchical names).
    lib : Library
        The liberty the leaves' cells are in.
    inputs : list
        The top's input bits driven each cycle, as net keys (``((), port, bit)``).
    clock : object
        The clock's net key.
    outputs : list
        The top's output bits recorded each cycle, as net keys.
    macros : dict
        Macro cell name -> ``(words, width)``.
    groups : list
        The replicated modules simulated instance-parallel
        (:class:`.levelsim_groups.GroupSource`, :func:`.levelsim_groups.flatten_grouped`:
        then ``leaves`` and ``uf`` are that flattening's, the instances stubs); none by
        default.
    """

    def __init__(self, leaves, uf, lib, inputs: list, clock, outputs: list,
                 macros: dict | None = None, groups=()):
        self.index: dict = {}            # uf root -> net number
        self.nets: list = []             # net number -> uf root
        find = uf.find

        def nid(key):
            r = find(key)
            i = self.index.get(r)
            if i is None:
                i = self.index[r] = len(self.nets)
                self.nets.append(r)
            return i

        self._const1 = nid(("'", "1"))
        self._const0 = nid(("'", "0"))
        self.inputs = np.array([nid(k) for k in inputs], dtype=np.int64)
        self.clock = nid(clock)
        self.outputs = np.array([nid(k) for k in outputs], dtype=np.int64)
        comb, ffs, self.macros = [], [], []
        for lf in leaves:
            cell = lib.cells[lf.cell]
            pins = {p: nid(k) for p, k in lf.pins.items()}
            if macros and lf.cell in macros:
                self.macros.append(_Macro(pins, *macros[lf.cell]))
                continue
            _refuse(cell, lf.path)
            if cell.seq is None:
                comb += [(cell, o, pins) for o in cell.outputs
                         if o in pins and cell.pins[o].function]
            elif cell.seq.kind == "latch":
                comb.append((cell, None, pins))
            else:
                ffs.append((cell, pins))
        self.groups = [Group(src, lib) for src in groups]
        for g in self.groups:
            for cell, _ in g.cells:
                _refuse(cell, f"in {g.name}")
            g.connect(nid, self.clock)
        self._shared = len(self.nets)
        self._levels(comb, {int(n) for g in self.groups for n in g.out_v.reshape(-1)})
        self._flops(ffs)
        self.reset()

    def reset(self) -> None:
        """Every net, flip-flop, latch and macro word at 0 and no phase counted: a fresh
        simulation, as a fresh Verilated model starts."""
        n = self._shared
        self.v = np.zeros(n, dtype=bool)
        self.v[self._const1] = True
        self._settled = np.zeros(n, dtype=bool)    # the previous phase's, for toggles
        self.tc = np.zeros(n, dtype=np.int64)
        self.t1 = np.zeros(n, dtype=np.int64)
        self.phases = 0
        self.closed = False
        for m in self.macros:
            m.mem[:] = False
        for g in self.groups:
            g.reset()
        self._con = self._clocked_on(self.v)

    # -- construction -------------------------------------------------------------------

    def _levels(self, comb: list, group_outputs: set) -> None:
        """Level every combinational cell and latch; group them per level, cell and pin
        into vector operations: :attr:`_steps` all of them, :attr:`_cone_steps` those the
        clock and the inputs reach through combinational cells (all a phase without a
        clocked edge can change), :attr:`_group_steps` those the groups' outputs reach."""
        out_of, deps = combinational_graph(comb)
        self._steps = self._make_steps(comb, out_of, deps, range(len(comb)))
        reached = cone(comb, deps, set(self.inputs.tolist()) | {self.clock})
        self._cone_steps = self._make_steps(comb, out_of, deps, sorted(reached))
        self._group_steps = self._make_steps(comb, out_of, deps,
                                             sorted(cone(comb, deps, group_outputs)))

    def _make_steps(self, comb: list, out_of: list, deps: list, nodes) -> list:
        """The vector operations of ``nodes`` (indexes of ``comb``), each after those of
        its inputs (:func:`.levels.vector_steps`)."""
        return vector_steps(comb, out_of, deps, nodes, self._const0, _compile, _latch_step)

    def _flops(self, ffs: list) -> None:
        """The flip-flops' clocked_on, data and output nets, per cell type."""
        self._ff = flop_groups(ffs, self._const0, _compile)

    # -- simulation ---------------------------------------------------------------------

    def _settle(self, steps) -> None:
        run_steps(steps, self.v)

    def _settle_all(self, steps) -> None:
        """Settle the shared logic (``steps``), then the groups and what their outputs
        reach, until no group output changes."""
        self._settle(steps)
        for _ in range(_MAX_ROUNDS):
            if not any([g.evaluate(self.v) for g in self.groups]):
                return
            self._settle(self._group_steps)
        raise ValueError("a combinational loop through the replicated modules' ports")

    def _clocked_on(self, v) -> list:
        return [np.asarray(con(v)) for con, _, _ in self._ff] + \
               [bool(v[m.clk]) for m in self.macros]

    def _phase(self) -> None:
        """Settle; on rising clocked_on edges update the state from the values just
        settled (the phase's inputs with the old state: Verilator's order, the inputs of
        an ``eval`` first) and settle again; count the phase."""
        before = self._settled
        # only the clock and the inputs changed since the last settled phase: their cone
        # (the whole netlist the first time, from the initial zeros)
        self._settle_all(self._cone_steps if self.phases else self._steps)
        v = self.v
        con = self._clocked_on(v)
        gcon = [g.clocked_on() for g in self.groups]
        updates = []                       # every new state first: non-blocking
        for (c, d, q), now, was in zip(self._ff, con, self._con):
            rise = now & ~was
            if rise.any():
                updates.append((q[rise], np.asarray(d(v))[rise]))
        n = len(self._ff)
        risen = [m for m, now, was in zip(self.macros, con[n:], self._con[n:])
                 if now and not was]
        gupdates = [g.edges(now) for g, now in zip(self.groups, gcon)]
        snapshot = v.copy() if risen else v
        for q, value in updates:
            v[q] = value
        for m in risen:
            m.edge(snapshot, v)
        for g, u in zip(self.groups, gupdates):
            g.apply(u)
        if updates or risen or any(gupdates):
            self._settle_all(self._steps)
            con = self._clocked_on(v)
            gcon = [g.clocked_on() for g in self.groups]
        self._con = con
        for g, c in zip(self.groups, gcon):
            g.con = c
            g.count()
        self.tc += v != before
        self.t1 += before          # the previous phase's values, held until this one
        self._settled = v.copy()
        self.phases += 1

    def cycle(self, inputs: np.ndarray) -> np.ndarray:
        """One clock cycle: ``inputs`` (bools, :attr:`inputs` order) with the clock low,
        then the clock high; returns the outputs as settled after the rising edge."""
        if self.closed:
            raise RuntimeError("the simulation was closed")
        self.v[self.inputs] = inputs
        self.v[self.clock] = False
        self._phase()
        self.v[self.clock] = True
        self._phase()
        return self.v[self.outputs].copy()

    def run(self, stimulus: np.ndarray) -> np.ndarray:
        """:meth:`cycle` for every row of ``stimulus`` (cycles x inputs); the outputs per
        cycle."""
        return np.array([self.cycle(row) for row in stimulus], dtype=bool).reshape(
            len(stimulus), len(self.outputs))

    def close(self) -> None:
        """The last phase's values held for one more half period, as the tile-run
        harness's closing dump does (its SAIF's duration: every cycle's two halves)."""
        if not self.closed:
            self.t1 += self._settled
            for g in self.groups:
                g.close()
            self.closed = True

    def net_names(self, names: dict) -> list[list[str]]:
        """Per net of :meth:`activity` its hierarchical names: a tile net's from
        ``names`` (the flattening's, by root), a net inside a replicated module's instance
        its path joined to the module's own names."""
        out = [list(names.get(r, ())) for r in self.nets[:self._shared]]
        for g in self.groups:
            out += g.internal_names()
        return out

    def activity(self) -> Activity:
        """The counts so far (:class:`Activity`): a phase's values count towards ``t1``
        once the next phase (or :meth:`close`) ends them."""
        halves = self.phases if self.closed else max(0, self.phases - 1)
        counts = [g.counts() for g in self.groups]
        return Activity(np.concatenate([self.tc] + [tc for tc, _ in counts]),
                        np.concatenate([self.t1] + [t1 for _, t1 in counts]), halves)






def _refuse(cell, where: str) -> None:
    """A cell the simulation does not model (a three-state output, an asynchronous
    clear/preset) is refused, naming it and ``where`` it is."""
    if any(cell.pins[o].three_state for o in cell.outputs):
        raise UnsupportedCell(f"{cell.name} ({where}): a three-state output is not simulated")
    if cell.seq is not None and (cell.seq.clear or cell.seq.preset):
        raise UnsupportedCell(f"{cell.name} ({where}): asynchronous clear/preset is not "
                              f"simulated")


def _latch_step(en, d, out):
    def step(v):
        e = np.asarray(en(v))
        v[out] = np.where(e, d(v), v[out])
    return step
