"""Per-module synthesis: each distinct module of a tile in a yosys run of its own, its
submodules read as black boxes, and its netlist cached under a key of its own text.

The ASIC flow (:mod:`.asic`) used to synthesise the whole hierarchy in one yosys run.
Yosys already kept the hierarchy (no pass crosses a module boundary: each module is
synthesised and mapped once however many instances it has), so a module's netlist depends
only on its own text, its submodules' ports and the flow's settings. Here each module is
one run (read: its own text, its direct submodules with ``read_verilog -lib``), which

- caches it across runs: a tile that changes one option (its depth, say) synthesises only
  the modules whose text changed, and takes the PE and its parts from the cache
  (:func:`module_key`; the tile's name, which Amaranth puts in every module's name, is
  replaced by a placeholder so the same PE under another tile's name is the same key);
- holds one module in memory per process, not the whole design.

The netlists are the one-run flow's up to the names ABC gives its wires and the order of
their cells (tests/synth/test_module_synth.py: every 4x4 preset's cells per module and
area equal, and its timing). ``stat.json`` is assembled from the runs' own ``stat``
documents (:func:`merge_stats`), as yosys writes it for the whole design.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import re

from ..gen.progress import Bar
from . import cache, tools

__all__ = ["VERSION", "MAX_RUNS_AT_ONCE", "module_runs_at_once", "split_modules", "children",
           "reachable", "module_key", "module_script", "merge_stats", "synthesise_modules", "TOP_PLACEHOLDER"]

#: The per-module flow's version, in the synthesis key of a per-module run (bump when a
#: change here would change a netlist).
VERSION = "modules-1"
#: Module yosys runs at once at most (each holds one module: about 1 GB for a 16x16 tile's
#: top module, the largest).
MAX_RUNS_AT_ONCE = 4


def module_runs_at_once() -> int:
    """The module runs :func:`synthesise_modules` starts at once: this machine's cores
    available to the process, at most :data:`MAX_RUNS_AT_ONCE`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:          # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(MAX_RUNS_AT_ONCE, cores))


#: What the tile's top name becomes in a module's key and in its cached netlist.
TOP_PLACEHOLDER = "termwise__TOP__"

_MODULE = re.compile(r"((?:^\(\*[^\n]*\*\)\n)*)^module\s+(\\\S+|[A-Za-z_][\w$]*)\s*[(;]"
                     r".*?^endmodule\b[^\n]*\n?", re.S | re.M)
_INSTANCE = re.compile(r"^\s+(\\\S+|[A-Za-z_][\w$]*)\s+(?:#\(.*?\)\s*)?(\\\S+|[A-Za-z_][\w$]*)"
                       r"\s*\(", re.M)


def split_modules(verilog: str) -> dict[str, str]:
    """``{name: text}`` of every module in ``verilog`` (names without yosys' leading
    backslash, texts with the attribute lines before ``module``)."""
    out = {}
    for m in _MODULE.finditer(verilog):
        out[m.group(2).lstrip("\\")] = m.group(0)
    return out


def children(text: str, names) -> list[str]:
    """The modules of ``names`` that ``text`` instantiates, sorted."""
    names = set(names)
    return sorted({m.group(1).lstrip("\\") for m in _INSTANCE.finditer(text)
                   if m.group(1).lstrip("\\") in names})


def reachable(top: str, texts: dict[str, str], leaves=()) -> dict[str, list[str]]:
    """``{module: its direct submodules}`` for ``top`` and every module below it but
    ``leaves`` (black boxes, such as the SRAM macros: in their parents' lists, not keys)."""
    out: dict[str, list[str]] = {}
    todo = [top]
    while todo:
        m = todo.pop()
        if m in out:
            continue
        out[m] = children(texts[m], texts)
        todo.extend(c for c in out[m] if c not in leaves)
    return out


def _normal(text: str, top: str) -> str:
    return text.replace(top, TOP_PLACEHOLDER)


