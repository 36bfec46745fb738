"""One power measurement: a configuration's tile synthesised (cached), its gate-level model
(:mod:`.model`) run on tile runs, the power of its SAIF toggle counts
(:func:`.compute.netlist_power`), and OpenSTA's vectorless figure beside it
(:mod:`.opensta`).

The harness (:func:`.stimulus.tile_run_harness_cpp`) drives tile runs through the IO
wrapper: random operands, or the runs of a workload's layers (:mod:`.workload`) read from
a stimulus file by the same executable. The model is simulated at
:data:`SIM_PERIOD_NS` with zero delay, so the toggles per cycle do not depend on the
period; the rates are rescaled to the clock the report states (the synthesised Fmax, or
one given).

:func:`measure` gives the report of the configuration it is handed: the whole tile, or the
part :mod:`.part_report` scales to the whole tile.
"""

from __future__ import annotations

import gzip
import os
import shutil
import tempfile
import time
from dataclasses import dataclass

from ...gen.errors import ToolError
from ...gen.progress import Bar
from .levelsim_run import name_in as name_levelsim
from .model import run_model, verilator_runner  # noqa: F401  (run_model: re-exported)

__all__ = ["SIM_PERIOD_NS", "tile_harness", "run_model", "read_rates", "simulated_power",
           "average_activity", "power_by_kind", "measure"]

#: The simulated clock period (ns). Zero-delay simulation: toggles per cycle do not depend
#: on it; rates are rescaled to the clock the report assumes.
SIM_PERIOD_NS = 10.0


def tile_harness(cfg, man: dict) -> tuple[str, int]:
    """The tile-run harness of ``cfg``'s model and the bricks of a random-operand run.

    Parameters
    ----------
    cfg : TileConfig
        The tile.
    man : dict
        Its manifest (:func:`termwise.gen.emit.manifest`): ports and command layout.

    Returns
    -------
    harness : str
        The C++ main (:func:`.stimulus.tile_run_harness_cpp`) of :func:`.tile_driver.tile_runs`.
    bricks : int
        Bricks per random-operand run.
    """
    from .stimulus import tile_run_harness_cpp
    from .tile_driver import tile_runs
    r = tile_runs(cfg, man)
    half = int(round(SIM_PERIOD_NS * 1000 / 2))
    harness = tile_run_harness_cpp(man["ports"], r.bricks, r.windows, r.command, r.timeout,
                                   half)
    return harness, r.bricks


def read_rates(saif_path: str, top: str) -> dict[str, float]:
    """Toggle rates (per second of simulated time) of the nets under ``TOP/top`` in a
    SAIF file the model wrote (:func:`saif_rates`)."""
    from .saif import read_saif
    return saif_rates(read_saif(saif_path), top)


def saif_rates(saif, top: str) -> dict[str, float]:
    """:meth:`.saif.Saif.rates` of the nets under ``TOP/top``; the harness's timescale
    (1 ps) is checked, the rates depend on it."""
    if abs(saif.timescale_s - 1e-12) > 1e-18:
        raise RuntimeError(f"SAIF timescale {saif.timescale_s} s, the harness assumed 1 ps")
    return saif.rates(f"TOP/{top}")


def simulated_power(netlist: str, top: str, lib, rates: dict[str, float],
                    scale: float, access=None, flat=None, groups=None):
    """:func:`.compute.netlist_power` of the simulated ``rates`` times ``scale``.

    Parameters
    ----------
    netlist : str
        The gate-level netlist.
    top : str
        Its top module (the model's).
    lib : Library
        The liberty.
    rates : dict
        Toggle rates by net name (:func:`read_rates`).
    scale : float
        The assumed clock over the simulated one.
    access, flat, groups
        As :func:`.compute.netlist_power` takes them.

    Returns
    -------
    report : PowerReport
        The power.
    used : dict
        The scaled rate of every net the power asked for, in the order asked.
    """
    from .compute import netlist_power
    used: dict[str, float] = {}

    def rate(name):
        r = rates.get(name)
        if r is None:
            return None
        used[name] = r * scale
        return r * scale

    return netlist_power(netlist, top, lib, rate, access=access, flat=flat,
                         groups=groups), used


