"""The structural netlist yosys writes (``write_verilog -noattr -noexpr -simple-lhs``), read
bit by bit: its modules, their declarations, instances and ``assign`` statements, and the
nets they form, within a module and across its submodules' ports.

A bit is ``(wire, index)`` (a scalar wire has index 0, or its declared index) or a constant
``("'", "0"|"1"|"x"|"z")``; connections are lists of bits, most significant first. The
fanout buffering (:mod:`.buffer`) and the power computation
(:mod:`termwise.synth.power.compute`) read netlists through this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Instance", "Module", "UnionFind", "parse_netlist", "module_order", "bits_of",
           "bit_text", "bit_range", "sub_bits", "module_nets", "output_aliases",
           "bottom_up", "port_nets"]

_TOK = re.compile(r"\\\S+|[A-Za-z_$][\w$]*|\d+'[bBhHdDoO][0-9a-fA-FxXzZ_]+|\d+|[^\s]")
_DECL = re.compile(r"^\s*(input|output|inout|wire)\s+(?:\[(-?\d+):(-?\d+)\]\s+)?(\\\S+|\S+?)\s*;")


@dataclass
class Instance:
    """One instance in a module body: a liberty cell or a submodule."""
    type: str
    name: str
    conns: dict[str, list]           # pin -> bits (MSB first); a bit is (wire, idx) or "const"
    text_span: tuple[int, int]       # line span in the module body


@dataclass
class Module:
    """One module definition: its header text, body lines and what they declare."""
    name: str
    header: str
    ports: list[str]
    dirs: dict[str, str] = field(default_factory=dict)
    widths: dict[str, tuple[int, int]] = field(default_factory=dict)   # name -> (msb, lsb)
    insts: list[Instance] = field(default_factory=list)
    assigns: list[tuple[list, list]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    vectors: set = field(default_factory=set)


def _constant_bits(token: str) -> list:
    """The bits of a sized constant (``8'b0000_0001``, ``4'hf``), most significant first."""
    width, val = token.split("'")
    base, digits = val[0].lower(), val[1:].replace("_", "")
    if base == "b":
        vb = digits
    else:
        vb = format(int(digits, {"h": 16, "d": 10, "o": 8}[base]), "b")
    vb = vb.rjust(int(width), "0")[-int(width):]
    return [("'", c) for c in vb]


def bits_of(tokens: list[str], mod: Module) -> list:
    """Bits (MSB first) of a connection expression's tokens."""
    out = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t in ("{", "}", ","):
            i += 1
            continue
        if "'" in t:                                         # sized constant
            out += _constant_bits(t)
            i += 1
            continue
        if t[0].isdigit():
            out += [("'", c) for c in format(int(t), "b")]
            i += 1
            continue
        name = t
        msb, lsb = mod.widths.get(name, (0, 0))
        if i + 1 < len(tokens) and tokens[i + 1] == "[":
            j = tokens.index("]", i)
            inner = "".join(tokens[i + 2:j])
            if ":" in inner:
                a, b = (int(x) for x in inner.split(":"))
            else:
                a = b = int(inner)
            step = -1 if a >= b else 1
            out += [(name, k) for k in range(a, b + step, step)]
            i = j + 1
        else:
            step = -1 if msb >= lsb else 1
            out += [(name, k) for k in range(msb, lsb + step, step)]
            i += 1
    return out


#: An instance's connection line: ``.pin(bits)``; with escaped pin names (yosys writes
#: ``.\\port$85$0 (\\$40 )`` for an Amaranth port without a name of its own).
_CONN = re.compile(r"^\s*\.(\w+)\((.*)\),?\s*$")
_CONN_ESCAPED = re.compile(r"^\s*\.(\\\S+|\w+)\s*\((.*)\),?\s*$")


def parse_netlist(text: str, escaped_pins: bool = False) -> list[Module]:
    """The modules of the netlist ``text``, in file order (names without a leading
    backslash).

    ``escaped_pins``: read an instance's connections to escaped port names too. False (the
    synthesis flow's fanout buffering, whose shipped netlists were made so) drops them: a
    net entering a submodule through such a port is then two nets, the parent's driver not
    seeing the loads inside (to the power computation before POWER_FLOW_VERSION 5,
    baseline-4x4 with macros and gating: 0.07 mW of 12.41 mW switching power charged as
    undriven port switching instead, docs/energy.md). The power computation
    (:class:`.power.compute.Flat`) and :mod:`.power.levelsim` read every connection."""
    mods = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("module "):
            i += 1
            continue
        head = line
        while not head.rstrip().endswith(";"):
            i += 1
            head += "\n" + lines[i]
        m = re.match(r"module\s+(\\\S+|\S+?)\s*\((.*)\)\s*;", head, re.S)
        name = m.group(1)
        ports = [p.strip() for p in m.group(2).split(",") if p.strip()]
        mod = Module(name=name.lstrip("\\"), header=head, ports=ports)
        i += 1
        body_start = i
        while not lines[i].startswith("endmodule"):
            i += 1
        mod.lines = lines[body_start:i]
        _parse_body(mod, _CONN_ESCAPED if escaped_pins else _CONN)
        mods.append(mod)
        i += 1
    return mods


