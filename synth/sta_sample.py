"""Static timing of a tile with most instances of its replicated modules replaced by load
stubs.

OpenSTA 2.0.17 links a hierarchical netlist into one flat timing graph, so its memory grows
with every instance: 9.1 GB on laconic-16x16-8b, past 24 GB on the 16-bit Laconic tile, and
10.5 GB on loom-16x16 with fc columns, whose 64 column weight registers (4,096 flops each)
and 1,024 weight-bit selectors were timed whole while its PEs were stubbed. A tile's
replicated modules are each one module instantiated many times in one holder, fed by the
same kinds of nets (broadcast control, a row of weights, a column of activations) and
feeding the same kinds. Here every such module (:func:`plan`: the PE when it has more than
:data:`SAMPLED` instances, as always; any other with at least :data:`MIN_INSTANCES`) keeps
:data:`SAMPLED` instances whole, spread over its instance list (the first and the last
included), and the others become instances of a stub cell of its own
(:mod:`.sta_stub`: per input bit the load of the module's own cell pins on that net, per
output bit a rising-edge arc at the latest arrival and slew of the sampled instances,
:mod:`.sta_arcs`), so every net that reaches a stubbed instance is loaded, timed and
design-rule checked as in the flat netlist, and no path starts inside or runs through a
stubbed instance (its sampled siblings run those paths).

What this leaves out: the paths through the stubbed instances themselves; the difference
from the flat timing is measured in synth/README.md ("Sampled timing"). A tile where only
the PE qualifies is sampled exactly as before this generalisation (the same files, the same
synthesis key); a tile where another module is stubbed has a key field of its own
(:func:`key_fields`).
"""

from __future__ import annotations

import json
import os
import re

from . import module_synth, sta_arcs
from .sta_stub import (CLOCK_PIN, FANOUT_FILE, LIBERTY_FILE, LOGIC_LIBERTY_FILE,
                       NETLIST_FILE, STUB_CELL,
                       cell_name, fanout_text, module_stub, stub_liberty, write_stub_liberty,
                       write_stubs_liberty)

__all__ = ["VERSION", "STUBS_VERSION", "SAMPLED", "MIN_INSTANCES", "STUB_CELL", "CLOCK_PIN",
           "LIBERTY_FILE", "LOGIC_LIBERTY_FILE", "NETLIST_FILE", "FANOUT_FILE", "INFO_FILE",
           "sampled_indices", "hierarchy", "verilog_hierarchy", "plan", "stub_key",
           "key_fields", "stub_liberty", "write_sampled_netlist", "sample_tile",
           "write_stub_liberty", "output_arcs", "sta_lines", "gating_script", "records",
           "report_fields", "weight", "read_info"]

#: The sampled timing's version, in the synthesis key of a hierarchical run (bump when a
#: change here would change a result).
VERSION = "sta-sample-1"
#: The version of the stubbing of modules besides the PE, in the key of a hierarchical run
#: that stubs one (:func:`key_fields`; bump when a change would change such a result).
STUBS_VERSION = "sta-stubs-1"
#: Instances of each stubbed module kept whole (spread evenly over the instance list,
#: first and last in).
SAMPLED = 8
#: Instances a module other than the PE needs to be stubbed: 32, so that at least three in
#: four of its instances go (a module of 9 to 31 instances saves little, against timing
#: its paths from 8 samples), and so that the modules that hold OpenSTA's memory, which are
#: per column or per PE of a 16x16 tile (64 column registers, 512 to 1,024 selectors or
#: term bricks), are stubbed while a 4x4 tile's per-window modules (16) are timed whole.
MIN_INSTANCES = 32
#: What was sampled (for the report and the design-rule counts, :func:`weight`).
INFO_FILE = "sta_sample.json"

_INSTANCE = re.compile(r"^\s+(\\\S+|[A-Za-z_][\w$]*)\s+(?:#\(.*?\)\s*)?(?:\\\S+|[A-Za-z_][\w$]*)"
                       r"\s*\(", re.M)
_CLK_INPUT = re.compile(r"^\s*input\s+(?:wire\s+)?(?:\[[^\]]*\]\s*)?clk\s*;", re.M)


def sampled_indices(n: int, k: int = SAMPLED) -> list[int]:
    """``k`` of ``range(n)`` spread evenly, the first and the last included (all if
    ``n <= k``)."""
    if n <= k:
        return list(range(n))
    return sorted({round(i * (n - 1) / (k - 1)) for i in range(k)})


