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

from ..flows.regression import run_verify
from .args import add_config_arguments, config_from_args

__all__ = ["register"]

#: Position in ``termwise --help``.
ORDER = 40


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