def average_activity(used: dict[str, float], period_ns: float,
                     more: tuple[float, int] = (0.0, 0)) -> float:
    """Average transitions per clock period of the nets in ``used`` (rates per second),
    the clock excluded, and of ``more`` (the sum of more nets' rates and their number: a
    replicated module's nets, :mod:`.group_power`): the activity OpenSTA's vectorless
    figure is given."""
    data_nets = [r for n, r in used.items() if n != "clk"]
    n = len(data_nets) + more[1]
    return (sum(data_nets) + more[0]) / n * period_ns * 1e-9 if n else 0.0


def power_by_kind(by_module: dict, top: str) -> tuple[dict, list]:
    """Power by kind of module (:data:`termwise.synth.kinds.KINDS`) of a report's
    ``by_module``; a module of no known kind counts as ``control_glue`` and is listed.

    Returns
    -------
    by_kind : dict
        Kind -> internal, switching, leakage and total power and cells (kinds with
        cells only).
    unmapped : list of str
        The modules of no known kind.
    """
    from ..kinds import KINDS, kind_of
    by_kind = {k: {"internal_w": 0.0, "switching_w": 0.0, "leakage_w": 0.0, "total_w": 0.0,
                   "cells": 0} for k in KINDS}
    unmapped = []
    for module, m in by_module.items():
        kind = kind_of(module, top)
        if kind is None:
            unmapped.append(module.lstrip("\\"))
            kind = "control_glue"
        for f in ("internal_w", "switching_w", "leakage_w", "total_w", "cells"):
            by_kind[kind][f] += m[f]
    return {k: v for k, v in by_kind.items() if v["cells"]}, unmapped


#: Cycles of the idle run (:mod:`.phases`): the clock alone, the same every cycle after
#: reset, so a short run gives its energy per cycle.
IDLE_CYCLES = 1000


@dataclass
class _Simulated:
    """What the runs of the model gave."""
    stats: dict              # the harness's counts (the stimulus run)
    power: object            # PowerReport (the stimulus run)
    activity: float          # average transitions per net per clock period
    sta: dict                # OpenSTA's vectorless figure
    seconds: dict            # simulation, power, opensta, phases
    phases: list             # (stats, by_module) per .phases run (workload, loads,
                             # empty, idle), or []


def _model_power(runner, run_dir: str, netlist: str, top: str, macros, *, cycles: int,
                 seed: int, f_mhz: float, stimulus: str | None = None, idle: bool = False,
                 sampling=None, flat=None):
    """One run (``runner``: :func:`verilator_runner`'s) in ``run_dir`` and the power of its
    SAIF at ``f_mhz``
    (``macros``: the liberty, and the SRAM macros' accesses if the tile has them,
    :mod:`.macro_power`): ``(stats, PowerReport, used rates)``. With ``sampling`` (a
    mixed model, :mod:`.sampled`), the replicated modules' dynamic power is their sampled
    instances' scaled (``stats["sampling"]``: the per-module errors)."""
    stats, saif = runner(run_dir, cycles, seed, stimulus, idle)   # the SAIF read once
    scale = f_mhz / (1000.0 / SIM_PERIOD_NS)     # simulated rates -> assumed clock
    # the levelised simulation's replicated modules: their power from its counts, on its
    # own flattening (their instances stubs there)
    groups = runner.group_power(saif, scale) if hasattr(runner, "group_power") else None
    access = None
    if macros.energies:
        from .macro_power import access_power
        access = access_power(saif, top, f_mhz * 1e6, macros.energies)
    # sampled, ``flat`` holds the unsampled instances as stubs (_simulate): leakage only
    rep, used = simulated_power(netlist, top, macros.lib, saif_rates(saif, top), scale,
                                access=access, flat=flat, groups=groups)
    more = (0.0, 0) if groups is None else (groups.rate_sum, groups.rate_nets)
    if sampling is not None:
        from .sampled import sampling_record, scale_report
        rep, errors = scale_report(rep, sampling)
        stats = dict(stats, sampling=sampling_record(errors, sampling))
    if access is not None:      # the macros' accesses over the SAIF's cycles
        from .macro_power import access_counts
        stats = dict(stats, macro_accesses=access_counts(
            access.duties, saif.duration_s / (SIM_PERIOD_NS * 1e-9)))
    return stats, rep, used, more


