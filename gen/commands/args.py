"""Argument handling every subcommand shares: the configuration options (one of
``--preset``, ``--config`` or ``--arch`` with fields; the design options come from the
design registry), the one-line usage error; the common value checks
(:mod:`termwise.gen.checks`) re-exported for the commands.

Every user error prints one line ``error: <field>: <what is valid>`` and exits with status 2
(:mod:`termwise.gen.cli` catches :class:`UsageError` and
:class:`~termwise.gen.spec.ConfigError`).
"""

from __future__ import annotations

import argparse

from .. import designs
from ..config import TileConfig, from_toml, preset, with_dtype_fields
from ..checks import check_precision, positive_int
from ..spec import ConfigError

__all__ = ["UsageError", "Parser", "add_config_arguments", "config_from_args",
           "add_flow_arguments", "synth_kwargs", "check_precision", "positive_int"]


class UsageError(Exception):
    """A command-line problem, reported as one line with exit status 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are :class:`UsageError` (one line, exit 2)."""

    def error(self, message):
        raise UsageError(message)


#: Core fields settable on the command line (design options are added from the registry).
_CORE_ARGS = ("filters", "windows", "lanes", "act_bits", "wgt_bits", "acc_bits", "depth",
              "dtype", "bias", "residual", "activation", "out_bits", "pe_stages", "buffers",
              "clock_gating")


def add_config_arguments(p: argparse.ArgumentParser) -> None:
    """The options that select a configuration: ``--preset``, ``--config`` or ``--arch`` ..."""
    g = p.add_argument_group("configuration (one of --preset, --config, --arch)")
    g.add_argument("--preset", help="a named preset (see `termwise presets`)")
    g.add_argument("--config", metavar="FILE.toml", help="a TOML file with the tile fields")
    g.add_argument("--arch", help=f"architecture: {', '.join(designs.archs())}")
    g.add_argument("--filters", type=int)
    g.add_argument("--windows", type=int)
    g.add_argument("--lanes", type=int)
    g.add_argument("--act-bits", type=int)
    g.add_argument("--wgt-bits", type=int)
    g.add_argument("--acc-bits", type=int)
    g.add_argument("--depth", type=int, help="bricks held by the operand buffers")
    g.add_argument("--pe-stages", type=int,
                   help="registers on every PE input, 0..4 (default: 1 in arrays of 256 PEs "
                        "or more, else 0; each adds a cycle per run)")
    g.add_argument("--clock-gating", action="store_true", default=None,
                   help="ASIC: gate the clocks of enabled flops with ICGs built from OSU018 "
                        "cells (docs/clock-gating.md)")
    g.add_argument("--buffers", help="what the operand buffers are built from: flops "
                   "(default) or macros (single-port SRAM macros side by side, docs/sram.md)")
    for name, specs in designs.options().items():
        per_design = "; ".join(f"{s.arch}: {s.option(name).shown()}" for s in specs)
        g.add_argument(f"--{name.replace('_', '-')}", type=specs[0].option(name).type,
                       help=f"{specs[0].option(name).help} ({per_design})")
    dtypes = [f"{s.dtype} ({s.arch} only; implies "
              + ", ".join(f"{k} = {v}" for k, v in s.implies.items()) + ")"
              for s in designs.SPECS.values() if s.dtype != "int"]
    g.add_argument("--dtype", help="int (default) or " + " or ".join(dtypes))
    o = p.add_argument_group("fused output stage")
    o.add_argument("--bias", action="store_true", default=None, help="add a bias per filter")
    o.add_argument("--residual", action="store_true", default=None,
                   help="add a residual row per window (an input stream)")
    o.add_argument("--activation", help="none | relu | relu6")
    o.add_argument("--out-bits", type=int, help="requantise outputs to this many bits")


def config_from_args(args) -> TileConfig:
    """The configuration the arguments of :func:`add_config_arguments` select."""
    chosen = [o for o in ("preset", "config", "arch") if getattr(args, o)]
    if len(chosen) != 1:
        raise UsageError("choose exactly one of --preset, --config or --arch")
    fields = _CORE_ARGS + tuple(designs.options())
    overrides = {f: getattr(args, f) for f in fields if getattr(args, f) is not None}
    if "dtype" in overrides:
        overrides = with_dtype_fields(overrides)
    if args.preset:
        cfg = preset(args.preset)
        return cfg.replace(**overrides) if overrides else cfg
    if args.config:
        cfg = from_toml(args.config)
        return cfg.replace(**overrides) if overrides else cfg
    for f in ("filters", "windows", "lanes", "act_bits", "wgt_bits"):
        if overrides.get(f) is None:
            raise ConfigError(f, f"--{f.replace('_', '-')} is required with --arch")
    return TileConfig(arch=args.arch, **overrides)


def add_flow_arguments(p) -> None:
    """The synthesis flow's options (``termwise synth`` and ``compare``)."""
    from ...synth.api import DEFAULT_CLOCK_NS, TARGETS
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
    p.add_argument("--hierarchical", action="store_true",
                   help="the hierarchical flow: each distinct module synthesised in a yosys "
                   "run of its own and cached across runs, the timing with all but 8 PEs "
                   "as load stubs (less memory; its own cache key: synth/README.md)")


def synth_kwargs(args) -> dict:
    """The keyword arguments of :func:`termwise.synth.api.synthesise` the options of
    :func:`add_flow_arguments` give."""
    return {"clock_ns": args.clock_ns, "target": args.target, "liberty": args.liberty,
            "cache_root": args.cache_dir, "use_cache": not args.no_cache,
            "hierarchical": args.hierarchical}
