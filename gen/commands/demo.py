"""``termwise demo``: the main job on one configuration, end to end.

1. generate the Verilog and manifest;
2. build it with Verilator and run the cocotb regression (random operands, corners, one
   real convolution layer lowered onto the tile), outputs checked exactly against the golden
   models and every run's cycles against the golden cycle model;
3. synthesise it (ASIC: Yosys + OSU 0.18um + OpenSTA);
4. print a short summary and write it to ``DIR/summary.json``.
"""

from __future__ import annotations

from ..flows.regression import run_demo
from .args import add_config_arguments, config_from_args

__all__ = ["register"]

#: Position in ``termwise --help``.
ORDER = 30


def register(subparsers) -> None:
    p = subparsers.add_parser("demo", help="generate, run the cocotb regression, synthesise, "
                              "summarise")
    add_config_arguments(p)
    p.add_argument("-o", "--output", default="build/demo", metavar="DIR")
    p.add_argument("--no-synth", action="store_true", help="skip synthesis")
    p.set_defaults(func=lambda args: run_demo(config_from_args(args), args.output,
                                              synth=not args.no_synth))