def _phase_runs(runner, run_dir: str, cfg, man: dict, plan, netlist: str, top: str,
                macros, *, cycles: int, seed: int, f_mhz: float, main,
                sampling=None, flat=None) -> list:
    """The loads, empty and idle runs of :mod:`.phases` beside the stimulus run ``main``
    (its ``(stats, PowerReport)``): ``[(stats, by_module)]`` of the four, in
    :data:`.phases.RUNS` order."""
    from .stimulus import without_bricks, write_stimulus
    from .workload import stimulus_rows
    layout = man["command_layout"]
    runs = list(stimulus_rows(cfg, plan))
    write_stimulus(os.path.join(run_dir, "loads.bin"), man["ports"],
                   ((without_bricks(layout, c), w, a) for c, w, a in runs))
    # an empty run needs one activation row (the stimulus file's rule): its run's first,
    # as loaded in the loads run, so that the loads run less this one is real rows only
    # (a zero row here costs less than the row it stands for: flow 3's baseline-16x16 row
    # came out at -1.6 nJ per empty-run cycle)
    write_stimulus(os.path.join(run_dir, "empty.bin"), man["ports"],
                   ((without_bricks(layout, c), [], [a[0]]) for c, _, a in runs))
    out = [(main[0], main[1].by_module)]
    for stimulus, idle, n in (("loads.bin", False, cycles), ("empty.bin", False, cycles),
                              (None, True, min(cycles, IDLE_CYCLES))):
        stats, rep, _, _ = _model_power(runner, run_dir, netlist, top, macros, cycles=n,
                                     seed=seed, f_mhz=f_mhz, stimulus=stimulus, idle=idle,
                                     sampling=sampling, flat=flat)
        out.append((stats, rep.by_module))
    return out


