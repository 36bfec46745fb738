"""The cells of a liberty library as the power flow needs them, and behavioural Verilog models
of them for gate-level simulation.

Read from the liberty (the group parser of :mod:`termwise.synth.liberty`):

* per pin: ``direction``, ``capacitance``, ``clock``, an output's ``function`` and
  ``three_state``;
* flip-flop and latch groups: ``ff (IQ, IQN)`` with ``next_state``, ``clocked_on``,
  ``clear``, ``preset``, ``clear_preset_var1/2``; ``latch (IQ, IQN)`` with ``data_in``,
  ``enable``, ``clear``, ``preset``;
* ``internal_power`` groups: on an output pin, per ``related_pin``, the ``rise_power`` and
  ``fall_power`` tables (energy per output transition against output load and input
  transition, read through their ``power_lut_template``); on an input pin (no related pin),
  the passive tables (energy per input transition against input transition);
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

Verilog models (:func:`verilog_models`): one module per cell, ports named as the liberty
pins; a combinational output is a continuous assignment of its ``function``; a
``three_state`` output drives ``1'bz`` while the three-state condition is true; a flip-flop
is an ``always`` block on the rising edge of its ``clocked_on`` expression and of its
(asynchronous) ``clear``/``preset`` expressions; when clear and preset are both active the
state follows ``clear_preset_var1/2`` (``L``/``H``; ``N``, ``T`` and ``X`` keep the state),
and releasing one of them leaves the other in force;
a latch is transparent while ``enable`` is true. Verilator is two-state: a three-state
output that is off reads 0 there (the flow's ABC mapping uses no three-state cells). The models are zero-delay: they give
toggle counts without glitches (a gate-level simulation with delays would count glitch
toggles too; this flow does not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..liberty import Group, parse_groups

__all__ = ["Table", "InternalPower", "Pin", "Sequential", "Cell", "Library", "Units",
           "parse_function", "eval_function", "function_verilog", "function_vars",
           "parse_library", "read_library", "verilog_models", "lookup"]


# --------------------------------------------------------------------------- functions
_FTOK = re.compile(r"\s*([A-Za-z_][\w\[\]\.]*|[01]|[!'()+|&*^])")


def _ftokens(text: str) -> list[str]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _FTOK.match(text, pos)
        if not m:
            if text[pos:].strip() == "":
                break
            raise ValueError(f"bad liberty function {text!r} at {pos}")
        out.append(m.group(1))
        pos = m.end()
    return out


def parse_function(text: str):
    """A liberty Boolean ``function`` as a tree of tuples: ``("var", name)``, ``("const",
    0|1)``, ``("not", x)``, ``("and"|"or"|"xor", a, b)``. Precedence (liberty): ``!`` and
    postfix ``'`` first, then ``^``, then ``&`` / ``*`` / juxtaposition, then ``|`` / ``+``."""
    toks = _ftokens(text)
    pos = 0

    def peek():
        return toks[pos] if pos < len(toks) else None

    def take():
        nonlocal pos
        pos += 1
        return toks[pos - 1]

    def starts_operand(t):
        return t is not None and (t in ("!", "(", "0", "1") or re.match(r"[A-Za-z_]", t))

    def p_or():
        a = p_and()
        while peek() in ("+", "|"):
            take()
            a = ("or", a, p_and())
        return a

    def p_and():
        a = p_xor()
        while True:
            t = peek()
            if t in ("&", "*"):
                take()
                a = ("and", a, p_xor())
            elif starts_operand(t):
                a = ("and", a, p_xor())
            else:
                return a

    def p_xor():
        a = p_unary()
        while peek() == "^":
            take()
            a = ("xor", a, p_unary())
        return a

    def p_unary():
        if peek() == "!":
            take()
            return ("not", p_unary())
        x = p_primary()
        while peek() == "'":
            take()
            x = ("not", x)
        return x

    def p_primary():
        t = take() if peek() is not None else None
        if t == "(":
            x = p_or()
            if peek() != ")":
                raise ValueError(f"unbalanced parentheses in {text!r}")
            take()
            return x
        if t in ("0", "1"):
            return ("const", int(t))
        if t is None or not re.match(r"[A-Za-z_]", t):
            raise ValueError(f"unexpected {t!r} in liberty function {text!r}")
        return ("var", t)

    tree = p_or()
    if pos != len(toks):
        raise ValueError(f"trailing tokens in liberty function {text!r}")
    return tree