def module_key(settings: dict, module: str, texts: dict[str, str], subs: list[str],
               top: str) -> str:
    """The cache key of ``module``'s netlist (:func:`termwise.synth.cache.cache_key`) of
    the flow's ``settings``, its text and its direct submodules' texts (their ports are
    what its run reads), with ``top``'s name replaced by :data:`TOP_PLACEHOLDER`."""
    return cache.cache_key(_key_settings(settings, module, texts, subs, top))


def _key_settings(settings, module, texts, subs, top) -> dict:
    return {"settings": settings, "module": _normal(module, top),
            "texts": [_normal(texts[name], top) for name in [module] + subs]}


def _yosys_name(name: str) -> str:
    """A module name as a yosys command argument (escaped when it is not a plain
    identifier: Amaranth's submodules are ``\\top.array``)."""
    return name if re.fullmatch(r"[A-Za-z_][\w$]*", name) else "\\" + name


def module_script(whole: str, module: str, own: str, subs_file: str | None,
                  out: str, stat: str, abc: str) -> str:
    """The yosys script of one module's run, made from the one-run flow's script
    ``whole`` (:mod:`.asic`'s ``asic.ys`` with gating and macros applied): its files read
    (``own``; ``subs_file`` as black boxes), ``module`` as the top, ``abc`` (the ABC
    command for this module) in place of the ABC lines, its ``stat`` and netlist written to
    ``stat`` and ``out``. The one-run script's ``blackbox`` line (the macros) goes: a run
    reads its submodules, macros included, as black boxes."""
    lines = []
    reads = [f"read_verilog -lib {subs_file}"] if subs_file else []
    reads.append(f"read_verilog {own}")
    abc_done = False
    for line in whole.split("\n"):
        if line.startswith("read_verilog "):
            if reads:
                lines.extend(reads)
                reads = []
            continue
        if line.startswith(("hierarchy -check -top", "synth -noabc -top")):
            line = line.rsplit(" ", 1)[0] + " " + _yosys_name(module)
        elif line.startswith("blackbox "):
            continue
        elif line.startswith(("abc ", "setattr -mod -set termwise_abc_safe")):
            if not abc_done:
                lines.append(abc)
                abc_done = True
            continue
        elif line.startswith("tee -q -o stat.json"):
            line = line.replace("stat.json", stat)
        elif line.startswith("tee -q -o stat.txt"):
            continue
        elif line.startswith("write_verilog"):
            line = line.rsplit(" ", 1)[0] + " " + out
        lines.append(line)
    if reads or not abc_done:
        raise ValueError("the ASIC script has no read_verilog or no abc line")
    return "\n".join(lines)


def merge_stats(docs: dict[str, dict], top: str) -> dict:
    """One ``stat -json`` document for the design below ``top`` from each module's own run
    (``docs``: module -> its run's document, whose submodules were black boxes): each
    module's entry as its run wrote it with ``area`` and ``sequential_area`` made
    hierarchical (its cells' plus its submodules' times their instance counts), and a
    ``design`` entry of the flattened totals, as yosys' ``stat`` of the whole design."""
    entries = {}
    for name, doc in docs.items():
        mods = {k.lstrip("\\"): v for k, v in doc["modules"].items()}
        entries[name] = dict(mods[name])
    names = set(entries)

    def subs(name):
        return {c.lstrip("\\"): int(n) for c, n in
                entries[name].get("num_cells_by_type", {}).items() if c.lstrip("\\") in names}

    done: dict[str, tuple] = {}

    def total(name):
        if name not in done:
            e = entries[name]
            area, seq = float(e.get("area", 0.0)), float(e.get("sequential_area", 0.0))
            cells: dict[str, int] = {}
            for c, n in e.get("num_cells_by_type", {}).items():
                if c.lstrip("\\") not in names:
                    cells[c] = cells.get(c, 0) + int(n)
            for s, k in subs(name).items():
                a, q, sc = total(s)
                area, seq = area + k * a, seq + k * q
                for c, n in sc.items():
                    cells[c] = cells.get(c, 0) + k * n
            done[name] = (area, seq, cells)
        return done[name]

    out_mods = {}
    for name in sorted(entries):
        area, seq, _ = total(name)
        k = sum(subs(name).values())   # yosys counts submodule instances apart
        e = dict(entries[name], area=area, sequential_area=seq, num_submodules=k,
                 num_cells=int(entries[name].get("num_cells", 0)) - k)
        out_mods["\\" + name] = e       # as yosys names them
    area, seq, cells = total(top)
    design = {"num_cells": sum(cells.values()), "num_submodules": 1 if subs(top) else 0,
              "area": area, "sequential_area": seq,
              "num_cells_by_type": dict(sorted(cells.items()))}
    return {"creator": "termwise.synth.module_synth (per-module yosys runs)",
            "modules": out_mods, "design": design}


