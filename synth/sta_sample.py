"""Static timing of a tile with most of its PEs replaced by load stubs.

OpenSTA 2.0.17 links a hierarchical netlist into one flat timing graph, so its memory grows
with every PE instance: 9.1 GB on laconic-16x16-8b, past 24 GB on the 16-bit Laconic tile.
The PEs of a tile are one module instantiated hundreds of times, fed by the same kinds of
nets (broadcast control, a row of weights, a column of activations) and feeding the same
kinds (the accumulators' read-out). Here all but :data:`SAMPLED` of them, spread over the
array (the first and the last included), become instances of a stub cell
(``termwise_sta_stub``) in a liberty of its own: per input bit the capacitance and the
fanout (``fanout_load``) of the PE's cell pins on that port's net
(:func:`termwise.synth.power.stubs.stub_of`, the power flow's summary), so every net that
reaches a PE is loaded, timed and design-rule checked as in the flat netlist; and no
timing arcs, so no path starts, ends or runs inside a stubbed PE.

What this leaves out: the paths through the stubbed PEs themselves. Every PE is the same
module with the same kinds of neighbours, and the sampled ones run the same paths; the
difference from the flat timing is measured in synth/README.md ("Sampled timing").
"""

from __future__ import annotations

import json
import os
import re

from . import module_synth
from .macros import liberty_head

__all__ = ["VERSION", "SAMPLED", "STUB_CELL", "LIBERTY_FILE", "NETLIST_FILE", "FANOUT_FILE",
           "INFO_FILE", "sampled_indices", "stub_liberty", "write_sampled_netlist",
           "write_stub_liberty", "output_arcs", "sta_lines", "weight", "read_info"]

#: The sampled timing's version, in the synthesis key of a hierarchical run (bump when a
#: change here would change a result).
VERSION = "sta-sample-1"
#: PE instances kept whole (spread evenly over the instance list, first and last in).
SAMPLED = 8
#: The stub's cell name and its liberty, and the netlist OpenSTA reads, in the run folder.
STUB_CELL = "termwise_sta_stub"
LIBERTY_FILE = "sta_stub.lib"
NETLIST_FILE = "netlist_sta.v"
#: The stub pins' fanouts for drv.tcl, and what was sampled (for the report and the
#: design-rule counts, :func:`weight`).
FANOUT_FILE = "sta_stub_fanout.tcl"
INFO_FILE = "sta_sample.json"


def sampled_indices(n: int, k: int = SAMPLED) -> list[int]:
    """``k`` of ``range(n)`` spread evenly, the first and the last included (all if
    ``n <= k``)."""
    if n <= k:
        return list(range(n))
    return sorted({round(i * (n - 1) / (k - 1)) for i in range(k)})


def stub_liberty(ports, widths: dict, vectors, pin_load: dict, arcs: dict | None = None,
                 clock: str | None = None) -> str:
    """The stub cell's liberty (OSU018's units): ``ports`` in order with their directions,
    ``widths`` (``{port: (msb, lsb)}``, absent for a scalar) and ``vectors`` (the ports
    declared with a range: bus pins); ``pin_load[(port, bit)] = (rise_pf, fall_pf,
    fanout)`` for every input bit (0 where the PE leaves it unconnected)."""
    out = [liberty_head("termwise_sta_stub")]
    for w in sorted({abs(widths[p][0] - widths[p][1]) + 1 for p, _ in ports if p in vectors}):
        out.append(f"  type (bus{w}) {{ base_type : array; data_type : bit; bit_width : {w}; "
                   f"bit_from : {w - 1}; bit_to : 0; downto : true; }}\n")
    out.append(f"  cell ({STUB_CELL}) {{\n    area : 0;\n    dont_touch : true;\n"
               "    dont_use : true;\n")
    for port, direction in ports:
        def pin_text(bit):
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
            if port == clock:
                rise, fall, fanout = pin_load.get((port, bit), (0, 0, 0))
                return (f"direction : input; clock : true; capacitance : "
                        f"{max(rise, fall):.6g}; rise_capacitance : {rise:.6g}; "
                        f"fall_capacitance : {fall:.6g}; fanout_load : {fanout};")
            rise, fall, fanout = pin_load.get((port, bit), (0, 0, 0))
            return (f"direction : input; capacitance : {max(rise, fall):.6g}; "
                    f"rise_capacitance : {rise:.6g}; fall_capacitance : {fall:.6g}; "
                    f"fanout_load : {fanout};")
        if port in vectors:
            msb, lsb = widths[port]
            out.append(f"    bus ({port}) {{ bus_type : bus{abs(msb - lsb) + 1}; "
                       f"direction : {direction};\n")
            step = -1 if msb >= lsb else 1
            for k in range(msb, lsb + step, step):
                out.append(f"      pin ({port}[{k}]) {{ {pin_text(k)} }}\n")
            out.append("    }\n")
        else:
            out.append(f"    pin ({port}) {{ {pin_text(widths.get(port, (0, 0))[0])} }}\n")
    out.append("  }\n}\n")
    return "".join(out)


