"""``termwise verify``: the cocotb regression of any configuration.

    termwise verify (--preset P | --config F.toml | --arch A ...) [--suites a,b]
                    [--seed N] [--waves] [-o DIR]

Generates the tile (cached), builds its Verilator model (cached), runs the suites of the
design's testbench (:func:`termwise.tb.testbenches.testbench_for`) in one simulator start
and prints the same summary lines as ``termwise demo``. Every output is compared exactly
with the golden models and every run's cycles with the golden cycle model. Writes
``DIR/config.toml`` (the configuration, readable by ``--config``) and ``DIR/verify.json``
(every run: measured and modelled). Exit 0 when everything matched, 1 on a mismatch (with
the command that reruns it with waveforms), 2 on bad input.
"""

from __future__ import annotations

import json
import os
import shlex

from .args import add_config_arguments, config_from_args

__all__ = ["register", "run_verify"]

#: Position in ``termwise --help``.
ORDER = 40


def run_verify(cfg, outdir: str | None, *, suites=None, seed: int = 1,
               waves: bool = False) -> int:
    from ...tb.runner import run_regression
    from ...tb.testbenches import testbench_for
    from ..config import ConfigError, to_toml
    from ...tb.summary import print_regression

    bench = testbench_for(cfg)
    try:
        chosen = bench.check_suites(suites) if suites is not None else bench.default
    except ValueError as err:
        raise ConfigError("suites", str(err)) from None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
        raise ConfigError("seed", f"must be an integer in 0..{2**32 - 1}, got {seed!r}")
    outdir = outdir or os.path.join("build", "verify", cfg.name or cfg.top_name)

    result = run_regression(cfg, chosen, seed=seed, waves=waves, test_module=bench.module)
    os.makedirs(outdir, exist_ok=True)
    config_path = os.path.join(outdir, "config.toml")
    with open(config_path, "w", encoding="utf-8") as f:
        f.write(to_toml(cfg))
    print(f"termwise verify: {cfg.name or cfg.top_name} ({cfg.arch}, testbench "
          f"{bench.module.rsplit('.', 1)[1]})")
    record = print_regression(cfg, result)
    record.update(config=cfg.to_dict(), preset=cfg.name, testbench=bench.module)
    with open(os.path.join(outdir, "verify.json"), "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1)
    if not result.passed:
        rerun = ["termwise", "verify", "--config", config_path, "--suites", ",".join(chosen),
                 "--seed", str(seed), "--waves", "-o", outdir]
        print(f"  rerun      {shlex.join(rerun)}")
    print(f"  wrote      {config_path} and {os.path.join(outdir, 'verify.json')}")
    return 0 if result.passed else 1


def register(subparsers) -> None:
    def cmd_verify(args) -> int:
        cfg = config_from_args(args)
        suites = None if args.suites is None else \
            [s.strip() for s in args.suites.split(",") if s.strip()]
        return run_verify(cfg, args.output, suites=suites, seed=args.seed, waves=args.waves)

    p = subparsers.add_parser("verify", help="run the cocotb regression of a configuration "
                              "(outputs and cycles exact against the golden models)")
    add_config_arguments(p)
    p.add_argument("--suites", metavar="A,B", help="comma list of suites (default: the "
                   "design's regression; an unknown name lists the valid ones)")
    p.add_argument("--seed", type=int, default=1, help="random seed of the cases (default 1)")
    p.add_argument("--waves", action="store_true", help="write an FST waveform of the run")
    p.add_argument("-o", "--output", default=None, metavar="DIR",
                   help="where config.toml and verify.json go (default build/verify/<name>)")
    p.set_defaults(func=cmd_verify)
