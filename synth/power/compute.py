"""Dynamic and leakage power of a gate-level netlist from per-net toggle rates.

The netlist is the form yosys ``write_verilog -noattr`` gives (hierarchy kept or flat; the
parser is :mod:`termwise.synth.netlist`). Every leaf instance of a liberty cell is visited
through the hierarchy from ``top``; nets are joined across ports and ``assign`` statements.

Per net (all aliases of one electrical net, at every level of the hierarchy)::

    C_net     = sum of the liberty `capacitance` of every cell pin on the net (the loads'
                input pins, and the driver's output pin, 0 in OSU018 except TBUF)
                + wire load
    P_switch  = 0.5 * C_net * V**2 * toggle_rate            (charged to the driving cell)

Per cell instance::

    P_int(output pin O) = toggle_rate(O) * sum_i w_i * (E_rise,i + E_fall,i) / 2
        E_*,i: the O pin's internal_power table related to input i, at (C_net(O), slew);
        w_i: input i's toggle rate / the sum over the related inputs (equal weights when
        none toggles): which input caused an output transition is not known from toggle
        counts, so the arcs are weighted by how often their inputs move (as OpenSTA does);
        rise and fall taken as equally frequent (true to within one transition per net).
    P_int(input pin I)  = toggle_rate(I) * (E_rise + E_fall) / 2   (passive tables: the
        clock and data pins of flops, OSU018 has them on sequential cells only)
    P_leak              = cell_leakage_power

Units: ``voltage_unit`` (OSU018 ``1V``, supply ``nom_voltage`` 1.8), ``capacitive_load_unit``
(``1 pF``), ``leakage_power_unit`` (``1nW``), internal energy = capacitive_load_unit x
voltage_unit**2 (1 pJ; liberty files do not state it, OpenSTA derives it the same way),
``time_unit`` (``1ns``) for slews. Results are in watts.

Assumptions, stated in :attr:`PowerReport.assumptions`:

* wire load: the liberty's ``default_wire_load`` model if it has one (capacitance x
  ``fanout_length`` for the net's fanout); OSU018 has none, so by default 0 (pin loads only,
  as the flow's STA), or ``wire_cap_per_fanout`` library capacitance units per load pin;
* slew: one input transition time for every table lookup (``slew``, default 0.1 ns, inside
  OSU018's characterised 0.06-1.2 ns); a table lookup past the last index is extrapolated
  linearly (counted in ``extrapolated``);
* nets with no liberty driver (the top's input ports, constants) have their switching power
  reported apart (``port_switching_w``), not charged to any cell;
* zero-delay activity: a toggle rate from a zero-delay simulation has no glitches.

Not modelled: state-dependent (``when``) internal power and leakage, short-circuit power
beyond what the internal tables hold, the clock tree (the clock net is the pins it drives),
IR drop, temperature.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from ..netlist import UnionFind, bit_range, parse_netlist
from .cells import Library
from .stubs import stub_of
from .tables import lookup

__all__ = ["InstancePower", "PowerReport", "netlist_power", "flatten", "flatten_modules", "Flat",
           "by_module_of"]


@dataclass
class _Leaf:
    """A liberty cell instance of the flattened netlist."""
    path: str                       # hierarchical instance name, "/" separated
    cell: str
    module: str                     # definition that holds the instance
    pins: dict[str, object]         # pin -> global net id (first bit only: cells are 1-bit)


@dataclass
class InstancePower:
    """One leaf instance's power (W)."""
    path: str
    cell: str
    module: str
    leakage_w: float = 0.0
    internal_w: float = 0.0
    switching_w: float = 0.0        # of the nets its outputs drive
    load: float = 0.0               # summed output net capacitance, library unit
    cells: int = 1                  # cells it stands for (a stub's group of one type: more)

    @property
    def total_w(self) -> float:
        return self.leakage_w + self.internal_w + self.switching_w