def hierarchy(texts: dict[str, str], leaves=()) -> dict[str, dict]:
    """``{module: {"subs": {submodule: instances}, "clk": has a clk input}}`` of the
    modules in ``texts`` (:func:`termwise.synth.module_synth.split_modules` of the tile's
    Verilog or of its netlist) but ``leaves`` (the SRAM macros, black boxes in the
    netlist); only modules of that set count as submodules."""
    names = set(texts) - set(leaves)
    out = {}
    for name in sorted(names):
        subs: dict[str, int] = {}
        for m in _INSTANCE.finditer(texts[name]):
            child = m.group(1).lstrip("\\")
            if child in names:
                subs[child] = subs.get(child, 0) + 1
        out[name] = {"subs": dict(sorted(subs.items())),
                     "clk": bool(_CLK_INPUT.search(texts[name]))}
    return out


def plan(summary: dict[str, dict], pe: str, k: int = SAMPLED,
         min_instances: int | None = None) -> list[tuple[str, str, int]]:
    """The modules to stub, ``(module, holder, instances)`` each, the PE first, then
    outermost first: every module all of whose instances sit in one holder module that has
    one instance path from the top (so its instances are the design's), with more than
    ``k`` instances (the PE) or at least ``min_instances`` (:data:`MIN_INSTANCES`; any
    other module, which also needs a ``clk`` of its own or its holder's for its outputs'
    arcs). A module spread over several holders is timed whole, and so is every module
    inside a stubbed one (its holder has as many instance paths as the stubbed module has
    instances). ``summary``: :func:`hierarchy`."""
    if min_instances is None:
        min_instances = MIN_INSTANCES
    parents: dict[str, dict[str, int]] = {m: {} for m in summary}
    for p, e in summary.items():
        for c, n in e["subs"].items():
            parents[c][p] = n
    paths: dict[str, int] = {}
    depth: dict[str, int] = {}

    def walk(m: str) -> None:
        if m not in paths:
            for p in parents[m]:
                walk(p)
            paths[m] = sum(n * paths[p] for p, n in parents[m].items()) or 1
            depth[m] = min((depth[p] + 1 for p in parents[m]), default=0)

    for m in summary:
        walk(m)
    chosen: list[tuple[str, str, int]] = []
    inside: set[str] = set()
    for m in sorted(summary, key=lambda m: (m != pe, depth[m], m)):
        if len(parents[m]) != 1 or m in inside:
            continue
        (holder, n), = parents[m].items()
        if paths[holder] != 1:
            continue
        if m == pe:
            if n <= k:
                continue
        elif n < min_instances or not (summary[m]["clk"] or summary[holder]["clk"]):
            continue
        chosen.append((m, holder, n))
        todo = [m]
        while todo:
            for c in summary[todo.pop()]["subs"]:
                if c not in inside:
                    inside.add(c)
                    todo.append(c)
    return chosen


def stub_key(summary: dict[str, dict], top: str) -> dict | None:
    """The synthesis key's field of the stubbing of ``top`` (:func:`hierarchy`'s
    ``summary`` of its Verilog): None when at most the PE is stubbed (the key of every run
    before modules besides the PE were stubbed), else :data:`STUBS_VERSION` and the
    stubbed modules (names after the tile's)."""
    pe = f"{top}__pe"
    chosen = [m for m, _, _ in plan(summary, pe)]
    if all(m == pe for m in chosen):
        return None
    return {"version": STUBS_VERSION,
            "modules": [m[len(top):] if m.startswith(top) else m for m in chosen]}


def verilog_hierarchy(verilog: str) -> dict[str, dict]:
    """:func:`hierarchy` of the tile's Verilog text, its SRAM macros left out (the netlist
    has them as black boxes)."""
    from .macros import macro_shapes
    return hierarchy(module_synth.split_modules(verilog),
                     [n for n, _, _ in macro_shapes(verilog)])


def key_fields(verilog: str, top: str) -> dict | None:
    """:func:`stub_key` of the tile's Verilog text."""
    return stub_key(verilog_hierarchy(verilog), top)


def _verilog_name(name: str) -> str:
    """``name`` as the netlist writes it (escaped when it is not a plain identifier)."""
    return name if re.fullmatch(r"[A-Za-z_][\w$]*", name) else "\\" + name


