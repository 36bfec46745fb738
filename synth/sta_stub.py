"""The load-stub cells of the sampled timing (:mod:`.sta_sample`): one cell per stubbed
module, in one liberty of their own (:data:`LIBERTY_FILE`).

A stub cell has the module's ports. Per input bit: the rise and fall capacitance and the
fanout (``fanout_load``) of the module's own cell pins on that port's net, from the module's
flattened netlist (:func:`termwise.synth.power.stubs.stub_of`, the power flow's summary),
so every net that reaches a stubbed instance is loaded, timed and design-rule checked as in
the flat netlist. Per output bit: no arc until :mod:`.sta_arcs` gives it a rising-edge arc
from the clock pin at the latest arrival and slew the sampled instances show on that bit.
A module without a ``clk`` input (combinational, such as Loom's weight-bit selectors) gets
a clock pin of the stub's own (:data:`CLOCK_PIN`, capacitance 0), connected to its
holder's ``clk``, to hang those arcs on.

The PE's cell keeps the name and the files the PE-only sampling always wrote
(:data:`STUB_CELL`): a tile where only the PE is stubbed gets the same files as before.
"""

from __future__ import annotations

import os
import re

from . import module_synth
from .macros import liberty_head

__all__ = ["STUB_CELL", "CLOCK_PIN", "LIBERTY_FILE", "LOGIC_LIBERTY_FILE", "NETLIST_FILE",
           "FANOUT_FILE", "cell_name", "stub_liberty", "stubs_liberty", "module_stub",
           "write_stub_liberty", "write_stubs_liberty", "fanout_text"]

#: The PE stub's cell name (every other stubbed module's cell is :func:`cell_name`), the
#: stubs' liberty and the netlist OpenSTA reads, in the run folder.
STUB_CELL = "termwise_sta_stub"
LIBERTY_FILE = "sta_stub.lib"
NETLIST_FILE = "netlist_sta.v"
#: The stubs' liberty with the arcs of the tile's logic alone (the SRAM macros not read),
#: for the clock-gating timing, which does not read them (:mod:`.sta_arcs`).
LOGIC_LIBERTY_FILE = "sta_stub_logic.lib"
#: The stub pins' fanouts for drv.tcl.
FANOUT_FILE = "sta_stub_fanout.tcl"
#: The clock pin a stub of a module without a ``clk`` input gets (its output arcs' pin).
CLOCK_PIN = "termwise_sta_clk"


def cell_name(module: str, top: str) -> str:
    """The stub cell of ``module`` (not the PE's): :data:`STUB_CELL` and the module's name
    after the tile's (``termwise_sta_stub__fc_column``), as a plain identifier."""
    short = module[len(top):] if module.startswith(top) and module != top else "_" + module
    return STUB_CELL + re.sub(r"[^A-Za-z0-9_]", "_", short)


def _pin_text(port: str, bit: int, direction: str, pin_load: dict, arcs: dict | None,
              clock: str | None) -> str:
    """One stub pin's attributes (the PE-only liberty's text, unchanged)."""
    if direction != "input":
        arc = (arcs or {}).get((port, bit))
        if arc is None:
            return "direction : output;"
        r, f, rs, fs = arc
        return ("direction : output;\n        timing () { related_pin : "
                f"\"{clock}\"; timing_type : rising_edge;\n"
                f"          cell_rise (scalar) {{ values (\"{r:.6g}\"); }}\n"
                f"          cell_fall (scalar) {{ values (\"{f:.6g}\"); }}\n"
                f"          rise_transition (scalar) {{ values (\"{rs:.6g}\"); }}\n"
                f"          fall_transition (scalar) {{ values (\"{fs:.6g}\"); }} }}")
    rise, fall, fanout = pin_load.get((port, bit), (0, 0, 0))
    head = "direction : input; clock : true;" if port == clock else "direction : input;"
    return (f"{head} capacitance : {max(rise, fall):.6g}; rise_capacitance : {rise:.6g}; "
            f"fall_capacitance : {fall:.6g}; fanout_load : {fanout};")


def _cell_text(cell: str, ports, widths: dict, vectors, pin_load: dict,
               arcs: dict | None, clock: str | None) -> str:
    out = [f"  cell ({cell}) {{\n    area : 0;\n    dont_touch : true;\n"
           "    dont_use : true;\n"]
    for port, direction in ports:
        if port in vectors:
            msb, lsb = widths[port]
            out.append(f"    bus ({port}) {{ bus_type : bus{abs(msb - lsb) + 1}; "
                       f"direction : {direction};\n")
            step = -1 if msb >= lsb else 1
            for k in range(msb, lsb + step, step):
                text = _pin_text(port, k, direction, pin_load, arcs, clock)
                out.append(f"      pin ({port}[{k}]) {{ {text} }}\n")
            out.append("    }\n")
        else:
            text = _pin_text(port, widths.get(port, (0, 0))[0], direction, pin_load, arcs,
                             clock)
            out.append(f"    pin ({port}) {{ {text} }}\n")
    out.append("  }\n")
    return "".join(out)


def stubs_liberty(cells) -> str:
    """The stubs' liberty (OSU018's units) of ``cells``: ``(cell, ports, widths, vectors,
    pin_load, arcs, clock)`` each, as :func:`stub_liberty` takes them."""
    out = [liberty_head("termwise_sta_stub")]
    buses = {abs(widths[p][0] - widths[p][1]) + 1
             for _, ports, widths, vectors, *_ in cells for p, _ in ports if p in vectors}
    for w in sorted(buses):
        out.append(f"  type (bus{w}) {{ base_type : array; data_type : bit; bit_width : {w}; "
                   f"bit_from : {w - 1}; bit_to : 0; downto : true; }}\n")
    out.extend(_cell_text(*cell) for cell in cells)
    out.append("}\n")
    return "".join(out)


