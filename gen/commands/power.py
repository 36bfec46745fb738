"""``termwise power``: gate-level power of one configuration's tile (issue 16).

Synthesise (or reuse the cached synthesis), simulate the gate-level netlist under Verilator
with SAIF tracing while a harness drives tile runs through the IO wrapper
(:mod:`termwise.synth.power.stimulus`), compute internal, switching and leakage power from
the toggle counts (:func:`termwise.synth.power.compute.netlist_power`), cross-check against
OpenSTA's vectorless ``report_power`` at the measured average activity, and write
``power_report.json`` and ``power_report.md``.

The activity comes from random operands (the default: every payload bit drawn at random) or,
with ``--workload W [--layers A,B]``, from a real workload's layers
(:mod:`termwise.synth.power.workload`): a few sampled runs of each conv/fc layer, lowered
onto the tile as the ``real`` regression lowers them, with the layer's runtime registers,
weights reloaded every run, read by the same executable from a stimulus file. The report's
``activity`` record says which, the layers and their runs, the cycles simulated and the
runs completed, and ``energy.per_real_mac_pj`` divides the tile's energy by the layers' own
MACs in the completed runs (not the brick padding). Bit-Tactical's runs carry their offline
weight schedule and Diffy's are chained runs with their restart bits, as their regressions
drive them; bfloat16 tiles are refused for ``--workload`` (integer traces).

The Verilated model of a netlist takes minutes to compile (a 4x4 tile: ~4 min on 2 cores),
so it is kept in ``<cache>/../power-cache/<key>/`` beside the synthesis cache, keyed by the
synthesis entry, the text of the harness and the cell models and the build flags; a run of
other cycles or another seed or clock reuses it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from ..errors import ConfigError, ToolError
from ..emit import write_atomically as _write
from .args import add_config_arguments, config_from_args, positive_int

__all__ = ["register", "power_report", "to_markdown"]

#: Position in ``termwise --help``: after synth.
ORDER = 55

#: The simulated clock period (ns). Zero-delay simulation: toggles per cycle do not depend
#: on it; rates are rescaled to the clock the report assumes.
SIM_PERIOD_NS = 10.0
MAX_CYCLES = 10_000_000
#: A gate-level model is big, flat, generated code: g++ -O0 on both cores compiles the 4x4
#: tile's in ~4 min instead of ~9 (-O2, one job); it then simulates ~5x slower (2000 cycles
#: ~5 s), which the activity counts do not depend on.
MODEL_BUILD_FLAGS = ["-MAKEFLAGS", "OPT_FAST=-O0", "-MAKEFLAGS", "OPT_SLOW=-O0",
                     "-MAKEFLAGS", "OPT_GLOBAL=-O0", "--build-jobs", "2"]

NOT_MODELLED = [
    "zero-delay simulation: no glitches, no hazards (real activity of deep combinational "
    "logic such as multipliers and adder trees is higher)",
    "one fixed input slew for every internal-power table lookup (0.1 ns)",
    "no clock tree: the clock net is the flops' clock pins, its switching is reported apart "
    "and not in the total; the flops' clock-pin internal power is in the total",
    "no wire load: OSU018 has no default wire-load model, net capacitance is pin "
    "capacitance only",
    "no state-dependent (`when`) internal power or leakage; leakage at the cell's default",
    "no IR drop, no temperature, one corner (the liberty's nominal voltage)",
    "two-state simulation: every flop starts at 0, no X propagation",
    "the IO wrapper's registers (synthesis timing wrapper) are simulated and reported as "
    "kind io_wrapper; tile power and energy per MAC exclude them",
]
MODELLED = [
    "every cell's internal power from its liberty tables at its simulated output load, "
    "arcs weighted by their inputs' toggle rates",
    "switching power 0.5 C V^2 of every net driven by a cell, from its simulated toggle "
    "count",
    "leakage of every cell (cell_leakage_power)",
    "the buffers (memories mapped to flops), the PE array, the controller and the IO "
    "wrapper as synthesised (hierarchy kept)",
]


def _sha(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()


def _model(netlist_text: str, top: str, lib, lib_path: str, harness: str, synth_key: str,
           cache_dir: str) -> tuple[str, dict]:
    """The Verilated model's executable (cached); returns it and build facts."""
    from ...synth.power.cells import verilog_models
    from ...synth.power.gatesim import split_long_lines, verilator_build
    # the liberty cells instantiated: "<cell> <instance> (" lines of the yosys netlist
    used = sorted({c for c in _INSTANCE.findall(netlist_text) if c in lib.cells})
    models = verilog_models(lib, used)
    key = _sha(json.dumps([synth_key, _sha(netlist_text), _sha(models), _sha(harness),
                           MODEL_BUILD_FLAGS]))[:24]
    final = os.path.join(cache_dir, key)
    exe = os.path.join(final, "sim")
    if os.path.isfile(exe):
        return exe, {"key": key, "hit": True, "build_s": 0.0}
    os.makedirs(cache_dir, exist_ok=True)
    wd = tempfile.mkdtemp(prefix=".build-", dir=cache_dir)
    try:
        for name, text in (("cells.v", models), ("netlist.v", split_long_lines(netlist_text)),
                           ("main.cpp", harness)):
            with open(os.path.join(wd, name), "w", encoding="utf-8") as f:
                f.write(text)
        t0 = time.monotonic()
        built = verilator_build(wd, [os.path.join(wd, n) for n in
                                     ("cells.v", "netlist.v", "main.cpp")],
                                top, saif=True, extra=["--prefix", "Vdut", *MODEL_BUILD_FLAGS])
        build_s = time.monotonic() - t0
        shutil.move(built, os.path.join(wd, "sim"))
        shutil.rmtree(os.path.join(wd, "obj_dir"), ignore_errors=True)
        os.remove(os.path.join(wd, "netlist.v"))
        if os.path.isdir(final):        # a concurrent build got there first
            shutil.rmtree(wd, ignore_errors=True)
        else:
            os.replace(wd, final)
    except ToolError as err:          # keep the failed build's log for the reader
        kept = os.path.join(cache_dir, "failed" + os.path.basename(wd))
        shutil.rmtree(os.path.join(wd, "obj_dir"), ignore_errors=True)
        os.replace(wd, kept)
        raise err.moved(wd, kept) from None
    except BaseException:
        shutil.rmtree(wd, ignore_errors=True)
        raise
    return exe, {"key": key, "hit": False, "build_s": round(build_s, 1)}


_INSTANCE = re.compile(r"^\s*(\S+)\s+\S+\s*\(", re.M)
_STA_ROW = re.compile(r"^Total\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", re.M)


