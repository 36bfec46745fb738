"""``termwise shapeshifter``: off-chip footprint / traffic of a workload at fixed width vs
ShapeShifter's per-group widths, and the cycles of a Stripes-style tile using them.

    python -m termwise.gen.shapeshifter_cli --workload NAME --precision 8|16 \
        [--group G[,G...]] [--deltas] -o DIR

Group sizes 16..256 (default 16). Writes
DIR/shapeshifter.json, .csv, .md (model: :mod:`termwise.gen.flows.reports.shapeshifter`);
with ``--deltas`` also DIR/deltas.json and deltas.md (Diffy's delta statistics,
:func:`termwise.golden.workloads.dncnn.delta_table`).
"""

from __future__ import annotations

import json
import os
import sys
import time

from ..config import ConfigError
from .args import check_precision

__all__ = ["register", "run_shapeshifter", "parse_groups"]

#: Position in ``termwise --help``.
ORDER = 90


def parse_groups(text) -> list[int]:
    from ...golden.shapeshifter import GROUP_RANGE
    if isinstance(text, int) and not isinstance(text, bool):
        items = [text]
    else:
        parts = [t.strip() for t in str(text).split(",") if t.strip()]
        if not parts:
            raise ConfigError("group", "give one or more group sizes, e.g. 16 or 16,64")
        items = []
        for t in parts:
            try:
                items.append(int(t))
            except ValueError:
                raise ConfigError("group", f"must be integers, got {t!r}") from None
    for g in items:
        if not GROUP_RANGE[0] <= g <= GROUP_RANGE[1]:
            raise ConfigError("group", f"must be in {GROUP_RANGE[0]}..{GROUP_RANGE[1]}, got {g}")
    return list(dict.fromkeys(items))


def run_shapeshifter(workload, precision, out_dir, *, groups="16", deltas=False,
                     images: int = 1, log=None, workload_obj=None) -> dict:
    """Build the report (``workload_obj`` overrides loading, e.g. a synthetic workload)."""
    from ..flows.reports.shapeshifter import workload_report, write_reports
    from ...golden.workloads import check_workload, load_workload
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    bits = check_precision(precision)
    gl = parse_groups(groups)
    if workload_obj is None:
        check_workload(workload)
        if isinstance(images, bool) or not isinstance(images, int) or images < 1:
            raise ConfigError("images", f"must be a positive integer, got {images!r}")
        if not out_dir:
            raise ConfigError("output", "give an output directory")
    t0 = time.perf_counter()
    wl = workload_obj if workload_obj is not None else load_workload(workload, bits,
                                                                     images=images, log=log)
    if wl.bits != bits:
        raise ConfigError("precision", f"workload is {wl.bits}-bit, asked for {bits}")
    doc = workload_report(wl, gl, log=log)
    if deltas:
        from ...golden.workloads.dncnn import delta_table
        doc["deltas"] = delta_table(wl)
    doc["seconds"] = time.perf_counter() - t0
    paths = write_reports(out_dir, doc)
    if deltas:
        paths.append(_write_deltas(out_dir, doc["deltas"]))
    log(f"wrote {', '.join(paths)} in {doc['seconds']:.1f} s")
    return doc


def _write_deltas(out_dir, tab) -> str:
    with open(os.path.join(out_dir, "deltas.json"), "w") as f:
        json.dump(tab, f, indent=1)
    lines = [f"# Diffy deltas: {tab['workload']} at {tab['bits']} bits ({tab['encoding']} terms)",
             "", "delta = a(x) - a(x - stride) along each output row in im2col order, "
             "predecessor 0 at the row start; deltas are (bits + 1)-bit signed.", "",
             "| layer | act terms | delta terms | delta/act | act zeros | delta zeros |",
             "|---|---|---|---|---|---|"]
    for r in tab["layers"] + [dict(tab["total"], name="TOTAL (im2col-value-weighted)"),
                              dict(tab["total_macs"], name="TOTAL (MAC-weighted)")]:
        def f(k, nd=3):
            v = r.get(k)
            return "-" if v is None else f"{v:.{nd}f}"
        lines.append(f"| {r['name']} | {f('act_terms')} | {f('delta_terms')} | {f('ratio')} | "
                     f"{f('act_zero')} | {f('delta_zero')} |")
    path = os.path.join(out_dir, "deltas.md")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


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

