"""The stub cells' output arcs (:mod:`.sta_sample`): the latest arrival and slew the sampled
instances of a stubbed module show on each output bit, by OpenSTA on the sampled netlist.

One pass times the sampled netlist with the stubs' outputs as they are and gives each stub
cell a rising-edge arc per output bit at the worst over its sampled instances (ns), so paths
from a stubbed instance into the rest of the tile are timed as from the sampled ones. With
the PE alone stubbed that is one pass (as the PE-only sampling always did). With several
modules stubbed a sampled instance may be fed by a stubbed instance of another (Loom: a
column's weight register feeds the weight-bit selectors, which feed the PEs), whose outputs
had no arrival in the pass before, so the passes repeat with the arcs found until they
change no more, at most one pass per stubbed module (a chain of stubbed modules is at most
that deep).
"""

from __future__ import annotations

import os

from .sta_stub import LIBERTY_FILE, NETLIST_FILE, STUB_CELL, write_stubs_liberty

__all__ = ["ARCS_SCRIPT", "output_arcs"]

#: OpenSTA script of :func:`output_arcs`: the latest arrival and slew (rise, fall) at each
#: sampled instance's output drivers, in seconds.
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


def _records(info: dict) -> list[dict]:
    return info["modules"] if "modules" in info else [info]


def _pass(workdir: str, recs: list[dict], top: str, clock_ns: float, reads: str,
          log: str) -> list[dict]:
    """One OpenSTA pass: per record, ``{(port, bit): (rise, fall, rise slew, fall slew)}``
    (ns), the worst over its sampled instances' drivers of each output bit."""
    from . import tools
    multi = len(recs) > 1
    pins = []
    for i, rec in enumerate(recs):
        data = rec["liberty"]
        if not data["clock"] or not data["output_drivers"]:
            continue
        prefix = rec["holder_path"] + "/" if rec["holder_path"] else ""
        tag = f"{i}:" if multi else ""
        pins.extend(f"{{{tag}{bit}}} {{{prefix}{inst}/{drv}}}"
                    for inst in rec["sampled_instances"]
                    for bit, drv in data["output_drivers"].items())
    script = os.path.splitext(log)[0] + ".tcl"
    with open(os.path.join(workdir, script), "w", encoding="utf-8") as f:
        f.write(ARCS_SCRIPT.format(reads=reads, net=NETLIST_FILE, top=top,
                                   period=f"{clock_ns:g}", pins=" ".join(pins)))
    tools.run([tools.check_sta(), "-no_init", "-exit", script], workdir, log)
    worst: dict = {}
    with open(os.path.join(workdir, log), encoding="utf-8") as f:
        for line in f:
            if line.startswith("TERMWISE_ARC "):
                _, bit, *vals = line.split()
                got = [float(v) * 1e9 for v in vals]
                worst[bit] = [max(a, b) for a, b in zip(worst.get(bit, got), got)]
    arcs: list[dict] = [{} for _ in recs]
    for tagged, vals in worst.items():
        i, _, bit = tagged.rpartition(":") if multi else ("0", "", tagged)
        widths = recs[int(i)]["liberty"]["widths"]
        port, _, idx = bit.partition("[")
        arcs[int(i)][(port, int(idx.rstrip("]")) if idx else
                      tuple(widths.get(port, (0, 0)))[0])] = tuple(vals)
    return arcs


def output_arcs(workdir: str, info: dict, top: str, clock_ns: float, reads: str,
                liberty: str = LIBERTY_FILE, log: str = "sta_stub_arcs"):
    """Give the stub cells of ``info`` (:func:`termwise.synth.sta_sample.write_sampled_netlist`)
    their output arcs (module docstring) and rewrite :data:`.sta_stub.LIBERTY_FILE` with
    them (or ``liberty``, logs ``log*.log``); ``reads``: the script's ``read_liberty``
    lines (``liberty`` among them). Returns the arcs: the PE's
    ``{(port, bit): (rise, fall, rise slew, fall slew)}`` with the PE alone (``{}`` when it
    has no clock or no driven output), else one such dict per stubbed module, in order."""
    recs = _records(info)
    if liberty != LIBERTY_FILE:     # its first pass reads it without arcs
        write_stubs_liberty(workdir, [(r.get("cell", STUB_CELL), r["liberty"], None)
                                      for r in recs], liberty)
    if len(recs) == 1:
        data = recs[0]["liberty"]
        if not data["clock"] or not data["output_drivers"]:
            return {}
        arcs = _pass(workdir, recs, top, clock_ns, reads, f"{log}.log")
        write_stubs_liberty(workdir, [(recs[0].get("cell", STUB_CELL), data, arcs[0])],
                            liberty)
        return arcs[0]
    arcs = [{} for _ in recs]
    passes = 0
    while passes < len(recs):
        passes += 1
        found = _pass(workdir, recs, top, clock_ns, reads,
                      f"{log}.log" if passes == 1 else f"{log}_{passes}.log")
        same = _rounded(found) == _rounded(arcs)
        arcs = found
        write_stubs_liberty(workdir, [(r.get("cell", STUB_CELL), r["liberty"], a)
                                      for r, a in zip(recs, arcs)], liberty)
        if same:
            break
    info.setdefault("arc_passes", {})[liberty] = passes
    return arcs


def _rounded(arcs: list[dict]) -> list[dict]:
    """The arcs as the liberty writes them (6 significant digits)."""
    return [{k: tuple(f"{v:.6g}" for v in vals) for k, vals in a.items()} for a in arcs]