def opensta_power(netlist_path: str, liberty: str, top: str, period_ns: float,
                  activity: float, workdir: str) -> dict:
    """OpenSTA's vectorless ``report_power`` with every net at ``activity`` transitions per
    clock period (duty 0.5), the clock at ``period_ns``. The 2019 snapshot's help lists
    ``set_power_activity -global -activiity`` (a typo in the help: ``-activity`` is what it
    parses); the command it wraps, ``sta::set_power_global_activity activity duty``, is
    called directly. Its activity is in transitions per clock period (checked on this
    build: switching power scales with it and with the clock frequency)."""
    from ...synth.tools import check_sta
    tcl = (f"read_liberty {liberty}\nread_verilog {netlist_path}\nlink_design {top}\n"
           f"create_clock -name clk -period {period_ns:g} [get_ports clk]\n"
           f"sta::set_power_global_activity {activity:.6g} 0.5\n"
           f"report_power -digits 6\nexit\n")
    with open(os.path.join(workdir, "power.tcl"), "w", encoding="utf-8") as f:
        f.write(tcl)
    log = os.path.join(workdir, "power.log")
    with open(log, "w", encoding="utf-8") as f:
        proc = subprocess.run([check_sta(), "-no_init", "-exit", "power.tcl"], cwd=workdir,
                              stdout=f, stderr=subprocess.STDOUT, text=True, timeout=1800)
    with open(log, encoding="utf-8", errors="replace") as f:
        m = _STA_ROW.search(f.read())
    if proc.returncode != 0:
        raise ToolError("sta", proc.returncode, log, "report_power")
    if not m:
        raise ToolError("sta", None, log, "report_power printed no power table")
    internal, switching, leakage, total = (float(x) for x in m.groups())
    return {"activity_per_cycle": round(activity, 6), "duty": 0.5,
            "internal_w": internal, "switching_w": switching, "leakage_w": leakage,
            "total_w": total,
            "command": f"sta::set_power_global_activity {activity:.6g} 0.5; report_power"}


def _measure(cfg, *, cycles: int, seed: int, clock_mhz: float | None, clock_ns: float,
             liberty: str | None, cache_root: str | None, use_cache: bool,
             precision: int | None, log, workload: str | None, layers: list[str] | None,
             clock_source: str | None = None) -> tuple[dict, dict]:
    """Synthesis of ``cfg`` (cached), its gate-level simulation and power: the report dict
    of ``cfg`` itself (the whole tile, or the part :func:`power_report` scales) and the
    facts the scaling needs (``by_module``: power per module definition; ``lib``;
    ``syn``: the synthesis report; ``sim_s``; ``plan``)."""
    from ...gen.emit import manifest, render
    from ...synth import cache as synth_cache
    from ...synth.api import synthesise
    from ...synth.kinds import KINDS, kind_of
    from ...synth.power.cells import read_library
    from ...synth.power.compute import netlist_power
    from ...synth.power.saif import read_saif
    from ...synth.power.stimulus import (RESET_CYCLES, command_word, tile_run_harness_cpp,
                                         write_stimulus)
    from ...synth.power.workload import plan_workload, stimulus_rows
    from ...synth.tools import DEFAULT_LIBERTY
    from ...synth.wrapper import wrapper_name

    t0 = time.monotonic()
    text_v, tile = render(cfg)
    man = manifest(cfg, text_v, tile)
    plan = None
    if workload is not None:
        plan = plan_workload(cfg, man["command_layout"], workload, layers, cycles=cycles,
                             seed=seed, reset_cycles=RESET_CYCLES, log=None)
    t_plan = time.monotonic() - t0
    syn = synthesise(cfg, None, clock_ns=clock_ns, target="asic", liberty=liberty,
                     cache_root=cache_root, use_cache=use_cache, precision=precision)
    t_syn = time.monotonic() - t0 - t_plan
    asic, thr = syn["asic"], syn["throughput"]
    lib_path = syn["flow"]["liberty"] or os.path.abspath(DEFAULT_LIBERTY)
    top = cfg.top_name
    wrap = wrapper_name(top)
    with gzip.open(os.path.join(syn["cache"]["asic"]["dir"], "netlist.v.gz"), "rt",
                   encoding="utf-8") as f:
        netlist = f.read()
    lib = read_library(lib_path)

    bricks = cfg.depth
    worst = cfg.worst_brick_cycles(max(cfg.act_bits + 1, cfg.wgt_bits))
    timeout = max(1000, bricks * worst + cfg.windows + 64)
    command = command_word(man["command_layout"], {"bricks": bricks, **cfg.runtime_values()})
    half = int(round(SIM_PERIOD_NS * 1000 / 2))
    harness = tile_run_harness_cpp(man["ports"], bricks, cfg.windows, command, timeout, half)
    root = cache_root or synth_cache.DEFAULT_ROOT
    power_cache = os.path.join(os.path.dirname(os.path.abspath(root)), "power-cache")
    t1 = time.monotonic()
    exe, build = _model(netlist, wrap, lib, lib_path, harness, syn["cache"]["asic"]["key"],
                        power_cache)
    if not build["hit"]:
        log(f"built the gate-level model in {build['build_s']} s (cached in {power_cache})")
    t2 = time.monotonic()
    run_dir = tempfile.mkdtemp(prefix=".run-", dir=power_cache)
    try:
        argv = [exe, str(cycles), str(seed), "dump.saif"]
        if plan is not None:
            write_stimulus(os.path.join(run_dir, "stimulus.bin"), man["ports"],
                           stimulus_rows(cfg, plan))
            argv.append("stimulus.bin")
        out = subprocess.run(argv, cwd=run_dir, capture_output=True, text=True, timeout=7200)
        if out.returncode != 0:
            with open(os.path.join(run_dir, "model.log"), "w", encoding="utf-8") as f:
                f.write(out.stdout + out.stderr)
            raise ToolError("the gate-level model", out.returncode,
                            os.path.join(run_dir, "model.log"))
        stats = json.loads(out.stdout.strip().splitlines()[-1])
        sim_cycles = stats["cycles"]
        t3 = time.monotonic()
        saif = read_saif(os.path.join(run_dir, "dump.saif"))
        if abs(saif.timescale_s - 1e-12) > 1e-18:
            raise RuntimeError(f"SAIF timescale {saif.timescale_s} s, the harness assumed 1 ps")
        f_mhz = clock_mhz if clock_mhz is not None else asic["fmax_mhz"]
        scale = f_mhz / (1000.0 / SIM_PERIOD_NS)     # simulated rates -> assumed clock
        raw = saif.rates(f"TOP/{wrap}")
        used: dict[str, float] = {}

        def rate(name):
            r = raw.get(name)
            if r is None:
                return None
            used[name] = r * scale
            return r * scale

        rep = netlist_power(netlist, wrap, lib, rate)
        t4 = time.monotonic()
        period_ns = 1000.0 / f_mhz
        data_nets = {n: r for n, r in used.items() if n != "clk"}
        activity = (sum(data_nets.values()) / len(data_nets) * period_ns * 1e-9
                    if data_nets else 0.0)
        clk_cap = sum(lib.cells[i.cell].pins["CLK"].capacitance for i in rep.instances
                      if "CLK" in lib.cells[i.cell].pins)
        u = lib.units
        v2 = (lib.voltage * u.voltage_v) ** 2
        clock_net_w = 0.5 * clk_cap * u.capacitance_f * v2 * 2 * f_mhz * 1e6
        with open(os.path.join(run_dir, "netlist.v"), "w", encoding="utf-8") as f:
            f.write(netlist)
        sta = opensta_power("netlist.v", lib_path, wrap, period_ns, activity, run_dir)
        t5 = time.monotonic()
    except ToolError as err:       # keep the failed run's folder and logs for the reader
        kept = os.path.join(power_cache, "failed" + os.path.basename(run_dir))
        os.replace(run_dir, kept)
        raise err.moved(run_dir, kept) from None
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)

    by_kind = {k: {"internal_w": 0.0, "switching_w": 0.0, "leakage_w": 0.0, "total_w": 0.0,
                   "cells": 0} for k in KINDS}
    unmapped = []
    for module, m in rep.by_module.items():
        kind = kind_of(module, top)
        if kind is None:
            unmapped.append(module.lstrip("\\"))
            kind = "control_glue"
        for f in ("internal_w", "switching_w", "leakage_w", "total_w", "cells"):
            by_kind[kind][f] += m[f]
    by_kind = {k: v for k, v in by_kind.items() if v["cells"]}
    tot = rep.totals
    total = tot["total_w"]
    tile_w = total - by_kind.get("io_wrapper", {}).get("total_w", 0.0)
    f_hz = f_mhz * 1e6
    sim_s = sim_cycles / f_hz
    activity_rec = _activity(cfg, plan, stats, cycles, bricks)
    macs = activity_rec["macs_issued"]
    real_macs = activity_rec["real_macs"]
    if plan is None:
        stimulus_text = (
            "tile runs through the IO wrapper: reset held "
            f"{RESET_CYCLES} cycles, then in a loop {bricks} weight rows and "
            f"{bricks} activation rows loaded through the streams, one command "
            f"(bricks={bricks}, runtime registers {cfg.runtime_values()}), "
            f"{cfg.windows} output row(s) read, 2 idle cycles")
        operands_text = (f"uniformly random {cfg.act_bits}-bit activations and "
                         f"{cfg.wgt_bits}-bit weights (every payload bit random: dense, "
                         "zero only by chance), seeded xorshift")
    else:
        stimulus_text = (
            f"tile runs through the IO wrapper: reset held {RESET_CYCLES} cycles, then "
            f"{len(plan.runs)} runs of {plan.workload}'s layers read from a stimulus file "
            f"({plan.runs_per_layer} per layer, interleaved layer by layer): each run's "
            "weight rows and activation rows loaded through the streams (weights reloaded "
            "every run), its command (its bricks and the layer's runtime registers), "
            f"{cfg.windows} output row(s) read, 2 idle cycles; the simulation ends after "
            f"the last run or at {cycles} cycles")
        operands_text = (
            f"{plan.workload} at {plan.bits} bits: runs drawn at random (numpy "
            f"default_rng({seed})) from each layer's lowering onto the tile "
            "(golden.lowering.lower_layer, as the real regression lowers it), the layer's "
            "runtime registers (golden.netsim.layer_runtime); no bias row, zero residual "
            "rows")
    report = {
        "generator": "termwise power",
        "top": top,
        "preset": cfg.name,
        "config": cfg.to_dict(),
        "synthesis": {"cache_key": syn["cache"]["asic"]["key"],
                      "cached": syn["cache"]["asic"]["hit"],
                      "area_um2": asic["area_um2"], "fmax_mhz": asic["fmax_mhz"],
                      "clock_ns": clock_ns, "cell_count": asic["cell_count"],
                      "liberty": lib_path},
        "clock": {"mhz": f_mhz,
                  "source": clock_source or ("--clock-mhz" if clock_mhz is not None else
                                             "the synthesis report's ASIC Fmax")},
        "activity": activity_rec,
        "activity_source": {
            "stimulus": stimulus_text,
            "operands": operands_text,
            "simulator": "Verilator, zero delay, liberty cell models, SAIF toggle counts",
            "cycles": sim_cycles, "cycles_requested": cycles, "seed": seed,
            "runs_completed": stats["runs_completed"], "timeouts": stats["timeouts"],
            "busy_cycles": stats["busy_cycles"],
            "busy_fraction": round(stats["busy_cycles"] / sim_cycles, 4),
            "macs_issued": macs,
            "simulated_period_ns": SIM_PERIOD_NS,
            "rates_scaled_to_mhz": f_mhz,
            "average_activity_per_cycle": round(activity, 6),
            "nets_without_activity": len(rep.nets_without_activity),
        },
        "power_w": {"total": total, "dynamic": tot["internal_w"] + tot["switching_w"],
                    "internal": tot["internal_w"], "switching": tot["switching_w"],
                    "leakage": tot["leakage_w"], "tile": tile_w,
                    "clock_net_switching_apart": clock_net_w,
                    "input_port_nets_apart": max(rep.port_switching_w - clock_net_w, 0.0)},
        "by_kind_w": by_kind,
        "unmapped_modules": unmapped,
        "energy": _energy(total, tile_w, f_hz, thr, sim_s, macs, real_macs, plan),
        "opensta": dict(sta, ratio_termwise_to_opensta=(total / sta["total_w"]
                                                         if sta["total_w"] else None),
                        why=STA_WHY),
        "modelled": MODELLED,
        "not_modelled": NOT_MODELLED,
        "assumptions": rep.assumptions,
        "units": rep.units,
        "extrapolated_table_lookups": rep.extrapolated,
        "model_cache": build,
        "wall_s": {"workload": round(t_plan, 1), "synthesis": round(t_syn, 1),
                   "model_build": round(t2 - t1, 1), "simulation": round(t3 - t2, 1),
                   "power": round(t4 - t3, 1), "opensta": round(t5 - t4, 1),
                   "total": round(time.monotonic() - t0, 1)},
    }
    return report, {"by_module": rep.by_module, "lib": lib, "syn": syn, "sim_s": sim_s,
                    "plan": plan, "clk_cap": clk_cap,
                    "port_switching_w": max(rep.port_switching_w - clock_net_w, 0.0)}


