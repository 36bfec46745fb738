"""``termwise compare``: configurations side by side (presets, synthesised as needed, or
folders with synth_report.json); writes compare.md and compare.csv."""

from __future__ import annotations

import os

from .args import add_flow_arguments, synth_kwargs

__all__ = ["register"]

#: Position in ``termwise --help``.
ORDER = 60


def register(subparsers) -> None:
    def cmd_compare(args) -> int:
        from ...synth.api import check_options
        from ...synth.compare import run_compare
        # Liberty and `sta` matter only when a preset has to be synthesised.
        fresh = any(not os.path.exists(item) for item in args.items)
        check_options(args.clock_ns, args.target if fresh else "fpga", args.liberty)
        if args.target not in ("asic", "fpga", "both"):
            check_options(args.clock_ns, args.target, args.liberty)
        print(run_compare(args.items, args.precision, synth_kwargs(args), args.output), end="")
        print(f"wrote {args.output}/compare.md and compare.csv")
        return 0

    p = subparsers.add_parser("compare", help="compare configurations side by side "
                              "(presets or folders with synth_report.json)")
    p.add_argument("items", nargs="+", metavar="PRESET_OR_DIR")
    add_flow_arguments(p)
    p.add_argument("-o", "--output", default=os.path.join("build", "compare"), metavar="DIR")
    p.set_defaults(func=cmd_compare)
