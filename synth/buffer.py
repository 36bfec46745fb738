"""Fanout buffering across the hierarchy, on the netlist yosys writes (``write_verilog
-noattr -noexpr -simple-lhs``, read by :mod:`.netlist`).

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
every other cell; the area is re-measured by yosys ``stat`` on the buffered netlist. The
clock from the tile's port (nets reaching a flop's clock pin from outside) is left alone:
the STA clock is ideal, and its network is estimated apart (:mod:`.power.clock_tree`). A
clock net a cell drives (a clock-gating cell's gated clock, :mod:`.clock_gating`: up to
128 flops on one AND2X2) gets the same kind of tree of :data:`CLOCK_BUFFER_CELL`, the
library's clock buffer, so that every gated net stays in its driver's characterised range;
its buffers are simulated with the rest of the netlist.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .liberty import parse_groups
from .netlist import (Module, UnionFind, bit_range, bit_text, bottom_up, module_nets,
                      module_order, output_aliases, parse_netlist, port_nets)

__all__ = ["buffer_netlist", "input_pin_caps", "check_rewiring", "BUFFER_CELL"]

BUFFER_CELL = ("BUFX4", "A", "Y")
#: The buffer of a tree under a gated clock: OSU018's clock buffer (balanced rise and fall,
#: the cell synth/power/clock_tree.py sizes the estimated root tree with).
CLOCK_BUFFER_CELL = ("CLKBUF1", "A", "Y")


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
        # a bus (the SRAM macros' addr, din) loads each of its bits like a pin
        for pin in list(cell.groups("pin")) + list(cell.groups("bus")):
            if pin.attrs.get("direction") != "input":
                continue
            for p in pin.args:
                caps[(name, p)] = float(pin.attrs.get("capacitance", "0") or 0)
                if pin.attrs.get("clock") == "true":
                    clocks.add((name, p))
    return caps, clocks, areas


@dataclass(frozen=True)
class _Limits:
    """The pass's settings: the liberty's pin loads and limits, and the buffer cell's."""
    caps: dict                      # (cell, input pin) -> capacitance
    clocks: set                     # (cell, pin) of clock pins
    table_max_load: dict            # (cell, output pin) -> last load index of its tables
    margin: float
    port_load_pf: float
    max_fanout: int
    cell: str                       # the buffer: cell, input pin, output pin
    pin_in: str
    pin_out: str
    b_cap: float                    # its input capacitance
    b_limit: float                  # the load one buffer may drive
    clock: "_Limits | None" = None  # the same for a tree under a gated clock


@dataclass
class _Hierarchy:
    """What each buffered module shows its parents: per input-port bit the load left on it
    and whether it is a clock, and its output-port bits that are one net inside it (yosys
    merges equal flops, so a register replicated per PE group can come out as one flop
    driving several ports; the parent joins them into one net to buffer)."""
    port_loads: dict[str, dict[tuple[str, int], float]] = field(default_factory=dict)
    port_clock: dict[str, set] = field(default_factory=dict)
    port_alias: dict[str, dict[tuple[str, int], tuple]] = field(default_factory=dict)


@dataclass
class _Loads:
    """The nets of one module: summed load, the loads one by one ``(instance index, pin,
    bit position, capacitance)``, driver, clock nets, and the load budgeted outside."""
    load: dict = field(default_factory=dict)
    loads_of: dict = field(default_factory=dict)
    driver: dict = field(default_factory=dict)
    clock_nets: set = field(default_factory=set)
    extra: dict = field(default_factory=dict)

    def add(self, net, ii: int, pin: str, pos: int, c: float) -> None:
        self.load[net] = self.load.get(net, 0.0) + c
        self.loads_of.setdefault(net, []).append((ii, pin, pos, c))