def _simulate(runner, power_cache: str, cfg, man: dict, plan, netlist: str, top: str,
              macros, lib_path: str, *, cycles: int, seed: int, f_mhz: float,
              sampling=None) -> _Simulated:
    """Run the model in a fresh folder of ``power_cache``, compute the power of its SAIF
    at ``f_mhz`` and OpenSTA's at the same average activity; with a workload, also the
    loads, empty and idle runs of :mod:`.phases`. The folder is removed after, or kept
    (``failed.run-*``) when a tool failed, for its logs."""
    from .opensta import start_opensta_power
    from .stimulus import write_stimulus
    from .workload import stimulus_rows
    t2 = time.monotonic()
    run_dir = tempfile.mkdtemp(prefix=".run-", dir=power_cache)
    try:
        stimulus = None
        if plan is not None:
            write_stimulus(os.path.join(run_dir, "stimulus.bin"), man["ports"],
                           stimulus_rows(cfg, plan))
            stimulus = "stimulus.bin"
        # the netlist is flattened once for the four runs' power (a 16x16 tile: 1-2
        # million leaves); sampled, the instances simulated as RTL are stubs (.stubs)
        from .compute import Flat
        flat = getattr(runner, "flat", None) or Flat(
            netlist, top, macros.lib,
            frozenset() if sampling is None else sampling.unsampled_instances())
        stats, rep, used, more = _model_power(
            runner, run_dir, netlist, top, macros, cycles=cycles, seed=seed, f_mhz=f_mhz,
            stimulus=stimulus, sampling=sampling, flat=flat)
        t4 = time.monotonic()
        period_ns = 1000.0 / f_mhz
        activity = average_activity(used, period_ns, more)
        with open(os.path.join(run_dir, "netlist.v"), "w", encoding="utf-8") as f:
            f.write(netlist)
        # OpenSTA's cross-check runs beside the phase runs (a process of its own)
        sta_done = start_opensta_power("netlist.v", lib_path, top, period_ns, activity,
                                       run_dir, extra_liberty=macros.liberty)
        t5 = time.monotonic()
        try:
            phases = [] if plan is None else _phase_runs(
                runner, run_dir, cfg, man, plan, netlist, top, macros, cycles=cycles,
                seed=seed, f_mhz=f_mhz, main=(stats, rep), sampling=sampling, flat=flat)
        except BaseException:
            sta_done.kill()
            raise
        t6 = time.monotonic()
        sta = sta_done()
        t7 = time.monotonic()
    except ToolError as err:       # keep the failed run's folder and logs for the reader
        kept = os.path.join(power_cache, "failed" + os.path.basename(run_dir))
        os.replace(run_dir, kept)
        raise err.moved(run_dir, kept) from None
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
    # "opensta": the wait for it after the phase runs it ran beside
    return _Simulated(stats, rep, activity, sta,
                      {"simulation_and_power": round(t4 - t2, 1),
                       "opensta": round(t5 - t4 + t7 - t6, 1), "phases": round(t6 - t5, 1)},
                      phases)


