"""The synthesis report: derived throughput figures, JSON and Markdown."""

from __future__ import annotations

import os
import subprocess

from .kinds import FRONT_END_KINDS, KINDS, kind_of

__all__ = ["throughput", "git_info", "area_by_kind", "front_end_area", "drv_headline",
           "drv_lines", "to_markdown"]

_QTY = {"load_pf": "pF", "slew_ns": "ns", "fanout": ""}


def drv_headline(asic: dict | None) -> str | None:
    """The one line a report opens with when its ASIC timing is not signable: design-rule
    violations (the timing is extrapolated beyond the library's characterised range), or
    no checks at all (a report from before them). None when the checks found nothing."""
    if not asic:
        return None
    drv = asic.get("drv_violations")
    if not isinstance(drv, dict):
        return ("**Design rules not checked** (a report from before the checks): the ASIC "
                "Fmax may rest on loads outside the library's characterised range.")
    if not drv.get("count"):
        return None
    kinds = ", ".join(f"{n:,} {k}" for k, n in drv.get("by_kind", {}).items() if n)
    w = drv.get("worst")
    worst = (f"; worst {w['pin']} at {w['times_limit']:g}x its {w['kind']} limit"
             if w else "")
    on_path = drv.get("on_critical_path")
    path = (", on the critical path itself" if on_path else "") if on_path is not None else ""
    return (f"**Timing extrapolated beyond the library's characterised range: "
            f"{drv['count']:,} design-rule violation{'s' if drv['count'] != 1 else ''} ({kinds}{worst}{path}). The ASIC Fmax "
            f"is not signable.**")


def drv_lines(drv: dict | None, top_n: int = 10) -> list[str]:
    """Markdown: the design-rule section of the ASIC part (worst violations first)."""
    if not isinstance(drv, dict):
        return ["Design rules: not checked (report from before the checks)."]
    checked = drv.get("drivers_checked")
    head = (f"Design rules (max capacitance / transition / fanout where the liberty declares "
            f"them; every load and slew within the liberty tables' range): "
            f"{drv['count']:,} violations"
            + (f" on {drv.get('nets', 0):,} nets" if drv["count"] else "")
            + (f", {checked:,} driver pins checked" if checked is not None else "") + ".")
    if not drv["count"]:
        return [head]
    lines = [head, "", "| pin | net | cell | kind | value | limit | fanout |",
             "|---|---|---|---|---|---|---|"]
    for v in drv.get("violations", [])[:top_n]:
        unit = _QTY.get(v["quantity"], "")
        lines.append(f"| {v['pin']} | {v.get('net') or '-'} | {v.get('cell') or '-'} | "
                     f"{v['kind']} ({v['quantity']}) | {v['value']:g} {unit} | "
                     f"{v['limit']:g} {unit} | {v['fanout'] if v.get('fanout') is not None else '-'} |")
    if drv["count"] > top_n:
        lines.append(f"\n({drv['count'] - top_n:,} more; the JSON lists the worst "
                     f"{drv.get('listed', 0)}.)")
    return lines


def throughput(cfg, asic: dict | None, fpga: dict | None, precision: int = 16) -> dict:
    """Peak MACs/cycle at ``precision``-bit activations, GMAC/s at each Fmax, GMAC/s/mm2."""
    peak = cfg.peak_macs_per_cycle(precision)
    out = {"precision_bits": precision, "peak_macs_per_cycle": peak,
           "peak_macs_per_cycle_at_act_bits": cfg.peak_macs_per_cycle(cfg.act_bits),
           "act_bits": cfg.act_bits}
    if asic:
        gmacs = peak * asic["fmax_mhz"] / 1000.0
        out["asic_gmacs"] = round(gmacs, 3)
        out["asic_gmacs_per_mm2"] = round(gmacs / (asic["area_um2"] / 1e6), 4)
        out["asic_gmacs_per_mm2_compute"] = round(gmacs / (asic["area_compute_um2"] / 1e6), 4)
    if fpga and fpga.get("fmax_mhz"):
        out["fpga_gmacs"] = round(peak * fpga["fmax_mhz"] / 1000.0, 3)
    return out


