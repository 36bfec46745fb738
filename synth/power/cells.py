"""The cells of a liberty library as the power flow needs them: pins, state, internal power
tables, leakage, and the library's units and wire loads.

Read from the liberty (the group parser of :mod:`termwise.synth.liberty`):

* per pin: ``direction``, ``capacitance``, ``clock``, an output's ``function`` and
  ``three_state`` (their text; :mod:`.cell_functions` parses it);
* flip-flop and latch groups: ``ff (IQ, IQN)`` with ``next_state``, ``clocked_on``,
  ``clear``, ``preset``, ``clear_preset_var1/2``; ``latch (IQ, IQN)`` with ``data_in``,
  ``enable``, ``clear``, ``preset``;
* ``internal_power`` groups: on an output pin, per ``related_pin``, the ``rise_power`` and
  ``fall_power`` tables (energy per output transition against output load and input
  transition, read through their ``power_lut_template``; :mod:`.tables`); on an input pin
  (no related pin), the passive tables (energy per input transition against input
  transition);
* ``cell_leakage_power``, ``area``;
* the library's units: ``voltage_unit``, ``capacitive_load_unit``, ``leakage_power_unit``,
  ``time_unit``, ``nom_voltage`` (or the default operating condition's ``voltage``), and
  ``wire_load`` groups with ``default_wire_load`` (OSU018 has none).

The energy unit of ``internal_power`` tables is not declared in a liberty file; it is by
convention ``capacitive_load_unit * voltage_unit**2`` (OpenSTA's liberty reader derives its
energy scale the same way): 1 pF x (1 V)^2 = 1 pJ for OSU018.

Not read: state-dependent ``leakage_power`` groups and ``when`` conditions of internal power
(OSU018 uses neither), ``statetable`` cells, bus/bundle pins, ``power_down_function``, and
timing beyond what :mod:`termwise.synth.liberty` already checks.

The cells' behavioural Verilog models are :mod:`.cell_models`'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..liberty import Group, parse_groups
from .tables import Table

__all__ = ["InternalPower", "Pin", "Sequential", "Cell", "Library", "Units", "WireLoad",
           "parse_library", "read_library"]


@dataclass
class InternalPower:
    """Energy per transition (library energy unit): ``rise``/``fall`` of the output pin for
    an output's group (``related_pin`` names the input), of the pin itself for an input's
    passive group (``related_pin`` None)."""
    related_pin: str | None
    rise: Table | None
    fall: Table | None


@dataclass
class Pin:
    """A cell pin: direction, input capacitance, output function (liberty text) and internal
    power groups."""
    name: str
    direction: str
    capacitance: float = 0.0
    clock: bool = False
    function: str | None = None
    three_state: str | None = None
    internal_power: list[InternalPower] = field(default_factory=list)
    #: The liberty's ``rise_capacitance`` / ``fall_capacitance`` (``capacitance`` where it
    #: gives none): what OpenSTA loads a net with on a rising / falling edge.
    rise_capacitance: float = 0.0
    fall_capacitance: float = 0.0


@dataclass
class Sequential:
    """An ``ff`` or ``latch`` group: state variables ``iq`` / ``iqn`` and their
    expressions (liberty text, None where absent)."""
    kind: str                       # "ff" | "latch"
    iq: str
    iqn: str
    next_state: str | None = None   # ff: next_state; latch: data_in
    clocked_on: str | None = None   # ff: clocked_on; latch: enable
    clear: str | None = None
    preset: str | None = None
    clear_preset_var1: str | None = None
    clear_preset_var2: str | None = None


@dataclass
class Cell:
    """A liberty cell: area, leakage, pins, and its flip-flop or latch (None: combinational)."""
    name: str
    area: float
    leakage: float                  # leakage_power_unit
    pins: dict[str, Pin]
    seq: Sequential | None = None

    @property
    def inputs(self) -> list[str]:
        return [p for p, v in self.pins.items() if v.direction == "input"]

    @property
    def outputs(self) -> list[str]:
        return [p for p, v in self.pins.items() if v.direction in ("output", "inout")]

    @property
    def combinational(self) -> bool:
        return self.seq is None


@dataclass
class Units:
    """The library's units as SI scale factors (and the liberty text they came from)."""
    voltage_v: float
    capacitance_f: float
    time_s: float
    leakage_w: float
    text: dict[str, str]

    @property
    def energy_j(self) -> float:
        """Internal-power table unit: capacitive_load_unit * voltage_unit**2."""
        return self.capacitance_f * self.voltage_v ** 2