#: Why OpenSTA's vectorless figure differs from the simulated one.
STA_WHY = ("OpenSTA sets every net to the same activity (the simulation's average), while in "
           "simulation each net has its own rate: the buffer flops hold their rows most "
           "cycles (a row is written once per run) and the datapath nets toggle far more "
           "than the average, and internal power is not linear in per-net activity, so the "
           "totals differ")


def _energy(total: float, tile_w: float, f_hz: float, thr: dict, sim_s: float, macs: float,
            real_macs: float, plan) -> dict:
    """The report's ``energy`` record: ``total``/``tile_w`` power (W) at ``f_hz``, the
    tile's peak throughput ``thr``, ``macs`` issued and ``real_macs`` in ``sim_s`` seconds
    of simulated time."""
    peak = thr["peak_macs_per_cycle"]
    return {
        "per_cycle_pj": total / f_hz * 1e12,
        "tile_per_cycle_pj": tile_w / f_hz * 1e12,
        "per_mac_at_peak_pj": tile_w / f_hz / peak * 1e12,
        "peak_macs_per_cycle": peak,
        "per_mac_at_peak_note": "tile power of the simulated loop divided by the peak "
                                f"throughput ({peak:g} MAC/cycle at "
                                f"{thr['precision_bits']}-bit activations): as if the "
                                "tile were at peak every cycle, "
                                + ("dense operands" if plan is None else
                                   "with the activity of the workload's runs"),
        "per_mac_issued_pj": (tile_w * sim_s / macs * 1e12) if macs else None,
        "per_mac_issued_note": "tile energy of the whole simulation (loads, reset and "
                               "idle cycles included) over the MACs of the completed "
                               "runs",
        "per_real_mac_pj": (tile_w * sim_s / real_macs * 1e12) if real_macs else None,
        "per_real_mac_note": ("tile energy of the whole simulation over the workload's "
                              "own MACs in the completed runs (brick padding, padding "
                              "windows and filters excluded)" if plan is not None else
                              "random operands: every issued MAC is a real one, as per "
                              "MAC issued"),
    }