def write_sampled_netlist(workdir: str, module: str, liberty: str,
                          netlist: str = "netlist.v", k: int = SAMPLED) -> dict | None:
    """Write :data:`NETLIST_FILE` (``netlist`` with all but ``k`` instances of ``module``
    made stubs), :data:`LIBERTY_FILE`, :data:`FANOUT_FILE` and :data:`INFO_FILE` in
    ``workdir``; returns the info (``module``, ``instances``, ``sampled``,
    ``holder_path``, ``sampled_instances``, ``cells_per_instance``, ``liberty``), or None
    (nothing written) when ``module`` has at most ``k`` instances or is instantiated in a
    module that is itself instantiated more than once (its stubs would not be one per
    PE)."""
    from .netlist import bit_range, parse_netlist
    from .power.cells import read_library
    from .power.compute import flatten_modules
    from .power.stubs import stub_of
    with open(os.path.join(workdir, netlist), encoding="utf-8") as f:
        text = f.read()
    texts = module_synth.split_modules(text)
    pattern = re.compile(r"^(\s+)" + re.escape(_verilog_name(module)) + r"(\s+\S+\s*\()",
                         re.M)
    holders = {name: len(pattern.findall(t)) for name, t in texts.items()}
    holders = {name: n for name, n in holders.items() if n}
    total = sum(holders.values())
    if total <= k or len(holders) != 1:
        return None
    (holder,) = holders
    parents = sum(len(re.findall(r"^\s+" + re.escape(_verilog_name(holder)) + r"\s+\S+\s*\(",
                                 t, re.M)) for t in texts.values())
    if parents > 1:
        return None
    tree = module_synth.reachable(module, texts)
    mods = {m.name.lstrip("\\"): m
            for m in parse_netlist("".join(texts[name] for name in tree))}
    lib = read_library(os.path.join(workdir, liberty))
    flat = flatten_modules(mods, module, lib)      # the PE once: its loads and its drivers
    stub = stub_of(module, mods, lib, {}, lambda *args: flat)
    pin_load = {}
    for cls in stub.classes:
        # one net inside: its load once, on its first input bit (a feed-through's output
        # bit loads nothing)
        bits = sorted(cls.bits, key=lambda b: mods[module].dirs.get(b[0]) != "input")
        for i, bit in enumerate(bits):
            pin_load[bit] = (cls.rise_cap, cls.fall_cap, cls.fanout) if i == 0 else (0, 0, 0)
    pe = mods[module]
    keep = set(sampled_indices(total, k))
    names = [m.group(2).strip().lstrip("\\").rstrip("(").strip()
             for m in pattern.finditer(texts[holder])]
    count = iter(range(total))

    def swap(m):
        return m.group(0) if next(count) in keep else m.group(1) + STUB_CELL + m.group(2)

    holder_text = pattern.sub(swap, texts[holder])
    start = text.index(texts[holder])
    with open(os.path.join(workdir, NETLIST_FILE), "w", encoding="utf-8") as f:
        f.write(text[:start] + holder_text + text[start + len(texts[holder]):])
    leaves, uf, _, _ = flat
    drivers = {}
    for leaf in leaves:
        for pin, net in leaf.pins.items():
            if lib.cells[leaf.cell].pins[pin].direction == "output":
                drivers.setdefault(uf.find(net), leaf.path + "/" + pin)
    outputs = {f"{p}[{b}]" if p in pe.vectors else p: drivers[uf.find(((), p, b))]
               for p in pe.ports if pe.dirs[p] == "output" for b in bit_range(pe, p)
               if uf.find(((), p, b)) in drivers}
    liberty_data = {"ports": [[p, pe.dirs[p]] for p in pe.ports],
                    "widths": {p: list(w) for p, w in pe.widths.items()},
                    "vectors": sorted(pe.vectors),
                    "pin_load": [[p, b, *load] for (p, b), load in sorted(pin_load.items())],
                    "clock": "clk" if pe.dirs.get("clk") == "input" else None,
                    "output_drivers": outputs}
    write_stub_liberty(workdir, liberty_data)
    with open(os.path.join(workdir, FANOUT_FILE), "w", encoding="utf-8") as f:
        f.write("array set termwise_stub_fanout {\n" + "".join(
            f"  {{{port}[{bit}]}} {load[2]}\n" if port in pe.vectors else
            f"  {{{port}}} {load[2]}\n" for (port, bit), load in sorted(pin_load.items()))
            + "}\n")
    info = {"module": module, "instances": total, "sampled": len(keep),
            "holder_path": _instance_path(texts, holder),
            "sampled_instances": [names[i] for i in sorted(keep)],
            "cells_per_instance": sum(stub.cells.values()), "liberty": liberty_data}
    with open(os.path.join(workdir, INFO_FILE), "w", encoding="utf-8") as f:
        json.dump(info, f, indent=1)
    return info


def write_stub_liberty(workdir: str, data: dict, arcs: dict | None = None) -> None:
    """:data:`LIBERTY_FILE` from the record :func:`write_sampled_netlist` keeps
    (``info["liberty"]``), with ``arcs`` on the outputs when given."""
    text = stub_liberty([tuple(p) for p in data["ports"]],
                        {p: tuple(w) for p, w in data["widths"].items()},
                        set(data["vectors"]),
                        {(p, b): tuple(load) for p, b, *load in data["pin_load"]},
                        arcs, data["clock"])
    with open(os.path.join(workdir, LIBERTY_FILE), "w", encoding="utf-8") as f:
        f.write(text)