class _Edits:
    """The buffers inserted into one module: their declaration lines, the instance pins
    moved onto their outputs ``(instance index, pin, bit position) -> bit``, and how many
    buffers each net now drives directly."""

    def __init__(self, mod: Module, lim: _Limits):
        self.mod, self.lim = mod, lim
        self.new_lines: list[str] = []
        self.rewires: dict[tuple[int, str, int], tuple] = {}
        self.count = 0
        self.by_cell: dict[str, int] = {}
        self.root_bufs: dict = {}

    def new_buf(self, in_bit, lim: "_Limits | None" = None) -> tuple[str, int]:
        """A new buffer (``lim``'s cell, default the module's) driven by ``in_bit``;
        returns its output bit."""
        self.count += 1
        lim = lim or self.lim
        self.by_cell[lim.cell] = self.by_cell.get(lim.cell, 0) + 1
        out = (f"\\termwise_fo_{self.count}", 0)
        self.mod.widths[out[0]] = (0, 0)
        self.new_lines.append(f"  wire {out[0]} ;")
        self.new_lines.extend([f"  {lim.cell} \\termwise_fob_{self.count}  (",
                               f"    .{lim.pin_in}({bit_text(in_bit, self.mod)}),",
                               f"    .{lim.pin_out}({out[0]} )", "  );"])
        return out

    def emit(self, item, src_bit, net, lim: "_Limits | None" = None) -> None:
        """Hang ``item`` (a load, or a group under one buffer of ``lim``'s cell) on
        ``src_bit``, depth first."""
        kind, payload = item
        if kind == "load":
            ii, pin, pos, _ = payload
            self.rewires[(ii, pin, pos)] = src_bit
            return
        if src_bit == net:
            self.root_bufs[net] = self.root_bufs.get(net, 0) + 1
        out = self.new_buf(src_bit, lim)
        for child in payload:
            self.emit(child, out, net, lim)


def buffer_netlist(text: str, liberty_text: str, table_max_load: dict[tuple[str, str], float],
                   top: str, margin: float = 0.9, port_load_pf: float = 0.05,
                   buffer_cell: tuple[str, str, str] = BUFFER_CELL,
                   max_fanout: int = 16, extra_liberty: str | None = None) -> tuple[str, dict]:
    """The netlist ``text`` with buffer trees on overloaded nets (module docstring) and a
    summary ``{"buffers": {module: count}, "nets": {module: count}, "clock_buffers":
    {module: count}}`` (per definition; ``buffers`` counts every buffer, ``clock_buffers``
    those of :data:`CLOCK_BUFFER_CELL` under gated clocks)."""
    caps, clocks, _ = input_pin_caps(liberty_text)
    if extra_liberty:       # the SRAM macros' pins (synth/macros.py): loads like any cell's
        more_caps, more_clocks, _ = input_pin_caps(extra_liberty)
        caps.update(more_caps)
        clocks |= more_clocks

    def limits(cell, clock=None):
        c, i, o = cell
        return _Limits(caps, clocks, table_max_load, margin, port_load_pf, max_fanout, c,
                       i, o, b_cap=caps[(c, i)], b_limit=margin * table_max_load[(c, o)],
                       clock=clock)

    clock = limits(CLOCK_BUFFER_CELL) if (CLOCK_BUFFER_CELL[0], CLOCK_BUFFER_CELL[1]) \
        in caps else None
    lim = limits(buffer_cell, clock)
    mods = {m.name: m for m in parse_netlist(text)}
    hier = _Hierarchy()
    summary = {"buffers": {}, "nets": {}, "clock_buffers": {}}
    edits: dict[str, tuple] = {}
    for name in bottom_up(mods, top.lstrip("\\")):
        mod = mods[name]
        uf = module_nets(mod, mods, hier.port_alias)
        loads = _module_loads(mod, mods, uf, lim, hier)
        ed = _Edits(mod, lim)
        nets_done = _buffer_trees(loads, ed, lim)
        _record_ports(name, mod, uf, loads, ed, hier)
        summary["buffers"][name] = ed.count
        summary["nets"][name] = nets_done
        summary["clock_buffers"][name] = ed.by_cell.get(CLOCK_BUFFER_CELL[0], 0)
        edits[name] = (ed.new_lines, ed.rewires)
    return _write(text, mods, edits), summary