@dataclass
class PowerReport:
    """The netlist's power (W): by instance, by module definition, in total."""
    instances: list[InstancePower]
    by_module: dict[str, dict[str, float]]     # module definition -> its own cells' sums
    totals: dict[str, float]                   # leakage/internal/switching/total (W)
    port_switching_w: float                    # nets driven from outside the top
    nets: int
    nets_without_activity: list[str]           # a name of each net with no rate given
    extrapolated: int                          # table lookups outside the index range
    units: dict[str, str]
    assumptions: dict[str, object] = field(default_factory=dict)


def _name(wire: str, idx: int, mod) -> str:
    """A bit's hierarchical-name component: ``wire`` or ``wire[idx]``, unescaped."""
    w = wire[1:] if wire.startswith("\\") else wire
    return f"{w}[{idx}]" if wire in mod.vectors else w


def flatten(text: str, top: str, lib: Library, opaque=frozenset(), escaped_pins=False):
    """Leaf instances and nets of the netlist under ``top``: ``(leaves, uf, names, stubs)``
    where ``names[root]`` lists every hierarchical name of the net (wires at every level,
    and ``inst/pin`` of every leaf pin on it), the driver's own names first.

    ``opaque``: instance paths (``/``-joined) not descended into: each is a stub
    (:mod:`.stubs`) whose port loads join its parent's nets; ``stubs`` lists ``(net key,
    cap, fanout, drivers)`` per stubbed net and ``(instance path, holding module, cell,
    count)`` per group of its cells. ``escaped_pins``: as
    :func:`termwise.synth.netlist.parse_netlist`."""
    return flatten_modules({m.name: m for m in parse_netlist(text, escaped_pins)}, top, lib,
                           opaque)


def flatten_modules(mods: dict, top: str, lib: Library, opaque=frozenset()):
    """:func:`flatten` of the parsed definitions ``mods`` (by name) under ``top``."""
    stub_memo: dict = {}
    stubs = _Stubs()
    top = top.lstrip("\\")
    if top not in mods:
        raise KeyError(f"top module {top!r} not in the netlist")
    uf = UnionFind()
    leaves: list[_Leaf] = []
    aliases: dict[object, list[str]] = {}

    def key(path, bit):
        if bit[0] == "'":
            return ("'", bit[1])
        return (path, bit[0], bit[1])

    def visit(mname: str, path: tuple[str, ...]):
        mod = mods[mname]
        pfx = "/".join(path)
        for wire, (msb, lsb) in mod.widths.items():
            step = -1 if msb >= lsb else 1
            for k in range(msb, lsb + step, step):
                aliases.setdefault((path, wire, k), []).append(
                    (pfx + "/" if pfx else "") + _name(wire, k, mod))
        for lhs, rhs in mod.assigns:
            for a, b in zip(lhs, rhs):
                uf.union(key(path, a), key(path, b))
        for inst in mod.insts:
            iname = inst.name[1:].rstrip() if inst.name.startswith("\\") else inst.name
            child = path + (iname,)
            if inst.type in lib.cells:
                cpath = "/".join(child)
                pins = {}
                for pin, bits in inst.conns.items():
                    # a bus pin (an SRAM macro's) is one pin per bit, ``pin[i]``, LSB 0
                    for i, bit in enumerate(reversed(bits)):
                        name = pin if len(bits) == 1 else f"{pin}[{i}]"
                        k = key(path, bit)
                        pins[name] = k
                        aliases.setdefault(k, []).append(f"{cpath}/{name}")
                leaves.append(_Leaf(cpath, inst.type, mname, pins))
            elif inst.type in mods and "/".join(child) in opaque:
                stub = stub_of(inst.type, mods, lib, stub_memo, flatten_modules)
                stubs.add(stub, child, inst, uf, lambda bit: key(path, bit), mods[inst.type])
            elif inst.type in mods:
                sub = mods[inst.type]
                for port, bits in inst.conns.items():
                    for k, bit in zip(bit_range(sub, port), bits):
                        uf.union((child, port, k), key(path, bit))
                visit(inst.type, child)
            else:
                raise KeyError(f"cell {inst.type} of {mname} is neither a module of the "
                               f"netlist nor a liberty cell")

    visit(top, ())
    names: dict[object, list[str]] = {}
    for k, ns in aliases.items():
        names.setdefault(uf.find(k), []).extend(ns)
    return leaves, uf, names, stubs


