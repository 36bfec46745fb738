"""``termwise gen``: the Verilog, manifest.json and FuseSoC core of a configuration."""

from __future__ import annotations

import os

from .args import add_config_arguments, config_from_args

__all__ = ["register"]

#: Position in ``termwise --help``.
ORDER = 10


def _cmd(args) -> int:
    from ..flows.fusesoc import generate, vlnv
    man = generate(config_from_args(args), args.output)
    out = os.path.join(args.output, "")          # one separator, given with -o or not
    print(f"wrote {out}{man['verilog']['file']} ({man['verilog']['bytes']} bytes, "
          f"sha256 {man['verilog']['sha256'][:12]}), {out}manifest.json and the "
          f"FuseSoC core {out}{man['top']}.core ({vlnv(man)})")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("gen", help="write Verilog, manifest.json and a FuseSoC core "
                              "for a configuration")
    add_config_arguments(p)
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.set_defaults(func=_cmd)
