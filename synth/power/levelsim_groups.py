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

What it computes is the whole tile's simulation, exactly, not a sample:

* a net of a group that any other cell, instance or port can see (an instance's port, a
  net tied to another instance's) is a *boundary* net with its own net in the shared
  simulation, per instance: its inputs are packed from there before the group is
  evaluated, its outputs unpacked into it after; its toggles and time at 1 are the
  shared simulation's, per instance, exactly;
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

import numpy as np

from .levels import (combinational_graph, compile_function, cone, flop_groups, run_steps,
                     vector_steps)

__all__ = ["MIN_INSTANCES", "COUNTER_BITS", "replicated_instances", "Group"]

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


class Group:
    """The instances of one module, instance-parallel (see the module docstring).

    Parameters
    ----------
    name : str
        The module.
    instances : list of lists of leaves
        Per instance, its leaves (:func:`.compute.flatten`'s) in flattening order: the
        same cells in the same order in every instance (checked).
    find : callable
        The flattening's union-find ``find``.
    lib : Library
        The liberty.
    """

    def __init__(self, name: str, instances: list, find, lib):
        self.name = name
        self.n = n = len(instances)
        self.words = (n + 63) // 64
        template = instances[0]
        for i, leaves in enumerate(instances[1:], 1):
            if len(leaves) != len(template) or any(
                    a.cell != b.cell or a.pins.keys() != b.pins.keys()
                    for a, b in zip(leaves, template)):
                raise ValueError(f"{name}: instance {i} differs from instance 0")
        # a group net is the tuple of its roots in every instance: two pins are one net
        # only where they are one net in every instance
        ids: dict = {}
        self.cells = []
        for j, leaf in enumerate(template):
            pins = {}
            for p in leaf.pins:
                roots = tuple(find(instances[i][j].pins[p]) for i in range(n))
                pins[p] = ids.setdefault(roots, len(ids) + 2)     # 0 and 1: constants
            self.cells.append((lib.cells[leaf.cell], pins))
        self.roots = [0, 1] + list(ids)         # by group net (a constant: 0 or 1)

    def root_uses(self) -> Counter:
        """How often each root occurs among the group's nets of every instance."""
        return Counter(r for roots in self.roots[2:] for r in roots)

    def connect(self, shared_roots, uses: Counter, nid, const_roots: dict,
                clock: int) -> None:
        """Decide the boundary nets (a root the shared simulation knows, ``shared_roots``,
        or that occurs more than once among every group's, ``uses``), give them shared
        nets (``nid``), and build the evaluation. ``const_roots``: root -> 0 or 1.
        ``clock``: the shared clock net: inputs that are it in every instance change each
        phase, and a phase where only they changed evaluates only their cone."""
        for g in range(2, len(self.roots)):
            roots = self.roots[g]
            if roots[0] in const_roots and all(const_roots.get(r) == const_roots[roots[0]]
                                               for r in roots):
                self.roots[g] = const_roots[roots[0]]              # 0 or 1: a constant
        const = {g: r for g, r in enumerate(self.roots) if isinstance(r, int)}
        self.cells = [(cell, {p: const.get(g, g) for p, g in pins.items()})
                      for cell, pins in self.cells]
        driven = set()
        comb, ffs = [], []
        for cell, pins in self.cells:
            if cell.seq is None:
                outs = [o for o in cell.outputs if o in pins and cell.pins[o].function]
                comb += [(cell, o, pins) for o in outs]
                driven.update(pins[o] for o in outs)
            elif cell.seq.kind == "latch":
                comb.append((cell, None, pins))
                driven.update(pins[o] for o in cell.outputs if o in pins)
            else:
                ffs.append((cell, pins))
                driven.update(pins[o] for o in cell.outputs if o in pins)
        boundary = [g for g in range(2, len(self.roots)) if not isinstance(self.roots[g], int)
                    and any(r in shared_roots or uses[r] > 1 for r in self.roots[g])]
        self.in_g = np.array([g for g in boundary if g not in driven], dtype=np.int64)
        self.out_g = np.array([g for g in boundary if g in driven], dtype=np.int64)
        self.in_v = np.array([[nid(r) for r in self.roots[g]] for g in self.in_g],
                             dtype=np.int64).reshape(len(self.in_g), self.n)
        self.out_v = np.array([[nid(r) for r in self.roots[g]] for g in self.out_g],
                              dtype=np.int64).reshape(len(self.out_g), self.n)
        bset = set(boundary)
        self.internal = np.array([g for g in range(2, len(self.roots))
                                  if g not in bset and not isinstance(self.roots[g], int)],
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
        self.V = np.zeros((len(self.roots), self.words), dtype=np.uint64)
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

    def internal_roots(self) -> list:
        """Every instance's root of every internal net, internal net major."""
        return [r for g in self.internal for r in self.roots[g]]


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