def _module_loads(mod: Module, mods: dict, uf: UnionFind, lim: _Limits,
                  hier: _Hierarchy) -> _Loads:
    """The loads and drivers of ``mod``'s nets: liberty input pins, submodule input ports
    (their loads after buffering, :class:`_Hierarchy`), ``port_load_pf`` for the outside of
    each net leaving through an output port, the input ports as drivers."""
    lo = _Loads()
    for ii, inst in enumerate(mod.insts):
        sub = inst.type in mods
        for pin, bits in inst.conns.items():
            for pos, bit in enumerate(bits):
                if bit[0] == "'":
                    continue
                net = uf.find(bit)
                if sub:
                    _submodule_pin(lo, net, ii, inst.type, mods[inst.type], pin, pos,
                                   len(bits), hier)
                elif (inst.type, pin) in lim.caps:
                    lo.add(net, ii, pin, pos, lim.caps[(inst.type, pin)])
                    if (inst.type, pin) in lim.clocks:
                        lo.clock_nets.add(net)
                else:
                    lo.driver[net] = ("cell", inst.type, pin)
    # A net leaving through an output port: the parent buffers anything above
    # port_load_pf there, so budget that much for the outside.
    for net in set(port_nets(mod, uf, "output")):        # once per net: joined outside
        lo.load[net] = lo.load.get(net, 0.0) + lim.port_load_pf
        lo.extra[net] = lo.extra.get(net, 0.0) + lim.port_load_pf
        lo.loads_of.setdefault(net, [])
    for net in port_nets(mod, uf, "input"):
        lo.driver.setdefault(net, ("port",))
    return lo


def _submodule_pin(lo: _Loads, net, ii: int, sub_name: str, sub_mod: Module, pin: str,
                   pos: int, width: int, hier: _Hierarchy) -> None:
    """Bit ``pos`` of a submodule instance's ``pin`` on ``net``: a load (an input port, as
    the buffered submodule presents it) or the net's driver (an output port)."""
    msb, lsb = sub_mod.widths.get(pin, (0, 0))
    sub_bit = (pin, bit_range(sub_mod, pin)[pos]) if width > 1 or msb != lsb else (pin, msb)
    direction = sub_mod.dirs.get(pin)
    if direction == "input":
        lo.add(net, ii, pin, pos, hier.port_loads[sub_name].get(sub_bit, 0.0))
        if sub_bit in hier.port_clock[sub_name]:
            lo.clock_nets.add(net)
    elif direction == "output":
        lo.driver[net] = ("sub", ii)


def _buffer_trees(lo: _Loads, ed: _Edits, lim: _Limits) -> int:
    """Put a buffer tree on every overloaded net of the module (``ed``); returns how many
    nets got one."""
    nets_done = 0
    for net, total in list(lo.load.items()):
        # a gated clock (a clock net a cell drives) gets a tree of clock buffers
        tl = lim.clock if net in lo.clock_nets and lim.clock is not None else lim
        root_limit = _root_limit(net, total, lo, tl)
        if root_limit is None:
            continue
        items = _tree(lo.loads_of[net], root_limit, tl)
        if lo.driver[net][0] != "cell" and len(items) > 1:
            items = [("group", items)]
        # Emit: each group gets a buffer driven by its parent's output.
        for it in items:
            ed.emit(it, net, net, tl)
        nets_done += 1
    return nets_done


def _root_limit(net, total: float, lo: _Loads, lim: _Limits) -> float | None:
    """The load ``net``'s driver may keep once buffered (a cell: its limit less the outside
    budget, at least one buffer; from outside: one buffer), or None when the net needs no
    tree (a clock from outside the module, no driver, or within its driver's limit)."""
    d = lo.driver.get(net)
    if d is None:
        return None
    if net in lo.clock_nets and d[0] != "cell":
        return None
    if d[0] == "cell":
        limit = lim.margin * lim.table_max_load.get((d[1], d[2]), float("inf"))
        if total <= limit:
            return None
        return max(limit - lo.extra.get(net, 0.0), lim.b_cap * 1.01)
    if total <= lim.port_load_pf:
        return None
    return lim.b_cap * 1.01


