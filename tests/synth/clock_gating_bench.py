"""Measure clock gating on a register bank that holds most cycles (docs/clock-gating.md).

    .venv/bin/python tests/synth/clock_gating_bench.py [--words 16] [--width 32]
        [--cycles 20000] [--p-write 0.05] [--seed 1] [-o build/clock-gating-bench]

For gating off and on: the ASIC flow (run_asic, 10 ns) on an Amaranth register bank in the
IO wrapper, then the gate-level netlist under Verilator (the power flow's cell models, SAIF)
on random cycles (reset for 3 cycles, then a write with probability p_write, a read every
cycle), then the power of the netlist from the SAIF's toggle rates
(termwise.synth.power.compute.netlist_power, the power flow's computation). Prints and writes
``bench.json``. Not a pytest module (no ``test_`` prefix).

    ... --lockstep PRESET [--cycles N] [--seed S]
        the gated and the plain gate-level netlists of PRESET on the same random inputs
    ... --power PRESET [--cycles 600] [--seed 1]
        PRESET's gate-level power by the power flow, plain and gated, stated at 100 MHz"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _helpers():
    spec = importlib.util.spec_from_file_location(
        "clock_gating_helpers", os.path.join(HERE, "test_clock_gating.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def measure(out: str, words: int, width: int, cycles: int, p_write: float, seed: int,
            gating: bool, period_ns: float = 10.0) -> dict:
    from termwise.synth.power.cells import read_library
    from termwise.synth.power.measure import read_rates, simulated_power
    h = _helpers()
    wd = os.path.join(out, "on" if gating else "off")
    t0 = time.monotonic()
    res = h.synth_regbank(wd, words, width, gating, clock_ns=period_ns)
    t_syn = time.monotonic() - t0
    top = "regbank__wrap"
    exe = h.gate_level_model(os.path.join(wd, "run"), os.path.join(wd, "sim"), top,
                             ["clk", "rst", "we", "waddr", "wdata", "raddr"], ["rdata"],
                             saif=True)
    stim = h.regbank_stimulus(words, width, cycles, seed, p_write=p_write, p_reset=0.0)
    saif = os.path.join(wd, "sim", "run.saif")
    outp = h.run_sim(exe, h.clocked_steps(stim), [saif])
    shown = [o[0] for o in outp[1::2]]
    want = h.regbank_reference(words, stim)
    bad = sum(1 for t, w in enumerate(want) if w is not None and shown[t] != w)
    lib = read_library(h.LIB)
    with gzip.open(os.path.join(wd, "run", "netlist.v.gz"), "rt", encoding="utf-8") as f:
        net = f.read()
    rates = read_rates(saif, top)
    rep, _ = simulated_power(net, top, lib, rates, 1.0)
    seq = {"DFFPOSX1", "DFFNEGX1", "DFFSR", "LATCH"}
    by_cell: dict[str, float] = {}
    for ip in rep.instances:
        c = ip.cell if hasattr(ip, "cell") else "?"
        by_cell[c] = by_cell.get(c, 0.0) + ip.leakage_w + ip.internal_w + ip.switching_w
    cg = res.get("clock_gating") or {}
    return {
        "gating": gating, "words": words, "width": width, "cycles": cycles,
        "p_write": p_write, "seed": seed, "period_ns": period_ns,
        "area_um2": res["area_um2"], "area_seq_um2": res["area_seq_um2"],
        "io_wrapper_area_um2": res["io_wrapper_area_um2"],
        "icg_latch_lef_extra_um2": (cg.get("icg_area_lef_um2", 0)
                                    - cg.get("icg_area_liberty_um2", 0)),
        "cells": res["cells"], "flops": res["flops"],
        "fmax_mhz_flow": res["fmax_mhz"],
        "fmax_mhz_gating": (cg.get("timing") or {}).get("fmax_mhz"),
        "icgs": cg.get("icgs", 0), "gated_flops": cg.get("gated_flops", 0),
        "gating_timing": cg.get("timing"),
        "drv": (res.get("drv_violations") or {}).get("count"),
        "reads_checked": sum(1 for w in want if w is not None), "reads_wrong": bad,
        "power_w": dict(rep.totals), "port_switching_w": rep.port_switching_w,
        "power_with_port_w": rep.totals["total_w"] + rep.port_switching_w,
        "power_sequential_w": sum(v for c, v in by_cell.items() if c in seq),
        "power_by_cell_w": dict(sorted(by_cell.items(), key=lambda kv: -kv[1])),
        "wall_s": {"synth": round(t_syn, 1), "total": round(time.monotonic() - t0, 1)},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", type=int, default=16)
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--cycles", type=int, default=20000)
    ap.add_argument("--p-write", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--out", default="build/clock-gating-bench")
    ap.add_argument("--lockstep", metavar="PRESET",
                    help="instead: the gated and plain netlists of PRESET in lockstep")
    ap.add_argument("--power", metavar="PRESET",
                    help="instead: PRESET's power flow, plain and gated (100 MHz)")
    a = ap.parse_args()
    if a.lockstep:
        print(json.dumps(lockstep(a.lockstep, a.out, a.cycles, a.seed), indent=1))
        return
    if a.power:
        rows = [tile_power(a.power, a.out, a.cycles, a.seed, g) for g in (False, True)]
        print(json.dumps(rows, indent=1))
        return
    rows = [measure(a.out, a.words, a.width, a.cycles, a.p_write, a.seed, g)
            for g in (False, True)]
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "bench.json"), "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=1)
    keys = ["area_um2", "area_seq_um2", "icg_latch_lef_extra_um2", "flops", "icgs",
            "gated_flops", "fmax_mhz_flow", "fmax_mhz_gating", "drv", "reads_checked",
            "reads_wrong", "power_with_port_w", "port_switching_w", "power_sequential_w"]
    print(f"{'':26s} {'off':>14s} {'on':>14s}")
    for k in keys:
        print(f"{k:26s} {rows[0][k]!s:>14s} {rows[1][k]!s:>14s}")
    for k in ("leakage_w", "internal_w", "switching_w", "total_w"):
        print(f"{'power.' + k:26s} {rows[0]['power_w'][k]:14.6g} {rows[1]['power_w'][k]:14.6g}")



EQUIV_HARNESS = r"""
#include "Vdut.h"
#include "verilated.h"
#include <cstdio>
#include <cstdint>
#include <cstdlib>
static uint64_t s = 1;
static uint64_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
int main(int argc, char** argv) {
  long cycles = atol(argv[1]);
  s = (uint64_t)atoll(argv[2]) * 0x9E3779B97F4A7C15ull + 1;
  Vdut* t = new Vdut;
  for (long c = 0; c < cycles; c++) {
    t->clk = 0;
    t->rst = c < 5;
INPUTS
    t->eval();
    t->clk = 1;
    t->eval();
OUTPUTS
  }
  t->final();
  delete t;
  return 0;
}
"""


def _equiv_harness(ports: list[dict], valid_pct: int) -> str:
    """Random inputs every cycle (valids high ``valid_pct`` % of cycles), every output
    printed after each rising edge, in hex (wide ports word by word)."""
    ins, outs = [], []
    for p in ports:
        n, w = p["name"].replace("__", "___05F"), p["width"]   # Verilator's C++ names
        if n in ("clk", "rst"):
            continue
        if p["dir"] == "in":
            if w == 1:
                ins.append(f"    t->{n} = (rnd() % 100) < {valid_pct};")
            elif w <= 64:
                ins.append(f"    t->{n} = rnd() & {(1 << w) - 1}ull;")
            else:
                for i in range((w + 31) // 32):
                    m = (1 << min(32, w - 32 * i)) - 1
                    ins.append(f"    t->{n}[{i}] = (uint32_t)(rnd() & {m}ull);")
        else:
            if w <= 64:
                outs.append(f'    printf("%llx ", (unsigned long long)t->{n});')
            else:
                outs += [f'    printf("%x.", (unsigned)t->{n}[{i}]);'
                         for i in range((w + 31) // 32)] + ['    printf(" ");']
    outs.append('    printf("\\n");')
    return EQUIV_HARNESS.replace("INPUTS", "\n".join(ins)).replace("OUTPUTS", "\n".join(outs))


def lockstep(preset_name: str, out: str, cycles: int, seed: int, valid_pct: int = 50) -> dict:
    """The gated and the plain gate-level netlists of ``preset_name`` (the synthesis cache's
    entries, 10 ns), each under Verilator on the same random input sequence: their outputs,
    cycle by cycle, must be equal."""
    import subprocess
    from termwise.gen.config import preset
    from termwise.gen.emit import manifest, render
    from termwise.synth.api import synthesise
    from termwise.synth.power.gatesim import split_long_lines, verilator_build
    h = _helpers()
    cfg = preset(preset_name)
    text_v, tile = render(cfg)
    ports = manifest(cfg, text_v, tile)["ports"]
    harness = _equiv_harness(ports, valid_pct)
    streams = {}
    for gating in (False, True):
        rep = synthesise(cfg, None, clock_ns=10.0, target="asic", clock_gating=gating)
        with gzip.open(os.path.join(rep["cache"]["asic"]["dir"], "netlist.v.gz"), "rt",
                       encoding="utf-8") as f:
            net = f.read()
        wd = os.path.join(out, preset_name, "on" if gating else "off")
        os.makedirs(wd, exist_ok=True)
        files = []
        for name, text in (("cells.v", h.cell_models(net)),
                           ("netlist.v", split_long_lines(net)), ("main.cpp", harness)):
            files.append(os.path.join(wd, name))
            with open(files[-1], "w", encoding="utf-8") as f:
                f.write(text)
        exe = verilator_build(wd, files, f"{cfg.top_name}__wrap",
                              extra=["--prefix", "Vdut"], timeout=3600)
        streams[gating] = subprocess.run([exe, str(cycles), str(seed)], capture_output=True,
                                         text=True, check=True).stdout.splitlines()
    off, on = streams[False], streams[True]
    diff = [i for i, (a, b) in enumerate(zip(off, on)) if a != b]
    return {"preset": preset_name, "cycles": cycles, "seed": seed, "valid_pct": valid_pct,
            "lines": [len(off), len(on)], "differing_cycles": len(diff),
            "first_difference": diff[0] if diff else None,
            "distinct_outputs": len(set(off))}


def tile_power(preset_name: str, out: str, cycles: int, seed: int, gating: bool,
               f_mhz: float = 100.0) -> dict:
    """``termwise power`` of the preset (random operands) at ``f_mhz``, plain or gated. The
    power flow has no gating option and its keys do not know gating: the gated run patches
    ``synthesise`` to ``clock_gating=True`` and keeps its caches under ``out`` (never the
    default ones). ``clk_port_net_w``: the switching of the nets really on the ``clk`` port
    (the report's ``clock_net_switching_apart`` assumes every clock pin is on it)."""
    import functools
    import termwise.synth.api as api
    from termwise.gen.config import preset
    from termwise.synth.power.cells import read_library
    from termwise.synth.power.compute import netlist_power
    from termwise.synth.power.flow import power_report
    from termwise.synth.tools import DEFAULT_LIBERTY
    plain = api.synthesise
    root = os.path.join(out, "gated-caches", "synth-cache") if gating else None
    if gating:
        api.synthesise = functools.partial(plain, clock_gating=True)
    try:
        rep = power_report(preset(preset_name), cycles=cycles, seed=seed, clock_mhz=f_mhz,
                           clock_ns=10.0, liberty=None, cache_root=root, use_cache=True,
                           precision=None, log=lambda *a: None)
    finally:
        api.synthesise = plain
    from termwise.gen.results import locations
    d = os.path.join(locations.synth_cache_root(root), rep["synthesis"]["cache_key"])
    with gzip.open(os.path.join(d, "netlist.v.gz"), "rt", encoding="utf-8") as f:
        net = f.read()
    clk = netlist_power(net, rep["top"] + "__wrap", read_library(DEFAULT_LIBERTY),
                        lambda n: 2 * f_mhz * 1e6 if n == "clk" else 0.0)
    p = rep["power_w"]
    return {"preset": preset_name, "gating": gating, "synthesis": rep["synthesis"],
            "activity": rep["activity"], "power_w": p, "clk_port_net_w": clk.port_switching_w,
            "total_with_clk_port_net_w": p["total"] + clk.port_switching_w,
            "by_kind_total_w": {k: v["total_w"] for k, v in rep["by_kind_w"].items()},
            "wall_s": rep.get("wall_s")}


if __name__ == "__main__":
    main()