#: OpenSTA script of :func:`output_arcs`: the latest arrival and slew (rise, fall) at each
#: sampled PE's output drivers, in seconds.
ARCS_SCRIPT = """{reads}
read_verilog {net}
link_design {top}
create_clock -name clk -period {period} [get_ports clk]
set termwise_wns [sta::worst_slack -max]
foreach {{name pin}} {{{pins}}} {{
  set p [get_pins $pin]
  foreach v [$p vertices] {{
    set out "TERMWISE_ARC $name"
    foreach rf {{rise fall}} {{
      set pr [sta::vertex_worst_arrival_path_tr $v $rf max]
      lappend out [expr {{$pr eq "NULL" ? 0.0 : [$pr arrival]}}]
    }}
    foreach rf {{rise fall}} {{ lappend out [tcl::mathfunc::max {{*}}[$v slews $rf]] }}
    puts [join $out " "]
  }}
}}
exit
"""


def output_arcs(workdir: str, info: dict, top: str, clock_ns: float, reads: str) -> dict:
    """Time the sampled netlist once (its stubs' outputs without arcs) and give the stub
    cell a rising-edge arc per output bit: the latest arrival and slew over the sampled
    PEs' drivers of that bit (ns), so paths from a stubbed PE into the shared logic are
    timed as from the sampled ones. Rewrites :data:`LIBERTY_FILE`; returns the arcs.
    ``reads``: the script's ``read_liberty`` lines."""
    from . import tools
    data = info["liberty"]
    if not data["clock"] or not data["output_drivers"]:
        return {}
    prefix = info["holder_path"] + "/" if info["holder_path"] else ""
    pins = " ".join(f"{{{bit}}} {{{prefix}{inst}/{drv}}}"
                    for inst in info["sampled_instances"]
                    for bit, drv in data["output_drivers"].items())
    with open(os.path.join(workdir, "sta_stub_arcs.tcl"), "w", encoding="utf-8") as f:
        f.write(ARCS_SCRIPT.format(reads=reads, net=NETLIST_FILE, top=top,
                                   period=f"{clock_ns:g}", pins=pins))
    tools.run([tools.check_sta(), "-no_init", "-exit", "sta_stub_arcs.tcl"], workdir,
              "sta_stub_arcs.log")
    worst: dict = {}
    with open(os.path.join(workdir, "sta_stub_arcs.log"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("TERMWISE_ARC "):
                _, bit, *vals = line.split()
                got = [float(v) * 1e9 for v in vals]
                worst[bit] = [max(a, b) for a, b in zip(worst.get(bit, got), got)]
    arcs = {}
    for bit, vals in worst.items():
        port, _, idx = bit.partition("[")
        arcs[(port, int(idx.rstrip("]")) if idx else
              tuple(data["widths"].get(port, (0, 0)))[0])] = tuple(vals)
    write_stub_liberty(workdir, data, arcs)
    return arcs


def sta_lines(tcl: str) -> str:
    """An OpenSTA script reading the stub cell's liberty after the cells' (as
    :func:`termwise.synth.macros.sta_lines` reads the macros')."""
    return re.sub(r"(read_liberty \S+\n)", rf"\1read_liberty {LIBERTY_FILE}\n", tcl, count=1)


def _instance_path(texts: dict[str, str], module: str) -> str:
    """The hierarchical path OpenSTA names ``module``'s one instance by (``tile/array``),
    from the top (the module nothing instantiates)."""
    path = []
    while True:
        pat = re.compile(r"^\s+" + re.escape(_verilog_name(module)) + r"\s+(\S+)\s*\(", re.M)
        found = [(name, m) for name, t in texts.items() for m in [pat.search(t)] if m]
        if not found:
            return "/".join(reversed(path))
        (parent, m), = found
        path.append(m.group(1).lstrip("\\"))
        module = parent


def weight(info: dict | None):
    """``pin -> weight`` for :func:`termwise.synth.parse.parse_drv`: a pin inside a sampled
    instance stands for ``instances / sampled`` of them (every instance has the same
    nets), any other pin for itself; None without sampling."""
    if not info:
        return None
    prefix = info["holder_path"] + "/" if info["holder_path"] else ""
    inside = {prefix + name + "/" for name in info["sampled_instances"]}
    scale = info["instances"] / info["sampled"]

    def w(pin: str) -> float:
        return scale if any(pin.startswith(p) for p in inside) else 1.0
    return w


def read_info(workdir: str) -> dict | None:
    """The sampling a run's timing used (:data:`INFO_FILE`), None if it timed it flat."""
    path = os.path.join(workdir, INFO_FILE)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _verilog_name(name: str) -> str:
    """``name`` as the netlist writes it (escaped when it is not a plain identifier)."""
    return name if re.fullmatch(r"[A-Za-z_][\w$]*", name) else "\\" + name
