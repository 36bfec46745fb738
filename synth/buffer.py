"""Fanout buffering across the hierarchy, on the netlist yosys writes (``write_verilog
-noattr -noexpr -simple-lhs``).

ABC buffers inside one module at a time and never sees a net that leaves its module: a flop
in the array driving a port of every PE, or a sequencer output broadcast to every PE, reaches
OpenSTA as one net with tens of pF on a cell characterised to 0.15 pF. This pass computes,
bottom up, the load each module presents on each input-port bit (liberty pin capacitances,
no wire load, as in the STA), then in every module puts a tree of buffers on

* every net driven by a liberty cell whose load exceeds ``margin`` x the last load index of
  the driver's delay tables (the characterised range, :mod:`.liberty`), and
* every net driven from outside the module (an input port, or an output of a submodule)
  whose load in this module exceeds ``port_load_pf``: the tree's root is then one buffer
  input, whatever drives the net.

Buffers are inserted into the module definition, so they count once per instance, like
every other cell; the area is re-measured by yosys ``stat`` on the buffered netlist. Clock
nets (those reaching a flop's clock pin) are left alone: the STA clock is ideal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .liberty import parse_groups

__all__ = ["buffer_netlist", "input_pin_caps", "check_rewiring", "BUFFER_CELL"]

BUFFER_CELL = ("BUFX4", "A", "Y")

_TOK = re.compile(r"\\\S+|[A-Za-z_$][\w$]*|\d+'[bBhHdDoO][0-9a-fA-FxXzZ_]+|\d+|[^\s]")


def input_pin_caps(liberty_text: str) -> tuple[dict[tuple[str, str], float], set[tuple[str, str]],
                                               dict[str, float]]:
    """(input pin capacitance in library units by (cell, pin), clock pins, cell areas)."""
    lib = [g for g in parse_groups(liberty_text) if g.type == "library"][0]
    caps, clocks, areas = {}, set(), {}
    for cell in lib.groups("cell"):
        name = cell.args[0]
        try:
            areas[name] = float(cell.attrs.get("area", "0"))
        except ValueError:
            areas[name] = 0.0
        for pin in cell.groups("pin"):
            if pin.attrs.get("direction") != "input":
                continue
            for p in pin.args:
                caps[(name, p)] = float(pin.attrs.get("capacitance", "0") or 0)
                if pin.attrs.get("clock") == "true":
                    clocks.add((name, p))
    return caps, clocks, areas


@dataclass
class _Inst:
    type: str
    name: str
    conns: dict[str, list]           # pin -> bits (MSB first); a bit is (wire, idx) or "const"
    text_span: tuple[int, int]       # line span in the module body


@dataclass
class _Module:
    name: str
    header: str
    ports: list[str]
    dirs: dict[str, str] = field(default_factory=dict)
    widths: dict[str, tuple[int, int]] = field(default_factory=dict)   # name -> (msb, lsb)
    insts: list[_Inst] = field(default_factory=list)
    assigns: list[tuple[list, list]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    vectors: set = field(default_factory=set)


def _bits_of(tokens: list[str], mod: _Module) -> list:
    """Bits (MSB first) of a connection expression's tokens."""
    out = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t in ("{", "}", ","):
            i += 1
            continue
        if "'" in t:                                         # sized constant
            width, val = t.split("'")
            base, digits = val[0].lower(), val[1:].replace("_", "")
            if base == "b":
                vb = digits
            else:
                vb = format(int(digits, {"h": 16, "d": 10, "o": 8}[base]), "b")
            vb = vb.rjust(int(width), "0")[-int(width):]
            out += [("'", c) for c in vb]
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


_DECL = re.compile(r"^\s*(input|output|inout|wire)\s+(?:\[(-?\d+):(-?\d+)\]\s+)?(\\\S+|\S+?)\s*;")


def _parse(text: str) -> list[_Module]:
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
        mod = _Module(name=name.lstrip("\\"), header=head, ports=ports)
        i += 1
        body_start = i
        while not lines[i].startswith("endmodule"):
            i += 1
        mod.lines = lines[body_start:i]
        _parse_body(mod)
        mods.append(mod)
        i += 1
    return mods