def _tree(loads: list, root_limit: float, lim: _Limits) -> list:
    """The tree's top items over ``loads``, built bottom up: loads in groups of at most
    ``b_limit`` and ``max_fanout`` under one buffer each, then groups of those, until what
    is left fits ``root_limit`` or no grouping makes progress."""
    items = [("load", x) for x in loads]
    caps_of = [x[3] for x in loads]
    while sum(caps_of) > root_limit and len(items) > 1:
        groups = _groups(items, caps_of, lim)
        if len(groups) == len(items):            # no progress possible
            break
        items = [("group", g) for g in groups]
        caps_of = [lim.b_cap] * len(groups)
    return items


def _groups(items: list, caps_of: list, lim: _Limits) -> list[list]:
    """``items`` packed, heaviest first, into groups one buffer can drive."""
    groups, cur, cur_c = [], [], 0.0
    for it, c in sorted(zip(items, caps_of), key=lambda z: -z[1]):
        if cur and (cur_c + c > lim.b_limit or len(cur) >= lim.max_fanout):
            groups.append(cur)
            cur, cur_c = [], 0.0
        cur.append(it)
        cur_c += c
    if cur:
        groups.append(cur)
    return groups


def _record_ports(name: str, mod: Module, uf: UnionFind, lo: _Loads, ed: _Edits,
                  hier: _Hierarchy) -> None:
    """What the buffered ``mod`` shows its parents (:class:`_Hierarchy`)."""
    pl, pc = {}, set()
    for port, direction in mod.dirs.items():
        if direction != "input":
            continue
        for k in bit_range(mod, port):
            net = uf.find((port, k))
            if net in lo.clock_nets:
                pc.add((port, k))
            # after buffering, a net from outside presents at most its remaining loads
            pl[(port, k)] = _remaining_load(net, lo.loads_of, ed.rewires, ed.root_bufs,
                                            ed.lim.b_cap)
    hier.port_loads[name] = pl
    hier.port_clock[name] = pc
    hier.port_alias[name] = output_aliases(mod, uf)


def _remaining_load(net, loads_of, rewires, root_bufs, b_cap) -> float:
    """Load left on ``net`` after buffering: the loads not moved under a buffer plus the
    inputs of the buffers it now drives."""
    total = sum(c for ii, pin, pos, c in loads_of.get(net, [])
                if rewires.get((ii, pin, pos), net) == net)
    return total + b_cap * root_bufs.get(net, 0)


def _write(text: str, mods: dict[str, Module], edits: dict) -> str:
    """The netlist with each module's edits: buffer lines before its first instance, the
    moved pins' connections rewritten."""
    out = []
    for name, mod in ((n, mods[n]) for n in module_order(text)):
        new_lines, rewires = edits.get(name, ([], {}))
        lines = list(mod.lines)
        if rewires:
            _rewire_lines(lines, mod, rewires)
        out.append(mod.header)
        out += lines[:_first_instance_line(mod)] + new_lines + lines[_first_instance_line(mod):]
        out.append("endmodule")
        out.append("")
    return "\n".join(out) + "\n"


def _rewire_lines(lines: list[str], mod: Module, rewires: dict) -> None:
    """Rewrite in ``lines`` the connection of every instance pin with a moved bit."""
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


def _first_instance_line(mod: Module) -> int:
    return mod.insts[0].text_span[0] if mod.insts else len(mod.lines)


def _concat(bits: list, mod: Module) -> str:
    parts = [bit_text(b, mod) for b in bits]
    return parts[0] if len(parts) == 1 else "{ " + ", ".join(parts) + " }"


def check_rewiring(orig: str, new: str) -> int:
    """Check that ``new`` is ``orig`` with buffers only: the same modules, instances and
    assigns, and every pin of every original instance, traced back through the inserted
    buffers, on the bit it had. Returns the number of buffers; raises AssertionError."""
    o = {m.name: m for m in parse_netlist(orig)}
    n = {m.name: m for m in parse_netlist(new)}
    assert set(o) == set(n), "modules differ"
    count = 0
    aliases: dict = {}
    for name in bottom_up(o):
        mo = o[name]
        mn = n[name]
        src = {}
        for inst in mn.insts:
            if inst.name.startswith("\\termwise_fob_"):
                src[inst.conns["Y"][0]] = inst.conns["A"][0]
                count += 1
        # One net may leave a submodule through several ports: any of them is that net.
        uf = module_nets(mo, o, aliases)
        aliases[name] = output_aliases(mo, uf)

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
