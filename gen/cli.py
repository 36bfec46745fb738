"""The ``termwise`` command line.

Subcommands: ``gen`` (Verilog + manifest), ``demo`` (generate, regress, synthesise,
summarise), ``presets``, and the synthesis commands registered by :mod:`termwise.synth.cli`.

Every user error (a bad configuration, a malformed file, an impossible option) prints one
line ``error: <field>: <what is valid>`` and exits with status 2: no traceback, nothing
written.
"""

from __future__ import annotations

import argparse
import sys

from .config import (ARCHS, ConfigError, TileConfig, from_toml, load_presets, preset,
                     with_dtype_fields)

__all__ = ["main", "run_subcommand", "add_config_arguments", "config_from_args",
           "UsageError"]


class UsageError(Exception):
    """A command-line problem, reported as one line with exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, like every other user error
        raise UsageError(message)


def add_config_arguments(p: argparse.ArgumentParser) -> None:
    """The options that select a configuration: ``--preset``, ``--config`` or ``--arch`` ..."""
    g = p.add_argument_group("configuration (one of --preset, --config, --arch)")
    g.add_argument("--preset", help="a named preset (see `termwise presets`)")
    g.add_argument("--config", metavar="FILE.toml", help="a TOML file with the tile fields")
    g.add_argument("--arch", help=f"architecture: {', '.join(ARCHS)}")
    g.add_argument("--filters", type=int)
    g.add_argument("--windows", type=int)
    g.add_argument("--lanes", type=int)
    g.add_argument("--act-bits", type=int)
    g.add_argument("--wgt-bits", type=int)
    g.add_argument("--acc-bits", type=int)
    g.add_argument("--depth", type=int, help="bricks held by the operand buffers")
    g.add_argument("--serial-bits", type=int, help="loom: activation bits per cycle (1, 2, 4)")
    g.add_argument("--first-stage-bits", type=int,
                   help="pragmatic: first-stage shifter bits (0..4)")
    g.add_argument("--encoding", help="pragmatic: plain | booth; laconic: booth")
    g.add_argument("--sync", help="pragmatic: pallet | column")
    g.add_argument("--column-registers", type=int, help="pragmatic column sync: bricks ahead")
    g.add_argument("--backend", help="tactical: tclp | tcle")
    g.add_argument("--shape", help="tactical: T (<2,5>) | L")
    g.add_argument("--lookahead", type=int, help="tactical: h, steps ahead (1..4)")
    g.add_argument("--lookaside", type=int, help="tactical: d, lanes aside (0..7)")
    g.add_argument("--delta-source", help="diffy: on_the_fly | stored")
    g.add_argument("--dtype", help="int (default) or bf16 (baseline only; implies 16-bit "
                   "operands and fp32 accumulators)")
    o = p.add_argument_group("fused output stage")
    o.add_argument("--bias", action="store_true", default=None, help="add a bias per filter")
    o.add_argument("--residual", action="store_true", default=None,
                   help="add a residual row per window (an input stream)")
    o.add_argument("--activation", help="none | relu | relu6")
    o.add_argument("--out-bits", type=int, help="requantise outputs to this many bits")
    s = g.add_mutually_exclusive_group()
    s.add_argument("--signed", dest="act_signed", action="store_true", default=None,
                   help="two's complement activations (default)")
    s.add_argument("--unsigned", dest="act_signed", action="store_false",
                   help="unsigned activations")


_FIELD_ARGS = ("filters", "windows", "lanes", "act_bits", "wgt_bits", "acc_bits", "depth",
               "act_signed", "serial_bits", "first_stage_bits", "encoding", "sync",
               "column_registers", "backend", "shape", "lookahead", "lookaside",
               "delta_source", "dtype", "bias", "residual", "activation", "out_bits")


def config_from_args(args) -> TileConfig:
    chosen = [o for o in ("preset", "config", "arch") if getattr(args, o)]
    if len(chosen) != 1:
        raise UsageError("choose exactly one of --preset, --config or --arch")
    overrides = {f: getattr(args, f) for f in _FIELD_ARGS if getattr(args, f) is not None}
    if "dtype" in overrides:
        overrides = with_dtype_fields(overrides)
    if args.preset:
        cfg = preset(args.preset)
        return cfg.replace(**overrides) if overrides else cfg
    if args.config:
        cfg = from_toml(args.config)
        return cfg.replace(**overrides) if overrides else cfg
    required = ("filters", "windows", "lanes", "act_bits", "wgt_bits")
    for f in required:
        if overrides.get(f) is None:
            raise ConfigError(f, f"--{f.replace('_', '-')} is required with --arch")
    return TileConfig(arch=args.arch, **overrides)


def _cmd_gen(args) -> int:
    from .emit import emit
    cfg = config_from_args(args)
    man = emit(cfg, args.output)
    print(f"wrote {args.output}/{man['verilog']['file']} ({man['verilog']['bytes']} bytes, "
          f"sha256 {man['verilog']['sha256'][:12]}) and {args.output}/manifest.json")
    return 0


def _cmd_presets(args) -> int:
    for name, table in load_presets().items():
        print(f"{name:18s} {table.get('description', '')}")
    return 0


def _cmd_demo(args) -> int:
    from .demo import run_demo
    return run_demo(config_from_args(args), args.output, synth=not args.no_synth)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="termwise", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("gen", help="write Verilog and manifest.json for a configuration")
    add_config_arguments(p)
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.set_defaults(func=_cmd_gen)

    p = sub.add_parser("presets", help="list the named presets")
    p.set_defaults(func=_cmd_presets)

    p = sub.add_parser("demo", help="generate, run the cocotb regression, synthesise, summarise")
    add_config_arguments(p)
    p.add_argument("-o", "--output", default="build/demo", metavar="DIR")
    p.add_argument("--no-synth", action="store_true", help="skip synthesis")
    p.set_defaults(func=_cmd_demo)

    from ..synth import cli as synth_cli
    from . import shapeshifter_cli, sim_cli, tactical_cli, tradeoff_cli, verify_cli
    synth_cli.register(sub, add_config_arguments, config_from_args)
    sim_cli.register(sub, add_config_arguments, config_from_args)
    tradeoff_cli.register(sub, add_config_arguments, config_from_args)
    shapeshifter_cli.register(sub, add_config_arguments, config_from_args)
    tactical_cli.register(sub, add_config_arguments, config_from_args)
    verify_cli.register(sub, add_config_arguments, config_from_args)
    return parser


def run_subcommand(name: str, argv=None) -> int:
    """``python -m termwise.gen.<x>_cli ARGS`` == ``termwise <name> ARGS``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] != name:
        argv = [name] + argv
    return main(argv)


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except (ConfigError, UsageError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