@dataclass
class WireLoad:
    """A liberty ``wire_load`` group: capacitance per unit length and ``fanout_length``
    pairs (``slope`` extrapolates past the last fanout)."""
    name: str
    capacitance: float
    slope: float
    fanout_length: dict[int, float]

    def cap(self, fanout: int) -> float:
        if fanout <= 0:
            return 0.0
        if fanout in self.fanout_length:
            length = self.fanout_length[fanout]
        else:
            fmax = max(self.fanout_length) if self.fanout_length else 0
            length = (self.fanout_length.get(fmax, 0.0) + (fanout - fmax) * self.slope)
        return length * self.capacitance


@dataclass
class Library:
    """The cells, units, supply and wire-load models of one liberty ``library``."""
    name: str
    units: Units
    voltage: float                  # nominal supply, voltage unit
    cells: dict[str, Cell]
    wire_loads: dict[str, WireLoad] = field(default_factory=dict)
    default_wire_load: str | None = None


_SI = {"v": 1.0, "mv": 1e-3, "kv": 1e3,
       "s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12, "fs": 1e-15,
       "w": 1.0, "mw": 1e-3, "uw": 1e-6, "nw": 1e-9, "pw": 1e-12,
       "f": 1.0, "pf": 1e-12, "ff": 1e-15, "nf": 1e-9}


def _unit(text: str, default: str) -> float:
    m = re.fullmatch(r"\s*([\d.eE+-]*)\s*([A-Za-z]+)\s*", text or default)
    if not m:
        raise ValueError(f"bad unit {text!r}")
    return float(m.group(1) or 1) * _SI[m.group(2).lower()]


def _num(g: Group, name: str, default: float | None = None) -> float | None:
    v = g.attrs.get(name)
    try:
        return float(v) if v is not None else default
    except ValueError:
        return default


def parse_library(text: str) -> Library:
    """The cells, units and wire loads of the first ``library`` in liberty ``text``."""
    libs = [g for g in parse_groups(text) if g.type == "library"]
    if not libs:
        raise ValueError("no library group in liberty text")
    lib = libs[0]
    units, voltage = _units(lib), _voltage(lib)
    templates = {g.args[0]: g for g in lib.children if g.type.endswith("_template") and g.args}
    cells = {cg.args[0]: _cell(cg, templates) for cg in lib.groups("cell") if cg.args}
    wls = {}
    for wg in lib.groups("wire_load"):
        fl = {int(float(a[0])): float(a[1]) for a in wg.complex.get("fanout_length", [])}
        wls[wg.args[0]] = WireLoad(wg.args[0], _num(wg, "capacitance", 0.0) or 0.0,
                                   _num(wg, "slope", 0.0) or 0.0, fl)
    return Library(name=lib.args[0] if lib.args else "", units=units, voltage=voltage,
                   cells=cells, wire_loads=wls,
                   default_wire_load=lib.attrs.get("default_wire_load"))


def _units(lib: Group) -> Units:
    """The library group's units (defaults 1 V, 1 pF, 1 ns, 1 nW)."""
    cap = lib.complex.get("capacitive_load_unit", [["1", "pf"]])[-1]
    utext = {k: lib.attrs.get(k, "") for k in
             ("voltage_unit", "time_unit", "leakage_power_unit", "current_unit")}
    utext["capacitive_load_unit"] = f"{cap[0]} {cap[1] if len(cap) > 1 else 'pf'}"
    return Units(
        voltage_v=_unit(utext["voltage_unit"], "1V"),
        capacitance_f=float(cap[0]) * _SI[(cap[1] if len(cap) > 1 else "pf").lower()],
        time_s=_unit(utext["time_unit"], "1ns"),
        leakage_w=_unit(utext["leakage_power_unit"], "1nW"),
        text=utext)


