"""The replicated modules of a tile simulated instance-parallel: every instance of a module
(a 16x16 tile's 256 PEs, Loom's 64 fc weight columns) as one bit of a word, each of the
module's cells evaluated once for all of them.

Why: a 16x16 tile is mostly copies of one module (stripes-16x16: 256 PEs of 3,800 cells,
973k of its 1.02M cells), and :class:`.levelsim.LevelSim` evaluated each copy's cells as
elements of its vector operations: about 11 ns a cell a cycle, 12 ms a cycle for that tile.
Here a replicated module's nets are rows of 64-bit words, bit ``i`` of a row instance
``i``'s value (a word per 64 instances), so a cell is one bitwise operation per word
(bit-sliced simulation across instances). The shared logic (controller, buffers, adder
trees) stays :class:`.levelsim.LevelSim`'s.

The module is flattened once (:func:`flatten_grouped`, :class:`GroupSource`); the tile is
flattened with its instances as stubs (:mod:`.stubs`), which joins the tile's bits that an
instance joins inside and records per instance the tile net each of its port nets is on.
What it computes is the whole tile's simulation, exactly, not a sample:

* a net of the module that reaches its ports is a *boundary* net with its own net in the
  shared simulation, per instance (the tile net its ports are on): its inputs are packed
  from there before the group is evaluated, its outputs unpacked into it after; its
  toggles and time at 1 are the shared simulation's, per instance, exactly;
* a net inside an instance (no one else sees it) is counted per instance too, for all
  instances at once: its changes (and its values at 1) are added into bit-sliced vertical
  counters (:data:`COUNTER_BITS` words per net, a ripple of carries through them), which
  are unpacked into per-instance integers every ``2**COUNTER_BITS - 1`` phases. Each net's
  toggle count and time at 1 are then the plain simulation's, net by net (a power figure
  is not linear in them alone: a cell's internal energy is weighted by the states of its
  other pins, so evenly split totals measured 0.002% off on cnvlutin-16x16);
* the order of evaluation is a fixed point: the shared logic settles, every group
  settles on its packed inputs and unpacks its outputs, and while any group output
  changed the shared cells those outputs reach settle again and the groups again (a
  combinational path through an instance's ports and back, as a PE chain's, takes a round
  more).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from .levels import (combinational_graph, compile_function, cone, flop_groups, run_steps,
                     vector_steps)

__all__ = ["MIN_INSTANCES", "COUNTER_BITS", "replicated_instances", "flatten_grouped",
           "GroupSource", "Group"]

#: A module is simulated instance-parallel from this many instances up (fewer gain little
#: over the packing at its ports).
MIN_INSTANCES = 4

#: Bits of the vertical counters of the internal nets' toggles and times at 1: unpacked
#: into integers every ``2**COUNTER_BITS - 1`` phases.
COUNTER_BITS = 8

_ALL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
_NONE = np.uint64(0)


def replicated_instances(mods: dict, top: str, lib, macros=(),
                         min_instances: int = MIN_INSTANCES) -> list[tuple[str, list[str]]]:
    """``[(module, [instance path, ...]), ...]``: the modules of the parsed netlist ``mods``
    under ``top`` instantiated at least ``min_instances`` times, outermost first (an
    instance inside a chosen one is part of it), their instance paths (``/``-joined, as
    :func:`.compute.flatten` names leaves) in netlist order. A module holding a macro
    cell (``macros``) is not chosen: macros keep their own words per instance."""
    count: Counter = Counter()
    holds_macro: dict[str, bool] = {}

    def walk(mname):
        for inst in mods[mname].insts:
            if inst.type in mods:
                count[inst.type] += 1
                walk(inst.type)

    def has_macro(mname):
        if mname not in holds_macro:
            holds_macro[mname] = any(inst.type in macros or
                                     (inst.type in mods and has_macro(inst.type))
                                     for inst in mods[mname].insts)
        return holds_macro[mname]

    walk(top)
    chosen: dict[str, list[str]] = {}

    def choose(mname, path):
        for inst in mods[mname].insts:
            if inst.type not in mods:
                continue
            iname = inst.name[1:].rstrip() if inst.name.startswith("\\") else inst.name
            child = path + (iname,)
            if count[inst.type] >= min_instances and not has_macro(inst.type):
                chosen.setdefault(inst.type, []).append("/".join(child))
            else:
                choose(inst.type, child)

    choose(top, ())
    return [(name, paths) for name, paths in chosen.items() if len(paths) >= min_instances]


def _compile(tree, ins: dict):
    """A cell function of the packed rows ``V`` (:func:`.levels.compile_function`; a
    constant is a whole word of ones or zeros)."""
    return compile_function(tree, ins, _ALL, _NONE)


@dataclass
class GroupSource:
    """A replicated module as the levelised simulation takes it: the module flattened
    once (its own leaves and nets) and, per instance, where its ports' nets are in the
    tile (:func:`flatten_grouped`).

    Attributes
    ----------
    name : str
        The module.
    paths : list of str
        Its instances' paths (``/``-joined).
    leaves : list
        The module's leaves (:func:`.compute.flatten_modules` with the module as top):
        every instance's cells, in the same order.
    find : callable
        Its union-find's ``find``.
    names : dict
        Its nets' names relative to an instance, by root.
    classes : tuple
        Its port nets (:class:`.stubs.PortClass`), in the order of :attr:`keys`.
    keys : list of lists
        Per instance, per port net, the tile's net key it is joined to (None: no bit of
        it connected).
    """
    name: str
    paths: list
    leaves: list
    find: object
    names: dict
    classes: tuple
    keys: list


def flatten_grouped(mods: dict, top: str, lib, macros=(),
                    min_instances: int = MIN_INSTANCES):
    """The tile ``top`` of the parsed netlist ``mods`` flattened with its replicated
    modules' instances (:func:`replicated_instances`) not descended into:
    ``(leaves, uf, names, stubs, sources)``, the first four :func:`.compute.flatten_modules`'
    (the instances as stubs: their ports' loads on the tile's nets), ``sources`` one
    :class:`GroupSource` per replicated module.

    Why: flattening every instance (a 16x16 Laconic tile: 1,024 PEs of thousands of cells)
    made a Python object per leaf, pin and name of every copy; the simulation and the power
    need one copy's and where each instance's ports go."""
    from .compute import flatten_modules
    top = top.lstrip("\\")
    chosen = replicated_instances(mods, top, lib, macros, min_instances)
    opaque = frozenset(p for _, paths in chosen for p in paths)
    leaves, uf, names, stubs = flatten_modules(mods, top, lib, opaque)
    where = {path: (stub, keys) for path, stub, keys in stubs.instances}
    sources = []
    for name, paths in chosen:
        tl, tuf, tnames, _ = flatten_modules(mods, name, lib)
        sources.append(GroupSource(name, paths, tl, tuf.find, tnames,
                                   where[paths[0]][0].classes,
                                   [where[p][1] for p in paths]))
    return leaves, uf, names, stubs, sources


class Group:
    """The instances of one module, instance-parallel (see the module docstring).

    Parameters
    ----------
    source : GroupSource
        The module, flattened once, and its instances' ports.
    lib : Library
        The liberty.
    """

    def __init__(self, source: GroupSource, lib):
        self.source = source
        self.name = source.name
        self.paths = source.paths
        self.n = len(source.paths)
        self.words = (self.n + 63) // 64
        find = source.find
        ids: dict = {}

        def gid(key) -> int:
            r = find(key)
            if r[0] == "'":                     # a constant: 0 and 1 (x and z read 0)
                return 1 if r[1] == "1" else 0
            g = ids.get(r)
            if g is None:
                g = ids[r] = len(ids) + 2
            return g

        self.cells = [(lib.cells[lf.cell], {p: gid(k) for p, k in lf.pins.items()})
                      for lf in source.leaves]
        # the port nets: every instance's tile net, by the key its ports join
        self.ports = []
        for c, pc in enumerate(source.classes):
            if pc.const is not None:
                continue
            g = gid(((), pc.bits[0][0], pc.bits[0][1]))
            if g >= 2:
                self.ports.append((g, c))
        self.roots = [None, None] + list(ids)   # by group net, the module's root
        self.size = len(self.roots)

    def connect(self, nid, clock: int) -> None:
        """Give the port nets (the *boundary*) their tile nets per instance (``nid`` of the
        tile's key; a port net no bit of which is connected gets a net of its own) and
        build the evaluation. ``clock``: the tile's clock net: inputs that are it in every
        instance change each phase, and a phase where only they changed evaluates only
        their cone."""
        driven = set()
        comb, ffs = [], []
        for cell, pins in self.cells:
            outs = [o for o in cell.outputs if o in pins]
            if cell.seq is None:
                outs = [o for o in outs if cell.pins[o].function]
                comb += [(cell, o, pins) for o in outs]
            elif cell.seq.kind == "latch":
                comb.append((cell, None, pins))
            else:
                ffs.append((cell, pins))
            driven.update(pins[o] for o in outs)
        keys = self.source.keys

        def tile_net(g, c, i):
            k = keys[i][c]
            return nid(k if k is not None else (("#unconnected", self.paths[i]), g, 0))

        rows = {g: [tile_net(g, c, i) for i in range(self.n)] for g, c in self.ports}
        self.in_g = np.array([g for g, _ in self.ports if g not in driven], dtype=np.int64)
        self.out_g = np.array([g for g, _ in self.ports if g in driven], dtype=np.int64)
        self.in_v = np.array([rows[g] for g in self.in_g.tolist()],
                             dtype=np.int64).reshape(len(self.in_g), self.n)
        self.out_v = np.array([rows[g] for g in self.out_g.tolist()],
                              dtype=np.int64).reshape(len(self.out_g), self.n)
        boundary = set(rows)
        self.internal = np.array([g for g in range(2, self.size) if g not in boundary],
                                 dtype=np.int64)
        self._build(comb, ffs, clock)
        self.reset()

    def _build(self, comb, ffs, clock: int) -> None:
        out_of, deps = combinational_graph(comb)
        clock_rows = {int(g) for g, vs in zip(self.in_g, self.in_v)
                      if (vs == clock).all()}
        self.steps = self._steps(comb, out_of, deps, range(len(comb)))
        self.clock_steps = self._steps(comb, out_of, deps,
                                       sorted(cone(comb, deps, clock_rows)))
        self.clock_in = np.array([int(g) in clock_rows for g in self.in_g], dtype=bool)
        self.ff = flop_groups(ffs, 0, _compile)

    def _steps(self, comb, out_of, deps, nodes) -> list:
        return vector_steps(comb, out_of, deps, nodes, 0, _compile, _latch_step)

    # -- simulation ---------------------------------------------------------------------

    def reset(self) -> None:
        """Every net and state at 0 and nothing counted."""
        self.V = np.zeros((self.size, self.words), dtype=np.uint64)
        self.V[1] = _ALL
        self.settled = self.V.copy()
        shape = (len(self.internal), self.n)
        self.tc, self.t1 = np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64)
        shape = (COUNTER_BITS, len(self.internal), self.words)
        self._tc_bits = np.zeros(shape, dtype=np.uint64)
        self._t1_bits = np.zeros(shape, dtype=np.uint64)
        self._pending = 0
        self.last_in = None
        self.dirty = True
        self.con = self.clocked_on()

    def evaluate(self, v: np.ndarray) -> bool:
        """Pack the inputs from the shared values ``v``, settle what they (or a state
        change) reach, unpack the outputs into ``v``; whether any output changed."""
        packed = _pack(v[self.in_v], self.words)
        if self.last_in is None or self.dirty:
            steps = self.steps
        else:
            changed = (packed != self.last_in).any(axis=1)
            if not changed.any():
                return False
            steps = self.clock_steps if not (changed & ~self.clock_in).any() else self.steps
        self.last_in = packed
        self.dirty = False
        V = self.V
        V[self.in_g] = packed
        run_steps(steps, V)
        bits = _unpack(V[self.out_g], self.n)
        old = v[self.out_v]
        if np.array_equal(bits, old):
            return False
        v[self.out_v] = bits
        return True

    def clocked_on(self) -> list:
        return [np.asarray(con(self.V)) for con, _, _ in self.ff]

    def edges(self, now: list) -> list:
        """The state updates of the rising edges since :attr:`con` (computed, not applied:
        every update of the phase reads the values before any)."""
        out = []
        for (con, d, q), n, was in zip(self.ff, now, self.con):
            rise = n & ~was
            if rise.any():
                out.append((q, (self.V[q] & ~rise) | (np.asarray(d(self.V)) & rise)))
        return out

    def apply(self, updates: list) -> None:
        for q, value in updates:
            self.V[q] = value
        if updates:
            self.dirty = True

    def count(self) -> None:
        """The phase's internal toggles (settled value changes) and the previous phase's
        time at 1, per instance (into the vertical counters)."""
        rows = self.internal
        now, before = self.V[rows], self.settled[rows]
        _add(self._tc_bits, now ^ before)
        _add(self._t1_bits, before)
        self.settled = self.V.copy()
        self._pending += 1
        if self._pending == (1 << COUNTER_BITS) - 1:
            self._flush()

    def close(self) -> None:
        _add(self._t1_bits, self.settled[self.internal])
        self._flush()

    def _flush(self) -> None:
        """The vertical counters into the per-instance integers, and cleared."""
        for j in range(COUNTER_BITS):
            self.tc += _unpack(self._tc_bits[j], self.n).astype(np.int64) << j
            self.t1 += _unpack(self._t1_bits[j], self.n).astype(np.int64) << j
        self._tc_bits[:] = 0
        self._t1_bits[:] = 0
        self._pending = 0

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """``(tc, t1)`` of every instance's internal nets, as :meth:`internal_roots`
        orders them."""
        self._flush()
        return self.tc.reshape(-1).copy(), self.t1.reshape(-1).copy()

    def internal_names(self) -> list[list[str]]:
        """Every instance's hierarchical names of every internal net, internal net major
        (as :meth:`counts` orders them): the instance's path joined to the module's own
        names of the net."""
        names = self.source.names
        return [[f"{path}/{n}" for n in names.get(self.roots[g], ())]
                for g in self.internal.tolist() for path in self.paths]


def _pack(bits: np.ndarray, words: int) -> np.ndarray:
    """Rows of bools (instances along axis 1) as rows of 64-bit words, instance ``i`` bit
    ``i % 64`` of word ``i // 64``."""
    packed = np.packbits(bits, axis=1, bitorder="little")
    out = np.zeros((bits.shape[0], words * 8), dtype=np.uint8)
    out[:, :packed.shape[1]] = packed
    return out.view("<u8").astype(np.uint64, copy=False)


def _unpack(rows: np.ndarray, n: int) -> np.ndarray:
    """:func:`_pack` undone: rows of ``n`` bools."""
    b = np.ascontiguousarray(rows).astype("<u8", copy=False).view(np.uint8)
    return np.unpackbits(b, axis=1, count=n, bitorder="little").astype(bool)


def _add(counters: np.ndarray, x: np.ndarray) -> None:
    """Add the bits of ``x`` (rows of words) into the vertical counters ``counters`` (bit
    ``j`` of every count in ``counters[j]``): a ripple of carries, stopped when none is
    left."""
    for bits in counters:
        carry = bits & x
        bits ^= x
        if not carry.any():
            return
        x = carry
    raise OverflowError("a vertical counter overflowed (flushed too late)")


def _latch_step(en, d, out):
    def step(V):
        e = en(V)
        V[out] = (e & d(V)) | (~e & V[out])
    return step
