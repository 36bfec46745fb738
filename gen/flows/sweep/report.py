"""A sweep's reports: ``sweep.json`` (the document of :func:`.engine.run_sweep`) and
``sweep.md`` (one row per point)."""

from __future__ import annotations

import json
import os

from ...emit import write_atomically

__all__ = ["write_reports", "to_markdown"]


def _varying(points) -> list[str]:
    """The configuration fields that differ between points (the grid's axes)."""
    keys = sorted({k for p in points for k in p["config"]})
    return [k for k in keys if k != "arch"
            and len({repr(p["config"].get(k)) for p in points}) > 1]


def to_markdown(doc: dict) -> str:
    """``sweep.md``'s text."""
    pts = doc["points"]
    axes = _varying(pts)
    lines = [f"# Sweep: {len(pts)} configurations", "",
             f"Jobs: {', '.join(doc['jobs'])}; executor: {doc['executor']}; perf-db "
             f"{doc['db']}."]
    if doc["workload"]:
        m = doc["sim_method"]
        lines.append(f"Workload {doc['workload']} at {doc['precision']} bits; brick order "
                     f"{m['order']}, depthwise {m['depthwise']}, sample_pairs "
                     f"{m['sample_pairs']}.")
    for job in doc["jobs"]:
        lines.append(f"{job}: {doc['evaluated'][job]} evaluated, {doc['reused'][job]} from "
                     f"the perf-db, {doc['failed'][job]} failed.")
    head = ["#", "tile", "arch", *axes]
    if "sim" in doc["jobs"]:
        head += ["cycles", "rtl cycles"]
    if "synth" in doc["jobs"]:
        head += ["area (mm2)", "Fmax (MHz)"]
    lines += ["", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    errors = []
    for p in pts:
        row = [str(p["index"]), f"`{p['top']}`", p["arch"],
               *[str(p["config"].get(a, "")) for a in axes]]
        for job in doc["jobs"]:
            e = p[job]
            if e["status"] != "ok":
                row += ["failed"] * 2
                errors.append(f"- point {p['index']} ({p['top']}) {job}: {e['error']}")
            elif job == "sim":
                row += [str(e["cycles"]), str(e["rtl_cycles"])]
            else:
                row += [f"{e['area_um2'] / 1e6:.4f}", f"{e['fmax_mhz']:.1f}"]
        lines.append("| " + " | ".join(row) + " |")
    if errors:
        lines += ["", "## Failed points", "", *errors]
    return "\n".join(lines) + "\n"


def write_reports(out_dir: str, doc: dict) -> list[str]:
    """Write ``sweep.json`` and ``sweep.md`` to ``out_dir``; returns their paths."""
    os.makedirs(out_dir, exist_ok=True)
    paths = [os.path.join(out_dir, "sweep.json"), os.path.join(out_dir, "sweep.md")]
    write_atomically(paths[0], json.dumps(doc, indent=1, sort_keys=True) + "\n")
    write_atomically(paths[1], to_markdown(doc))
    return paths