class _Stubs:
    """The stubbed instances of a flattening (:func:`flatten`'s ``opaque``): the loads
    their port nets add (``nets``: ``(key, cap, fanout, drivers)``) and their cells
    (``cells``: ``(instance path, holding module, cell, count)``), and per instance its
    stub and the parent key of each of its classes, None where no bit is connected
    (``instances``: ``(instance path, Stub, [key, ...])``, for the levelised simulation's
    replicated modules, :mod:`.levelsim_groups`)."""

    def __init__(self):
        self.nets: list[tuple[object, float, int, int]] = []
        self.cells: list[tuple[str, str, str, int]] = []
        self.instances: list[tuple[str, object, list]] = []

    def add(self, stub, child: tuple, inst, uf, parent_key, sub) -> None:
        """Instance ``inst`` (path ``child``) of definition ``sub``, summarised by
        ``stub``: its classes' parent bits joined, their loads recorded."""
        where: dict[tuple[str, int], object] = {}
        for port, bits in inst.conns.items():
            for k, bit in zip(bit_range(sub, port), bits):
                where[(port, k)] = parent_key(bit)
        first = []
        for pc in stub.classes:
            keys = [where[b] for b in pc.bits if b in where]
            if pc.const is not None:        # first: a constant stays its net's root
                keys.insert(0, ("'", pc.const))
            first.append(keys[0] if keys else None)
            if not keys:
                continue
            for k in keys[1:]:
                uf.union(k, keys[0])
            if pc.fanout or pc.drivers:
                self.nets.append((keys[0], pc.cap, pc.fanout, pc.drivers))
        path = "/".join(child)
        self.instances.append((path, stub, first))
        self.cells.extend((path, module, cell, n) for (module, cell), n in stub.cells.items())