def _parse_body(mod: Module, conn=_CONN) -> None:
    """Fill ``mod``'s declarations, assigns and instances from its body lines (``conn``:
    the connection line's pattern)."""
    lines = mod.lines
    k = 0
    n = len(lines)
    while k < n:
        line = lines[k]
        d = _DECL.match(line)
        if d:
            _declare(mod, *d.groups())
            k += 1
            continue
        s = line.strip()
        if s.startswith("assign "):
            stmt = s
            while not stmt.endswith(";"):
                k += 1
                stmt += " " + lines[k].strip()
            lhs, rhs = stmt[len("assign "):-1].split("=", 1)
            mod.assigns.append((bits_of(_TOK.findall(lhs), mod), bits_of(_TOK.findall(rhs), mod)))
            k += 1
            continue
        m = re.match(r"^\s*(\\\S+|[A-Za-z_]\S*)\s+(\\\S+|\S+)\s*\($", line)
        if m:
            start = k
            conns = {}
            k += 1
            while lines[k].strip() != ");":
                c = conn.match(lines[k])
                if c:
                    conns[c.group(1)] = _TOK.findall(c.group(2))
                k += 1
            mod.insts.append(Instance(m.group(1).lstrip("\\"), m.group(2), conns, (start, k)))
            k += 1
            continue
        k += 1
    # connections are read once every declaration is known (widths of wires declared later)
    for inst in mod.insts:
        inst.conns = {p: bits_of(toks, mod) for p, toks in inst.conns.items()}


def _declare(mod: Module, kind: str, msb: str | None, lsb: str | None, name: str) -> None:
    """Record one ``input``/``output``/``inout``/``wire`` declaration."""
    if kind != "wire":
        mod.dirs[name] = kind
    if msb is not None:
        mod.widths[name] = (int(msb), int(lsb))
        mod.vectors.add(name)
    else:
        mod.widths.setdefault(name, (0, 0))


def module_order(text: str) -> list[str]:
    """The module names of ``text`` in file order, without parsing their bodies."""
    return [m.group(1).lstrip("\\") for m in
            re.finditer(r"^module\s+(\\\S+|[^\s(]+)", text, re.M)]


class UnionFind:
    """Disjoint sets of hashable items (the bits of one net), with path compression."""

    def __init__(self):
        self.p = {}

    def find(self, x):
        """The representative of ``x``'s set (``x`` itself if never joined)."""
        p = self.p
        root = x
        while p.get(root, root) != root:
            root = p[root]
        while p.get(x, x) != root:
            p[x], x = root, p[x]
        return root

    def union(self, a, b):
        """Join the sets of ``a`` and ``b`` (``b``'s representative stays)."""
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.p[ra] = rb


def bit_text(bit, mod: Module) -> str:
    """Verilog text of ``bit`` in ``mod`` (an escaped name keeps its terminating space)."""
    name, idx = bit
    if name == "'":
        return f"1'b{idx}"
    sep = " " if name.startswith("\\") else ""
    if name not in mod.vectors:
        return name + sep
    return f"{name}{sep}[{idx}]"


def bit_range(mod: Module, port: str) -> list[int]:
    """The bit indexes of ``port``, in declaration order (msb first)."""
    msb, lsb = mod.widths.get(port, (0, 0))
    step = -1 if msb >= lsb else 1
    return list(range(msb, lsb + step, step))


def sub_bits(sub_mod: Module, pin: str, width: int) -> list[tuple[str, int]]:
    """The port bits ``(pin, index)`` of submodule ``sub_mod`` that an instance's ``width``
    connected bits of ``pin`` meet, in connection order."""
    msb, lsb = sub_mod.widths.get(pin, (0, 0))
    if width == 1 and msb == lsb:
        return [(pin, msb)]
    return [(pin, k) for k in bit_range(sub_mod, pin)][:width]


def module_nets(mod: Module, mods: dict, port_alias: dict) -> UnionFind:
    """The nets of ``mod``: its assigns, and the bits of a submodule's output ports that are
    one net inside it (``port_alias`` of the submodules, :func:`output_aliases`)."""
    uf = UnionFind()
    for lhs, rhs in mod.assigns:
        for a, b in zip(lhs, rhs):
            if a[0] != "'" and b[0] != "'":
                uf.union(a, b)
    for inst in mod.insts:
        if inst.type not in mods:
            continue
        first: dict = {}
        for pin, bits in inst.conns.items():
            for bit, sub_bit in zip(bits, sub_bits(mods[inst.type], pin, len(bits))):
                inner = port_alias[inst.type].get(sub_bit)
                if inner is not None and bit[0] != "'":
                    uf.union(bit, first.setdefault(inner, bit))
    return uf


def output_aliases(mod: Module, uf: UnionFind) -> dict:
    """``{output port bit: its net}`` of ``mod`` (bits on one net share it)."""
    return {(port, k): uf.find((port, k)) for port, d in mod.dirs.items() if d == "output"
            for k in bit_range(mod, port)}


def bottom_up(mods: dict, top: str | None = None) -> list[str]:
    """Every module name (or those under ``top``), each after the modules it
    instantiates."""
    order, seen = [], set()

    def visit(name):
        if name in seen or name not in mods:
            return
        seen.add(name)
        for inst in mods[name].insts:
            visit(inst.type)
        order.append(name)

    for name in (mods if top is None else [top]):
        visit(name)
    return order


def port_nets(mod: Module, uf: UnionFind, direction: str):
    """The nets (``uf`` roots) of every bit of ``mod``'s ports of ``direction``."""
    for port, d in mod.dirs.items():
        if d != direction:
            continue
        for k in bit_range(mod, port):
            yield uf.find((port, k))