def _swap(text: str, module: str, cell: str, k: int, clock_pin: bool):
    """``text`` (the holder's) with all but ``k`` instances of ``module`` made ``cell``
    (their ``clk`` on the stub's :data:`CLOCK_PIN` with ``clock_pin``); ``(new text,
    instance names, indices kept)``."""
    pattern = re.compile(r"^(\s+)" + re.escape(_verilog_name(module)) + r"(\s+\S+\s*\()",
                         re.M)
    names = [m.group(2).strip().lstrip("\\").rstrip("(").strip()
             for m in pattern.finditer(text)]
    keep = set(sampled_indices(len(names), k))
    count = iter(range(len(names)))
    extra = f" .{CLOCK_PIN}(clk)," if clock_pin else ""

    def swap(m):
        return m.group(0) if next(count) in keep else m.group(1) + cell + m.group(2) + extra

    return pattern.sub(swap, text), names, keep


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


def write_sampled_netlist(workdir: str, module: str, liberty: str,
                          netlist: str = "netlist.v", k: int = SAMPLED,
                          min_instances: int | None = None, expect=None) -> dict | None:
    """Write :data:`NETLIST_FILE` (``netlist`` with all but ``k`` instances of each module
    of :func:`plan` made stubs; ``module``: the PE), :data:`LIBERTY_FILE`,
    :data:`FANOUT_FILE` and :data:`INFO_FILE` in ``workdir``; returns the info, or None
    (nothing written) when nothing is stubbed. The info of the PE alone is its record
    (``module``, ``instances``, ``sampled``, ``holder_path``, ``sampled_instances``,
    ``cells_per_instance``, ``liberty``), as before other modules were stubbed; otherwise
    ``{"modules": [record, ...]}``, each record with its stub ``cell`` too
    (:func:`records`). ``expect``: the modules the tile's key was made for
    (:func:`stub_key`); a netlist that stubs others raises ValueError."""
    from .power.cells import read_library
    with open(os.path.join(workdir, netlist), encoding="utf-8") as f:
        text = f.read()
    texts = module_synth.split_modules(text)
    summary = hierarchy(texts)
    chosen = plan(summary, module, k, min_instances)
    if expect is not None and sorted(m for m, _, _ in chosen) != sorted(expect):
        raise ValueError(f"the netlist stubs {[m for m, _, _ in chosen]}, its synthesis "
                         f"key was made for {list(expect)}")
    if not chosen:
        return None
    lib = read_library(os.path.join(workdir, liberty))
    top = module[:-len("__pe")] if module.endswith("__pe") else ""
    holders: dict[str, str] = {}
    recs = []
    for m, holder, n in chosen:
        cell = STUB_CELL if m == module else cell_name(m, top)
        pseudo = m != module and not summary[m]["clk"]
        data, cells = module_stub(texts, m, lib, clock_pin=pseudo)
        holders[holder], names, keep = _swap(holders.get(holder, texts[holder]), m, cell, k,
                                             pseudo)
        if len(names) != n:
            raise ValueError(f"{m}: {len(names)} instances in {holder}, {n} counted")
        recs.append({"module": m, "instances": n, "sampled": len(keep),
                     "holder_path": _instance_path(texts, holder),
                     "sampled_instances": [names[i] for i in sorted(keep)],
                     "cells_per_instance": cells, "liberty": data}
                    | ({} if m == module else {"cell": cell}))
    starts = sorted((text.index(texts[h]), h) for h in holders)
    pieces, at = [], 0
    for start, h in starts:
        pieces += [text[at:start], holders[h]]
        at = start + len(texts[h])
    with open(os.path.join(workdir, NETLIST_FILE), "w", encoding="utf-8") as f:
        f.write("".join(pieces) + text[at:])
    info = recs[0] if len(recs) == 1 and "cell" not in recs[0] else {"modules": recs}
    cells_data = [(r.get("cell", STUB_CELL), r["liberty"]) for r in recs]
    write_stubs_liberty(workdir, [(c, d, None) for c, d in cells_data])
    with open(os.path.join(workdir, FANOUT_FILE), "w", encoding="utf-8") as f:
        f.write(fanout_text(cells_data))
    _write_info(workdir, info)
    return info