def measure(cfg, *, cycles: int, seed: int, clock_mhz: float | None, clock_ns: float,
            liberty: str | None, cache_root: str | None, use_cache: bool,
            precision: int | None, log, workload: str | None, layers: list[str] | None,
            clock_source: str | None = None, sampled: bool = False,
            samples: int | None = None, hierarchical: bool = False,
            simulator: str = "verilator") -> tuple[dict, dict]:
    """Synthesis of ``cfg`` (cached), its gate-level simulation and power.

    Parameters
    ----------
    cfg : TileConfig
        The tile simulated: the whole tile, or a part (:mod:`.part`).
    cycles, seed, clock_ns, liberty, cache_root, use_cache, precision, workload, layers
        As for :func:`.flow.power_report`; so are ``hierarchical`` and ``simulator``.
    clock_mhz : float or None
        The clock the power is stated at; None: ``cfg``'s synthesised Fmax.
    log : callable
        Takes a line of progress (a model build).
    clock_source : str or None
        The report's words for where the clock comes from, if not the default ones.
    sampled : bool
        Simulate some instances of each replicated module at gate level and the rest as
        RTL (:mod:`.sampled`); False: every instance at gate level.
    samples : int or None
        With ``sampled``: the instances per module (None: by its cells,
        :func:`.sampled.default_k`).

    Returns
    -------
    report : dict
        The power report of ``cfg`` itself.
    facts : dict
        What a part's scaling needs (:mod:`.part_report`): ``by_module`` (power per
        module definition), ``lib``, ``syn`` (the synthesis report), ``sim_s``, ``plan``,
        ``clk_cap``, ``port_switching_w``.
    """
    from ...gen.emit import rendered
    from ...gen.results.locations import emit_cache_dir
    from ..api import synthesise
    from ..tools import DEFAULT_LIBERTY
    from ..wrapper import wrapper_name
    from .cache import power_cache_dir
    from .cells import read_library
    from .macro_power import setup as macro_setup
    from .stimulus import RESET_CYCLES
    from .workload import plan_workload

    t0 = time.monotonic()
    text_v, man = rendered(cfg, emit_cache_dir(cache_root))
    plan = None
    if workload is not None:
        plan = plan_workload(cfg, man["command_layout"], workload, layers, cycles=cycles,
                             seed=seed, reset_cycles=RESET_CYCLES, log=None)
    t_plan = time.monotonic() - t0
    syn = synthesise(cfg, None, clock_ns=clock_ns, target="asic", liberty=liberty,
                     cache_root=cache_root, use_cache=use_cache, precision=precision,
                     hierarchical=hierarchical, netlist=True)
    t_syn = time.monotonic() - t0 - t_plan
    lib_path = syn["flow"]["liberty"] or os.path.abspath(DEFAULT_LIBERTY)
    wrap = wrapper_name(cfg.top_name)
    with gzip.open(os.path.join(syn["cache"]["asic"]["dir"], "netlist.v.gz"), "rt",
                   encoding="utf-8") as f:
        netlist = f.read()
    lib = read_library(lib_path)
    macros = macro_setup(syn["cache"]["asic"]["dir"], text_v, lib)   # buffers = macros
    harness, bricks = tile_harness(cfg, man)
    power_cache = power_cache_dir(cache_root)
    t1 = time.monotonic()
    sampling, model_netlist = None, netlist
    if sampled:
        from .sampled import model_for
        sampling, model_netlist = model_for(netlist, wrap, man["library_modules"], text_v,
                                            samples)
    runner, build = _runner(simulator, cfg, man, model_netlist, wrap, lib, macros, harness,
                            syn["cache"]["asic"]["key"], power_cache, text_v, log)
    t_build = time.monotonic() - t1
    f_mhz = clock_mhz if clock_mhz is not None else syn["asic"]["fmax_mhz"]
    sim = _simulate(runner, power_cache, cfg, man, plan, netlist, wrap, macros, lib_path,
                    cycles=cycles, seed=seed, f_mhz=f_mhz, sampling=sampling)
    lib = macros.lib
    rep = sim.power
    from .clock_tree import clock_net
    clk_cap, clock_net_w = clock_net(rep, lib, f_mhz)
    clock = {"mhz": f_mhz,
             "source": clock_source or ("--clock-mhz" if clock_mhz is not None else
                                        "the synthesis report's ASIC Fmax")}
    report = _report(cfg, syn, sim, plan, lib_path=lib_path, clock_ns=clock_ns,
                     clock=clock, clock_net_w=clock_net_w, cycles=cycles, seed=seed,
                     bricks=bricks)
    _add_run_records(report, sim, cfg.top_name, f_mhz)
    report["model_cache"] = build
    if simulator == "levelsim":
        name_levelsim(report)
    report["wall_s"] = {"workload": round(t_plan, 1), "synthesis": round(t_syn, 1),
                        "model_build": round(t_build, 1), **sim.seconds,
                        "total": round(time.monotonic() - t0, 1)}
    return report, {"by_module": rep.by_module, "lib": lib, "syn": syn,
                    "sim_s": sim.stats["cycles"] / (f_mhz * 1e6), "plan": plan,
                    "clk_cap": clk_cap, "phase_runs": sim.phases,
                    "port_switching_w": max(rep.port_switching_w - clock_net_w, 0.0)}


def _runner(simulator: str, cfg, man: dict, netlist: str, top: str, lib, macros,
            harness: str, synth_key: str, power_cache: str, verilog: str, log):
    """``(runner, build facts)``: the Verilated model of ``netlist`` (built once, cached)
    or the levelised simulation of it (:mod:`.levelsim_run`)."""
    from .model import build_model
    if simulator == "levelsim":
        from .levelsim_run import LevelSimRunner
        with Bar(1, "power: levelling the netlist", "netlist"):
            runner = LevelSimRunner(cfg, man, netlist, top, macros.lib, verilog,
                                    int(round(SIM_PERIOD_NS * 1000 / 2)))
        return runner, {"simulator": "levelsim", "hit": False, "build_s": runner.build_s}
    with Bar(1, "power: the Verilated gate-level model (built or cached)", "model"):
        exe, build = build_model(netlist, top, lib, harness, synth_key, power_cache,
                                 extra_models=macros.models)
    if not build["hit"]:
        log(f"built the gate-level model in {build['build_s']} s (cached in {power_cache})")
    return verilator_runner(exe), build


