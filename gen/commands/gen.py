"""``termwise gen``: the Verilog and manifest.json of a configuration."""

from __future__ import annotations

from .args import add_config_arguments, config_from_args

__all__ = ["register"]

#: Position in ``termwise --help``.
ORDER = 10


def _cmd(args) -> int:
    from ..emit import emit
    man = emit(config_from_args(args), args.output)
    print(f"wrote {args.output}/{man['verilog']['file']} ({man['verilog']['bytes']} bytes, "
          f"sha256 {man['verilog']['sha256'][:12]}) and {args.output}/manifest.json")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("gen", help="write Verilog and manifest.json for a configuration")
    add_config_arguments(p)
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.set_defaults(func=_cmd)