def eval_function(tree, env: dict[str, int]) -> int:
    op = tree[0]
    if op == "var":
        return int(env[tree[1]]) & 1
    if op == "const":
        return tree[1]
    if op == "not":
        return 1 - eval_function(tree[1], env)
    a, b = eval_function(tree[1], env), eval_function(tree[2], env)
    return {"and": a & b, "or": a | b, "xor": a ^ b}[op]


def function_verilog(tree) -> str:
    op = tree[0]
    if op == "var":
        return tree[1]
    if op == "const":
        return f"1'b{tree[1]}"
    if op == "not":
        return f"~{function_verilog(tree[1])}"
    sym = {"and": "&", "or": "|", "xor": "^"}[op]
    return f"({function_verilog(tree[1])} {sym} {function_verilog(tree[2])})"


def function_vars(tree) -> set[str]:
    if tree[0] == "var":
        return {tree[1]}
    if tree[0] == "const":
        return set()
    return set().union(*(function_vars(t) for t in tree[1:]))


# --------------------------------------------------------------------------- tables
@dataclass
class Table:
    """A lookup table: ``values[i][j]`` at ``index_1[i]``, ``index_2[j]``; ``variables`` are
    the template's ``variable_1/2`` names (a 1-D table has one index and one variable)."""
    variables: tuple[str, ...]
    index: tuple[tuple[float, ...], ...]
    values: tuple[tuple[float, ...], ...]     # 1-D tables: one row

    def at(self, **by_variable: float) -> float:
        """Value at the given variables (``total_output_net_capacitance=...``,
        ``input_transition_time=...``), linearly interpolated, and extrapolated past the
        ends, as OpenSTA does."""
        xs = []
        for v in self.variables:
            if v not in by_variable:
                raise KeyError(f"table needs {v}")
            xs.append(by_variable[v])
        if len(self.variables) == 1:
            return _interp1(self.index[0], self.values[0], xs[0])
        rows = [_interp1(self.index[1], row, xs[1]) for row in self.values]
        return _interp1(self.index[0], rows, xs[0])

    def in_range(self, **by_variable: float) -> bool:
        return all(ix[0] <= by_variable[v] <= ix[-1]
                   for v, ix in zip(self.variables, self.index))


def _interp1(xs, ys, x: float) -> float:
    if len(xs) == 1:
        return ys[0]
    k = 0
    while k < len(xs) - 2 and x > xs[k + 1]:
        k += 1
    x0, x1, y0, y1 = xs[k], xs[k + 1], ys[k], ys[k + 1]
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


def lookup(table: Table, load: float, slew: float) -> float:
    """A power table at ``load`` (capacitance unit) and ``slew`` (time unit), whichever of
    them the table's template names."""
    args = {}
    for v in table.variables:
        if v == "total_output_net_capacitance":
            args[v] = load
        elif v in ("input_transition_time", "input_net_transition", "related_pin_transition"):
            args[v] = slew
        else:
            raise KeyError(f"unsupported power table variable {v}")
    return table.at(**args)


def _floats(args: list[str]) -> tuple[float, ...]:
    out = []
    for a in args:
        out += [float(x) for x in a.replace(",", " ").split()]
    return tuple(out)


def _table(g: Group, templates: dict[str, Group]) -> Table:
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