def _parse_body(mod: _Module) -> None:
    lines = mod.lines
    k = 0
    n = len(lines)
    while k < n:
        line = lines[k]
        d = _DECL.match(line)
        if d:
            kind, msb, lsb, name = d.groups()
            if kind != "wire":
                mod.dirs[name] = kind
            if msb is not None:
                mod.widths[name] = (int(msb), int(lsb))
                mod.vectors.add(name)
            else:
                mod.widths.setdefault(name, (0, 0))
            k += 1
            continue
        s = line.strip()
        if s.startswith("assign "):
            stmt = s
            while not stmt.endswith(";"):
                k += 1
                stmt += " " + lines[k].strip()
            lhs, rhs = stmt[len("assign "):-1].split("=", 1)
            mod.assigns.append((_bits_of(_TOK.findall(lhs), mod), _bits_of(_TOK.findall(rhs), mod)))
            k += 1
            continue
        m = re.match(r"^\s*(\\\S+|[A-Za-z_]\S*)\s+(\\\S+|\S+)\s*\($", line)
        if m:
            start = k
            conns = {}
            k += 1
            while lines[k].strip() != ");":
                c = re.match(r"^\s*\.(\w+)\((.*)\),?\s*$", lines[k])
                if c:
                    conns[c.group(1)] = _TOK.findall(c.group(2))
                k += 1
            mod.insts.append(_Inst(m.group(1).lstrip("\\"), m.group(2), conns, (start, k)))
            k += 1
            continue
        k += 1
    for inst in mod.insts:
        inst.conns = {p: _bits_of(toks, mod) for p, toks in inst.conns.items()}


class _UF:
    def __init__(self):
        self.p = {}

    def find(self, x):
        p = self.p
        root = x
        while p.get(root, root) != root:
            root = p[root]
        while p.get(x, x) != root:
            p[x], x = root, p[x]
        return root

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.p[ra] = rb


def _bit_text(bit, mod: _Module) -> str:
    name, idx = bit
    if name == "'":
        return f"1'b{idx}"
    sep = " " if name.startswith("\\") else ""
    if name not in mod.vectors:
        return name + sep
    return f"{name}{sep}[{idx}]"



def _module_nets(mod, mods: dict, port_alias: dict) -> "_UF":
    """The nets of ``mod``: its assigns, and the bits of a submodule's output ports that are
    one net inside it (``port_alias`` of the submodules, :func:`_output_aliases`)."""
    uf = _UF()
    for lhs, rhs in mod.assigns:
        for a, b in zip(lhs, rhs):
            if a[0] != "'" and b[0] != "'":
                uf.union(a, b)
    for inst in mod.insts:
        if inst.type not in mods:
            continue
        first: dict = {}
        for pin, bits in inst.conns.items():
            for bit, sub_bit in zip(bits, _sub_bits(mods[inst.type], pin, len(bits))):
                inner = port_alias[inst.type].get(sub_bit)
                if inner is not None and bit[0] != "'":
                    uf.union(bit, first.setdefault(inner, bit))
    return uf


def _output_aliases(mod, uf) -> dict:
    """``{output port bit: its net}`` of ``mod`` (bits on one net share it)."""
    return {(port, k): uf.find((port, k)) for port, d in mod.dirs.items() if d == "output"
            for k in _bit_range(mod, port)}


def _bottom_up(mods: dict) -> list[str]:
    """Every module name, each after the modules it instantiates."""
    order, seen = [], set()

    def visit(name):
        if name in seen or name not in mods:
            return
        seen.add(name)
        for inst in mods[name].insts:
            visit(inst.type)
        order.append(name)

    for name in mods:
        visit(name)
    return order


def _bit_range(mod, port: str) -> list[int]:
    """The bit indexes of ``port``, in declaration order (msb first)."""
    msb, lsb = mod.widths.get(port, (0, 0))
    step = -1 if msb >= lsb else 1
    return list(range(msb, lsb + step, step))


