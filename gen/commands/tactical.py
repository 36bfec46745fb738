"""``termwise tactical``: Bit-Tactical on pruned networks (speedups and schedule efficiency).

    termwise tactical [--workload digits-cnn|efficientnet-lite0] [--sparsity 0,50,70,90]
        [--connectivity T<2,5>,L<2,1>,...] [--precision 16] [--images N]
        [--max-window-groups N] [--sample-pairs N] -o DIR

For every sparsity the network is magnitude-pruned per layer
(:mod:`termwise.golden.workloads.pruning`; 0 = dense) and simulated on the baseline, the
back ends alone (dstripes, pragmatic-booth) and TCLp / TCLe, all at equal peak throughput
(the 16x16 presets of hardware as wide as ``--precision``: ``-16x16-8b`` at 8); the
schedule efficiency of each connectivity is measured on the same weights
(:mod:`termwise.gen.flows.reports.tactical`). Writes DIR/tactical.json, tactical.csv
and tactical.md. Bad input exits with status 2 and one line naming the field.
"""

from __future__ import annotations

from ..flows.tactical import DEFAULT_CONNECTIVITY, DEFAULT_SPARSITY, run_tactical

__all__ = ["register"]

#: Position in ``termwise --help``.
ORDER = 100


def _cmd(args) -> int:
    doc = run_tactical(args.workload, args.output, sparsity=args.sparsity,
                       connectivity=args.connectivity, precision=args.precision,
                       images=args.images, max_window_groups=args.max_window_groups,
                       sample_pairs=args.sample_pairs)
    for r in doc["rows"]:
        sp, ob = r["speedup"], r["over_back_end"]
        eff = r["schedule"].get("T<2,5>", next(iter(r["schedule"].values())))["efficiency"]
        print(f"{r['workload']:24s} zero {r['weight_zero_fraction']:.3f}  TCLp "
              f"{sp['tactical-tclp']:5.2f}x ({ob['tactical-tclp']:.2f}x over dstripes)  TCLe "
              f"{sp['tactical-tcle']:5.2f}x ({ob['tactical-tcle']:.2f}x over pragmatic-booth)"
              f"  schedule efficiency " + ("-" if eff is None else f"{eff:.2f}"))
    return 0


def register(subparsers):
    """Add the ``tactical`` subcommand (the configuration arguments are not used)."""
    p = subparsers.add_parser("tactical",
                              help="Bit-Tactical on pruned networks: speedups, schedule "
                                   "efficiency")
    p.add_argument("--workload", default="digits-cnn",
                   help="digits-cnn | efficientnet-lite0 (pruned per layer by magnitude)")
    p.add_argument("--sparsity", default=DEFAULT_SPARSITY,
                   help="percent of each layer's weights pruned, comma separated (0 = dense)")
    p.add_argument("--connectivity", default=DEFAULT_CONNECTIVITY,
                   help="schedule study: T<2,5> and/or L<h,d>, comma separated")
    p.add_argument("--precision", default="16", help="8 or 16 (fixed-point bits)")
    p.add_argument("--images", default=None, help="inputs traced (default: the workload's)")
    p.add_argument("--max-window-groups", default=None,
                   help="sample at most N window groups per layer (deterministic)")
    p.add_argument("--sample-pairs", default=None,
                   help="bound of PE-lane evaluations per layer for the non-Tactical designs")
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.set_defaults(func=_cmd)
    return p

