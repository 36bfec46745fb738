"""``termwise shapeshifter``: off-chip footprint / traffic of a workload at fixed width vs
ShapeShifter's per-group widths, and the cycles of a Stripes-style tile using them.

    python -m termwise.gen.shapeshifter_cli --workload NAME --precision 8|16 \
        [--group G[,G...]] [--deltas] -o DIR

Group sizes 16..256 (default 16). Writes
DIR/shapeshifter.json, .csv, .md (model: :mod:`termwise.gen.flows.reports.shapeshifter`);
with ``--deltas`` also DIR/deltas.json and deltas.md (Diffy's delta statistics,
:func:`termwise.golden.workloads.deltas.delta_table`).
"""

from __future__ import annotations

from ..flows.shapeshifter import run_shapeshifter

__all__ = ["register"]

#: Position in ``termwise --help``.
ORDER = 90


def _cmd(args) -> int:
    doc = run_shapeshifter(args.workload, args.precision, args.output, groups=args.group,
                           deltas=args.deltas, images=args.images)
    for g, d in doc["groups"].items():
        t = d["total"]
        print(f"group {g:>3s}: traffic {t['ratio'] * 100:5.1f}% of fixed width "
              f"(act {t['act_ratio'] * 100:.1f}%, wgt {t['wgt_ratio'] * 100:.1f}%), "
              f"Stripes {t['speedup']['stripes']:.2f}x, SS-Stripes "
              f"{t['speedup']['ss_stripes']:.2f}x over baseline")
    if "deltas" in doc and doc["deltas"]["total"]["ratio"] is not None:
        t = doc["deltas"]["total"]
        m = doc["deltas"]["total_macs"]
        print(f"deltas: {t['act_terms']:.3f} -> {t['delta_terms']:.3f} Booth terms per value "
              f"(MAC-weighted {m['act_terms']:.3f} -> {m['delta_terms']:.3f})")
    return 0


def register(subparsers):
    """Add the ``shapeshifter`` subcommand (the configuration arguments are not used)."""
    p = subparsers.add_parser("shapeshifter",
                              help="off-chip footprint/traffic with ShapeShifter group widths")
    p.add_argument("--workload", required=True, help="a registered workload, e.g. dncnn")
    p.add_argument("--precision", default="16", help="8 or 16 (fixed-point bits)")
    p.add_argument("--group", default="16", help="group size(s) 16..256, comma separated")
    p.add_argument("--images", type=int, default=1, help="photos / inputs traced")
    p.add_argument("--deltas", action="store_true",
                   help="also write Diffy's delta statistics (deltas.md/json)")
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.set_defaults(func=_cmd)
    return p