def _activity(cfg, plan, stats: dict, cycles: int, bricks: int) -> dict:
    """The report's ``activity`` record from the harness's counts."""
    rec = {"source": "random" if plan is None else plan.workload,
           "cycles_requested": cycles, "cycles_simulated": stats["cycles"],
           "runs_completed": stats["runs_completed"], "timeouts": stats["timeouts"]}
    if plan is None:
        macs = stats["runs_completed"] * bricks * cfg.lanes * cfg.filters * cfg.windows
        rec.update(layers=[], macs_issued=macs, real_macs=macs)
        return rec
    outcomes = stats["outcomes"]
    layers = {d["name"]: dict(d, runs_completed=0, real_macs=0, macs_issued=0, run_indices=[])
              for d in plan.layers}
    for i, s in enumerate(plan.runs):
        d = layers[s.layer]
        d["run_indices"].append(s.index)
        if i < len(outcomes) and outcomes[i] == "c":
            d["runs_completed"] += 1
            d["real_macs"] += s.useful_macs
            d["macs_issued"] += s.padded_macs
    rec.update(bits=plan.bits, runs_per_layer=plan.runs_per_layer,
               runs_in_stimulus=len(plan.runs), runs_reached=len(outcomes),
               estimated_cycles=plan.estimated_cycles, layers=list(layers.values()),
               macs_issued=sum(d["macs_issued"] for d in layers.values()),
               real_macs=sum(d["real_macs"] for d in layers.values()),
               what="sampled runs of each layer (the same number per layer, not the "
                    "network's mix of layers), weights reloaded every run, no weight "
                    "reuse across window groups; not a whole inference")
    return rec


#: Bumped when the stored report's layout or key changes (old entries are then never hit).
REPORT_CACHE_VERSION = 2
#: The power flow's version, in every report's key. Bump it by hand when a change of the
#: flow would change any number of a report: this module, synth/power (harness, cell
#: models, SAIF reading, power arithmetic, part scaling, stimulus), the stimulus code it
#: calls (golden/lowering.py, the cycle model, tb/packing.py). Reports are keyed on it,
#: never on the code's text: a docstring or an error message retires nothing. Version 1 is
#: the flow the shipped reports (synth/measured/power) were measured with; their
#: equivalence with this checkout is checked, not assumed (synth/README.md).
POWER_FLOW_VERSION = 1
#: The packages whose text the Verilog is rendered from: the memo of a configuration's
#: Verilog sha256 (which saves rendering it on a hit, ~5 s for stripes-16x16) is keyed by
#: all of them, so any edit there renders again (the report key itself is the Verilog's).
_RENDER_PACKAGES = ("rtl", "gen", "golden", "tb", "synth")