def netlist_power(text: str, top: str, lib: Library,
                  rates: Mapping[str, float] | Callable[[str], float | None], *,
                  slew: float = 0.1, wire_cap_per_fanout: float = 0.0,
                  default_rate: float | None = None, access=None, flat=None,
                  groups=None) -> PowerReport:
    """Power of the netlist ``text`` under ``top`` (W). ``rates``: transitions per second by
    hierarchical net name relative to ``top`` (``inst/sub/wire[3]`` or a leaf pin
    ``inst/_12_/Y``), e.g. :meth:`.saif.Saif.rates`; ``slew`` in the library's time unit;
    ``wire_cap_per_fanout`` in its capacitance unit (used only when the liberty has no
    default wire-load model); nets with no rate get ``default_rate`` (None: 0, listed in
    ``nets_without_activity``). ``access(leaf, names)``, if given, is a leaf's power
    beyond its liberty tables (an SRAM macro's reads and writes, :mod:`.macro_power`),
    added to its internal power; ``names(pin)`` lists the names of the pin's net.
    ``flat``: a :class:`Flat` of ``text``, ``top`` and ``lib``, when the caller computes
    the power of one netlist under several runs' rates (flattened once; with ``opaque``
    instances as stubs, :func:`flatten`: only their leakage counts). ``groups``, if given,
    is the power of the stubbed instances instead of their leakage alone:
    ``groups(nets, slew, v2, wire_load)`` (``nets``: the flattened nets' pins, rates and
    capacitances by root, ``wire_load(fanout)`` a net's wire capacitance) returns their
    :class:`InstancePower` entries and table lookups outside their range
    (:mod:`.group_power`)."""
    get = rates if callable(rates) else rates.get
    flat = Flat(text, top, lib) if flat is None else flat
    leaves, uf, names = flat.leaves, flat.uf, flat.names
    u = lib.units
    v2 = (lib.voltage * u.voltage_v) ** 2
    wl = lib.wire_loads.get(lib.default_wire_load) if lib.default_wire_load else None
    key = ("nets", wire_cap_per_fanout)
    if key not in flat.memo:        # the pins on each net and its capacitance: no rates
        stub_nets = _stub_nets(flat.stubs, uf)
        pins = _pins_on_nets(leaves, uf)
        for net in stub_nets:       # a net only stubbed instances' pins are on
            pins.setdefault(net, [])
        first = _Nets(uf, pins, stubs=stub_nets)
        _net_caps(first, lib, wl, wire_cap_per_fanout)
        flat.memo[key] = (first.pins, first.cap, first.stubs)
    pins, cap, stub_nets = flat.memo[key]
    nets = _Nets(uf, pins, cap=cap, stubs=stub_nets)
    missing = _net_rates(nets, names, lib, get, default_rate)
    port_sw = _port_switching(nets, lib, v2)
    out: list[InstancePower] = []
    extrap = 0
    for lf in leaves:
        ip, n_extrap = _instance_power(lf, lib, nets, slew, v2)
        if access is not None:
            ip.internal_w += access(lf, lambda p, lf=lf: names.get(uf.find(lf.pins[p]), []))
        out.append(ip)
        extrap += n_extrap
    if groups is not None:
        more, n_extrap = groups(nets, slew, v2,
                                lambda f: wl.cap(f) if wl else wire_cap_per_fanout * f)
        out.extend(more)
        extrap += n_extrap
    for path, module, cell, n in ([] if groups is not None else flat.stubs.cells):
        # stubbed instances: leakage only
        out.append(InstancePower(f"{path}/[{module}] {cell} x{n}", cell, module,
                                 leakage_w=n * lib.cells[cell].leakage * u.leakage_w,
                                 cells=n))
    totals = {k: sum(ip.__getattribute__(k) for ip in out)
              for k in ("leakage_w", "internal_w", "switching_w")}
    totals["total_w"] = sum(totals.values())
    return PowerReport(
        instances=out, by_module=by_module_of(out), totals=totals, port_switching_w=port_sw,
        nets=len(nets.pins), nets_without_activity=missing, extrapolated=extrap,
        units=_units(lib),
        assumptions={"slew": slew, "slew_unit": u.text.get("time_unit"),
                     "wire_load": (f"liberty {lib.default_wire_load}" if wl else
                                   f"{wire_cap_per_fanout:g} per fanout (no liberty "
                                   f"default_wire_load)"),
                     "default_rate": default_rate,
                     "internal_arc_weights": "related input toggle rates",
                     "rise_fall_split": "half of the toggles each"})


class Flat:
    """A netlist flattened (:func:`flatten`: ``leaves``, ``uf``, ``names``) with what
    every power computation on it derives whatever the rates (``memo``: the pins on each
    net and their capacitance, the stubs' loads on them), for the
    power of one netlist under several runs' rates."""

    def __init__(self, text: str, top: str, lib: Library, opaque=frozenset()):
        # every connection, escaped port names' too (POWER_FLOW_VERSION 5): a net that
        # enters a submodule through one is one net, its driver charged for the loads
        self.leaves, self.uf, self.names, self.stubs = flatten(text, top, lib, opaque,
                                                               escaped_pins=True)
        self.memo: dict = {}

    @classmethod
    def of(cls, leaves, uf, names, stubs) -> "Flat":
        """A flattening already made (:func:`flatten_modules`' four results)."""
        flat = cls.__new__(cls)
        flat.leaves, flat.uf, flat.names, flat.stubs = leaves, uf, names, stubs
        flat.memo = {}
        return flat


