"""``termwise synth`` and ``termwise compare`` (registered by termwise.gen.cli)."""

from __future__ import annotations

import os
import sys

from ..gen.config import ConfigError

__all__ = ["register"]


def _add_flow_arguments(p):
    from .api import DEFAULT_CLOCK_NS, TARGETS
    p.add_argument("--clock-ns", type=float, default=DEFAULT_CLOCK_NS, metavar="T",
                   help=f"target clock period in ns (default {DEFAULT_CLOCK_NS:g})")
    p.add_argument("--target", default="asic", help=f"one of {', '.join(TARGETS)} "
                   "(default asic)")
    p.add_argument("--liberty", default=None, metavar="LIB",
                   help="liberty file (default: OSU018 from qflow-tech-osu018)")
    p.add_argument("--precision", type=int, default=None,
                   help="activation bits at which peak throughput is stated")
    p.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="synthesis cache (default build/synth-cache)")
    p.add_argument("--no-cache", action="store_true", help="always rerun the tools")


def _synth_kwargs(args) -> dict:
    return {"clock_ns": args.clock_ns, "target": args.target, "liberty": args.liberty,
            "cache_root": args.cache_dir, "use_cache": not args.no_cache}


def _tool_errors(handler):
    """A failed tool is not a usage error: one line naming the tool and its log, exit 1."""
    def wrapped(args) -> int:
        from .tools import ToolError
        try:
            return handler(args)
        except ToolError as err:
            print(f"error: synthesis failed: {err}", file=sys.stderr)
            return 1
    return wrapped


def register(subparsers, add_config_arguments, config_from_args) -> None:
    def cmd_synth(args) -> int:
        from .api import check_options, synthesise
        cfg = config_from_args(args)
        check_options(args.clock_ns, args.target, args.liberty)
        rep = synthesise(cfg, args.output, precision=args.precision,
                         **_synth_kwargs(args))
        a, f, t = rep["asic"], rep["fpga"], rep["throughput"]
        parts = []
        if a:
            parts.append(f"ASIC {a['area_um2'] / 1e6:.3f} mm2, Fmax {a['fmax_mhz']:.1f} MHz, "
                         f"{t['asic_gmacs']:.2f} GMAC/s at {t['precision_bits']} bits")
        if f:
            parts.append(f"ECP5 {f['lut4']} LUT4 {f['ff']} FF {f['dsp']} DSP, Fmax "
                         f"{f['fmax_mhz'] if f.get('fmax_mhz') is not None else '-'} MHz")
        hits = ", ".join(f"{k} {'cached' if v['hit'] else 'run'}"
                         for k, v in rep["cache"].items())
        print(f"{cfg.top_name}: " + "; ".join(parts)
              + f" ({hits}, {rep['wall_s']['this_call']} s)")
        print(f"wrote {os.path.join(args.output, 'synth_report.json')} and synth_report.md")
        return 0

    def cmd_compare(args) -> int:
        from . import compare
        from .api import check_options
        # Liberty and `sta` matter only when a preset has to be synthesised.
        fresh = any(not os.path.exists(item) for item in args.items)
        check_options(args.clock_ns, args.target if fresh else "fpga", args.liberty)
        if args.target not in ("asic", "fpga", "both"):
            check_options(args.clock_ns, args.target, args.liberty)
        reports = [compare.load_row_report(item, _synth_kwargs(args)) for item in args.items]
        rows, basis = compare.compare_rows(reports, args.precision)
        md = compare.to_markdown(rows, basis)
        print(md, end="")
        os.makedirs(args.output, exist_ok=True)
        with open(os.path.join(args.output, "compare.md"), "w", encoding="utf-8") as fh:
            fh.write(md)
        with open(os.path.join(args.output, "compare.csv"), "w", encoding="utf-8",
                  newline="") as fh:
            fh.write(compare.to_csv(rows, basis))
        print(f"wrote {args.output}/compare.md and compare.csv")
        return 0

    p = subparsers.add_parser("synth", help="synthesise a configuration (ASIC area/timing, "
                              "ECP5 resources/Fmax); writes synth_report.json/.md")
    add_config_arguments(p)
    _add_flow_arguments(p)
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.set_defaults(func=_tool_errors(cmd_synth))

    p = subparsers.add_parser("compare", help="compare configurations side by side "
                              "(presets or folders with synth_report.json)")
    p.add_argument("items", nargs="+", metavar="PRESET_OR_DIR")
    _add_flow_arguments(p)
    p.add_argument("-o", "--output", default=os.path.join("build", "compare"), metavar="DIR")
    p.set_defaults(func=_tool_errors(cmd_compare))