def sample_tile(workdir: str, top: str, liberty: str) -> dict | None:
    """:func:`write_sampled_netlist` of the run folder's ``netlist.v`` (the tile ``top``,
    its PE ``top__pe``), which must stub the modules the tile's Verilog (``tile.v``) does,
    the modules its synthesis key was made for (:func:`key_fields`)."""
    with open(os.path.join(workdir, "tile.v"), encoding="utf-8") as f:
        rtl = verilog_hierarchy(f.read())
    pe = f"{top}__pe"
    return write_sampled_netlist(workdir, pe, liberty,
                                 expect=[m for m, _, _ in plan(rtl, pe)])


def _write_info(workdir: str, info: dict) -> None:
    with open(os.path.join(workdir, INFO_FILE), "w", encoding="utf-8") as f:
        json.dump(info, f, indent=1)


def output_arcs(workdir: str, info: dict, top: str, clock_ns: float, reads: str):
    """The stub cells' output arcs (:func:`termwise.synth.sta_arcs.output_arcs`), the
    liberty rewritten with them; ``reads``: the ``read_liberty`` lines of the timing. With
    modules besides the PE stubbed and SRAM macros read, the arcs of the logic alone too
    (:data:`LOGIC_LIBERTY_FILE`, passes without the macros): the clock-gating timing does
    not read the macros, so its stubs must not carry arrivals from them (an fc column's
    output that a weight macro reaches through its row multiplexer). The info of several
    modules records the passes (``arc_passes``)."""
    from .macros import LIBERTY_FILE as MACROS_FILE
    arcs = sta_arcs.output_arcs(workdir, info, top, clock_ns, reads)
    if "modules" in info:
        logic = "\n".join(ln for ln in reads.split("\n") if ln != f"read_liberty {MACROS_FILE}")
        if logic != reads:
            sta_arcs.output_arcs(workdir, info, top, clock_ns,
                                 logic.replace(LIBERTY_FILE, LOGIC_LIBERTY_FILE),
                                 LOGIC_LIBERTY_FILE, "sta_stub_logic_arcs")
        _write_info(workdir, info)
    return arcs


def sta_lines(tcl: str, liberty: str = LIBERTY_FILE) -> str:
    """An OpenSTA script reading the stub cells' liberty (``liberty``) after the cells' (as
    :func:`termwise.synth.macros.sta_lines` reads the macros')."""
    return re.sub(r"(read_liberty \S+\n)", rf"\1read_liberty {liberty}\n", tcl, count=1)


def gating_script(workdir: str):
    """The clock-gating timing's script rewriter (:func:`termwise.synth.clock_gating.timing`)
    of a sampled run in ``workdir``: :func:`sta_lines` with the logic's arcs
    (:data:`LOGIC_LIBERTY_FILE`) when :func:`output_arcs` wrote them."""
    if os.path.exists(os.path.join(workdir, LOGIC_LIBERTY_FILE)):
        return lambda tcl: sta_lines(tcl, LOGIC_LIBERTY_FILE)
    return sta_lines


def records(info: dict | None) -> list[dict]:
    """The stubbed modules' records of a sampling's info (:func:`write_sampled_netlist`):
    ``[]`` without sampling."""
    if not info:
        return []
    return info["modules"] if "modules" in info else [info]


def report_fields(info: dict) -> dict:
    """The report's ``sta_sample``: the PE's ``module``, ``instances`` and ``sampled`` when
    it is stubbed alone (as before other modules were), else ``modules``, a list of them."""
    rows = [{k: r[k] for k in ("module", "instances", "sampled")} for r in records(info)]
    return rows[0] if "modules" not in info else {"modules": rows}


def weight(info: dict | None):
    """``pin -> weight`` for :func:`termwise.synth.parse.parse_drv`: a pin inside a sampled
    instance of a stubbed module stands for ``instances / sampled`` of them (every
    instance has the same nets), any other pin for itself; None without sampling."""
    recs = records(info)
    if not recs:
        return None
    table = []
    for r in recs:
        prefix = r["holder_path"] + "/" if r["holder_path"] else ""
        table.append((tuple(prefix + name + "/" for name in r["sampled_instances"]),
                      r["instances"] / r["sampled"]))

    def w(pin: str) -> float:
        for inside, scale in table:
            if pin.startswith(inside):
                return scale
        return 1.0
    return w


def read_info(workdir: str) -> dict | None:
    """The sampling a run's timing used (:data:`INFO_FILE`), None if it timed it flat."""
    path = os.path.join(workdir, INFO_FILE)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)