def area_by_kind(asic: dict, top: str) -> dict:
    """Area (um2) per kind of an ``asic`` report section, by the current kinds table.

    Recomputed from the per-module areas and instance counts (``asic["modules"]``) rather
    than read from ``area_by_module``, so that a report synthesised before the table changed
    (an older ``synth_report.json``) is broken down like a new one. Sections without
    ``modules`` fall back to their ``area_by_module``. The IO wrapper is left out.

    Parameters
    ----------
    asic : dict
        The report's ``asic`` section.
    top : str
        The tile's top module name (module names are matched after it).

    Returns
    -------
    dict
        ``{kind: area_um2}`` for every kind of :data:`.kinds.KINDS` but ``io_wrapper``.
    """
    mods = asic.get("modules")
    if not mods:
        return dict(asic.get("area_by_module") or {})
    out = {k: 0.0 for k in KINDS if k != "io_wrapper"}
    for name, m in mods.items():
        # Unmapped modules count as control glue, as in the flow's own breakdown.
        kind = kind_of(name, top) or "control_glue"
        if kind != "io_wrapper":
            out[kind] += m["instances"] * m["area_um2"]
    return out


def front_end_area(by_kind: dict) -> float | None:
    """Area of the value-based front end (:data:`.kinds.FRONT_END_KINDS`), None when the
    breakdown is missing."""
    if not by_kind:
        return None
    return sum(by_kind.get(k, 0.0) for k in FRONT_END_KINDS)


def git_info() -> dict:
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                                text=True, check=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "status", "--porcelain"], cwd=here,
                                    capture_output=True, text=True).stdout.strip())
        return {"commit": commit, "dirty": dirty}
    except (OSError, subprocess.CalledProcessError):
        return {"commit": None, "dirty": None}


def _f(x, nd=2):
    return "-" if x is None else (f"{x:,.{nd}f}" if isinstance(x, float) else f"{x:,}")


def _drv_cell(a: dict) -> str:
    drv = a.get("drv_violations")
    return "not checked" if not isinstance(drv, dict) else f"{drv['count']:,}"


def _pe_stages_text(derived: dict) -> str:
    """The registered PE inputs (``rtl/pe_stage.py``), when the tile has them."""
    stages = derived.get("pe_stages")
    if not stages:
        return ""
    how = "derived from the array size" if derived.get("pe_stages_derived") else "chosen"
    return (f", {stages} registered PE input stage{'s' if stages > 1 else ''} ({how}; one "
            f"copy per {derived.get('pe_stage_group')} PEs)")


