"""``termwise report``: the family's PPA table on one workload, at equal peak throughput.

    termwise report --workload W [--precision 8|16] [--designs all|D,D...]
                    [--power-cycles N] [--seed S] [--reports DIR] -o DIR

For every design (each on the configuration ``termwise sim`` simulates: its equal-peak
16x16 preset of the workload's width, with per-column fc weights where the design has
them), in this order:

1. synthesis (``termwise synth``, cached): area, area without the operand buffers, Fmax;
2. gate-level power under the workload's activity (``termwise power --workload --part
   row``, cached): the tile's power at its Fmax, from one PE row and the logic the rows
   share, scaled to the tile (:mod:`termwise.synth.power.part`; the method checked against
   the whole tile at 4x4, docs/energy.md). Every design is measured the same way: ``auto``
   would simulate the 8-bit tiles (415k-680k cells) whole, a model that took over 50
   minutes to build for baseline-16x16-8b alone, and mix the two methods in one table.
   A tile whose row alone holds more activation-buffer bits than the largest row that built
   (:data:`~termwise.synth.power.part.ROW_MAX_BUFFER_BITS`: laconic-16x16 and loom-16x16,
   64 windows of 16-bit bricks) is measured by a slice of its row (``--part slice``: a
   quarter of the window columns), and its power report says so;
3. the network simulation (``termwise sim``) with its energy model
   (:mod:`termwise.golden.netsim.energy`): cycles, and energy per inference from the
   measured power (compute) plus on-chip buffer and off-chip accesses.

``--reports DIR`` reuses the ``synth_report.json`` / ``power_report.json`` files found
under DIR (matched by the tile's top name, which names every field of its configuration)
instead of running the tools, e.g. a previous report's ``designs/`` folder. A design whose
power cannot be measured (the power flow refuses it) keeps its row, with its memory energy
only and the reason stated; nothing is invented.

Writes DIR/report.json, report.md, report.csv and the plots (:mod:`termwise.gen.flows.reports.ppa`),
DIR/sim/ (the simulation's own reports) and DIR/designs/<design>/ (each design's synth and
power reports).
"""

from __future__ import annotations

import json
import os
import sys
import time

from ..spec import ConfigError
from .args import check_precision, positive_int

__all__ = ["register", "run_report", "DEFAULT_POWER_CYCLES"]

#: Position in ``termwise --help``: after sim.
ORDER = 75

#: Cycle budget of each design's gate-level power run (a bound: the workload's sampled
#: runs that fit, :mod:`termwise.synth.power.workload`).
DEFAULT_POWER_CYCLES = 20000

#: How every design's power is measured (``termwise power --part``): one PE row and the
#: shared logic (module docstring), or its slice (:func:`power_part`).
POWER_PART = "row"


def power_part(cfg) -> str:
    """``slice`` for a tile whose PE row holds more activation-buffer bits than
    :data:`~termwise.synth.power.part.ROW_MAX_BUFFER_BITS` (its row's gate-level model does
    not build on this machine), else :data:`POWER_PART`."""
    from ...synth.power.part import ROW_MAX_BUFFER_BITS, row_buffer_bits
    return "slice" if row_buffer_bits(cfg) > ROW_MAX_BUFFER_BITS else POWER_PART


def needed_cycles(err: ConfigError) -> int | None:
    """The cycles one run of each layer needs, from the power flow's refusal of too small a
    budget (:func:`termwise.synth.power.workload.plan_workload`: field ``cycles``, "about N
    cycles by the cycle model"), else None. Read from the message, whose wording
    tests/synth/test_power_workload.py pins."""
    import re
    found = re.search(r"\(about (\d+) cycles by the cycle model\)", str(err))
    return int(found.group(1)) if err.field == "cycles" and found else None