def _run_module(workdir: str, whole: str, name: str, index: int, texts, subs,
                abc_fast: str, abc_safe: str, crashed) -> tuple[str, dict, bool]:
    """Synthesise ``name`` in ``workdir/modules``; ``(netlist text, stat doc, safe)``,
    ``safe`` when ABC's fast script crashed on it and the plain one was used."""
    rel = os.path.join("modules", str(index))
    os.makedirs(os.path.join(workdir, rel), exist_ok=True)
    own = os.path.join(rel, "module.v")
    with open(os.path.join(workdir, own), "w", encoding="utf-8") as f:
        f.write(texts[name])
    subs_file = None
    if subs:
        subs_file = os.path.join(rel, "subs.v")
        with open(os.path.join(workdir, subs_file), "w", encoding="utf-8") as f:
            f.write("".join(texts[s] for s in subs))
    for safe, abc in ((False, abc_fast), (True, abc_safe)):
        ys = module_script(whole, name, own, subs_file, os.path.join(rel, "netlist.v"),
                           os.path.join(rel, "stat.json"), abc)
        with open(os.path.join(workdir, rel, "asic.ys"), "w", encoding="utf-8") as f:
            f.write(ys)
        log = os.path.join(rel, "yosys.log")
        try:
            tools.run([tools.yosys_cmd(), "-q", "-l", log, os.path.join(rel, "asic.ys")],
                      workdir, os.path.join(rel, "yosys.stdout"))
        except tools.ToolError:
            path = os.path.join(workdir, log)
            if safe or not os.path.exists(path):
                raise
            with open(path, encoding="utf-8", errors="replace") as f:
                if crashed(f.read()) is None:
                    raise
            continue
        with open(os.path.join(workdir, rel, "netlist.v"), encoding="utf-8") as f:
            net = f.read()
        with open(os.path.join(workdir, rel, "stat.json"), encoding="utf-8") as f:
            stat = json.load(f)
        return net, stat, safe
    raise AssertionError("unreachable")