def _sub_bits(sub_mod, pin: str, width: int) -> list[tuple[str, int]]:
    """The port bits ``(pin, index)`` of submodule ``sub_mod`` that an instance's ``width``
    connected bits of ``pin`` meet, in connection order."""
    msb, lsb = sub_mod.widths.get(pin, (0, 0))
    if width == 1 and msb == lsb:
        return [(pin, msb)]
    return [(pin, k) for k in _bit_range(sub_mod, pin)][:width]


def _port_nets(mod, uf, direction: str):
    """The nets (``uf`` roots) of every bit of ``mod``'s ports of ``direction``."""
    for port, d in mod.dirs.items():
        if d != direction:
            continue
        msb, lsb = mod.widths.get(port, (0, 0))
        step = -1 if msb >= lsb else 1
        for k in range(msb, lsb + step, step):
            yield uf.find((port, k))

def buffer_netlist(text: str, liberty_text: str, table_max_load: dict[tuple[str, str], float],
                   top: str, margin: float = 0.9, port_load_pf: float = 0.05,
                   buffer_cell: tuple[str, str, str] = BUFFER_CELL,
                   max_fanout: int = 16) -> tuple[str, dict]:
    """The netlist ``text`` with buffer trees on overloaded nets (module docstring) and a
    summary ``{"buffers": {module: count}, "nets": {module: count}}`` (per definition)."""
    caps, clocks, _ = input_pin_caps(liberty_text)
    bcell, bin_, bout = buffer_cell
    b_cap = caps[(bcell, bin_)]
    b_limit = margin * table_max_load[(bcell, bout)]
    mods = {m.name: m for m in _parse(text)}
    # Output pins of liberty cells: every pin a cell has that is not an input.
    order: list[str] = []
    seen = set()

    def visit(name):
        if name in seen or name not in mods:
            return
        seen.add(name)
        for inst in mods[name].insts:
            visit(inst.type)
        order.append(name)

    visit(top.lstrip("\\"))
    port_loads: dict[str, dict[tuple[str, int], float]] = {}
    port_clock: dict[str, set] = {}
    # Output port bits that are one net inside their module (yosys merges equal flops, so
    # a register replicated per PE group can come out as one flop driving several ports):
    # module -> {port bit: that net}. The parent joins them into one net to buffer.
    port_alias: dict[str, dict[tuple[str, int], tuple]] = {}
    summary = {"buffers": {}, "nets": {}}
    edits: dict[str, list] = {}
    for name in order:                                   # bottom up
        mod = mods[name]
        uf = _module_nets(mod, mods, port_alias)
        load: dict = {}
        loads_of: dict = {}
        driver: dict = {}
        clock_nets = set()
        for ii, inst in enumerate(mod.insts):
            sub = inst.type in mods
            for pin, bits in inst.conns.items():
                for pos, bit in enumerate(bits):
                    if bit[0] == "'":
                        continue
                    net = uf.find(bit)
                    if sub:
                        width = len(bits)
                        sub_mod = mods[inst.type]
                        msb, lsb = sub_mod.widths.get(pin, (0, 0))
                        step = -1 if msb >= lsb else 1
                        sub_bit = (pin, list(range(msb, lsb + step, step))[pos]) \
                            if width > 1 or msb != lsb else (pin, msb)
                        direction = sub_mod.dirs.get(pin)
                        if direction == "input":
                            c = port_loads[inst.type].get(sub_bit, 0.0)
                            load[net] = load.get(net, 0.0) + c
                            loads_of.setdefault(net, []).append((ii, pin, pos, c))
                            if sub_bit in port_clock[inst.type]:
                                clock_nets.add(net)
                        elif direction == "output":
                            driver[net] = ("sub", ii)
                    else:
                        if (inst.type, pin) in caps:
                            c = caps[(inst.type, pin)]
                            load[net] = load.get(net, 0.0) + c
                            loads_of.setdefault(net, []).append((ii, pin, pos, c))
                            if (inst.type, pin) in clocks:
                                clock_nets.add(net)
                        else:
                            driver[net] = ("cell", inst.type, pin)
        extra: dict = {}
        # A net leaving through an output port: the parent buffers anything above
        # port_load_pf there, so budget that much for the outside.
        for net in set(_port_nets(mod, uf, "output")):    # once per net: joined outside
            load[net] = load.get(net, 0.0) + port_load_pf
            extra[net] = extra.get(net, 0.0) + port_load_pf
            loads_of.setdefault(net, [])
        # Port loads and clock ports for the parents.
        pl, pc = {}, set()
        for net in _port_nets(mod, uf, "input"):
            driver.setdefault(net, ("port",))
        # Buffer trees.
        new_lines: list[str] = []
        rewires: dict[tuple[int, str, int], tuple] = {}
        counter = [0]
        root_bufs: dict = {}

        def new_buf(in_bit):
            counter[0] += 1
            out = (f"\\termwise_fo_{counter[0]}", 0)
            mod.widths[out[0]] = (0, 0)
            new_lines.append(f"  wire {out[0]} ;")
            new_lines.extend([f"  {bcell} \\termwise_fob_{counter[0]}  (",
                              f"    .{bin_}({_bit_text(in_bit, mod)}),",
                              f"    .{bout}({out[0]} )", "  );"])
            return out

        nets_done = 0
        for net, total in list(load.items()):
            if net in clock_nets:
                continue
            d = driver.get(net)
            if d is None:
                continue
            if d[0] == "cell":
                limit = margin * table_max_load.get((d[1], d[2]), float("inf"))
                if total <= limit:
                    continue
            elif total <= port_load_pf:
                continue
            # Build the tree bottom up: groups of loads under one buffer each.
            items = [("load", x) for x in loads_of[net]]
            caps_of = [x[3] for x in loads_of[net]]
            # the root's allowance: the driver's limit (a cell) or one buffer (from outside)
            root_limit = (max(limit - extra.get(net, 0.0), b_cap * 1.01) if d[0] == "cell"
                          else b_cap * 1.01)
            while sum(caps_of) > root_limit and len(items) > 1:
                groups, cur, cur_c = [], [], 0.0
                for it, c in sorted(zip(items, caps_of), key=lambda z: -z[1]):
                    if cur and (cur_c + c > b_limit or len(cur) >= max_fanout):
                        groups.append(cur)
                        cur, cur_c = [], 0.0
                    cur.append(it)
                    cur_c += c
                if cur:
                    groups.append(cur)
                if len(groups) == len(items):            # no progress possible
                    break
                items = [("group", g) for g in groups]
                caps_of = [b_cap] * len(groups)
            if d[0] != "cell" and len(items) > 1:
                items = [("group", items)]
            # Emit: each group gets a buffer driven by its parent's output.

            def emit(item, src_bit):
                kind, payload = item
                if kind == "load":
                    ii, pin, pos, _ = payload
                    rewires[(ii, pin, pos)] = src_bit
                else:
                    if src_bit == net:
                        root_bufs[net] = root_bufs.get(net, 0) + 1
                    out = new_buf(src_bit)
                    for child in payload:
                        emit(child, out)

            for it in items:
                emit(it, net)
            nets_done += 1
        for port, direction in mod.dirs.items():
            if direction != "input":
                continue
            msb, lsb = mod.widths.get(port, (0, 0))
            step = -1 if msb >= lsb else 1
            for k in range(msb, lsb + step, step):
                net = uf.find((port, k))
                if net in clock_nets:
                    pc.add((port, k))
                # after buffering, a net from outside presents at most its remaining loads
                pl[(port, k)] = _remaining_load(net, loads_of, rewires, root_bufs, b_cap)
        port_loads[name] = pl
        port_clock[name] = pc
        port_alias[name] = _output_aliases(mod, uf)
        summary["buffers"][name] = counter[0]
        summary["nets"][name] = nets_done
        edits[name] = (new_lines, rewires)
    return _write(text, mods, edits), summary