def _add_run_records(report: dict, sim: _Simulated, top: str, f_mhz: float) -> None:
    """The records of the runs beside the power: the SRAM macros' accesses, the sampled
    modules' errors (:mod:`.sampled`), the busy/load/idle phases (:mod:`.phases`)."""
    if "macro_accesses" in sim.stats:
        from .macro_power import ACCESSES_HOW
        report["macro_accesses"] = {"buffers": sim.stats["macro_accesses"],
                                    "how": ACCESSES_HOW}
    if "sampling" in sim.stats:
        from .sampled import HOW
        report["sampling"] = {"modules": sim.stats["sampling"], "how": HOW}
    if sim.phases:
        from .phases import phase_record
        report["phases"] = phase_record(
            [(st, power_by_kind(bm, top)[0]) for st, bm in sim.phases], f_mhz * 1e6)


def _report(cfg, syn: dict, sim: _Simulated, plan, *, lib_path: str, clock_ns: float,
            clock: dict, clock_net_w: float, cycles: int, seed: int, bricks: int) -> dict:
    """The power report of the tile simulated (without ``model_cache`` and ``wall_s``)."""
    from .opensta import STA_WHY
    from .records import (MODELLED, NOT_MODELLED, activity_record, activity_texts,
                          energy_record)
    rep, stats, sta = sim.power, sim.stats, sim.sta
    asic = syn["asic"]
    by_kind, unmapped = power_by_kind(rep.by_module, cfg.top_name)
    tot = rep.totals
    total = tot["total_w"]
    tile_w = total - by_kind.get("io_wrapper", {}).get("total_w", 0.0)
    f_hz = clock["mhz"] * 1e6
    sim_cycles = stats["cycles"]
    activity_rec = activity_record(cfg, plan, stats, cycles, bricks)
    macs = activity_rec["macs_issued"]
    stimulus_text, operands_text = activity_texts(cfg, plan, bricks, cycles, seed)
    return {
        "generator": "termwise power",
        "top": cfg.top_name,
        "preset": cfg.name,
        "config": cfg.to_dict(),
        "synthesis": {"cache_key": syn["cache"]["asic"]["key"],
                      "cached": syn["cache"]["asic"]["hit"],
                      "area_um2": asic["area_um2"], "fmax_mhz": asic["fmax_mhz"],
                      "clock_ns": clock_ns, "cell_count": asic["cell_count"],
                      "liberty": lib_path},
        "clock": clock,
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
            "rates_scaled_to_mhz": clock["mhz"],
            "average_activity_per_cycle": round(sim.activity, 6),
            "nets_without_activity": len(rep.nets_without_activity),
        },
        "power_w": {"total": total, "dynamic": tot["internal_w"] + tot["switching_w"],
                    "internal": tot["internal_w"], "switching": tot["switching_w"],
                    "leakage": tot["leakage_w"], "tile": tile_w,
                    "clock_net_switching_apart": clock_net_w,
                    "input_port_nets_apart": max(rep.port_switching_w - clock_net_w, 0.0)},
        "by_kind_w": by_kind,
        "unmapped_modules": unmapped,
        "energy": energy_record(total, tile_w, f_hz, syn["throughput"], sim_cycles / f_hz,
                                macs, activity_rec["real_macs"], plan),
        "opensta": dict(sta, ratio_termwise_to_opensta=(total / sta["total_w"]
                                                         if sta["total_w"] else None),
                        why=STA_WHY),
        "modelled": MODELLED,
        "not_modelled": NOT_MODELLED,
        "assumptions": rep.assumptions,
        "units": rep.units,
        "extrapolated_table_lookups": rep.extrapolated,
    }