def to_markdown(r: dict) -> str:
    c = r["config"]
    lines = [f"# Synthesis report: {r['top']}", ""]
    headline = drv_headline(r.get("asic"))
    if headline:
        lines += [headline, ""]
    lines += [
             f"- configuration: {r.get('preset') or 'custom'}: {c['arch']}, {c['filters']} "
             f"filters x {c['windows']} windows x {c['lanes']} lanes, {c['act_bits']}-bit "
             f"activations (signed or unsigned per run), {c['wgt_bits']}-bit "
             f"weights, {c['acc_bits']}-bit accumulators, depth {c['depth']}"
             + _pe_stages_text(r.get("derived", {})),
             f"- Verilog sha256 {r['verilog_sha256'][:16]}, git {str(r['git']['commit'])[:12]}"
             f"{' (dirty)' if r['git']['dirty'] else ''}",
             f"- clock target {r['flow']['clock_ns']} ns, target {r['flow']['target']}",
             "- tools: " + ", ".join(f"{k} {v}" for k, v in r["tools"].items()), ""]
    t = r["throughput"]
    lines += [f"Peak {t['peak_macs_per_cycle']:g} MAC/cycle at {t['precision_bits']}-bit "
              f"activations ({t['peak_macs_per_cycle_at_act_bits']:g} at {t['act_bits']} bits).",
              ""]
    a = r.get("asic")
    if a:
        cp = a["critical_path"]
        lines += ["## ASIC (OSU018 typical, yosys + ABC, OpenSTA, register to register)", "",
                  "| figure | value |", "|---|---|",
                  f"| area (um2) | {_f(a['area_um2'], 0)} |",
                  f"| of which sequential (um2) | {_f(a['area_seq_um2'], 0)} |",
                  f"| area without buffers (um2) | {_f(a['area_compute_um2'], 0)} |",
                  f"| PE area (um2) x instances | {_f(a['pe_area_um2'], 0)} x {a['pe_instances']} |",
                  f"| cells / flops | {_f(a['cell_count'])} / {_f(a['flops'])} |",
                  f"| WNS (ns) at {a['clock_ns']} ns | {a['wns_ns']:.3f} |",
                  f"| Fmax (MHz) | {a['fmax_mhz']:.1f}"
                  f"{'' if headline is None else ' (not signable, see above)'} |",
                  f"| design-rule violations | {_drv_cell(a)} |",
                  f"| GMAC/s at Fmax ({t['precision_bits']}-bit) | {_f(t.get('asic_gmacs'), 2)} |",
                  f"| GMAC/s per mm2 | {_f(t.get('asic_gmacs_per_mm2'), 3)} |",
                  f"| wall time (s) | {a['wall_s']['total']} |", "",
                  "| kind | area (um2) | share |", "|---|---|---|"]
        for k, v in a["area_by_module"].items():
            lines.append(f"| {k} | {_f(v, 0)} | {100 * v / a['area_um2']:.1f}% |")
        fe = front_end_area(a["area_by_module"])
        if fe:
            lines += ["", f"Front end ({' + '.join(FRONT_END_KINDS)}): {_f(fe, 0)} um2, "
                          f"{100 * fe / a['area_compute_um2']:.1f}% of the area without "
                          f"buffers."]
        lines += ["", f"Critical path: {cp['startpoint']} ({cp['start_cell']}) -> "
                      f"{cp['endpoint']} ({cp['end_cell']}), {cp['logic_depth']} cells, "
                      f"{cp['delay_ns']} ns."]
        if cp.get("delay_by_kind_ns"):
            lines.append("Delay by kind of hardware: " + ", ".join(
                f"{k} {v:.2f} ns" for k, v in cp["delay_by_kind_ns"].items())
                + f"; the path is limited by **{cp['slowest_kind']}** (launched in "
                  f"{cp['start_kind']}, captured in {cp['end_kind']}).")
        ws = cp.get("worst_stage")
        if ws:
            lines.append(f"Slowest stage: {ws['instance']} ({ws['cell']}) driving "
                         f"{ws['cap_pf']} pF, {ws['delay_ns']} ns"
                         + (": a high-fanout net, most likely a broadcast into other modules "
                            "that per-module synthesis could not buffer (register or buffer it "
                            "in the RTL)." if ws["cap_pf"] > 1.0 or (
                                ws["net_leaves_module"] and ws["cap_pf"] > 0.5) else "."))
        fb = a.get("fanout_buffers")
        if fb:
            lines += ["", f"Fanout buffering across the hierarchy: {fb['buffers']:,} "
                          f"{fb['cell']} on {fb['nets']:,} nets (per module definition; in "
                          f"the area above)."]
        lines += [""] + drv_lines(a.get("drv_violations"))
        if a.get("abc_fallback_modules"):
            lines.append("")
            lines.append("ABC fallback script (unbuffered) on: "
                         + ", ".join(a["abc_fallback_modules"]) + ".")
        lines += ["", a["area_note"] + ".", ""]
    f = r.get("fpga")
    if f:
        lines += ["## FPGA (ECP5, yosys synth_ecp5 + nextpnr-ecp5)", "",
                  "| figure | value |", "|---|---|",
                  f"| device | {f.get('device') or '-'} |",
                  f"| LUT4 / FF | {_f(f['lut4'])} / {_f(f['ff'])} |",
                  f"| DSP / BRAM | {f['dsp']} / {f['bram']} |",
                  f"| Fmax (MHz) | {_f(f.get('fmax_mhz'), 1)} |",
                  f"| wall time (s) | {f['wall_s'].get('total', f['wall_s'].get('yosys'))} |",
                  "", f"Wrapper: {f['wrapper']}.", ""]
        if f.get("note"):
            lines += [f["note"], ""]
    return "\n".join(lines)