def stub_liberty(ports, widths: dict, vectors, pin_load: dict, arcs: dict | None = None,
                 clock: str | None = None) -> str:
    """The PE stub cell's liberty (OSU018's units): ``ports`` in order with their
    directions, ``widths`` (``{port: (msb, lsb)}``, absent for a scalar) and ``vectors``
    (the ports declared with a range: bus pins); ``pin_load[(port, bit)] = (rise_pf,
    fall_pf, fanout)`` for every input bit (0 where the PE leaves it unconnected); ``arcs``
    ``{(port, bit): (rise, fall, rise_slew, fall_slew)}`` (ns) from ``clock``."""
    return stubs_liberty([(STUB_CELL, ports, widths, vectors, pin_load, arcs, clock)])


def _cell_args(cell: str, data: dict, arcs: dict | None) -> tuple:
    return (cell, [tuple(p) for p in data["ports"]],
            {p: tuple(w) for p, w in data["widths"].items()}, set(data["vectors"]),
            {(p, b): tuple(load) for p, b, *load in data["pin_load"]}, arcs, data["clock"])


def write_stub_liberty(workdir: str, data: dict, arcs: dict | None = None) -> None:
    """:data:`LIBERTY_FILE` of the PE stub alone, from the record
    :func:`termwise.synth.sta_sample.write_sampled_netlist` keeps (``info["liberty"]``),
    with ``arcs`` on the outputs when given."""
    write_stubs_liberty(workdir, [(STUB_CELL, data, arcs)])


def write_stubs_liberty(workdir: str, cells, liberty: str = LIBERTY_FILE) -> None:
    """``liberty`` (:data:`LIBERTY_FILE`) of ``cells``: ``(cell, liberty record, arcs or
    None)`` each."""
    text = stubs_liberty([_cell_args(*c) for c in cells])
    with open(os.path.join(workdir, liberty), "w", encoding="utf-8") as f:
        f.write(text)


def module_stub(texts: dict[str, str], module: str, lib, clock_pin: bool = False):
    """``(liberty record, cells per instance)`` of ``module``'s stub from its flattened
    netlist (``texts``: the netlist's modules; ``lib``: the cells' library,
    :func:`termwise.synth.power.cells.read_library`). The record: ``ports`` (with their
    directions), ``widths``, ``vectors``, ``pin_load`` (``[port, bit, rise, fall,
    fanout]``), ``clock`` (``clk``, :data:`CLOCK_PIN` with ``clock_pin``, or None) and
    ``output_drivers`` (output bit -> the leaf pin inside the module driving it)."""
    from .netlist import bit_range, parse_netlist
    from .power.compute import flatten_modules
    from .power.stubs import stub_of
    tree = module_synth.reachable(module, texts)
    mods = {m.name.lstrip("\\"): m
            for m in parse_netlist("".join(texts[name] for name in tree))}
    flat = flatten_modules(mods, module, lib)      # once: its loads and its drivers
    stub = stub_of(module, mods, lib, {}, lambda *args: flat)
    pin_load = {}
    for cls in stub.classes:
        # one net inside: its load once, on its first input bit (a feed-through's output
        # bit loads nothing)
        bits = sorted(cls.bits, key=lambda b: mods[module].dirs.get(b[0]) != "input")
        for i, bit in enumerate(bits):
            pin_load[bit] = (cls.rise_cap, cls.fall_cap, cls.fanout) if i == 0 else (0, 0, 0)
    pe = mods[module]
    leaves, uf, _, _ = flat
    drivers = {}
    for leaf in leaves:
        for pin, net in leaf.pins.items():
            if lib.cells[leaf.cell].pins[pin].direction == "output":
                drivers.setdefault(uf.find(net), leaf.path + "/" + pin)
    outputs = {f"{p}[{b}]" if p in pe.vectors else p: drivers[uf.find(((), p, b))]
               for p in pe.ports if pe.dirs[p] == "output" for b in bit_range(pe, p)
               if uf.find(((), p, b)) in drivers}
    ports = [[p, pe.dirs[p]] for p in pe.ports]
    clock = "clk" if pe.dirs.get("clk") == "input" else None
    if clock is None and clock_pin:
        ports.append([CLOCK_PIN, "input"])
        pin_load[(CLOCK_PIN, 0)] = (0, 0, 0)
        clock = CLOCK_PIN
    data = {"ports": ports,
            "widths": {p: list(w) for p, w in pe.widths.items()},
            "vectors": sorted(pe.vectors),
            "pin_load": [[p, b, *load] for (p, b), load in sorted(pin_load.items())],
            "clock": clock,
            "output_drivers": outputs}
    return data, sum(stub.cells.values())


def fanout_text(cells) -> str:
    """:data:`FANOUT_FILE` of ``cells`` (``(cell, liberty record)`` each): a stub input
    pin's fanout for drv.tcl, keyed ``port[bit]`` on the PE's cell (as the PE-only sampling
    always wrote it) and ``cell/port[bit]`` on the others'."""
    out = ["array set termwise_stub_fanout {\n"]
    for cell, data in cells:
        vectors = set(data["vectors"])
        prefix = "" if cell == STUB_CELL else cell + "/"
        for port, bit, *load in data["pin_load"]:
            name = f"{port}[{bit}]" if port in vectors else port
            out.append(f"  {{{prefix}{name}}} {load[2]}\n")
    out.append("}\n")
    return "".join(out)