def budget_for(need: int) -> int:
    """The power budget given a design whose one run of each layer needs ``need`` cycles:
    ``need`` rounded up to a thousand (:class:`~termwise.synth.power.workload.
    CycleBudgetError`); :class:`ConfigError` past the power flow's ``MAX_CYCLES``."""
    from ...synth.power.flow import MAX_CYCLES
    budget = -(-int(need) // 1000) * 1000
    if budget > MAX_CYCLES:
        raise ConfigError("power_cycles", f"one run of each layer needs about {need} "
                          f"cycles, more than the power flow's {MAX_CYCLES}")
    return budget


def _find_reports(root: str | None, name: str) -> dict:
    """``top -> report`` of every ``name`` file under ``root`` (the first of a top by path
    order wins; a malformed file is a :class:`ConfigError` naming ``reports``)."""
    from ..flows.reports.files import json_reports
    found = {}
    if root is None:
        return found
    for path, _rel, doc in json_reports(root, name, "reports", required=False):
        top = doc.get("top") if isinstance(doc, dict) else None
        if not isinstance(top, str):
            raise ConfigError("reports", f"{path} is not a termwise {name} (no top)")
        found.setdefault(top, doc)
    return found


def _power_record(rep: dict, top: str) -> dict:
    """The energy model's power record of ``rep`` (:func:`termwise.gen.flows.reports.files.
    power_record`), its source text saying how the power was obtained."""
    from ..flows.reports.files import power_record
    rec = power_record(rep, f"the power report of {top}", top, "reports")
    act = rep.get("activity", {})
    from ..flows.reports.ppa import method_text
    method = method_text(rep)
    rec["source"] = (f"termwise power ({method}), activity of {rec['activity']}: "
                     f"{act.get('runs_completed')} runs, {act.get('cycles_simulated')} cycles")
    return rec


def run_report(workload: str, precision, out_dir: str, *, designs="all",
               power_cycles: int = DEFAULT_POWER_CYCLES, seed: int = 1,
               images: int | None = None, fc: str | None = None,
               reports: str | None = None, cache_root: str | None = None,
               use_cache: bool = True, plots: bool = True, log=None) -> dict:
    """Synthesis, power and simulation of every design; writes the report and returns its
    document. Bad options raise :class:`ConfigError` before anything runs."""
    from ...golden import netsim
    from ...golden.workloads import WORKLOADS, load_workload
    from ...synth.api import DEFAULT_CLOCK_NS, check_options, synthesise, write_report
    from ...synth.report import area_by_kind
    from ..designs import paper_claim
    from ..flows.reports import ppa
    from ..emit import write_atomically
    from ...synth.power.flow import power_report
    from ...synth.power.report_files import write_report as write_power_report
    from .sim import parse_archs, run_sim
    from ..errors import ToolError

    log = log or (lambda m: print(m, file=sys.stderr, flush=True))
    if workload not in WORKLOADS:
        raise ConfigError("workload", f"must be one of {', '.join(WORKLOADS)}, got "
                          f"{workload!r}")
    bits = check_precision(precision)
    images = positive_int("images", images)
    archs = parse_archs(designs) if isinstance(designs, str) else list(designs)
    archs = [netsim.REFERENCE] + [a for a in archs if a != netsim.REFERENCE]
    fc = netsim.DEFAULT_FC if fc is None else fc
    if fc not in netsim.FC_MAPPINGS:
        raise ConfigError("fc", f"must be one of {', '.join(netsim.FC_MAPPINGS)}, got {fc!r}")
    synth_found = _find_reports(reports, "synth_report.json")
    power_found = _find_reports(reports, "power_report.json")
    # The workload before any synthesis (its trace is built once, then read from the
    # cache): a workload that cannot load (its optional packages not installed, say) stops
    # the report before hours of runs and before anything is written.
    loaded = load_workload(workload, bits, log=log,
                           **({} if images is None else {"images": images}))
    cfgs = {a: netsim.sim_config(a, bits, fc) for a in archs}
    if any(cfgs[a].top_name not in synth_found for a in archs):
        check_options(DEFAULT_CLOCK_NS, "asic", None)
    t0 = time.monotonic()
    wall = {"synthesis": 0.0, "power": 0.0}
    synth, power, power_errors, power_records = {}, {}, {}, {}
    def measure_power(budget):
        return power_report(cfg, cycles=budget, seed=seed, clock_mhz=None,
                            clock_ns=DEFAULT_CLOCK_NS, liberty=None, cache_root=cache_root,
                            use_cache=use_cache, precision=None, log=log, workload=workload,
                            layers=None, part=power_part(cfg))

    for a in archs:
        cfg = cfgs[a]
        ddir = os.path.join(out_dir, "designs", a)
        t = time.monotonic()
        syn = synth_found.get(cfg.top_name)
        if syn is None:
            log(f"{a}: synthesis of {cfg.top_name}")
            syn = synthesise(cfg, None, cache_root=cache_root, use_cache=use_cache)
            write_report(syn, ddir)
        else:            # reused: its own markdown stays beside the original
            os.makedirs(ddir, exist_ok=True)
            write_atomically(os.path.join(ddir, "synth_report.json"),
                             json.dumps(syn, indent=2) + "\n")
        if not isinstance(syn.get("asic"), dict):
            raise ConfigError("reports", f"the synth_report.json of {cfg.top_name} has no "
                              "ASIC results")
        synth[a] = syn
        wall["synthesis"] += time.monotonic() - t
        t = time.monotonic()
        rep = power_found.get(cfg.top_name)
        if rep is not None and (rep.get("activity") or {}).get("source") != workload:
            rep = None           # another activity: measure this workload's
        fresh = rep is None
        if fresh:
            log(f"{a}: gate-level power under {workload}")
            try:
                try:
                    rep = measure_power(power_cycles)
                except ConfigError as err:
                    # A design slower per run than the budget allows for (Loom at 8 bits:
                    # one run of each of EfficientNet-Lite0's 50 layers is ~26k cycles)
                    # gets the smallest budget that holds one run of each layer, so
                    # every row's activity covers every layer.
                    need = needed_cycles(err)
                    if need is None:
                        raise
                    log(f"{a}: {err}; the budget raised to {budget_for(need)} cycles")
                    rep = measure_power(budget_for(need))
            except ConfigError as err:
                power_errors[a] = str(err)
                log(f"{a}: power not measured: {err}")
                rep = None
            except ToolError as err:         # a tool failed: the row stays, with the reason
                power_errors[a] = f"the gate-level power flow failed: {err}"
                log(f"{a}: power not measured: {power_errors[a]}")
                rep = None
        if rep is not None:
            power_records[a] = _power_record(rep, cfg.top_name)
            # a reused report's own markdown stays beside the original
            write_power_report(rep, ddir, markdown=fresh)
            power[a] = rep
        wall["power"] += time.monotonic() - t
    t = time.monotonic()
    sim = run_sim(workload, archs, bits, os.path.join(out_dir, "sim"), images=images, fc=fc,
                  power=power_records, plots=plots, log=log, loaded=loaded)
    wall["simulation"] = time.monotonic() - t
    energy = sim["energy"]["designs"]
    n_images = sim["energy"]["images"]
    rows = []
    for a in archs:
        syn = synth[a]
        rows.append(ppa.design_row(a, syn, power.get(a), power_errors.get(a),
                                   sim["total"][a], energy.get(a), paper_claim(a),
                                   area_by_kind(syn["asic"], syn["top"])))
        budget = (power.get(a) or {}).get("activity", {}).get("cycles_requested")
        if budget is not None and budget != power_cycles:
            rows[-1]["power_activity"] += (f" (a {budget}-cycle budget, not {power_cycles}: "
                                           "one run of each layer)")
    ppa.ratios(rows, n_images)
    wall["total"] = time.monotonic() - t0
    from ..flows.reports.plots import hardware_summary
    doc = {
        "generator": "termwise report",
        "workload": workload,
        "precision": bits,
        "images": n_images,
        "fc": fc,
        "equal_peak_throughput": sim["equal_peak_throughput"],
        "hardware": hardware_summary(sim["designs"], bits),
        "flow": f"OSU 0.18 um liberty, yosys + OpenSTA, clock target "
                f"{DEFAULT_CLOCK_NS:g} ns, Fmax from the critical path",
        "rows": rows,
        "common_differences": list(ppa.COMMON_DIFFERENCES),
        "energy_model": {k: sim["energy"][k] for k in ("model", "constants", "modelled",
                                                       "not_modelled")},
        "methods": {
            "area": "the synthesised tile (IO wrapper excluded); 'without buffers' "
                    "subtracts the operand buffers (memories mapped to flip-flops)",
            "Fmax": "1 / the critical path of OpenSTA at the liberty's nominal corner; "
                    "'*' where the design rules are broken (extrapolated, not signable)",
            "power": "termwise power --workload: gate-level simulation of sampled runs of "
                     "every conv/fc layer of the workload (the same number per layer, not "
                     "the network's mix), toggle counts to liberty internal, switching and "
                     "leakage power, at the design's Fmax; the tile without the IO wrapper",
            "speedup (cycles)": "termwise sim: the baseline's cycles over the design's "
                                "(steady model)",
            "speedup (time)": "the RTL's cycles (per-run overheads included) at each "
                              "design's own Fmax",
            "performance per mm2": "inferences per second (at Fmax) per mm2 of tile",
            "energy per inference": "tile power x the RTL's cycles / Fmax, plus on-chip "
                                    "buffer and off-chip accesses (the energy model), over "
                                    f"the {n_images} inputs simulated",
        },
        "sim": {"dir": "sim", "seconds": sim.get("seconds")},
        "wall_s": {k: round(v, 1) for k, v in wall.items()},
    }
    ppa.write_reports(out_dir, doc, plot=plots)
    return doc


def _cmd_report(args) -> int:
    cycles = positive_int("power_cycles", args.power_cycles)
    try:
        seed = int(args.seed)
    except ValueError:
        seed = -1
    if seed < 0:
        raise ConfigError("seed", f"must be an integer >= 0, got {args.seed!r}")
    doc = run_report(args.workload, args.precision, args.output, designs=args.designs,
                     power_cycles=cycles, seed=seed, images=args.images, fc=args.fc,
                     reports=args.reports, cache_root=args.cache_dir,
                     use_cache=not args.no_cache, plots=not args.no_plots)
    for r in doc["rows"]:
        eff = r["energy_efficiency"]
        print(f"{r['design']:16s} {r['area_mm2']:8.2f} mm2 {r['fmax_mhz']:7.1f} MHz "
              f"speedup {r['speedup_time']:6.2f}x  energy eff. "
              + ("-" if eff is None else f"{eff:.2f}x"))
    print(f"wrote {os.path.join(args.output, 'report.md')} ({doc['wall_s']['total']} s)")
    return 0


def register(subparsers) -> None:
    from ..designs import sim_designs
    from ...golden.workloads import WORKLOADS
    p = subparsers.add_parser("report", help="the family's PPA table on a workload at equal "
                              "peak: synthesis, gate-level power, simulation and energy per "
                              "inference, beside each paper's claim")
    p.add_argument("--workload", required=True, help=" | ".join(WORKLOADS))
    p.add_argument("--precision", default="16",
                   help="8 or 16: the workload's width and the hardware's (-16x16 or "
                        "-16x16-8b presets)")
    p.add_argument("--designs", default="all", metavar="DESIGN[,DESIGN...]|all",
                   help=", ".join(sim_designs()) + " or all (the baseline is always in)")
    p.add_argument("--fc", choices=("columns", "window"), default="columns",
                   help="the fc mapping of termwise sim (columns: per-column weight "
                        "registers on the designs that have them, synthesised as such)")
    p.add_argument("--images", type=int, default=None,
                   help="inputs simulated (default: the workload's own)")
    p.add_argument("--power-cycles", default=str(DEFAULT_POWER_CYCLES),
                   help=f"cycle bound of each gate-level power run (default "
                        f"{DEFAULT_POWER_CYCLES})")
    p.add_argument("--seed", default="1", help="the workload runs drawn for power")
    p.add_argument("--reports", default=None, metavar="DIR",
                   help="reuse synth_report.json / power_report.json files under DIR "
                        "(matched by top name) instead of running the tools")
    p.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="synthesis cache (default build/synth-cache)")
    p.add_argument("--no-cache", action="store_true", help="rerun synthesis and power")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.set_defaults(func=_cmd_report)
