"""Which kind of hardware (:mod:`.kinds`) the critical path's delay is spent in.

OpenSTA names a cell on the path by its instance path from the synthesis wrapper, e.g.
``tile/array/pe_f3_w7/serial/_745_``. Each step of that path is an instance of a module:
Amaranth names a submodule's module ``<parent>.<instance>`` (``<top>.array``), and a module
the tile emits once and instantiates by name (the PE, ``<top>__pe``) is the one submodule
type of its parent that is not such a child. Walking the yosys statistics' module tree
(:func:`.parse.parse_stat_json`) that way gives every cell's module, and the kind table its
kind, without the netlist.
"""

from __future__ import annotations

from .kinds import kind_of

__all__ = ["module_of", "path_kinds"]


def module_of(instance: str, mods: dict, wrap: str) -> str | None:
    """The module that holds the cell ``instance`` (an OpenSTA instance path below the
    wrapper module ``wrap``), or None when a step of the path cannot be resolved."""
    module = wrap
    for step in instance.split("/")[:-1]:
        subs = mods.get(module, {}).get("subs", {})
        child = f"{module}.{step}"
        if child in subs:
            module = child
            continue
        named = [s for s in subs if not s.startswith(module + ".")]
        if module == wrap and len(subs) == 1:      # the wrapper's one instance: the tile
            module = next(iter(subs))
        elif len(named) == 1:
            module = named[0]
        else:
            return None
    return module


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
    for instance, _cell, _cap, delay in stages:
        module = module_of(instance, mods, wrap)
        kind = kind_of(module, top) if module else None
        if kind is None:
            unresolved += 1
            kind = "control_glue"
        kinds.append(kind)
        by_kind[kind] = by_kind.get(kind, 0.0) + delay
    end_kind = kinds[-1] if kinds else None
    if endpoint is not None:
        module = module_of(endpoint, mods, wrap)
        end_kind = (kind_of(module, top) if module else None) or "control_glue"
    ordered = dict(sorted(((k, round(v, 3)) for k, v in by_kind.items()),
                          key=lambda kv: -kv[1]))
    return {
        "delay_by_kind_ns": ordered,
        "slowest_kind": next(iter(ordered), None),
        "start_kind": kinds[0] if kinds else None,
        "end_kind": end_kind,
        "unresolved": unresolved,
    }