def _voltage(lib: Group) -> float:
    """The nominal supply: ``nom_voltage``, else the default operating condition's."""
    voltage = _num(lib, "nom_voltage")
    if voltage is None:
        dflt = lib.attrs.get("default_operating_conditions")
        for oc in lib.groups("operating_conditions"):
            if not dflt or (oc.args and oc.args[0] == dflt):
                voltage = _num(oc, "voltage")
    if voltage is None:
        raise ValueError("liberty has neither nom_voltage nor operating_conditions voltage")
    return voltage


def _cell(cg: Group, templates: dict[str, Group]) -> Cell:
    """One ``cell`` group: its pins (with their internal power) and its state."""
    pins = {}
    for pg in cg.groups("pin"):
        for pname in pg.args:
            cap = _num(pg, "capacitance", 0.0) or 0.0
            pin = Pin(name=pname, direction=pg.attrs.get("direction", "input"),
                      capacitance=cap,
                      rise_capacitance=_num(pg, "rise_capacitance", cap) or cap,
                      fall_capacitance=_num(pg, "fall_capacitance", cap) or cap,
                      clock=pg.attrs.get("clock") == "true",
                      function=pg.attrs.get("function"),
                      three_state=pg.attrs.get("three_state"))
            for ig in pg.groups("internal_power"):
                pin.internal_power += _internal_power(ig, templates)
            pins[pname] = pin
    return Cell(name=cg.args[0], area=_num(cg, "area", 0.0) or 0.0,
                leakage=_num(cg, "cell_leakage_power", 0.0) or 0.0,
                pins=pins, seq=_sequential(cg))


def _internal_power(ig: Group, templates: dict[str, Group]) -> list[InternalPower]:
    """An ``internal_power`` group, one entry per related pin (a ``power`` table serves
    both directions when there are no ``rise_power``/``fall_power``)."""
    rise = [t for t in ig.children if t.type == "rise_power"]
    fall = [t for t in ig.children if t.type == "fall_power"]
    pwr = [t for t in ig.children if t.type == "power"]
    r = _table(rise[0], templates) if rise else (
        _table(pwr[0], templates) if pwr else None)
    f = _table(fall[0], templates) if fall else (
        _table(pwr[0], templates) if pwr else None)
    rel = ig.attrs.get("related_pin")
    return [InternalPower(rp, r, f) for rp in (rel.split() if rel else [None])]


def _sequential(cg: Group) -> Sequential | None:
    """The cell's last ``ff`` or ``latch`` group, or None (combinational)."""
    seq = None
    for kind in ("ff", "latch"):
        for sg in cg.groups(kind):
            a = sg.attrs
            seq = Sequential(
                kind=kind, iq=sg.args[0], iqn=sg.args[1] if len(sg.args) > 1 else
                sg.args[0] + "_N",
                next_state=a.get("next_state") if kind == "ff" else a.get("data_in"),
                clocked_on=a.get("clocked_on") if kind == "ff" else a.get("enable"),
                clear=a.get("clear"), preset=a.get("preset"),
                clear_preset_var1=a.get("clear_preset_var1"),
                clear_preset_var2=a.get("clear_preset_var2"))
    return seq


def _floats(args: list[str]) -> tuple[float, ...]:
    """The numbers of a table's quoted, comma-separated index or values rows."""
    out = []
    for a in args:
        out += [float(x) for x in a.replace(",", " ").split()]
    return tuple(out)


def _table(g: Group, templates: dict[str, Group]) -> Table:
    """A table group, its variables and (unless it has its own) indexes from its
    template."""
    tmpl = templates.get(g.args[0]) if g.args else None
    variables, index = [], []
    for k in ("1", "2", "3"):
        var = (tmpl.attrs.get(f"variable_{k}") if tmpl else None)
        idx = g.complex.get(f"index_{k}") or (tmpl.complex.get(f"index_{k}") if tmpl else None)
        if var is None and idx is None:
            break
        if var is None:
            raise ValueError(f"table {g.type} has index_{k} but its template no variable_{k}")
        variables.append(var)
        index.append(_floats(idx[-1]))
    rows = tuple(_floats([r]) for r in g.complex.get("values", [[]])[-1])
    if len(variables) == 1 and len(rows) > 1:
        rows = (tuple(v for r in rows for v in r),)
    return Table(tuple(variables), tuple(index), rows)


def read_library(path: str) -> Library:
    """:func:`parse_library` of the liberty file at ``path``."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse_library(f.read())