def _remaining_load(net, loads_of, rewires, root_bufs, b_cap) -> float:
    """Load left on ``net`` after buffering: the loads not moved under a buffer plus the
    inputs of the buffers it now drives."""
    total = sum(c for ii, pin, pos, c in loads_of.get(net, [])
                if rewires.get((ii, pin, pos), net) == net)
    return total + b_cap * root_bufs.get(net, 0)


def _write(text: str, mods: dict[str, _Module], edits: dict) -> str:
    out = []
    for name, mod in ((n, mods[n]) for n in _module_order(text)):
        new_lines, rewires = edits.get(name, ([], {}))
        lines = list(mod.lines)
        if rewires:
            by_inst: dict[int, dict] = {}
            for (ii, pin, pos), src in rewires.items():
                by_inst.setdefault(ii, {}).setdefault(pin, {})[pos] = src
            for ii, pins in by_inst.items():
                inst = mod.insts[ii]
                start, end = inst.text_span
                for k in range(start + 1, end):
                    c = re.match(r"^(\s*)\.(\w+)\((.*)\)(,?)\s*$", lines[k])
                    if c and c.group(2) in pins:
                        bits = list(inst.conns[c.group(2)])
                        for pos, src in pins[c.group(2)].items():
                            bits[pos] = src
                        expr = _concat(bits, mod)
                        lines[k] = f"{c.group(1)}.{c.group(2)}({expr}){c.group(4)}"
        out.append(mod.header)
        out += lines[:_first_instance_line(mod)] + new_lines + lines[_first_instance_line(mod):]
        out.append("endmodule")
        out.append("")
    return "\n".join(out) + "\n"


