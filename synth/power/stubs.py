"""An instance whose own nets are not wanted, seen from its parent: its port loads and its
cells (the sampled method's unsampled instances, :mod:`.sampled`).

The sampled method simulates most instances of a replicated module as RTL, so their own
gate-level nets have no activity and only their leakage counts. Flattening every one of
them (a 16x16 Loom tile: over a thousand PEs, millions of pins, each with its names) only
to give them leakage is what made the power computation the report's largest process.
Here a module definition is flattened once and summarised by what its parent's nets see:

* per electrical net that reaches a port (its *class*: the port bits joined inside the
  module, a feed-through joins an input to an output), the capacitance and fanout of the
  cell input pins on it, the cell outputs that drive it, and the constant it is tied to;
* its cells, counted by the definition that holds them and the cell type (leakage, the
  report's cells per module, the clock pins the clock network drives).

:func:`.compute.flatten` then joins the parent's bits of one class, adds each class's loads
to the parent's net and counts its drivers, and lists the cells as groups, so the power of
every net and cell outside the stubbed instances is what the fully flattened netlist gives.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..netlist import bit_range

__all__ = ["PortClass", "Stub", "stub_of"]


@dataclass(frozen=True)
class PortClass:
    """One electrical net of a module that reaches its ports."""
    bits: tuple[tuple[str, int], ...]   # (port, index) on the net
    cap: float                          # its cells' input pin capacitance, library unit
    fanout: int                         # its cells' input pins
    drivers: int                        # its cells' output pins
    const: str | None                   # "0"/"1"/... when tied to a constant inside
    rise_cap: float = 0.0               # the same pins' rise_capacitance (timing stubs)
    fall_cap: float = 0.0               # and fall_capacitance


@dataclass(frozen=True)
class Stub:
    """A module definition summarised for its parents (see the module docstring)."""
    classes: tuple[PortClass, ...]
    cells: dict[tuple[str, str], int]   # (holding module, cell type) -> count


def stub_of(mname: str, mods: dict, lib, memo: dict, flatten_modules) -> Stub:
    """The :class:`Stub` of module ``mname`` (``mods``: the netlist's definitions by name,
    ``lib``: the liberty), memoised in ``memo``; ``flatten_modules`` is
    :func:`.compute.flatten_modules` (passed in: that module imports this one)."""
    if mname not in memo:
        memo[mname] = _summarise(mname, mods, lib, flatten_modules)
    return memo[mname]


def _summarise(mname: str, mods: dict, lib, flatten_modules) -> Stub:
    leaves, uf, _, _ = flatten_modules(mods, mname, lib)
    mod = mods[mname]
    by_root: dict[object, list[tuple[str, int]]] = {}
    for port in mod.ports:
        for k in bit_range(mod, port):
            by_root.setdefault(uf.find(((), port, k)), []).append((port, k))
    acc = {root: [0.0, 0, 0, 0.0, 0.0] for root in by_root}  # cap, fanout, drivers, rise, fall
    cells: dict[tuple[str, str], int] = {}
    for lf in leaves:
        cells[(lf.module, lf.cell)] = cells.get((lf.module, lf.cell), 0) + 1
        for pin, k in lf.pins.items():
            a = acc.get(uf.find(k))
            if a is None:               # a net inside the module only
                continue
            p = lib.cells[lf.cell].pins[pin]
            if p.direction == "input":
                a[0] += p.capacitance
                a[1] += 1
                a[3] += p.rise_capacitance
                a[4] += p.fall_capacitance
            else:
                a[2] += 1
    classes = tuple(PortClass(tuple(bits), acc[root][0], acc[root][1], acc[root][2],
                              root[1] if root[0] == "'" else None, acc[root][3],
                              acc[root][4])
                    for root, bits in by_root.items())
    return Stub(classes, cells)
