"""Netlist graph helpers of the levelised simulations (:mod:`.levelsim`,
:mod:`.levelsim_groups`): levels, cones, the batches of vector operations, and the outputs
of a latch or flip-flop cell."""

import numpy as np

from .cell_functions import parse_function

__all__ = ["UnsupportedCell", "cone", "ff_output", "latch_output",
           "topological_levels", "schedule", "vector_steps", "compile_function",
           "flop_groups", "run_steps", "combinational_graph"]


class UnsupportedCell(ValueError):
    """A cell the simulation does not model (asynchronous clear or preset)."""


def latch_output(cell) -> str:
    return next(o for o in cell.outputs if cell.pins[o].function in (cell.seq.iq,))

def ff_output(cell) -> str:
    outs = [o for o in cell.outputs if cell.pins[o].function == cell.seq.iq]
    if len(outs) != 1 or len(cell.outputs) != 1:
        raise UnsupportedCell(f"{cell.name}: only a flip-flop with one output, its state")
    return outs[0]

def cone(comb, deps, sources) -> set:
    """The combinational cells (indexes of ``comb``) that the nets ``sources`` reach."""
    cone = {j for j, (cell, o, pins) in enumerate(comb)
            if any(pins.get(p) in sources for p in cell.inputs)}
    users: list[list[int]] = [[] for _ in comb]
    for j, ds in enumerate(deps):
        for d in ds:
            users[d].append(j)
    stack = list(cone)
    while stack:
        for u in users[stack.pop()]:
            if u not in cone:
                cone.add(u)
                stack.append(u)
    return cone

def topological_levels(deps: list[list[int]]) -> list[int]:
    """Per node, one past the deepest of its dependencies (0 without any); a
    combinational loop is an error."""
    n = len(deps)
    users: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for j, ds in enumerate(deps):
        for d in set(ds):
            users[d].append(j)
            indeg[j] += 1
    level = [0] * n
    ready = [j for j in range(n) if indeg[j] == 0]
    seen = 0
    while ready:
        j = ready.pop()
        seen += 1
        for u in users[j]:
            if level[j] + 1 > level[u]:
                level[u] = level[j] + 1
            indeg[u] -= 1
            if indeg[u] == 0:
                ready.append(u)
    if seen != n:
        raise ValueError(f"a combinational loop through {n - seen} cells")
    return level


def combinational_graph(comb: list) -> tuple[list, list[list[int]]]:
    """``(out_of, deps)`` of the combinational cells and latches ``comb`` (``(cell,
    output pin or None for a latch, pins)``): each one's output net (None when
    unconnected) and the indexes of the cells driving its inputs. A combinational loop is
    refused (:func:`topological_levels`)."""
    out_of = [pins.get(o if o is not None else latch_output(cell)) for cell, o, pins in comb]
    driver = {net: j for j, net in enumerate(out_of) if net is not None}
    deps = [[driver[pins[p]] for p in cell.inputs if p in pins and pins[p] in driver]
            for cell, o, pins in comb]
    topological_levels(deps)
    return out_of, deps


def schedule(kinds: list, deps: list[list[int]], nodes) -> list[tuple[object, list[int]]]:
    """``nodes`` (indexes into ``kinds`` and ``deps``) in batches of one kind each, every
    node after the batches of its dependencies among ``nodes`` (the others count as
    settled): ``[(kind, [node, ...]), ...]`` in evaluation order.

    A batch is one vector operation, and its cost is mostly the operation's, not its
    nodes': so the fewer batches the better. Level by level (a batch per kind and level)
    a 16x16 PE made 480. Here the next batch is the kind of the ready node with the longest
    path still behind it (the critical path goes on every batch), and takes every ready node
    of that kind; nodes off the critical path wait and gather."""
    nodes = list(nodes)
    inside = set(nodes)
    users: dict[int, list[int]] = {j: [] for j in nodes}
    missing = {}
    for j in nodes:
        ds = {d for d in deps[j] if d in inside}
        missing[j] = len(ds)
        for d in ds:
            users[d].append(j)
    height = {}                     # the longest path from the node to a sink, in nodes
    for j in reversed(_order(nodes, users, missing)):
        height[j] = 1 + max((height[u] for u in users[j]), default=0)
    ready: dict = {}
    top: dict = {}                  # kind -> the longest path behind its ready nodes

    def make_ready(j):
        k = kinds[j]
        ready.setdefault(k, []).append(j)
        top[k] = max(top.get(k, 0), height[j])

    for j in nodes:
        if missing[j] == 0:
            make_ready(j)
    out = []
    while ready:
        kind = max(ready, key=lambda k: (top[k], len(ready[k]), str(k)))
        batch = sorted(ready.pop(kind))
        del top[kind]
        out.append((kind, batch))
        for j in batch:
            for u in users[j]:
                missing[u] -= 1
                if missing[u] == 0:
                    make_ready(u)
    if sum(len(b) for _, b in out) != len(nodes):
        raise ValueError(f"a combinational loop through "
                         f"{len(nodes) - sum(len(b) for _, b in out)} cells")
    return out