# --------------------------------------------------------------------------- cells
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
    name: str
    direction: str
    capacitance: float = 0.0
    clock: bool = False
    function: str | None = None
    three_state: str | None = None
    internal_power: list[InternalPower] = field(default_factory=list)


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
    cap = lib.complex.get("capacitive_load_unit", [["1", "pf"]])[-1]
    utext = {k: lib.attrs.get(k, "") for k in
             ("voltage_unit", "time_unit", "leakage_power_unit", "current_unit")}
    utext["capacitive_load_unit"] = f"{cap[0]} {cap[1] if len(cap) > 1 else 'pf'}"
    units = Units(
        voltage_v=_unit(utext["voltage_unit"], "1V"),
        capacitance_f=float(cap[0]) * _SI[(cap[1] if len(cap) > 1 else "pf").lower()],
        time_s=_unit(utext["time_unit"], "1ns"),
        leakage_w=_unit(utext["leakage_power_unit"], "1nW"),
        text=utext)
    voltage = _num(lib, "nom_voltage")
    if voltage is None:
        dflt = lib.attrs.get("default_operating_conditions")
        for oc in lib.groups("operating_conditions"):
            if not dflt or (oc.args and oc.args[0] == dflt):
                voltage = _num(oc, "voltage")
    if voltage is None:
        raise ValueError("liberty has neither nom_voltage nor operating_conditions voltage")
    templates = {g.args[0]: g for g in lib.children if g.type.endswith("_template") and g.args}
    cells = {}
    for cg in lib.groups("cell"):
        if not cg.args:
            continue
        pins = {}
        for pg in cg.groups("pin"):
            for pname in pg.args:
                pin = Pin(name=pname, direction=pg.attrs.get("direction", "input"),
                          capacitance=_num(pg, "capacitance", 0.0) or 0.0,
                          clock=pg.attrs.get("clock") == "true",
                          function=pg.attrs.get("function"),
                          three_state=pg.attrs.get("three_state"))
                for ig in pg.groups("internal_power"):
                    rise = [t for t in ig.children if t.type == "rise_power"]
                    fall = [t for t in ig.children if t.type == "fall_power"]
                    pwr = [t for t in ig.children if t.type == "power"]
                    r = _table(rise[0], templates) if rise else (
                        _table(pwr[0], templates) if pwr else None)
                    f = _table(fall[0], templates) if fall else (
                        _table(pwr[0], templates) if pwr else None)
                    rel = ig.attrs.get("related_pin")
                    for rp in (rel.split() if rel else [None]):
                        pin.internal_power.append(InternalPower(rp, r, f))
                pins[pname] = pin
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
        cells[cg.args[0]] = Cell(name=cg.args[0], area=_num(cg, "area", 0.0) or 0.0,
                                 leakage=_num(cg, "cell_leakage_power", 0.0) or 0.0,
                                 pins=pins, seq=seq)
    wls = {}
    for wg in lib.groups("wire_load"):
        fl = {int(float(a[0])): float(a[1]) for a in wg.complex.get("fanout_length", [])}
        wls[wg.args[0]] = WireLoad(wg.args[0], _num(wg, "capacitance", 0.0) or 0.0,
                                   _num(wg, "slope", 0.0) or 0.0, fl)
    return Library(name=lib.args[0] if lib.args else "", units=units, voltage=voltage,
                   cells=cells, wire_loads=wls,
                   default_wire_load=lib.attrs.get("default_wire_load"))


def read_library(path: str) -> Library:
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse_library(f.read())


# --------------------------------------------------------------------------- Verilog
def _cpv(v: str | None, iq: str) -> str | None:
    """State value when clear and preset are both active (None: keep)."""
    return {"L": "1'b0", "H": "1'b1"}.get((v or "").upper())


