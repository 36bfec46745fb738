"""``termwise compare``: one row per configuration, ratios to the first row.

Rows come from presets (synthesised through the cache, so a repeat is immediate) or from
folders / files holding a ``synth_report.json``. Peak throughput is stated at one activation
precision for every row (default: the first row's ``act_bits``), and the table says whether
the peaks are equal on that basis: designs are compared at equal peak throughput
(docs/papers.md#equal-peak-throughput).
"""

from __future__ import annotations

import csv
import io
import json
import os

from ..gen.config import ConfigError, from_mapping, preset
from . import report

__all__ = ["run_compare", "load_row_report", "compare_rows", "to_markdown", "to_csv", "drv_count",
           "DRV_MARK", "UNCHECKED_MARK", "DRV_NOTE", "UNCHECKED_NOTE"]

DRV_MARK = "*"
UNCHECKED_MARK = "?"
DRV_NOTE = (f"{DRV_MARK} ASIC Fmax extrapolated: the design breaks the library's design rules "
            "(DRV = count of max capacitance / transition / fanout violations and loads or "
            "slews past the liberty tables' characterised range); that Fmax is not signable.")
UNCHECKED_NOTE = (f"{UNCHECKED_MARK} design rules not checked (a report from before the "
                  "checks): its Fmax may be extrapolated.")


def drv_count(asic: dict | None) -> int | None:
    """The design-rule violation count of an ``asic`` report section; None when the report
    predates the checks (no ``drv_violations``) or has no ASIC results."""
    if not asic:
        return None
    drv = asic.get("drv_violations")
    return drv.get("count") if isinstance(drv, dict) else None


def load_row_report(item: str, synth_kwargs: dict) -> dict:
    """A report for ``item``: a ``synth_report.json`` file, a folder holding one, or a preset
    name (synthesised, cached). Anything else is a :class:`ConfigError` naming what is
    accepted."""
    path = os.path.join(item, "synth_report.json") if os.path.isdir(item) else item
    if os.path.isfile(path):
        try:
            with open(path, encoding="utf-8") as f:
                rep = json.load(f)
        except (ValueError, UnicodeDecodeError):
            rep = None
        if not (isinstance(rep, dict) and isinstance(rep.get("config"), dict)
                and isinstance(rep.get("top"), str) and (rep.get("asic") or rep.get("fpga"))):
            raise ConfigError("compare", f"{path} is not a termwise synth_report.json (it "
                              "needs config, top and asic or fpga results)")
        return rep
    if os.path.isdir(item) or os.sep in item or item.endswith(".json"):
        raise ConfigError("compare", f"{item}: no synth_report.json there (give a folder "
                          "written by `termwise synth`, its synth_report.json, or a preset)")
    from .api import synthesise
    cfg = preset(item)   # raises ConfigError naming the valid presets
    return synthesise(cfg, None, **synth_kwargs)


# (key, header, format, ratio?)
COLUMNS = [
    ("name", "configuration", "{}", False),
    ("arch", "arch", "{}", False),
    ("geometry", "F x W x L", "{}", False),
    ("bits", "act/wgt bits", "{}", False),
    ("peak", "peak MAC/cycle", "{:g}", False),
    ("asic_area_mm2", "ASIC area mm2", "{:.3f}", True),
    ("asic_compute_mm2", "area w/o buffers mm2", "{:.3f}", True),
    # The value-based front end (Bit-Tactical multiplexers, Diffy deltas + reconstruction):
    # no ratio, the first row usually has none.
    ("front_end_mm2", "front end mm2", "{:.3f}", False),
    ("front_end_share", "front end / area w/o buffers", "{:.1%}", False),
    ("pe_area_um2", "PE area um2", "{:,.0f}", True),
    ("asic_fmax_mhz", "ASIC Fmax MHz", "{:.1f}", True),
    # Design-rule violations (max cap / slew / fanout, loads past the liberty tables'
    # range): a non-zero count marks the Fmax as extrapolated (see DRV_NOTE).
    ("asic_drv", "DRV", "{:,}", False),
    # The kind of hardware most of the critical path's delay is spent in (datapath or
    # plumbing: synth/path_kinds.py).
    ("asic_slowest_kind", "slowest stage", "{}", False),
    ("asic_gmacs", "GMAC/s", "{:.2f}", True),
    ("asic_gmacs_mm2", "GMAC/s/mm2", "{:.3f}", True),
    ("asic_gmacs_mm2_compute", "GMAC/s/mm2 w/o buffers", "{:.3f}", True),
    ("fpga_lut4", "ECP5 LUT4", "{:,}", True),
    ("fpga_ff", "ECP5 FF", "{:,}", True),
    ("fpga_dsp", "DSP", "{}", False),
    ("fpga_bram", "BRAM", "{}", False),
    ("fpga_fmax_mhz", "ECP5 Fmax MHz", "{:.1f}", True),
]


