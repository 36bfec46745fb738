"""Netlist graph helpers of the levelised simulations (:mod:`.levelsim`,
:mod:`.levelsim_groups`): levels, cones, and the outputs of a latch or flip-flop cell."""

__all__ = ["UnsupportedCell", "cone", "ff_output", "instance_of", "latch_output",
           "topological_levels"]


class UnsupportedCell(ValueError):
    """A cell the simulation does not model (asynchronous clear or preset)."""


def latch_output(cell) -> str:
    return next(o for o in cell.outputs if cell.pins[o].function in (cell.seq.iq,))

def ff_output(cell) -> str:
    outs = [o for o in cell.outputs if cell.pins[o].function == cell.seq.iq]
    if len(outs) != 1 or len(cell.outputs) != 1:
        raise UnsupportedCell(f"{cell.name}: only a flip-flop with one output, its state")
    return outs[0]

def instance_of(path: str, member: dict):
    """``member``'s value of the instance path that holds the leaf ``path``, or None."""
    cut = path.find("/")
    while cut > 0:
        hit = member.get(path[:cut])
        if hit is not None:
            return hit
        cut = path.find("/", cut + 1)
    return None

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