def _cell_verilog(cell: Cell) -> str:
    ports = list(cell.pins)
    lines = [f"module {cell.name} ({', '.join(ports)});"]
    for p in ports:
        d = cell.pins[p].direction
        lines.append(f"  {'output' if d in ('output', 'inout') else 'input'} {p};")
    s = cell.seq
    if s is not None:
        fx = lambda t: function_verilog(parse_function(t))   # noqa: E731
        lines.append(f"  reg {s.iq}, {s.iqn};")
        trig = []
        if s.clear:
            lines.append(f"  wire clr__ = {fx(s.clear)};")
        if s.preset:
            lines.append(f"  wire pre__ = {fx(s.preset)};")
        v1 = _cpv(s.clear_preset_var1, s.iq)
        v2 = _cpv(s.clear_preset_var2, s.iqn)
        both = []
        if s.clear and s.preset:
            both = [f"    if (clr__ && pre__) begin"]
            both += [f"      {s.iq} <= {v1};"] if v1 else []
            both += [f"      {s.iqn} <= {v2};"] if v2 else []
            both += ["    end else"]
        clr = ([f"    if (clr__) begin {s.iq} <= 1'b0; {s.iqn} <= 1'b1; end else"]
               if s.clear else [])
        pre = ([f"    if (pre__) begin {s.iq} <= 1'b1; {s.iqn} <= 1'b0; end else"]
               if s.preset else [])
        nxt = fx(s.next_state) if s.next_state else s.iq
        upd = [f"    begin {s.iq} <= {nxt}; {s.iqn} <= ~({nxt}); end"]
        if s.kind == "ff":
            lines.append(f"  wire clk__ = {fx(s.clocked_on)};")
            trig = ["posedge clk__"] + (["posedge clr__"] if s.clear else []) + \
                   (["posedge pre__"] if s.preset else [])
            lines.append(f"  always @({' or '.join(trig)})")
            lines += both + clr + pre + upd
            if s.clear and s.preset:
                # releasing one of two active asynchronous inputs leaves the other in force
                lines.append(f"  always @(negedge clr__) if (pre__) begin {s.iq} <= 1'b1; "
                             f"{s.iqn} <= 1'b0; end")
                lines.append(f"  always @(negedge pre__) if (clr__) begin {s.iq} <= 1'b0; "
                             f"{s.iqn} <= 1'b1; end")
        else:
            lines.append(f"  wire en__ = {fx(s.clocked_on)};")
            lines.append("  always @*")
            lines += both + clr + pre + ["    if (en__)"] + ["  " + upd[0]]
    for p in cell.outputs:
        pin = cell.pins[p]
        if pin.function is None:
            continue
        f = function_verilog(parse_function(pin.function))
        if pin.three_state:
            t = function_verilog(parse_function(pin.three_state))
            lines.append(f"  assign {p} = ({t}) ? 1'bz : {f};")
        else:
            lines.append(f"  assign {p} = {f};")
    lines.append("endmodule")
    return "\n".join(lines) + "\n"


def verilog_models(lib: Library, cells: list[str] | None = None) -> str:
    """Behavioural Verilog of ``cells`` (default: every cell of ``lib``), zero-delay, for
    Verilator: ``/* verilator lint_off ... */`` around them for the latch and the
    multi-driven state, and ``tracing_off`` (back on after them): a cell's pins are the
    netlist's nets, which the SAIF has under the nets' own names, so tracing every cell's
    pins again (three to five signals per cell) only grows the model. Measured on
    diffy-16x16's row (250k cells): Verilator's peak 9.2 -> 5.4 GB, verilation 7.7 -> 5.8
    min, generated C++ 821 -> 555 MB."""
    names = sorted(lib.cells) if cells is None else sorted(set(cells))
    missing = [n for n in names if n not in lib.cells]
    if missing:
        raise KeyError(f"cells not in the liberty: {missing}")
    body = "".join(_cell_verilog(lib.cells[n]) for n in names)
    return ("// Behavioural models of liberty cells, written by termwise.synth.power.cells\n"
            "/* verilator lint_off LATCH */\n/* verilator lint_off COMBDLY */\n"
            "/* verilator lint_off MULTIDRIVEN */\n/* verilator lint_off DECLFILENAME */\n"
            "/* verilator lint_off UNUSEDSIGNAL */\n/* verilator tracing_off */\n"
            f"{body}"
            "/* verilator tracing_on */\n"
            "/* verilator lint_on LATCH */\n/* verilator lint_on COMBDLY */\n"
            "/* verilator lint_on MULTIDRIVEN */\n")