def compare_rows(reports: list[dict], precision: int | None = None) -> tuple[list[dict], dict]:
    """Table rows (plain values, ``None`` when not measured) and a basis description."""
    if not reports:
        raise ConfigError("compare", "give at least one preset or report folder")
    p = precision or reports[0]["config"]["act_bits"]
    rows = []
    for r in reports:
        cfg = from_mapping(r["config"], name=r.get("preset"))
        a, f = r.get("asic"), r.get("fpga")
        t = report.throughput(cfg, a, f, p)
        fe = report.front_end_area(report.area_by_kind(a, r["top"])) if a else None
        rows.append({
            "name": r.get("preset") or r["top"],
            "arch": cfg.arch,
            "geometry": f"{cfg.filters}x{cfg.windows}x{cfg.lanes}",
            "bits": f"{cfg.act_bits}/{cfg.wgt_bits}",
            "peak": t["peak_macs_per_cycle"],
            "asic_area_mm2": a["area_um2"] / 1e6 if a else None,
            "asic_compute_mm2": a["area_compute_um2"] / 1e6 if a else None,
            "front_end_mm2": fe / 1e6 if fe is not None else None,
            "front_end_share": fe / a["area_compute_um2"] if fe is not None else None,
            "pe_area_um2": a["pe_area_um2"] if a else None,
            "asic_fmax_mhz": a["fmax_mhz"] if a else None,
            "asic_drv": drv_count(a),
            "asic_drv_checked": drv_count(a) is not None if a else None,
            "asic_slowest_kind": (a.get("critical_path") or {}).get("slowest_kind") if a else None,
            "asic_gmacs": t.get("asic_gmacs"),
            "asic_gmacs_mm2": t.get("asic_gmacs_per_mm2"),
            "asic_gmacs_mm2_compute": t.get("asic_gmacs_per_mm2_compute"),
            "fpga_lut4": f["lut4"] if f else None,
            "fpga_ff": f["ff"] if f else None,
            "fpga_dsp": f["dsp"] if f else None,
            "fpga_bram": f["bram"] if f else None,
            "fpga_fmax_mhz": f.get("fmax_mhz") if f else None,
            "clock_ns": r["flow"]["clock_ns"],
        })
    peaks = {row["peak"] for row in rows}
    basis = {"precision_bits": p, "equal_peak": len(peaks) == 1,
             "text": (f"Peak MAC/cycle at {p}-bit activations "
                      + ("(equal peak throughput for all rows)" if len(peaks) == 1
                         else "(peaks differ: ratios are not at equal peak throughput)")
                      + "; ratios are to the first row.")}
    return rows, basis


def _cols(rows):
    return [c for c in COLUMNS if any(r[c[0]] is not None for r in rows)
            or (c[0] == "asic_drv" and any(r["asic_drv_checked"] is not None for r in rows))]


def _fmax_mark(r) -> str:
    if r["asic_drv_checked"] is None:
        return ""
    if not r["asic_drv_checked"]:
        return UNCHECKED_MARK
    return DRV_MARK if r["asic_drv"] else ""


def _ratio(v, base):
    return None if v is None or not base else v / base


def to_markdown(rows, basis) -> str:
    cols = _cols(rows)
    head = [c[1] for c in cols]
    lines = [basis["text"], "", "| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    first = rows[0]
    for i, r in enumerate(rows):
        cells = []
        for key, _, fmt, ratio in cols:
            v = r[key]
            s = "-" if v is None else fmt.format(v)
            if key == "asic_drv" and v is None and r["asic_drv_checked"] is False:
                s = "not checked"
            if key == "asic_fmax_mhz" and v is not None:
                s += _fmax_mark(r)
            if ratio and i > 0 and _ratio(v, first[key]) is not None:
                s += f" ({_ratio(v, first[key]):.2f}x)"
            cells.append(s)
        lines.append("| " + " | ".join(cells) + " |")
    notes = []
    if any(_fmax_mark(r) == DRV_MARK for r in rows):
        notes.append(DRV_NOTE)
    if any(_fmax_mark(r) == UNCHECKED_MARK for r in rows):
        notes.append(UNCHECKED_NOTE)
    if notes:
        lines += [""] + notes
    return "\n".join(lines) + "\n"


def to_csv(rows, basis) -> str:
    cols = _cols(rows)
    buf = io.StringIO()
    w = csv.writer(buf)
    header = [c[0] for c in cols] + [f"{c[0]}_ratio" for c in cols if c[3]] + [
        "precision_bits", "equal_peak", "clock_ns"]
    w.writerow(header)
    for r in rows:
        w.writerow([r[c[0]] for c in cols]
                   + [_ratio(r[c[0]], rows[0][c[0]]) for c in cols if c[3]]
                   + [basis["precision_bits"], basis["equal_peak"], r["clock_ns"]])
    return buf.getvalue()


def run_compare(items, precision: int | None, synth_kwargs: dict, out_dir: str) -> str:
    """Compare ``items`` (presets or folders with a ``synth_report.json``; presets are
    synthesised with ``synth_kwargs`` through the cache) and write compare.md and
    compare.csv into ``out_dir``; returns the Markdown table."""
    from ..gen.emit import write_atomically
    reports = [load_row_report(item, synth_kwargs) for item in items]
    rows, basis = compare_rows(reports, precision)
    md = to_markdown(rows, basis)
    os.makedirs(out_dir, exist_ok=True)
    write_atomically(os.path.join(out_dir, "compare.md"), md)
    write_atomically(os.path.join(out_dir, "compare.csv"), to_csv(rows, basis))
    return md
