"""Just enough of a Liberty (.lib) reader for the design-rule checks of the ASIC flow.

What a chip designer checks before believing a static timing figure: every net's load and
slew lie within what the library characterised. Two kinds of limit come from the liberty:

* declared limits: ``max_capacitance`` / ``max_transition`` / ``max_fanout`` on output pins
  (or the library's ``default_max_*``);
* the characterised range: the last load index (``total_output_net_capacitance``) of each
  output pin's delay and transition tables, and the last input-transition index of the
  tables. A load past the last index is extrapolated, not looked up. OSU018 declares
  ``max_capacitance`` (about 1 pF on a DFFPOSX1.Q) far beyond its tables' range (0.15 pF), so
  the range is the binding limit there.

Which index is the load is read from the table's ``lu_table_template`` (``variable_1`` /
``variable_2``), not assumed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Group", "parse_groups", "PinLimits", "LibertyLimits", "read_limits",
           "parse_limits", "limits_tcl", "DELAY_TABLES"]

#: Timing-table groups whose load index bounds the delay / slew a cell is characterised for.
DELAY_TABLES = ("cell_rise", "cell_fall", "rise_transition", "fall_transition")
_CONSTRAINT_TABLES = ("rise_constraint", "fall_constraint")
_LOAD_VARS = ("total_output_net_capacitance",)
_SLEW_VARS = ("input_net_transition", "input_transition_time", "related_pin_transition",
              "constrained_pin_transition")


@dataclass
class Group:
    """A liberty group ``type (args) { ... }``: simple attributes (last one wins), complex
    attributes (``name ("...")``, list of argument lists) and child groups in order."""
    type: str
    args: list[str]
    attrs: dict[str, str] = field(default_factory=dict)
    complex: dict[str, list[list[str]]] = field(default_factory=dict)
    children: list["Group"] = field(default_factory=list)

    def groups(self, type_: str) -> list["Group"]:
        return [g for g in self.children if g.type == type_]


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}();:,]|[^\s{}();:,"]+')


def _tokens(text: str) -> list[str]:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = text.replace("\\\n", " ").replace("\\\r\n", " ")
    return _TOKEN.findall(text)


def _unquote(tok: str) -> str:
    return tok[1:-1] if len(tok) >= 2 and tok[0] == tok[-1] == '"' else tok


def parse_groups(text: str) -> list[Group]:
    """The top-level groups of liberty ``text`` (normally one ``library``)."""
    toks = _tokens(text)
    root = Group("", [])
    stack = [root]
    i, n = 0, len(toks)
    while i < n:
        t = toks[i]
        if t == "}":
            if len(stack) > 1:
                stack.pop()
            i += 1
            continue
        if t in (";", ",", ")", "(", ":", "{"):
            i += 1
            continue
        name = t
        if i + 1 < n and toks[i + 1] == ":":          # simple attribute: name : value ;
            j = i + 2
            vals = []
            while j < n and toks[j] not in (";", "}"):
                vals.append(_unquote(toks[j]))
                j += 1
            stack[-1].attrs[name] = " ".join(vals)
            i = j + 1 if j < n and toks[j] == ";" else j
            continue
        if i + 1 < n and toks[i + 1] == "(":          # group or complex attribute
            j = i + 2
            args = []
            while j < n and toks[j] != ")":
                if toks[j] != ",":
                    args.append(_unquote(toks[j]))
                j += 1
            j += 1
            if j < n and toks[j] == "{":
                g = Group(name, args)
                stack[-1].children.append(g)
                stack.append(g)
                i = j + 1
            else:
                stack[-1].complex.setdefault(name, []).append(args)
                i = j + 1 if j < n and toks[j] == ";" else j
            continue
        i += 1
    return root.children


def _floats(args: list[str]) -> list[float]:
    out = []
    for a in args:
        out += [float(x) for x in a.replace(",", " ").split()]
    return out


@dataclass
class PinLimits:
    """Limits of one output pin of one cell (pF, ns; None where undefined)."""
    max_capacitance: float | None = None
    max_transition: float | None = None
    max_fanout: float | None = None
    #: the smallest last load index over the pin's delay/transition tables
    table_max_load: float | None = None


@dataclass
class LibertyLimits:
    """Per ``(cell, output pin)`` limits, and the library-wide characterised slew range
    (the smallest last input-transition index over the delay and constraint tables)."""
    pins: dict[tuple[str, str], PinLimits]
    table_max_slew: float | None
    cap_unit_pf: float
    time_unit_ns: float


def _cap_unit_pf(lib: Group) -> float:
    args = lib.complex.get("capacitive_load_unit", [["1", "pf"]])[-1]
    scale = float(args[0]) if args else 1.0
    unit = args[1].lower() if len(args) > 1 else "pf"
    return scale * {"pf": 1.0, "ff": 1e-3, "nf": 1e3}.get(unit, 1.0)


def _time_unit_ns(lib: Group) -> float:
    m = re.fullmatch(r"\s*([\d.]*)\s*(ps|ns|us)\s*", lib.attrs.get("time_unit", "1ns"))
    if not m:
        return 1.0
    return float(m.group(1) or 1) * {"ps": 1e-3, "ns": 1.0, "us": 1e3}[m.group(2)]


def _table_ranges(table: Group, templates: dict[str, Group]) -> tuple[float | None,
                                                                     float | None]:
    """(last load index, last transition index) of one lookup table, by its template."""
    tmpl = templates.get(table.args[0]) if table.args else None
    if tmpl is None:
        return None, None
    load = slew = None
    for k in ("1", "2", "3"):
        var = tmpl.attrs.get(f"variable_{k}")
        idx = table.complex.get(f"index_{k}") or tmpl.complex.get(f"index_{k}")
        if var is None or not idx:
            continue
        vals = _floats(idx[-1])
        if not vals:
            continue
        if var in _LOAD_VARS:
            load = max(vals)
        elif var in _SLEW_VARS:
            slew = max(vals)
    return load, slew


def _min(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else min(a, b)


def _num(g: Group, name: str) -> float | None:
    v = g.attrs.get(name)
    try:
        return float(v) if v is not None else None
    except ValueError:
        return None


def parse_limits(text: str) -> LibertyLimits:
    """Output-pin limits and table ranges of the (first) library in liberty ``text``; loads
    in pF and times in ns whatever the library's units."""
    libs = [g for g in parse_groups(text) if g.type == "library"]
    if not libs:
        raise ValueError("no library group in liberty text")
    lib = libs[0]
    cu, tu = _cap_unit_pf(lib), _time_unit_ns(lib)
    templates = {g.args[0]: g for g in lib.children
                 if g.type.endswith("_template") and g.args}
    d_cap, d_tr = _num(lib, "default_max_capacitance"), _num(lib, "default_max_transition")
    d_fo = _num(lib, "default_max_fanout")
    pins: dict[tuple[str, str], PinLimits] = {}
    max_slew = None

    def scaled(v, unit):
        return None if v is None else v * unit

    for cell in lib.groups("cell"):
        if not cell.args:
            continue
        cname = cell.args[0]
        for pin in cell.groups("pin"):
            for t in pin.groups("timing"):
                for tbl in t.children:
                    if tbl.type in DELAY_TABLES or tbl.type in _CONSTRAINT_TABLES:
                        _, s = _table_ranges(tbl, templates)
                        max_slew = _min(max_slew, scaled(s, tu))
            if pin.attrs.get("direction") not in ("output", "inout"):
                continue
            lim = PinLimits(
                max_capacitance=scaled(_num(pin, "max_capacitance") or d_cap, cu),
                max_transition=scaled(_num(pin, "max_transition") or d_tr, tu),
                max_fanout=_num(pin, "max_fanout") or d_fo)
            for t in pin.groups("timing"):
                for tbl in t.children:
                    if tbl.type in DELAY_TABLES:
                        load, _ = _table_ranges(tbl, templates)
                        lim.table_max_load = _min(lim.table_max_load, scaled(load, cu))
            for name in pin.args:
                pins[(cname, name)] = lim
    return LibertyLimits(pins=pins, table_max_slew=max_slew, cap_unit_pf=cu, time_unit_ns=tu)


def read_limits(path: str) -> LibertyLimits:
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse_limits(f.read())


def limits_tcl(limits: LibertyLimits) -> str:
    """``drv_limits.tcl`` for ``drv.tcl``: per output pin ``{max_capacitance table_max_load
    max_fanout}`` (pF, ``-`` where the liberty defines none) and the characterised slew
    range (ns)."""
    def f(v):
        return "-" if v is None else f"{v:.6g}"

    lines = ["# written by termwise.synth.asic from the liberty (termwise.synth.liberty)"]
    for (cell, pin), lim in sorted(limits.pins.items()):
        lines.append(f"set termwise_drv_pin({cell}/{pin}) "
                     f"{{{f(lim.max_capacitance)} {f(lim.table_max_load)} {f(lim.max_fanout)}}}")
    lines.append(f"set termwise_drv_slew {f(limits.table_max_slew)}")
    return "\n".join(lines) + "\n"