@dataclass
class _Nets:
    """The flattened nets (``uf`` roots): the leaf pins on each, its toggle rate and its
    capacitance (library unit)."""
    uf: object
    pins: dict[object, list[tuple[_Leaf, str]]]
    rate: dict[object, float] = field(default_factory=dict)
    cap: dict[object, float] = field(default_factory=dict)
    stubs: dict[object, tuple[float, int, int]] = field(default_factory=dict)
    # ^ per net, the stubbed instances' pins on it: (capacitance, fanout, drivers)

    def stub_drivers(self, net) -> int:
        return self.stubs[net][2] if net in self.stubs else 0


def _is_input(lib: Library, lf: _Leaf, pin: str) -> bool:
    return lib.cells[lf.cell].pins[pin].direction == "input"


def _pins_on_nets(leaves: list[_Leaf], uf) -> dict[object, list[tuple[_Leaf, str]]]:
    """The leaf pins on each net, in the leaves' order."""
    on_net: dict[object, list[tuple[_Leaf, str]]] = {}
    for lf in leaves:
        for pin, k in lf.pins.items():
            on_net.setdefault(uf.find(k), []).append((lf, pin))
    return on_net


def _stub_nets(stubs, uf) -> dict[object, tuple[float, int, int]]:
    """The stubbed instances' loads summed per net root."""
    out: dict[object, tuple[float, int, int]] = {}
    for k, cap, fanout, drivers in stubs.nets:
        c, f, d = out.get(uf.find(k), (0.0, 0, 0))
        out[uf.find(k)] = (c + cap, f + fanout, d + drivers)
    return out


def _net_rates(nets: _Nets, names: dict, lib: Library, get, default_rate) -> list[str]:
    """Fill ``nets.rate``: the first rate found under the net's driver pins' names, then
    its other names; constants 0. Returns a name of each net with no rate given."""
    missing: list[str] = []
    for net, pins in nets.pins.items():
        if net[0] == "'":
            nets.rate[net] = 0.0
            continue
        drv_names = [f"{lf.path}/{p}" for lf, p in pins if not _is_input(lib, lf, p)]
        r = None
        for n in drv_names + names.get(net, []):
            r = get(n)
            if r is not None:
                break
        if r is None:
            missing.append((names.get(net) or drv_names or ["?"])[0])
            r = default_rate or 0.0
        nets.rate[net] = float(r)
    return missing


def _net_caps(nets: _Nets, lib: Library, wl, wire_cap_per_fanout: float) -> None:
    """Fill ``nets.cap``: the pins' capacitance plus the wire load of the net's fanout."""
    for net, pins in nets.pins.items():
        c = sum(lib.cells[lf.cell].pins[p].capacitance for lf, p in pins)
        fanout = sum(1 for lf, p in pins if _is_input(lib, lf, p))
        if net in nets.stubs:
            c += nets.stubs[net][0]
            fanout += nets.stubs[net][1]
        c += wl.cap(fanout) if wl else wire_cap_per_fanout * fanout
        nets.cap[net] = c


def _port_switching(nets: _Nets, lib: Library, v2: float) -> float:
    """Switching power (W) of the nets no liberty cell drives (the top's inputs)."""
    u = lib.units
    port_sw = 0.0
    for net, pins in nets.pins.items():
        drivers = [(lf, p) for lf, p in pins if not _is_input(lib, lf, p)]
        if not drivers and not nets.stub_drivers(net) and net[0] != "'":
            port_sw += 0.5 * nets.cap[net] * u.capacitance_f * v2 * nets.rate[net]
    return port_sw