def _order(nodes, users, missing) -> list:
    """``nodes`` in a topological order (every node after its dependencies)."""
    left = dict(missing)
    ready = [j for j in nodes if left[j] == 0]
    order = []
    while ready:
        j = ready.pop()
        order.append(j)
        for u in users[j]:
            left[u] -= 1
            if left[u] == 0:
                ready.append(u)
    return order


def vector_steps(comb: list, out_of: list, deps: list, nodes, zero: int, compile_fn,
                 latch_step) -> list:
    """The vector operations evaluating ``nodes`` (indexes of ``comb``: ``(cell, output
    pin or None for a latch, pins)``, ``out_of`` their output nets) in :func:`schedule`'s
    batches: ``(f, out)`` (``values[out] = f(values)``) per combinational batch,
    ``latch_step(en, d, out)`` per latch batch. ``compile_fn(tree, ins)`` makes a cell
    function of the simulation's values from its pins' net arrays ``ins``; an
    unconnected input reads net ``zero``."""
    kinds = [(cell.name, o or "") for cell, o, _ in comb]
    steps = []
    for (_, o), js in schedule(kinds, deps, [j for j in nodes if out_of[j] is not None]):
        cell = comb[js[0]][0]
        ins = {p: np.array([comb[j][2].get(p, zero) for j in js], dtype=np.int64)
               for p in cell.inputs}
        out = np.array([out_of[j] for j in js], dtype=np.int64)
        if not o:                           # a latch: data while enabled, else state
            steps.append(latch_step(compile_fn(parse_function(cell.seq.clocked_on), ins),
                                    compile_fn(parse_function(cell.seq.next_state), ins),
                                    out))
        else:
            steps.append((compile_fn(parse_function(cell.pins[o].function), ins), out))
    return steps


def compile_function(tree, ins: dict, one, zero):
    """``tree`` (:func:`.cell_functions.parse_function`) as a function of the simulation's
    values ``v``, its variables gathered from the index arrays ``ins``; a constant is
    ``one`` or ``zero`` (a bool, or a whole word of bits in a bit-sliced simulation)."""
    op = tree[0]
    if op == "var":
        a = ins[tree[1]]
        return lambda v: v[a]
    if op == "const":
        c = one if tree[1] else zero
        return lambda v: c
    if op == "not":
        f = compile_function(tree[1], ins, one, zero)
        return lambda v: ~f(v)
    fa = compile_function(tree[1], ins, one, zero)
    fb = compile_function(tree[2], ins, one, zero)
    ufn = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    return lambda v: ufn(fa(v), fb(v))


def flop_groups(ffs: list, zero: int, compile_fn) -> list:
    """The flip-flops ``ffs`` (``(cell, pins)``) per cell type: ``(clocked_on, next_state,
    q)`` each, the functions of the simulation's values made by ``compile_fn`` from their
    pins' net arrays (an unconnected input reads net ``zero``), ``q`` their state nets."""
    out = []
    for name in sorted({c.name for c, _ in ffs}):
        group = [(c, p) for c, p in ffs if c.name == name]
        cell = group[0][0]
        q = ff_output(cell)
        group = [(c, p) for c, p in group if q in p]
        if not group:
            continue
        ins = {p: np.array([pins.get(p, zero) for _, pins in group], dtype=np.int64)
               for p in cell.inputs}
        out.append((compile_fn(parse_function(cell.seq.clocked_on), ins),
                    compile_fn(parse_function(cell.seq.next_state), ins),
                    np.array([p[q] for _, p in group], dtype=np.int64)))
    return out


def run_steps(steps: list, values) -> None:
    """Evaluate :func:`vector_steps`' operations in order on ``values``, in place."""
    for step in steps:
        if callable(step):
            step(values)
        else:
            f, out = step
            values[out] = f(values)
