"""Which kind of hardware (:mod:`.kinds`) the critical path's delay is spent in.

OpenSTA names a cell on the path by its instance path from the synthesis wrapper, e.g.
``tile/array/pe_f3_w7/serial/_745_``. Each step of that path is an instance of a module:
Amaranth names a submodule's module ``<parent>.<instance>`` (``<top>.array``), and a module
the tile emits once and instantiates by name (the PE, ``<top>__pe``) is the one submodule
type of its parent that is not such a child. Walking the yosys statistics' module tree
(:func:`.parse.parse_stat_json`) that way gives every cell's module, and the kind table its
kind, without the netlist; where a parent instantiates several such modules (TCLe's array:
PE, window encoder, term multiplexer) the rest of the path picks the one it exists in.
"""

from __future__ import annotations

from .kinds import kind_of

__all__ = ["modules_of", "path_kinds"]


def modules_of(instance: str, mods: dict, wrap: str, cell: str | None = None) -> list[str]:
    """Every module that can hold the cell ``instance`` (an OpenSTA instance path below
    the wrapper module ``wrap``).

    A step that names an Amaranth child (``<parent>.<step>``) has one answer. A step that
    names an instance of a module emitted once and instantiated by name has one answer when
    its parent holds one such module type (the PE); when it holds several (TCLe's array:
    ``__pe``, ``__window_encoder``, ``__term_mux``) each is tried, and the ones in which the
    rest of the path does not exist drop out. The statistics do not name instances, so a
    cell directly in one of several such modules stays ambiguous unless ``cell`` (its
    liberty cell) occurs in only some of them. Empty when no module fits."""
    steps = instance.split("/")[:-1]

    def walk(module: str, at: int) -> list[str]:
        if at == len(steps):
            return [module]
        subs = mods.get(module, {}).get("subs", {})
        child = f"{module}.{steps[at]}"
        if child in subs:
            return walk(child, at + 1)
        if module == wrap and len(subs) == 1:      # the wrapper's one instance: the tile
            named = list(subs)
        else:
            named = [s for s in subs if not s.startswith(module + ".")]
        return [m for s in named for m in walk(s, at + 1)]

    found = walk(wrap, 0)
    if cell is not None and len(found) > 1:
        # fanout buffers are inserted after the statistics: a BUFX4 of the path may be in
        # no module's count, so a filter that keeps nothing is not applied
        holding = [m for m in found if cell in mods.get(m, {}).get("cells", {})]
        found = holding or found
    return found


def _one_kind(modules, top: str):
    """The kind of ``modules`` when they are all of one kind (a cell that may be in several
    modules still has a known kind), else None."""
    kinds = {kind_of(m, top) for m in modules}
    return kinds.pop() if len(kinds) == 1 else None


def path_kinds(stages, mods: dict, top: str, wrap: str, endpoint: str | None = None) -> dict:
    """The critical path's delay by kind.

    Parameters
    ----------
    stages : list of (instance, cell, cap_pf, delay_ns)
        The path's output pins in order (:func:`.parse.parse_sta`), the launching flop
        first.
    mods : dict
        Parsed yosys statistics.
    top, wrap : str
        The tile's module name and the synthesis wrapper's.
    endpoint : str, optional
        The capturing flop's instance (its kind is ``end_kind``; default the last stage's).

    Returns
    -------
    dict
        ``delay_by_kind_ns`` (kind -> summed stage delay, largest first), ``slowest_kind``
        (the kind most of the path's delay is spent in), ``start_kind`` / ``end_kind``
        (where the launching and the capturing flop sit); ``unresolved`` counts
        stages whose module could not be found (counted as ``control_glue``, as the area
        table counts unmapped modules).
    """
    by_kind: dict[str, float] = {}
    kinds = []
    unresolved = 0
    # every cell of one instance path is in the same module: what one stage's liberty cell
    # tells (a MUX2X1 only in the term multiplexer) holds for the others there
    held: dict[str, set] = {}
    for instance, cell, _cap, _delay in stages:
        found = set(modules_of(instance, mods, wrap, cell))
        where = instance.rpartition("/")[0]
        if where in held:
            found = (held[where] & found) or held[where]
        held[where] = found
    for instance, cell, _cap, delay in stages:
        kind = _one_kind(held[instance.rpartition("/")[0]], top)
        if kind is None:
            unresolved += 1
            kind = "control_glue"
        kinds.append(kind)
        by_kind[kind] = by_kind.get(kind, 0.0) + delay
    end_kind = kinds[-1] if kinds else None
    if endpoint is not None:
        end_kind = _one_kind(modules_of(endpoint, mods, wrap), top) or "control_glue"
    ordered = dict(sorted(((k, round(v, 3)) for k, v in by_kind.items()),
                          key=lambda kv: -kv[1]))
    return {
        "delay_by_kind_ns": ordered,
        "slowest_kind": next(iter(ordered), None),
        "start_kind": kinds[0] if kinds else None,
        "end_kind": end_kind,
        "unresolved": unresolved,
    }