def synthesise_modules(workdir: str, whole: str, verilog_files: list[str], top: str,
                       wrap: str, settings: dict, abc_fast: str, abc_safe: str, crashed,
                       cache_dir: str | None = None, leaves=()) -> dict:
    """Synthesise the design below ``wrap`` module by module in ``workdir``: write
    ``netlist.v`` (the modules in name order, as yosys writes them) and ``stat.json``
    (:func:`merge_stats`); returns ``{"modules", "cached", "safe"}`` (the modules
    synthesised, those taken from ``cache_dir``, those ABC's fast script crashed on).

    ``whole`` is the one-run script (:func:`module_script` makes each run's from it);
    ``verilog_files`` the design's sources in ``workdir``; ``settings`` what besides the
    texts decides a netlist (the synthesis key's settings); ``leaves`` the black-box
    modules (the macros). The cache misses' yosys runs go :func:`module_runs_at_once` at
    a time."""
    texts: dict[str, str] = {}
    for path in verilog_files:
        with open(os.path.join(workdir, path), encoding="utf-8") as f:
            texts.update(split_modules(f.read()))
    tree = reachable(wrap, texts, set(leaves))
    runs, cached = {}, []
    bar = Bar(len(tree), "synth modules", "module")
    todo = []
    for index, name in enumerate(sorted(tree)):
        key = module_key(settings, name, texts, tree[name], top)
        hit = _cache_get(cache_dir, key)
        if hit is None:
            todo.append((index, name, key))
            continue
        net, stat, safe = hit
        runs[name] = (net.replace(TOP_PLACEHOLDER, top),
                      json.loads(json.dumps(stat).replace(TOP_PLACEHOLDER, top)), safe)
        cached.append(name)
        bar.step(name.rsplit(".", 1)[-1])

    def run(index: int, name: str, key: str):
        net, stat, safe = _run_module(workdir, whole, name, index, texts, tree[name],
                                      abc_fast, abc_safe, crashed)
        _cache_put(cache_dir, key, _normal(net, top), json.loads(_normal(json.dumps(stat), top)),
                   safe, {"module": _normal(name, top), "flow": settings})
        return net, stat, safe

    # The misses' yosys runs at once, each a process of its own (a 16x16 tile's top and
    # array modules took 425 s and 207 s one after the other): the results do not depend
    # on the order, the netlist is written in name order.
    with concurrent.futures.ThreadPoolExecutor(max(1, min(module_runs_at_once(),
                                                          len(todo)))) as pool:
        futures = {pool.submit(run, *item): item[1] for item in todo}
        try:
            for future in concurrent.futures.as_completed(futures):
                runs[futures[future]] = future.result()
                bar.step(futures[future].rsplit(".", 1)[-1])
        except BaseException:       # the first failure stops the runs not yet started
            for future in futures:
                future.cancel()
            raise
    bar.close()
    nets = {name: _only(runs[name][0], name) for name in runs}
    stats = {name: runs[name][1] for name in runs}
    safe_mods = sorted(name for name in runs if runs[name][2])
    with open(os.path.join(workdir, "netlist.v"), "w", encoding="utf-8") as f:
        f.write("".join(nets[n] for n in sorted(nets)))
    with open(os.path.join(workdir, "stat.json"), "w", encoding="utf-8") as f:
        json.dump(merge_stats(stats, wrap), f, indent=1)
    for index in range(len(tree)):     # the runs' copies of texts and netlists; logs stay
        for name in ("module.v", "subs.v", "netlist.v"):
            path = os.path.join(workdir, "modules", str(index), name)
            if os.path.exists(path):
                os.remove(path)
    return {"modules": len(tree), "cached": cached, "safe": safe_mods}


def _only(net: str, name: str) -> str:
    """The netlist text of ``name`` alone (its run writes nothing else: black boxes are
    not written), with the header comment dropped."""
    mods = split_modules(net)
    if set(mods) != {name}:
        raise ValueError(f"the run of {name} wrote modules {sorted(mods)}")
    return mods[name]


def _cache_get(cache_dir: str | None, key: str):
    """``(netlist, stat, safe)`` stored under ``key``, or None."""
    hit = None if cache_dir is None else cache.lookup(cache_dir, key)
    if hit is None:
        return None
    with open(os.path.join(cache_dir, key, "netlist.v"), encoding="utf-8") as f:
        return f.read(), hit["stat"], hit["safe"]


def _cache_put(cache_dir: str | None, key: str, net: str, stat: dict, safe: bool,
               settings: dict) -> None:
    """Store one module's result as the synthesis cache stores a run
    (:func:`termwise.synth.cache.commit`: a private folder renamed into place, the first
    writer wins)."""
    if cache_dir is None:
        return
    run_dir = cache.new_run_dir(cache_dir)
    with open(os.path.join(run_dir, "netlist.v"), "w", encoding="utf-8") as f:
        f.write(net)
    cache.commit(cache_dir, key, run_dir, {"stat": stat, "safe": safe}, settings)
