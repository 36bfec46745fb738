"""``termwise shapeshifter``'s flow: the ShapeShifter footprint of a workload's values per
group size (:mod:`termwise.golden.shapeshifter`), and optionally Diffy's deltas of it."""

from __future__ import annotations

import json
import os
import sys
import time

from ...checks import check_precision
from ...errors import ConfigError

__all__ = ["run_shapeshifter", "parse_groups"]


def parse_groups(text) -> list[int]:
    """The group sizes of a ``--group`` text (``16`` or ``16,64``) or an int, each in
    :data:`termwise.golden.shapeshifter.GROUP_RANGE`, in order, without repeats."""
    from ....golden.shapeshifter import GROUP_RANGE
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
    from ....golden.workloads import check_workload, load_workload
    from ..reports.shapeshifter import workload_report, write_reports
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
        from ....golden.workloads.deltas import delta_table
        doc["deltas"] = delta_table(wl)
    doc["seconds"] = time.perf_counter() - t0
    paths = write_reports(out_dir, doc)
    if deltas:
        paths.append(write_deltas(out_dir, doc["deltas"]))
    log(f"wrote {', '.join(paths)} in {doc['seconds']:.1f} s")
    return doc


def write_deltas(out_dir, tab) -> str:
    """Write Diffy's delta table ``tab`` as deltas.json and deltas.md; returns the .md path."""
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
