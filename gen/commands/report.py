"""``termwise report``: the family's PPA table on one workload, at equal peak throughput.

    termwise report --workload W [--precision 8|16] [--designs all|D,D...]
                    [--buffers macros|flops] [--no-clock-gating] [--no-hierarchical]
                    [--simulator levelsim|verilator]
                    [--power-cycles N] [--seed S] [--reports DIR]
                    [--workers N | --scheduler tcp://HOST:PORT] -o DIR

For every design (each on the configuration ``termwise sim`` simulates: its equal-peak
16x16 preset of the workload's width, with per-column fc weights where the design has
them), in this order:

1. synthesis (``termwise synth``, cached): area, area without the operand buffers, Fmax;
   by default (:data:`~termwise.gen.flows.ppa.DEFAULT_FLOW`) with SRAM-macro operand
   buffers, gated clocks and the hierarchical flow (each distinct module synthesised once
   and cached, all but 8 instances of each replicated module timed as load stubs:
   synth/README.md);
2. gate-level power under the workload's activity (``termwise power --workload``,
   cached): by default the levelised simulation of the whole tile
   (:mod:`termwise.synth.power.levelsim_run`: each replicated module flattened once, its
   instances' power computed together); with ``--simulator verilator`` the Verilated
   gate-level model, 16x16 tiles by one PE row or a slice of it, scaled
   (:mod:`termwise.synth.power.part`, docs/energy.md);
3. the network simulation (``termwise sim``) with its energy model
   (:mod:`termwise.golden.netsim.energy`): cycles, and energy per inference from the
   measured power (compute) plus on-chip buffer and off-chip accesses.

``--buffers flops --no-clock-gating --no-hierarchical --simulator verilator`` is the flat
flow, the default until the hierarchical one replaced it (hours and up to 24 GB per 16x16
tile: docs/energy.md).

The designs' syntheses, then their power runs, are jobs of the sweep engine
(:mod:`termwise.gen.flows.ppa.jobs`): one at a time by default, ``--workers N`` (or
``--jobs N``) at a time on this machine, or on a Dask cluster (``--scheduler``), with the
answers of a serial run.

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

import argparse
import os
import sys

from ..checks import positive_int
from ..errors import ConfigError
from ..flows.ppa import DEFAULT_FLOW, DEFAULT_POWER_CYCLES, run_report
from ..flows.sweep import connect

__all__ = ["register"]

#: Position in ``termwise --help``: after sim.
ORDER = 75


def _cmd_report(args) -> int:
    cycles = positive_int("power_cycles", args.power_cycles)
    try:
        seed = int(args.seed)
    except ValueError:
        seed = -1
    if seed < 0:
        raise ConfigError("seed", f"must be an integer >= 0, got {args.seed!r}")
    executor = connect(args.scheduler, 1 if args.workers is None and args.scheduler is None
                       else args.workers)
    try:
        if getattr(executor, "workers", None) != 1:
            print(f"report: the designs' synthesis and power jobs on {executor.name}",
                  file=sys.stderr, flush=True)
        doc = run_report(args.workload, args.precision, args.output, designs=args.designs,
                         power_cycles=cycles, seed=seed, images=args.images, fc=args.fc,
                         buffers=args.buffers, clock_gating=args.clock_gating,
                         reports=args.reports, cache_root=args.cache_dir,
                         use_cache=not args.no_cache, plots=not args.no_plots,
                         executor=executor, hierarchical=args.hierarchical,
                         simulator=args.simulator)
    finally:
        executor.close()
    for r in doc["rows"]:
        eff = r["energy_efficiency"]
        print(f"{r['design']:16s} {r['area_mm2']:8.2f} mm2 {r['fmax_mhz']:7.1f} MHz "
              f"speedup {r['speedup_time']:6.2f}x  energy eff. "
              + ("-" if eff is None else f"{eff:.2f}x"))
    print(f"wrote {os.path.join(args.output, 'report.md')} and report.html "
          f"({doc['wall_s']['total']} s)")
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
    p.add_argument("--buffers", default=DEFAULT_FLOW["buffers"],
                   help="the tiles' operand buffers: macros (default: SRAM macros, "
                        "docs/sram.md; a design with stores of its own, Cnvlutin and "
                        "Bit-Tactical, keeps flops, and its row says so) or flops")
    p.add_argument("--clock-gating", action=argparse.BooleanOptionalAction,
                   default=DEFAULT_FLOW["clock_gating"],
                   help="gate the clocks of registers that hold (default on; "
                        "docs/clock-gating.md)")
    p.add_argument("--hierarchical", action=argparse.BooleanOptionalAction,
                   default=DEFAULT_FLOW["hierarchical"],
                   help="synthesise (and take the power runs' netlists from) the "
                   "hierarchical flow (default): each module once, cached, most PEs timed "
                   "as stubs (synth/README.md); --no-hierarchical: one yosys run of the "
                   "whole tile")
    p.add_argument("--simulator", default=DEFAULT_FLOW["simulator"],
                   help="the power runs' gate-level simulation: levelsim (default: every "
                        "tile whole, no model build: synth/power/levelsim_run.py) or "
                        "verilator (the Verilated model; 16x16 tiles by their parts or "
                        "sampled PEs)")
    p.add_argument("--images", type=int, default=None,
                   help="inputs simulated (default: the workload's own)")
    p.add_argument("--power-cycles", default=str(DEFAULT_POWER_CYCLES),
                   help=f"cycle bound of each gate-level power run (default "
                        f"{DEFAULT_POWER_CYCLES})")
    p.add_argument("--seed", default="1", help="the workload runs drawn for power")
    p.add_argument("--reports", default=None, metavar="DIR",
                   help="reuse synth_report.json / power_report.json files under DIR "
                        "(matched by top name) instead of running the tools")
    p.add_argument("--workers", "--jobs", dest="workers", type=int, default=None,
                   metavar="N",
                   help="run the designs' syntheses, then their power runs, N at a time on "
                        "this machine (default 1: a 16x16 tile's power run takes GBs)")
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="run those jobs on this Dask distributed scheduler instead (its "
                        "workers need termwise and TERMWISE_WORKLOADS)")
    p.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="synthesis cache (default build/synth-cache)")
    p.add_argument("--no-cache", action="store_true", help="rerun synthesis and power")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.set_defaults(func=_cmd_report)
