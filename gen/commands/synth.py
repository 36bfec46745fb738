"""``termwise synth``: synthesis of one configuration (ASIC area/timing, ECP5 resources and
Fmax); writes synth_report.json/.md. The flow arguments are shared with ``termwise compare``."""

from __future__ import annotations

import os

from .args import add_config_arguments, add_flow_arguments, config_from_args, synth_kwargs

__all__ = ["register", "add_flow_arguments", "synth_kwargs"]

#: Position in ``termwise --help``.
ORDER = 50


def register(subparsers) -> None:
    def cmd_synth(args) -> int:
        from ...synth.api import check_options, synthesise
        cfg = config_from_args(args)
        check_options(args.clock_ns, args.target, args.liberty)
        rep = synthesise(cfg, args.output, precision=args.precision,
                         **synth_kwargs(args))
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
        drv = (a or {}).get("drv_violations")
        gated = (((a or {}).get("clock_gating") or {}).get("timing") or {}).get(
            "drv_on_gated_clock_nets") or {}
        if drv and drv.get("count") and drv["count"] == gated.get("gated_clock"):
            print(f"note: all {drv['count']:,} design-rule violations are on gated clock "
                  "nets (ICG outputs driving flop clock pins; no clock tree is built and the "
                  "STA clock is ideal, so no data path is extrapolated): docs/clock-gating.md")
        elif drv and drv.get("count"):
            print(f"warning: {drv['count']:,} design-rule violations: the ASIC Fmax is "
                  "extrapolated beyond the library's characterised range, not signable "
                  "(see synth_report.md)")
        print(f"wrote {os.path.join(args.output, 'synth_report.json')} and synth_report.md")
        return 0

    p = subparsers.add_parser("synth", help="synthesise a configuration (ASIC area/timing, "
                              "ECP5 resources/Fmax); writes synth_report.json/.md")
    add_config_arguments(p)
    add_flow_arguments(p)
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.set_defaults(func=cmd_synth)
