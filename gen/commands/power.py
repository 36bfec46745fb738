"""``termwise power``: gate-level power of one configuration's tile (issue 16).

The command parses its options and calls the power flow
(:func:`termwise.synth.power.flow.power_report`: synthesis, the gate-level model under
Verilator on tile runs of random operands or of a workload's layers, liberty power, the
OpenSTA cross-check, a part scaled to the whole tile for a big tile), then writes
``power_report.json`` and ``power_report.md`` (:mod:`termwise.synth.power.report_files`)
and prints one line.
"""

from __future__ import annotations

import math

from ..errors import ConfigError
from ..progress import note
from .args import add_config_arguments, config_from_args, positive_int

__all__ = ["register", "cmd_power"]

#: Position in ``termwise --help``: after synth.
ORDER = 55


def _options(args) -> dict:
    """The flow's options from the command line, checked: :class:`ConfigError` naming the
    option otherwise (before anything runs)."""
    from ...synth.api import check_options
    from ...synth.power.flow import MAX_CYCLES
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
    samples = None if args.samples is None else positive_int("samples", args.samples)
    return dict(cycles=cycles, seed=seed, clock_mhz=mhz, clock_ns=args.clock_ns,
                liberty=args.liberty, cache_root=args.cache_dir, use_cache=not args.no_cache,
                precision=args.precision, workload=args.workload, layers=layers,
                part=args.part, samples=samples, hierarchical=args.hierarchical,
                simulator=args.simulator)


def cmd_power(args) -> int:
    """Measure (or find stored) the power report, write its files, print one line."""
    from ...synth.power.flow import power_report
    from ...synth.power.report_files import summary_line, write_report
    cfg = config_from_args(args)
    rep = power_report(cfg, **_options(args), log=note)
    json_path, _ = write_report(rep, args.output)
    print(summary_line(rep))
    print(f"wrote {json_path} and power_report.md")
    return 0


def register(subparsers) -> None:
    from ...golden.workloads import WORKLOADS
    from ...synth.api import DEFAULT_CLOCK_NS
    from ...synth.power.part import MODES, ROW_ABOVE_CELLS
    p = subparsers.add_parser("power", help="gate-level power of a tile (synthesis, Verilator "
                              "simulation of tile runs, liberty power); writes "
                              "power_report.json/.md")
    add_config_arguments(p)
    p.add_argument("--cycles", default="2000",
                   help="simulated cycles (default 2000; with --workload a bound: runs "
                        "drawn in the network's mix of layers while they fit)")
    p.add_argument("--seed", default="1", help="stimulus seed: the random operands, or the "
                   "workload runs drawn (default 1)")
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
    p.add_argument("--part", default="auto", choices=MODES,
                   help="simulate the whole tile, or one PE row (filters=1, the shared logic "
                        "kept) scaled to the whole tile module by module by synthesised "
                        f"area; auto (default): row above {ROW_ABOVE_CELLS:,} synthesised "
                        "cells (the 16x16 presets), whole below (every 4x4 preset); slice: "
                        "one PE row with a quarter of the window columns (for a row too "
                        "big to build: laconic-16x16, loom-16x16); sampled: the whole tile "
                        "with 8 instances of each replicated module (the PE) at gate level "
                        "and the others as RTL, their power scaled with its sampling error")
    p.add_argument("--samples", default=None, metavar="K",
                   help="with --part sampled: instances of each replicated module simulated "
                        "at gate level (default: 8, fewer for big modules, at least 2; all "
                        "of them: the whole tile's figures)")
    p.add_argument("--no-cache", action="store_true",
                   help="always rerun the synthesis and the power (no cached report)")
    p.add_argument("--hierarchical", action="store_true",
                   help="the netlist of the hierarchical synthesis flow (termwise synth "
                   "--hierarchical; its own keys)")
    p.add_argument("--simulator", default="verilator",
                   help="the gate-level simulation: verilator (default; the Verilated model, "
                        "built once and cached) or levelsim (termwise's levelised NumPy "
                        "simulation: no build, GBs less; the whole tile, not --part sampled; "
                        "its own keys)")
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.set_defaults(func=cmd_power)