def _instance_power(lf: _Leaf, lib: Library, nets: _Nets, slew: float,
                    v2: float) -> tuple[InstancePower, int]:
    """One leaf's leakage, internal and switching power, and its table lookups outside
    their index range."""
    cell = lib.cells[lf.cell]
    u = lib.units
    ip = InstancePower(lf.path, lf.cell, lf.module, leakage_w=cell.leakage * u.leakage_w)
    extrap = 0
    for pin, k in lf.pins.items():
        net = nets.uf.find(k)
        lp = cell.pins[pin]
        r = nets.rate.get(net, 0.0)
        if lp.direction == "input":
            extrap += _passive_power(ip, lp, r, slew, u)
            continue
        c = nets.cap[net]
        ndrv = (sum(1 for lf2, p2 in nets.pins[net] if not _is_input(lib, lf2, p2))
                + nets.stub_drivers(net))
        ip.switching_w += 0.5 * c * u.capacitance_f * v2 * r / ndrv
        ip.load += c
        extrap += _output_internal_power(ip, lf, lp, r, c, nets, slew, u)
    return ip, extrap


def _passive_power(ip: InstancePower, lp, r: float, slew: float, u) -> int:
    """Add an input pin's passive internal power (no related pin) at toggle rate ``r``;
    returns the lookups outside their tables' range."""
    extrap = 0
    for g in lp.internal_power:
        if g.related_pin is not None:
            continue
        e = [lookup(t, 0.0, slew) for t in (g.rise, g.fall) if t is not None]
        extrap += sum(1 for t in (g.rise, g.fall) if t is not None
                      and not _in_range(t, 0.0, slew))
        ip.internal_w += r * (sum(e) / len(e)) * u.energy_j if e else 0.0
    return extrap


def _output_internal_power(ip: InstancePower, lf: _Leaf, lp, r: float, c: float,
                           nets: _Nets, slew: float, u) -> int:
    """Add an output pin's internal power at toggle rate ``r`` and load ``c``: its arcs'
    energies weighted by their related inputs' toggle rates (equal weights when none
    toggles); returns the lookups outside their tables' range."""
    arcs = [g for g in lp.internal_power if g.related_pin is not None]
    if not arcs:
        return 0
    w = [nets.rate.get(nets.uf.find(lf.pins[g.related_pin]), 0.0)
         if g.related_pin in lf.pins else 0.0 for g in arcs]
    if sum(w) <= 0:
        w = [1.0] * len(arcs)
    e = 0.0
    extrap = 0
    for wi, g in zip(w, arcs):
        tabs = [t for t in (g.rise, g.fall) if t is not None]
        extrap += sum(1 for t in tabs if not _in_range(t, c, slew))
        e += wi * sum(lookup(t, c, slew) for t in tabs) / len(tabs)
    ip.internal_w += r * (e / sum(w)) * u.energy_j
    return extrap


def by_module_of(out: list[InstancePower]) -> dict[str, dict[str, float]]:
    """The instances' power summed by the module definition that holds them."""
    by_module: dict[str, dict[str, float]] = {}
    for ip in out:
        m = by_module.setdefault(ip.module, {"cells": 0, "leakage_w": 0.0, "internal_w": 0.0,
                                             "switching_w": 0.0, "total_w": 0.0})
        m["cells"] += ip.cells
        m["leakage_w"] += ip.leakage_w
        m["internal_w"] += ip.internal_w
        m["switching_w"] += ip.switching_w
        m["total_w"] += ip.total_w
    return by_module


def _units(lib: Library) -> dict[str, str]:
    """The report's units: the liberty's, the internal energy's and the results'."""
    u = lib.units
    units = dict(u.text)
    units["internal_energy"] = f"{u.energy_j:g} J (capacitive_load_unit x voltage_unit^2)"
    units["supply_voltage"] = f"{lib.voltage:g} x voltage_unit"
    units["results"] = "W"
    return units


def _in_range(table, load: float, slew: float) -> bool:
    args = {}
    for v in table.variables:
        args[v] = load if v == "total_output_net_capacitance" else slew
    return table.in_range(**args)