def _repo_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _tree_sha(packages) -> str:
    """sha256 over every source file of ``packages`` (names and text)."""
    root = _repo_root()
    h = hashlib.sha256()
    for pkg in packages:
        for d, dirs, files in os.walk(os.path.join(root, pkg)):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__" and not x.startswith("."))
            for name in sorted(files):
                if name.endswith((".pyc", ".pyo")):
                    continue
                path = os.path.join(d, name)
                h.update(os.path.relpath(path, root).encode())
                with open(path, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()


def _verilog_sha(cfg, memo_dir: str, sources: str) -> str:
    """sha256 of ``cfg``'s Verilog, remembered in ``memo_dir`` under the configuration and
    ``sources`` (:func:`_tree_sha` of the packages that render it)."""
    from ...gen.emit import render
    memo = os.path.join(memo_dir, _sha(json.dumps([cfg.to_dict(), cfg.top_name, sources],
                                                  sort_keys=True))[:24])
    try:
        with open(memo, encoding="utf-8") as f:
            sha = f.read().strip()
        if len(sha) == 64:
            return sha
    except OSError:
        pass
    text_v, _ = render(cfg)
    sha = _sha(text_v)
    os.makedirs(memo_dir, exist_ok=True)
    _write(memo, sha + "\n")
    return sha


def _synth_key(cfg, clock_ns: float, lib: str, memo_dir: str, sources: str) -> str:
    """The key the synthesis cache keeps ``cfg``'s ASIC run under (as
    :func:`termwise.synth.api.synthesise` computes it)."""
    from ...synth import api, cache
    return cache.cache_key(api._settings("asic", _verilog_sha(cfg, memo_dir, sources),
                                         clock_ns, lib))


def report_key_inputs(cfg, *, synth_key: str, part_synth_key: str | None, mode: str,
                      cycles: int, seed: int, clock_mhz: float | None, precision: int,
                      workload: str | None, layers: list[str] | None,
                      trace_sha256: str | None = None) -> dict:
    """Everything a power report depends on, for its cache key: explicit inputs and
    versions only, never source text.

    The synthesis keys stand for the Verilog (hence the configuration and the RTL), the
    clock target, the liberty and the synthesis tools and scripts; the gate-level model
    (``_model``) is a function of the netlist, the liberty's cell models, the harness and
    the build flags: the synthesis key, :data:`POWER_FLOW_VERSION`,
    :data:`MODEL_BUILD_FLAGS` and the Verilator version. Then the run's options, and for a
    workload its trace's content (``trace_sha256``,
    :meth:`~termwise.golden.workloads.Workload.trace_sha256`): the stimulus is a function
    of the trace, the options and the flow version."""
    if (workload is None) != (trace_sha256 is None):
        raise ValueError("a workload's report key needs its trace_sha256, and only then")
    from importlib import metadata
    try:
        verilator = metadata.version("verilator")
    except metadata.PackageNotFoundError:
        verilator = None
    return {"version": REPORT_CACHE_VERSION, "config": cfg.to_dict(),
            "synthesis_key": synth_key, "part": mode, "part_synthesis_key": part_synth_key,
            "cycles": cycles, "seed": seed, "clock_mhz": clock_mhz, "precision": precision,
            "workload": workload, "layers": layers,
            "model_build_flags": MODEL_BUILD_FLAGS, "verilator": verilator,
            "power_flow": POWER_FLOW_VERSION, "workload_trace_sha256": trace_sha256}


def report_key(inputs: dict) -> str:
    return _sha(json.dumps(inputs, sort_keys=True, separators=(",", ":")))[:24]


def _cache_load(reports_dir: str, key: str) -> dict | None:
    """The report kept under ``key`` in ``reports_dir``, else in the project's measured
    results (:mod:`termwise.synth.measured_store`), else None."""
    from ...synth import measured_store
    try:
        with open(os.path.join(reports_dir, key, "power_report.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return measured_store.power_report(key)


def _cache_store(reports_dir: str, key: str, inputs: dict, report: dict) -> None:
    """Write the entry in a fresh folder and rename it into place: never half-written."""
    os.makedirs(reports_dir, exist_ok=True)
    wd = tempfile.mkdtemp(prefix=".run-", dir=reports_dir)
    try:
        for name, data in (("power_report.json", report), ("inputs.json", inputs)):
            with open(os.path.join(wd, name), "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1, sort_keys=name == "inputs.json")
        final = os.path.join(reports_dir, key)
        if os.path.isdir(final):        # a concurrent run got there first: keep theirs
            shutil.rmtree(wd, ignore_errors=True)
        else:
            os.replace(wd, final)
    except BaseException:
        shutil.rmtree(wd, ignore_errors=True)
        raise


def power_report(cfg, *, cycles: int, seed: int, clock_mhz: float | None,
                 clock_ns: float, liberty: str | None, cache_root: str | None,
                 use_cache: bool, precision: int | None, log=print,
                 workload: str | None = None, layers: list[str] | None = None,
                 part: str = "auto") -> dict:
    """Synthesis (cached), gate-level simulation, power; the report dict. ``workload``: the
    activity of that workload's ``layers`` (default all conv/fc layers; ``seed`` draws their
    runs) instead of random operands (``seed`` seeds the operands); bad names, a design the
    generic lowering cannot drive, or too few ``cycles`` for one run of each layer raise
    :class:`ConfigError` before anything runs.

    ``part``: ``whole`` simulates the whole tile; ``row`` one PE row and the shared logic
    (:mod:`termwise.synth.power.part`), scaled to the whole tile; ``slice`` a quarter of
    that row's window columns, scaled likewise; ``auto`` (default) ``row``
    above :data:`~termwise.synth.power.part.ROW_ABOVE_CELLS` synthesised cells. The report
    is kept in ``<power-cache>/reports/<key>/`` (:func:`report_key_inputs`); ``use_cache``
    False recomputes it (and reruns the synthesis)."""
    from ...gen.emit import manifest, render
    from ...synth import cache as synth_cache
    from ...synth.api import check_options, synthesise
    from ...synth.power.part import MODES, SLICE_WINDOW_DIVISOR, choose_mode, part_config
    from ...synth.power.stimulus import RESET_CYCLES

    t0 = time.monotonic()
    if part not in MODES:
        raise ConfigError("part", f"must be one of {', '.join(MODES)}, got {part!r}")
    trace_sha = None
    if workload is not None:
        from ...synth.power.workload import check_drivable, plan_workload, trace_sha256
        check_drivable(cfg)
        trace_sha = trace_sha256(cfg, workload)     # in the key: the trace, not its code
    elif layers is not None:
        raise ConfigError("layers", "needs --workload (the layers are a workload's)")
    clock_ns, _, lib = check_options(clock_ns, "asic", liberty)
    prec = min(16, cfg.act_bits) if precision is None else precision
    root = cache_root or synth_cache.DEFAULT_ROOT
    power_cache = os.path.join(os.path.dirname(os.path.abspath(root)), "power-cache")
    reports = os.path.join(power_cache, "reports")
    memo = os.path.join(reports, "verilog-sha")
    sources = _tree_sha(_RENDER_PACKAGES)
    key_w = _synth_key(cfg, clock_ns, lib, memo, sources)
    if part == "slice" and cfg.windows % SLICE_WINDOW_DIVISOR:
        raise ConfigError("part", f"slice keeps windows/{SLICE_WINDOW_DIVISOR} window columns: "
                          f"needs windows divisible by {SLICE_WINDOW_DIVISOR}, got "
                          f"{cfg.windows}")

    def inputs_for(mode):
        return report_key_inputs(
            cfg, synth_key=key_w, mode=mode,
            part_synth_key=_synth_key(part_config(cfg, mode), clock_ns, lib, memo, sources)
            if mode in ("row", "slice") else None,
            cycles=cycles, seed=seed, clock_mhz=clock_mhz, precision=prec,
            workload=workload, layers=layers, trace_sha256=trace_sha)

    if use_cache:
        # ``auto`` resolves from the whole tile's cached synthesis; without it, a miss.
        hit_w = synth_cache.lookup(root, key_w) or synth_cache.lookup_measured(key_w)
        mode = choose_mode(part, hit_w["cell_count"] if hit_w else None) \
            if (part != "auto" or hit_w) else None
        key = report_key(inputs_for(mode)) if mode is not None else None
        rep = _cache_load(reports, key) if key is not None else None
        if rep is not None:
            from ...synth import measured_store
            where = os.path.join(reports, key)
            rep["cached"] = True
            rep["cache"] = {"key": key, "hit": True, "lookup_s": 0.0}
            if not os.path.isdir(where):    # found in the project's measured results
                where = os.path.join(measured_store.root(), "power", key)
                rep["cache"]["measured_store"] = True
            rep["cache"].update(dir=where, lookup_s=round(time.monotonic() - t0, 2))
            return rep
    if workload is not None:
        # The workload's names and the cycle budget are checked on the whole tile before
        # any synthesis (its plan is also the whole tile's stimulus).
        text_v, tile = render(cfg)
        plan_workload(cfg, manifest(cfg, text_v, tile)["command_layout"], workload, layers,
                      cycles=cycles, seed=seed, reset_cycles=RESET_CYCLES, log=None)
    syn = synthesise(cfg, None, clock_ns=clock_ns, target="asic", liberty=liberty,
                     cache_root=cache_root, use_cache=use_cache, precision=precision)
    mode = choose_mode(part, syn["asic"]["cell_count"])
    common = dict(cycles=cycles, seed=seed, clock_ns=clock_ns, liberty=liberty,
                  cache_root=cache_root, use_cache=use_cache, precision=precision, log=log,
                  workload=workload, layers=layers)
    if mode == "whole":
        rep, _ = _measure(cfg, clock_mhz=clock_mhz, **common)
        rep["method"] = _whole_method(part, syn)
    else:
        pcfg = part_config(cfg, mode)
        f_mhz = clock_mhz if clock_mhz is not None else syn["asic"]["fmax_mhz"]
        source = ("--clock-mhz" if clock_mhz is not None else
                  "the whole tile's ASIC Fmax (its synthesis report)")
        prep, facts = _measure(pcfg, clock_mhz=f_mhz, clock_source=source, **common)
        rep = _from_part(cfg, pcfg, part, syn, prep, facts, workload, layers, clock_ns)
        rep["clock"]["source"] = source
    rep["wall_s"]["total"] = round(time.monotonic() - t0, 1)
    inputs = inputs_for(mode)
    key = report_key(inputs)
    rep["cached"] = False
    _cache_store(reports, key, inputs, rep)
    rep["cache"] = {"key": key, "hit": False, "dir": os.path.join(reports, key)}
    return rep


def _whole_method(requested: str, syn: dict) -> dict:
    from ...synth.power.part import ROW_ABOVE_CELLS
    cells = syn["asic"]["cell_count"]
    return {"mode": "whole", "requested": requested,
            "why": ("--part whole" if requested == "whole" else
                    f"--part auto: {cells} synthesised cells, at most {ROW_ABOVE_CELLS} "
                    "(the whole tile's gate-level model builds in minutes)"),
            "synthesis_key": syn["cache"]["asic"]["key"],
            "how": "the whole tile's netlist simulated: every figure is the whole tile's own"}


def _layer_slots(cfg, workload: str, names: list[str]) -> dict[str, int]:
    """Per layer: the MAC slots (bricks x lanes x filters x windows, every run) of its whole
    lowering onto ``cfg``."""
    from ...golden.lowering import lower_layer
    from ...synth.power.workload import load_layers
    _, chosen = load_layers(cfg, workload, names)
    return {layer.name: sum(int(r.k) for r in lower_layer(cfg, layer)[0])
            * cfg.filters * cfg.windows for layer in chosen}


def _from_part(cfg, pcfg, requested: str, syn: dict, prep: dict, facts: dict,
               workload: str | None, layers: list[str] | None, clock_ns: float) -> dict:
    """The whole tile's report from the part's (:mod:`termwise.synth.power.part`)."""
    from ...synth.power.part import (ROW_ABOVE_CELLS, SLICE_WINDOW_DIVISOR, mac_scale,
                                     module_areas, module_scales, scale_by_kind,
                                     static_by_module, whole_real_macs)
    t0 = time.monotonic()
    lib, psyn = facts["lib"], facts["syn"]
    top, ptop = cfg.top_name, pcfg.top_name
    asic = syn["asic"]
    with open(os.path.join(syn["cache"]["asic"]["dir"], "stat.json"), encoding="utf-8") as f:
        stat = json.load(f)
    scales = module_scales(module_areas(asic, top), module_areas(psyn["asic"], ptop))
    static = static_by_module(stat, asic, top, lib)
    dyn = {}
    for module, m in facts["by_module"].items():
        name = module.lstrip("\\")
        if not name.startswith(ptop):
            raise RuntimeError(f"power of a module outside the part's tile: {name}")
        dyn[name[len(ptop):]] = m
    by_kind, factors = scale_by_kind(dyn, scales, static)
    internal = sum(v["internal_w"] for v in by_kind.values())
    switching = sum(v["switching_w"] for v in by_kind.values())
    leakage = sum(v["leakage_w"] for v in by_kind.values())
    total = internal + switching + leakage
    tile_w = total - by_kind.get("io_wrapper", {}).get("total_w", 0.0)
    f_mhz = prep["clock"]["mhz"]
    f_hz = f_mhz * 1e6
    u = lib.units
    v2 = (lib.voltage * u.voltage_v) ** 2
    clk_cap = _clock_pin_cap(stat, asic, top, lib)
    clock_net_w = 0.5 * clk_cap * u.capacitance_f * v2 * 2 * f_hz
    wrap_scale = scales.get("__wrap", {}).get("scale", 1.0)

    act = prep["activity"]
    F = mac_scale(cfg, pcfg)            # cfg.filters for a row
    sliced = pcfg.windows != cfg.windows
    macs = act["macs_issued"] * F
    if facts["plan"] is None:
        real = macs
        per_layer = []
    else:
        names = [d["name"] for d in act["layers"]]
        slots_w = _layer_slots(cfg, workload, names)
        slots_p = _layer_slots(pcfg, workload, names)
        per_layer = []
        real = 0.0
        for d in act["layers"]:
            r = whole_real_macs(d["real_macs"], F, slots_p[d["name"]], slots_w[d["name"]])
            real += r
            per_layer.append({"name": d["name"], "part_real_macs": d["real_macs"],
                              "part_mac_slots": slots_p[d["name"]],
                              "whole_mac_slots": slots_w[d["name"]],
                              "whole_real_macs": r})
    shape = (f"filters=1 and windows={pcfg.windows} of {cfg.windows} (a slice: one PE row "
             f"of 1/{SLICE_WINDOW_DIVISOR} of the window columns, every lane, with the "
             f"activation front end and buffers of those windows and the shared controller; "
             if sliced else
             "filters=1 (one PE row: every window column and lane of one filter, plus the "
             "shared controller, activation front end and buffers; ")
    sentence = (
        f"The whole tile's figures are estimated from a representative part: the same "
        f"configuration with {shape}"
        f"pe_stages={pcfg.pe_stages} as in the whole tile), synthesised and simulated on "
        f"the same activity; each module's dynamic power (internal + switching) is the "
        f"part's times the whole tile's synthesised area of that module over the part's; "
        f"leakage and cell counts are the whole tile's own, from its synthesised cell "
        f"counts; the clock is the whole tile's; the MACs are {F} times the part's "
        + ("" if facts["plan"] is None else
           "(real MACs corrected for the whole tile's " +
           ("filter and window" if sliced else "filter") + " padding, layer by layer) ")
        + "in the same cycles.")
    method = {
        "mode": "slice" if sliced else "row", "requested": requested,
        "why": (f"--part {requested}" if requested in ("row", "slice") else
                f"--part auto: {asic['cell_count']} synthesised cells, over "
                f"{ROW_ABOVE_CELLS} (the whole tile's gate-level model would take too long "
                "to build)"),
        "how": sentence,
        "part_config": pcfg.to_dict(), "part_top": ptop,
        "synthesis_key": syn["cache"]["asic"]["key"],
        "part_synthesis_key": psyn["cache"]["asic"]["key"],
        "kind_factors": factors,
        "module_scales": {(s or "<top>"): {"kind": m["kind"], "scale": m["scale"],
                                           "whole_area_um2": m["area_um2"],
                                           "part_area_um2": m["part_area_um2"]}
                          for s, m in scales.items()},
        "leakage": "exact: the whole tile's synthesised cell counts x cell_leakage_power",
        "assumed": (["every window column toggles like the simulated ones (the slice's runs "
                     "synchronise fewer windows than the whole tile's)"] if sliced else [])
                   + ["every filter's PE row toggles like the simulated one",
                    "a module's dynamic power per unit area is the same in the whole tile as "
                    "in the part (the shared logic's extra area in the whole tile, e.g. the "
                    "wider output mux and IO wrapper, toggles like the part's)",
                    "broadcast nets across the whole array: the part's drive one row; the "
                    "whole tile's buffering is scaled by area, not simulated"],
        "macs": {"filters": cfg.filters,
                 **({"scale": F, "windows": [pcfg.windows, cfg.windows]} if sliced else {}),
                 "part_macs_issued": act["macs_issued"],
                 "macs_issued": macs, "part_real_macs": act["real_macs"],
                 "real_macs": real, "layers": per_layer,
                 "how": f"issued: {F} x the part's; real: " +
                        ("as issued (random operands)" if facts["plan"] is None else
                         "per layer part real MACs x " + (f"{F} (filters x window columns "
                         "over the part's)" if sliced else "filters") + " x (the layer's MAC "
                         "slots on "
                         "the part / on the whole tile), the layer's own MACs being the "
                         "same in both lowerings")},
        "check": ("laconic-4x4, whole tile against a slice: docs/energy.md" if sliced else
                  "baseline-4x4 and stripes-4x4, whole tile against one PE row: README, "
                  "Gate-level power"),
    }
    rep = dict(prep)
    rep.update({
        "top": top, "preset": cfg.name, "config": cfg.to_dict(),
        "synthesis": {"cache_key": syn["cache"]["asic"]["key"],
                      "cached": syn["cache"]["asic"]["hit"],
                      "area_um2": asic["area_um2"], "fmax_mhz": asic["fmax_mhz"],
                      "clock_ns": clock_ns, "cell_count": asic["cell_count"],
                      "liberty": prep["synthesis"]["liberty"]},
        "power_w": {"total": total, "dynamic": internal + switching, "internal": internal,
                    "switching": switching, "leakage": leakage, "tile": tile_w,
                    "clock_net_switching_apart": clock_net_w,
                    "input_port_nets_apart": facts["port_switching_w"] * wrap_scale},
        "by_kind_w": by_kind,
        "energy": _energy(total, tile_w, f_hz, syn["throughput"], facts["sim_s"], macs, real,
                          facts["plan"]),
        "opensta": dict(prep["opensta"], of="the part's netlist (the whole tile's "
                        "vectorless figure is not computed)"),
        "part": {"top": ptop, "config": pcfg.to_dict(), "synthesis": prep["synthesis"],
                 "power_w": prep["power_w"], "by_kind_w": prep["by_kind_w"],
                 "energy": prep["energy"]},
        "method": method,
        "not_modelled": NOT_MODELLED + [
            "the whole tile is not simulated: its dynamic power is one PE row's"
            + (" (a slice of its window columns)" if sliced else "") + ", scaled "
            "module by module by synthesised area (method)"],
    })
    act = dict(act)
    act["whole_tile"] = {"macs_issued": macs, "real_macs": real,
                         "note": "the activity record is the part's (one filter); the whole "
                                 "tile's MACs in the same cycles are method.macs"}
    rep["activity"] = act
    rep["activity_source"] = dict(prep["activity_source"],
                                  macs_issued=macs,
                                  simulated=f"the part {ptop} (one PE row"
                                            + (f", {pcfg.windows} of {cfg.windows} windows)"
                                               if sliced else ")"))
    rep["wall_s"] = dict(prep["wall_s"], scaling=round(time.monotonic() - t0, 1))
    return rep


def _clock_pin_cap(stat: dict, asic: dict, top: str, lib) -> float:
    """Capacitance (library unit) of every flop's clock pin of the whole netlist, from its
    synthesised cell counts."""
    inst = {k.lstrip("\\"): v["instances"] for k, v in asic["modules"].items()}
    cap = 0.0
    for name, m in stat["modules"].items():
        n = inst.get(name.lstrip("\\"), 0)
        for cell, count in m.get("num_cells_by_type", {}).items():
            c = lib.cells.get(cell.lstrip("\\"))
            if c is not None and "CLK" in c.pins:
                cap += n * count * c.pins["CLK"].capacitance
    return cap


def _w(x: float) -> str:
    return f"{x * 1e3:.4g} mW"


def to_markdown(r: dict) -> str:
    p, e, a, s = r["power_w"], r["energy"], r["activity_source"], r["opensta"]
    act = r["activity"]
    source = ("random operands" if act["source"] == "random" else
              f"workload {act['source']}")
    lines = [f"# Power of {r['top']}", "",
             f"Gate-level power at {r['clock']['mhz']:g} MHz ({r['clock']['source']}), "
             f"activity from {a['cycles']} simulated cycles of tile runs of {source}."
             + (" Cached report (key " + r["cache"]["key"] + ")." if r.get("cached") else ""),
             "", *_method_lines(r.get("method")),
             "| | power |", "|---|---|",
             f"| total (simulated cells, IO wrapper included) | {_w(p['total'])} |",
             f"| dynamic (internal + switching) | {_w(p['dynamic'])} |",
             f"| internal | {_w(p['internal'])} |",
             f"| switching | {_w(p['switching'])} |",
             f"| leakage | {_w(p['leakage'])} |",
             f"| tile (total without the IO wrapper) | {_w(p['tile'])} |",
             f"| clock net switching (apart, not in the total) | "
             f"{_w(p['clock_net_switching_apart'])} |", "",
             "## By kind", "", "| kind | cells | internal | switching | leakage | total | "
             "share |", "|---|---|---|---|---|---|---|"]
    for k, v in r["by_kind_w"].items():
        share = v["total_w"] / p["total"] * 100 if p["total"] else 0.0
        lines.append(f"| {k} | {v['cells']} | {_w(v['internal_w'])} | "
                     f"{_w(v['switching_w'])} | {_w(v['leakage_w'])} | {_w(v['total_w'])} | "
                     f"{share:.1f}% |")
    issued, real = e["per_mac_issued_pj"], e["per_real_mac_pj"]
    lines += ["", "## Energy", "",
              f"* per cycle: {e['per_cycle_pj']:.4g} pJ (tile {e['tile_per_cycle_pj']:.4g} pJ)",
              f"* per MAC at peak: {e['per_mac_at_peak_pj']:.4g} pJ ({e['per_mac_at_peak_note']})",
              f"* per MAC issued: " + (f"{issued:.4g} pJ" if issued is not None else "-")
              + f" ({e['per_mac_issued_note']})",
              f"* per real MAC: " + (f"{real:.4g} pJ" if real is not None else
                                     "- (no run completed)")
              + f" ({e['per_real_mac_note']})", "",
              "## Activity", "",
              f"* source: {act['source']}; {act['cycles_simulated']} cycles simulated "
              f"({act['cycles_requested']} requested), {act['runs_completed']} runs "
              f"completed, {act['timeouts']} timeouts, {act['macs_issued']} MACs issued, "
              f"{act['real_macs']} real MACs"]
    if act["layers"]:
        lines += [f"* {act['what']}; {act['runs_per_layer']} runs per layer drawn, "
                  f"{act['runs_in_stimulus']} in the stimulus, {act['runs_reached']} "
                  f"reached; the cycle model expected {act['estimated_cycles']} cycles", "",
                  "| layer | shape | runtime registers | lowered runs | runs | completed | "
                  "real MACs | MACs issued |", "|---|---|---|---|---|---|---|---|"]
        for d in act["layers"]:
            regs = ", ".join(f"{k}={v}" for k, v in d["runtime"].items())
            lines.append(f"| {d['name']} | {d['shape']} | {regs} | {d['lowered_runs']} | "
                         f"{d['runs']} | {d['runs_completed']} | {d['real_macs']} | "
                         f"{d['macs_issued']} |")
    lines += ["", "## Activity source", "",
              f"* stimulus: {a['stimulus']}",
              f"* operands: {a['operands']}",
              f"* simulator: {a['simulator']}",
              f"* {a['cycles']} cycles (seed {a['seed']}): {a['runs_completed']} runs "
              f"completed, {a['timeouts']} timeouts, busy {a['busy_fraction'] * 100:.1f}% "
              f"of the cycles, {a['macs_issued']} MACs",
              f"* clock: {r['clock']['mhz']:g} MHz ({r['clock']['source']}); simulated at "
              f"{a['simulated_period_ns']:g} ns, toggle counts per cycle rescaled",
              f"* average activity: {a['average_activity_per_cycle']:.4g} transitions per "
              "net per cycle (clock excluded)", "",
              "## Cross-check: OpenSTA vectorless report_power", "",
              f"`{s['command']}` (every net at the simulation's average activity): total "
              f"{_w(s['total_w'])} (internal {_w(s['internal_w'])}, switching "
              f"{_w(s['switching_w'])}, leakage {_w(s['leakage_w'])}); termwise / OpenSTA = "
              f"{s['ratio_termwise_to_opensta']:.3g}. {s['why']}.", "",
              "## What is modelled", ""]
    lines += [f"* {x}" for x in r["modelled"]]
    lines += ["", "## What is not modelled", ""]
    lines += [f"* {x}" for x in r["not_modelled"]]
    return "\n".join(lines)


def _method_lines(m: dict | None) -> list[str]:
    """Markdown: how the figures were obtained (whole tile, or one PE row scaled)."""
    if not m:
        return []
    if m["mode"] == "whole":
        return [f"Method: whole tile ({m['why']}): {m['how']}.", ""]
    title = ("a slice of one PE row" if m["mode"] == "slice" else "one PE row")
    lines = [f"## Method: {title}, scaled to the whole tile", "", m["how"], "",
             f"Why: {m['why']}. The part: {m['part_top']} (synthesis "
             f"{m['part_synthesis_key']}; the whole tile's {m['synthesis_key']}). "
             f"Leakage: {m['leakage']}. MACs: {m['macs']['how']}.", "",
             "| kind | part area (um2) | whole area (um2) | area ratio | dynamic scale |",
             "|---|---|---|---|---|"]
    for k, f in m["kind_factors"].items():
        ar = "-" if f["area_ratio"] is None else f"{f['area_ratio']:.3f}"
        ds = "-" if f["dynamic_scale"] is None else f"{f['dynamic_scale']:.3f}"
        lines.append(f"| {k} | {f['part_area_um2']:,.0f} | {f['whole_area_um2']:,.0f} | "
                     f"{ar} | {ds} |")
    lines += ["", "Assumed: " + "; ".join(m["assumed"]) + ".", ""]
    return lines


def register(subparsers) -> None:

    def cmd_power(args) -> int:
        from ...synth.api import check_options
        cfg = config_from_args(args)
        cycles = positive_int("cycles", args.cycles)
        if cycles > MAX_CYCLES:
            raise ConfigError("cycles", f"must be a positive integer <= {MAX_CYCLES}, "
                              f"got {args.cycles!r}")
        try:
            seed = int(args.seed)
        except ValueError:
            seed = -1
        if seed < 0 or str(seed) != args.seed.strip():
            raise ConfigError("seed", f"must be an integer >= 0, got {args.seed!r}")
        mhz = None
        if args.clock_mhz is not None:
            try:
                mhz = float(args.clock_mhz)
            except ValueError:
                mhz = float("nan")
            if not math.isfinite(mhz) or not 0 < mhz <= 10000:
                raise ConfigError("clock_mhz", f"must be a frequency in MHz, > 0 and "
                                  f"<= 10000, got {args.clock_mhz!r}")
        check_options(args.clock_ns, "asic", args.liberty)
        layers = None
        if args.layers is not None:
            layers = [n.strip() for n in args.layers.split(",")]
            if not all(layers):
                raise ConfigError("layers", f"must be a comma list of layer names, got "
                                  f"{args.layers!r}")
        rep = power_report(cfg, cycles=cycles, seed=seed, clock_mhz=mhz,
                           clock_ns=args.clock_ns, liberty=args.liberty,
                           cache_root=args.cache_dir, use_cache=not args.no_cache,
                           precision=args.precision,
                           log=lambda m: print(m, file=sys.stderr),
                           workload=args.workload, layers=layers, part=args.part)
        os.makedirs(args.output, exist_ok=True)
        _write(os.path.join(args.output, "power_report.json"), json.dumps(rep, indent=2) + "\n")
        _write(os.path.join(args.output, "power_report.md"), to_markdown(rep) + "\n")
        p, e = rep["power_w"], rep["energy"]
        print(f"{rep['top']}: {p['total'] * 1e3:.3f} mW at {rep['clock']['mhz']:g} MHz "
              f"(dynamic {p['dynamic'] * 1e3:.3f} mW, leakage {p['leakage'] * 1e6:.3f} uW), "
              f"{e['per_mac_at_peak_pj']:.3g} pJ/MAC at peak"
              + (f", {e['per_real_mac_pj']:.3g} pJ per real MAC of {rep['activity']['source']}"
                 if rep["activity"]["source"] != "random" and e["per_real_mac_pj"] else "")
              + ("" if rep["method"]["mode"] == "whole" else
                 f"; from {'a slice of ' if rep['method']['mode'] == 'slice' else ''}"
                 f"one PE row ({rep['method']['part_top']}), scaled")
              + "; OpenSTA vectorless "
              + ("" if rep["method"]["mode"] == "whole" else "(the part) ")
              + f"{rep['opensta']['total_w'] * 1e3:.3f} mW "
              + (f"(cached report {rep['cache']['key']})" if rep["cached"] else
                 f"({rep['wall_s']['total']} s)"))
        print(f"wrote {os.path.join(args.output, 'power_report.json')} and power_report.md")
        return 0

    from ...synth.api import DEFAULT_CLOCK_NS
    from ...synth.power.part import MODES as MODES_CLI, ROW_ABOVE_CELLS as ROW_CELLS_CLI
    p = subparsers.add_parser("power", help="gate-level power of a tile (synthesis, Verilator "
                              "simulation of tile runs, liberty power); writes "
                              "power_report.json/.md")
    add_config_arguments(p)
    p.add_argument("--cycles", default="2000",
                   help="simulated cycles (default 2000; with --workload a bound: as many "
                        "runs of each layer as fit, at most 8)")
    p.add_argument("--seed", default="1", help="stimulus seed: the random operands, or the "
                   "workload runs drawn (default 1)")
    from ...golden.workloads import WORKLOADS
    p.add_argument("--workload", default=None, metavar="W",
                   help="activity of a workload's real layers instead of random operands: "
                        + " | ".join(WORKLOADS) + " (every integer design; "
                        "bfloat16 tiles have no workload activity)")
    p.add_argument("--layers", default=None, metavar="NAME,NAME",
                   help="the workload's layers to run (default: every conv/fc layer)")
    p.add_argument("--clock-mhz", default=None, metavar="F",
                   help="clock frequency of the power figures (default: the ASIC Fmax)")
    p.add_argument("--clock-ns", type=float, default=DEFAULT_CLOCK_NS, metavar="T",
                   help=f"synthesis target clock period in ns (default {DEFAULT_CLOCK_NS:g})")
    p.add_argument("--liberty", default=None, metavar="LIB",
                   help="liberty file (default: OSU018 from qflow-tech-osu018)")
    p.add_argument("--precision", type=int, default=None,
                   help="activation bits at which peak throughput is stated")
    p.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="synthesis cache (default build/synth-cache); the gate-level models "
                        "are kept in power-cache beside it")
    p.add_argument("--part", default="auto", choices=MODES_CLI,
                   help="simulate the whole tile, or one PE row (filters=1, the shared logic "
                        "kept) scaled to the whole tile module by module by synthesised "
                        f"area; auto (default): row above {ROW_CELLS_CLI:,} synthesised "
                        "cells (the 16x16 presets), whole below (every 4x4 preset); slice: "
                        "one PE row with a quarter of the window columns (for a row too "
                        "big to build: laconic-16x16, loom-16x16)")
    p.add_argument("--no-cache", action="store_true",
                   help="always rerun the synthesis and the power (no cached report)")
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.set_defaults(func=cmd_power)