def _module_order(text: str) -> list[str]:
    return [m.group(1).lstrip("\\") for m in
            re.finditer(r"^module\s+(\\\S+|[^\s(]+)", text, re.M)]


def _first_instance_line(mod: _Module) -> int:
    return mod.insts[0].text_span[0] if mod.insts else len(mod.lines)


def _concat(bits: list, mod: _Module) -> str:
    parts = [_bit_text(b, mod) for b in bits]
    return parts[0] if len(parts) == 1 else "{ " + ", ".join(parts) + " }"


def check_rewiring(orig: str, new: str) -> int:
    """Check that ``new`` is ``orig`` with buffers only: the same modules, instances and
    assigns, and every pin of every original instance, traced back through the inserted
    buffers, on the bit it had. Returns the number of buffers; raises AssertionError."""
    o = {m.name: m for m in _parse(orig)}
    n = {m.name: m for m in _parse(new)}
    assert set(o) == set(n), "modules differ"
    count = 0
    aliases: dict = {}
    for name in _bottom_up(o):
        mo = o[name]
        mn = n[name]
        src = {}
        for inst in mn.insts:
            if inst.name.startswith("\\termwise_fob_"):
                src[inst.conns["Y"][0]] = inst.conns["A"][0]
                count += 1
        # One net may leave a submodule through several ports: any of them is that net.
        uf = _module_nets(mo, o, aliases)
        aliases[name] = _output_aliases(mo, uf)

        def trace(b):
            while b in src:
                b = src[b]
            return b if b[0] == "'" else uf.find(b)

        kept = {i.name: i for i in mn.insts if not i.name.startswith("\\termwise_fob_")}
        assert set(kept) == {i.name for i in mo.insts}, f"{name}: instances differ"
        for inst in mo.insts:
            ni = kept[inst.name]
            assert ni.type == inst.type, f"{name}/{inst.name}: type changed"
            assert set(ni.conns) == set(inst.conns), f"{name}/{inst.name}: pins changed"
            for pin, bits in inst.conns.items():
                want = [b if b[0] == "'" else uf.find(b) for b in bits]
                got = [trace(b) for b in ni.conns[pin]]
                assert got == want, f"{name}/{inst.name}.{pin}: {want[:4]} -> {got[:4]}"
        assert mo.assigns == mn.assigns, f"{name}: assigns changed"
    return count
