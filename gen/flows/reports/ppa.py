"""Report writer of ``termwise report``: the family's PPA table on one workload at equal peak
throughput (report.json, report.md, report.csv, report_speedup_area.png,
report_energy.png, report_perf_area.png).

One row per design, from three measurements of the same configuration (the one ``termwise
sim`` simulates): synthesis (area, area without the operand buffers, Fmax and its
design-rule check), gate-level power under the workload's activity (``termwise power``) and
the network simulation with its energy model (``termwise sim``,
:mod:`termwise.golden.netsim.energy`). Each row sits beside its paper's claim
(:class:`termwise.gen.spec.PaperClaim`) with the reasons the figures differ.

Ratios:

* **speedup (cycles)**: the baseline's cycles over the design's (the simulator's steady
  model, as ``termwise sim`` reports it);
* **speedup (time)**: the baseline's time over the design's, each at its own ASIC Fmax, from
  the cycles the RTL takes (``rtl_cycles``: per-run overheads included);
* **performance per mm2**: inferences per second per mm2 of tile (operand buffers included);
* **energy efficiency**: the baseline's energy per inference over the design's (compute +
  on-chip buffer accesses + off-chip traffic).
"""

from __future__ import annotations

import csv
import json
import math
import os

from ....golden.netsim.presets import REFERENCE
from .detail import figure as _f
from .detail import row_detail
from .footings import footing_lines, profile_line

__all__ = ["common_differences", "method_text", "design_row", "power_shares", "ratios",
           "to_markdown", "write_reports"]

def common_differences(buffers: str = "flops", clock_gating: bool = False) -> list[str]:
    """Why every row differs from its paper, whatever the design (stated once in
    report.md), for a table whose tiles keep their operand buffers in ``buffers`` (flops or
    macros) with or without ``clock_gating``."""
    from ...designs import SPECS
    own = ", ".join(sorted(s.arch for s in SPECS.values() if s.own_stores))
    storage = ("with the operand buffers as SRAM macros (OpenRAM, scaled from SCMOS: "
               f"docs/sram.md; the stores of their own of {own} in flip-flops)"
               if buffers == "macros" else
               "with the operand buffers as flip-flops")
    return [
        "workload: the papers measure their own benchmark networks (mostly ImageNet "
        "classifiers, Diffy's HD imaging networks, Bit-Tactical's pruned ones); this report "
        "measures one workload",
        "precision profile: the papers use their own per-layer precision profiles; termwise "
        "uses the workload's own profile (termwise sim)",
        "technology: the papers synthesise in 65 nm (or similar) with SRAM/eDRAM buffers; "
        f"termwise synthesises in OSU 0.18 um {storage}"
        + ("" if clock_gating else ", every register clocked every cycle"),
        "scale: one tile at equal peak throughput (256 MAC/cycle), not the papers' chips "
        "(several tiles, their memory hierarchy and interconnect)",
        "energy: gate-level power from sampled runs of the workload's layers (zero-delay, "
        "no glitches, no wires; the clock network estimated from its sinks, not built), "
        "on-chip storage as SRAM macros and off-chip DRAM from a per-bit energy (see the "
        "energy model); the papers' power comes from their own flows at their node",
    ]


def _get(d, *keys):
    for k in keys:
        if not isinstance(d, dict) or d.get(k) is None:
            return None
        d = d[k]
    return d


def method_text(power: dict) -> str:
    """How a power report's tile figure was obtained, in a few words: the whole tile
    simulated at gate level, or one PE row (or a slice of it) scaled (``termwise power
    --part``)."""
    m = power.get("method") or {}
    if m.get("mode") == "row":
        return (f"one PE row ({m.get('part_top', 'filters=1')}) simulated at gate level, "
                "scaled to the whole tile module by module by synthesised area")
    if m.get("mode") == "slice":
        w = (m.get("macs") or {}).get("windows") or ["1/4", "its"]
        return (f"a slice of one PE row ({m.get('part_top', 'filters=1')}: {w[0]} of "
                f"{w[1]} window columns) simulated at gate level, scaled to the whole tile "
                "module by module by synthesised area")
    if m.get("mode") == "sampled":
        mods = ((power.get("sampling") or {}).get("modules") or {}).values()
        return ("the whole tile simulated, its replicated modules on sampled instances at "
                "gate level (the others as RTL) scaled: "
                + ", ".join(f"{len(e['sampled'])} of {e['instances']} "
                            f"(+/-{e['bound95_fraction']:.1%}, 95%)" for e in mods))
    if m.get("mode") not in (None, "whole"):
        raise ValueError(f"power report method {m.get('mode')!r}: whole, row, slice or "
                         "sampled")
    if (power.get("simulator") or {}).get("name") == "levelsim":
        return "the whole tile simulated at gate level (termwise's levelised simulation)"
    return "the whole tile simulated at gate level"


def design_row(design: str, synth: dict, power: dict | None, power_error: str | None,
               sim_total: dict, energy: dict | None, claim, area_by_kind: dict) -> dict:
    """One design's row before the ratios (:func:`ratios`).

    Parameters
    ----------
    design : str
        The ``termwise sim`` design name.
    synth : dict
        Its ``termwise synth`` report (``asic`` section, ``throughput``).
    power : dict or None
        Its ``termwise power`` report under the workload, or None (``power_error`` says why).
    power_error : str or None
    sim_total : dict
        ``sim.json``'s ``total[design]``: ``cycles``, ``rtl_cycles``, ``speedup``.
    energy : dict or None
        ``sim.json``'s ``energy.designs[design]``.
    claim : PaperClaim or None
    area_by_kind : dict
        Area (um2) per kind of the tile (:func:`termwise.synth.report.area_by_kind`).

    Returns
    -------
    dict
    """
    asic = synth["asic"]
    drv = _get(asic, "drv_violations", "count")
    buffers = area_by_kind.get("buffers", 0.0)
    row = {
        "design": design,
        "preset": synth["preset"],
        "top": synth["top"],
        "area_mm2": asic["area_um2"] / 1e6,
        "area_without_buffers_mm2": (asic["area_um2"] - buffers) / 1e6,
        "fmax_mhz": asic["fmax_mhz"],
        "pe_stages": (synth.get("derived") or {}).get("pe_stages"),
        "drv_violations": drv,
        "peak_macs_per_cycle": synth["throughput"]["peak_macs_per_cycle"],
        "cycles": sim_total["cycles"],
        "rtl_cycles": sim_total["rtl_cycles"],
        "runs": sim_total.get("runs"),
        "speedup_cycles": sim_total["speedup"],
        "time_s": sim_total["rtl_cycles"] / (asic["fmax_mhz"] * 1e6),
        "power_mw": None, "power_average_mw": None, "power_while_busy": None,
        "clock_network_mw": None, "power_method": None,
        "storage_power_share": None, "clock_network_share": None,
        "power_activity": None,
        "power_error": power_error,
        "energy_per_inference_uj": None, "compute_uj": None, "onchip_uj": None,
        "offchip_uj": None,
    }
    if power is not None:
        act = power.get("activity", {})
        pw = power["power_w"]
        # the tile's power while it computes (busy cycles, `phases`), else the
        # stimulus's average; with the clock network either way
        busy = (power.get("phases") or {}).get("busy_w")
        base = pw.get("tile_with_clock_network", pw["tile"])
        row.update(power_mw=(base if busy is None else busy + base - pw["tile"]) * 1e3,
                   power_average_mw=base * 1e3,
                   power_while_busy=busy is not None,
                   clock_network_mw=(pw["clock_network"] * 1e3 if "clock_network" in pw
                                     else None),
                   power_method=method_text(power),
                   **power_shares(power),
                   power_activity=(f"{act.get('source')}: {act.get('runs_completed')} runs "
                                   f"of {len(act.get('layers') or [])} layers, "
                                   f"{act.get('cycles_simulated')} cycles"))
    row["storage"] = storage_text(energy, synth["asic"])
    if energy:
        per = energy.get("per_inference") or {}

        def uj(key):
            v = per.get(key)
            return None if v is None else v * 1e6

        row.update(energy_per_inference_uj=uj("total_j"), compute_uj=uj("compute_j"),
                   onchip_uj=uj("onchip_j"), offchip_uj=uj("offchip_j"))
    row["paper"] = None if claim is None else {
        "source": claim.source, "speedup": claim.speedup, "speedup_text": claim.speedup_text,
        "energy_efficiency": claim.energy_efficiency, "energy_text": claim.energy_text,
        "area_text": claim.area_text, "why_different": claim.why_different}
    row["detail"] = row_detail(synth, power, area_by_kind)
    return row


def power_shares(power: dict) -> dict:
    """Where a power report's power goes: ``storage_power_share``, the storage kinds'
    (:data:`termwise.synth.kinds.STORAGE_KINDS`) share of the tile's power, and
    ``clock_network_share``, the clock network's share of the tile's power with it (both
    of the stimulus's average, the one power report's kinds split; None when the report
    lacks the figure)."""
    from ....synth.kinds import STORAGE_KINDS
    pw = power["power_w"]
    kinds = power.get("by_kind_w") or {}
    tile, clock = pw.get("tile"), pw.get("clock_network")
    storage = sum((kinds.get(k) or {}).get("total_w", 0.0) for k in STORAGE_KINDS)
    return {"storage_power_share": storage / tile if kinds and tile else None,
            "clock_network_share": (clock / (tile + clock) if clock is not None and tile
                                    else None)}


def storage_text(energy: dict | None, asic: dict) -> str:
    """What the row's energy takes its storage from (each level's shape and macros, or the
    flops the tile keeps) and how the synthesised tile stores and clocks (its ``asic``
    section: SRAM macros, clock gating)."""
    if not energy or "levels" not in energy:
        return "-"
    priced = energy.get("tile_buffers", "macros") == "macros"
    built = ("synthesised with SRAM macro buffers" if asic.get("macros") else
             "synthesised with flip-flop buffers" + (" (priced as the macros below)"
                                                     if priced else ""))
    gating = asic.get("clock_gating")
    built += (f"; {gating['gated_flops']:,} of {gating['flops']:,} flops clock-gated"
              if gating else "; clocks not gated")
    parts = [built]
    for name, lv in energy["levels"].items():
        parts.append(f"{name} {lv['words']}x{lv['width']} ({lv['macros']} macros, "
                     f"{lv['area_um2'] / 1e6:.3g} mm2)")
    if not priced:
        parts.insert(0, f"tile buffers: {energy['tile_buffers']}")
    return "; ".join(parts) + "; the column fc weight registers and every other register " \
        "in flip-flops"


def _dram_sensitivity(rows: list[dict], sens: dict) -> list[str]:
    """Energy efficiency over the baseline at each multiple of the DRAM energy per bit (the
    one constant of the energy model no compiler gives)."""
    if not sens:
        return []
    scales = list(sens)
    lines = ["Energy efficiency (x base) at multiples of the DRAM energy per bit:", "",
             "| design | " + " | ".join(f"DRAM x{s}" for s in scales) + " |",
             "|---|" + "---|" * len(scales)]
    for r in rows:
        vals = [sens[s].get(r["design"]) for s in scales]
        lines.append(f"| {r['design']} | " + " | ".join(
            "-" if v is None else f"{v:.2f}x" for v in vals) + " |")
    return lines + [""]


def ratios(rows: list[dict], images: int) -> None:
    """Add the ratios to the baseline (:data:`REFERENCE`) to ``rows`` in place:
    ``speedup_time``, ``inferences_per_s_per_mm2`` (and ``perf_per_mm2_over_baseline``),
    ``energy_efficiency`` (None where an energy is missing) and the comparison with the
    paper (``vs_paper``)."""
    base = next(r for r in rows if r["design"] == REFERENCE)
    for r in rows:
        r["speedup_time"] = base["time_s"] / r["time_s"]
        r["speedup_rtl_cycles"] = base["rtl_cycles"] / r["rtl_cycles"]
        r["fmax_over_baseline"] = r["fmax_mhz"] / base["fmax_mhz"]
        r["inferences_per_s_per_mm2"] = images / r["time_s"] / r["area_mm2"]
    for r in rows:
        r["perf_per_mm2_over_baseline"] = (r["inferences_per_s_per_mm2"]
                                           / base["inferences_per_s_per_mm2"])
        e, eb = r["energy_per_inference_uj"], base["energy_per_inference_uj"]
        r["energy_efficiency"] = eb / e if e and eb else None
        r["vs_paper"] = _vs_paper(r)


def _vs_paper(r: dict) -> str:
    p = r["paper"]
    if p is None:
        return "no paper figure"
    if r["design"] == REFERENCE:
        return "the reference"
    parts = []
    if p["speedup"] is not None:
        parts.append(f"speedup {r['speedup_cycles']:.2f}x here vs {p['speedup']:g}x in the "
                     "paper")
    if p["energy_efficiency"] is not None and r["energy_efficiency"] is not None:
        parts.append(f"energy efficiency {r['energy_efficiency']:.2f}x vs "
                     f"{p['energy_efficiency']:g}x")
    head = "; ".join(parts) if parts else "the paper's figure is not a ratio to this baseline"
    return f"{head}: {p['why_different']}" if p["why_different"] else head


def to_markdown(doc: dict) -> str:
    """report.md: the table, the paper column, the reasons, the methods."""
    rows = doc["rows"]
    lines = [f"# The family on {doc['workload']} ({doc['precision']}-bit): area, Fmax, "
             "power, speed and energy at equal peak throughput", "",
             f"{doc['equal_peak_throughput']}. Every figure of a row comes from the same "
             "configuration (the one `termwise sim` simulates): synthesis "
             f"({doc['flow']}), gate-level power under the workload's activity, the network "
             "simulation and its energy model. Ratios divide by the baseline.", "",
             profile_line(doc), "",
             "| design | area mm2 | without buffers mm2 | Fmax MHz | power mW | speedup "
             "(cycles) | speedup (time) | inf/s/mm2 (x base) | energy/inference uJ | "
             "energy eff. (x base) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        fmax = _f(r["fmax_mhz"], "{:.1f}") + ("" if r["drv_violations"] in (0, None) else "*")
        lines.append(
            f"| {r['design']} | {_f(r['area_mm2'], '{:.2f}')} | "
            f"{_f(r['area_without_buffers_mm2'], '{:.2f}')} | {fmax} | "
            f"{_f(r['power_mw'], '{:.1f}')}{'' if r.get('power_while_busy') in (True, None) else '+'} | "
            f"{_f(r['speedup_cycles'], '{:.2f}x')} | "
            f"{_f(r['speedup_time'], '{:.2f}x')} | "
            f"{_f(r['inferences_per_s_per_mm2'], '{:.3g}')} "
            f"({_f(r['perf_per_mm2_over_baseline'], '{:.2f}x')}) | "
            f"{_f(r['energy_per_inference_uj'], '{:.3g}')} | "
            f"{_f(r['energy_efficiency'], '{:.2f}x')} |")
    if any(r.get("power_while_busy") is False for r in rows):
        lines += ["", "+ power averaged over the power run's stimulus, loads and gaps included "
                  "(a report of power flow version 1, without busy cycles measured apart); "
                  "the others are the tile's power while it computes."]
    if any(r["drv_violations"] not in (0, None) for r in rows):
        lines += ["", "\\* Fmax extrapolated: the netlist breaks the liberty's design rules "
                  "(see its synth report); not signable."]
    lines += ["", "## From cycles to time", "",
              "speedup (time) = speedup in the RTL's cycles x Fmax over the baseline's. The "
              "RTL's cycles are the steady cycles plus each run's fixed overhead (command, "
              "first weight reads, drain, output stage: the RTL's runs do not overlap, where "
              "a pipelined host, the papers' basis, hides it), and on a tile with per-column "
              "fc weights the fc layers' exact rounds in place of their steady estimate; "
              "short runs make the two speedups differ.", "",
              "| design | runs | steady cycles | RTL cycles | (RTL - steady) per run | speedup "
              "(cycles) | speedup (RTL cycles) | Fmax (x base) | speedup (time) |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        runs = r.get("runs")
        per_run = (r["rtl_cycles"] - r["cycles"]) / runs if runs else None
        lines.append(
            f"| {r['design']} | {_f(runs, '{:,}')} | {r['cycles']:,} | {r['rtl_cycles']:,} | "
            f"{_f(per_run, '{:.2f}')} | {_f(r['speedup_cycles'], '{:.2f}x')} | "
            f"{_f(r.get('speedup_rtl_cycles'), '{:.2f}x')} | "
            f"{_f(r.get('fmax_over_baseline'), '{:.3f}x')} | "
            f"{_f(r['speedup_time'], '{:.2f}x')} |")
    lines += [""] + footing_lines(rows)
    lines += ["## Beside the papers", "",
              "| design | paper | its claim (speed) | its claim (energy) | area | here vs "
              "paper |", "|---|---|---|---|---|---|"]
    for r in rows:
        p = r["paper"] or {}
        lines.append(f"| {r['design']} | {p.get('source', '-')} | "
                     f"{p.get('speedup_text', '-')} | {p.get('energy_text', '-')} | "
                     f"{p.get('area_text') or '-'} | {r['vs_paper']} |")
    lines += ["", "Every row also differs from its paper in:", ""]
    lines += [f"* {x}" for x in doc["common_differences"]]
    lines += ["", "## Energy per inference", "",
              "| design | compute uJ | on-chip uJ | off-chip uJ | total uJ | power source |",
              "|---|---|---|---|---|---|"]
    for r in rows:
        src = (r["power_method"] + "; " + r["power_activity"] if r["power_mw"] is not None
               else f"not measured: {r['power_error']}")
        lines.append(f"| {r['design']} | {_f(r['compute_uj'])} | {_f(r['onchip_uj'])} | "
                     f"{_f(r['offchip_uj'])} | {_f(r['energy_per_inference_uj'])} | {src} |")
    lines += ["", "Where the tile's power goes (the power run's average; storage: the operand "
              "buffers and the fc column weight registers; the clock network: of the power "
              "with it):", "", "| design | storage's share | clock network's share |",
              "|---|---|---|"]
    lines += [f"| {r['design']} | {_f(r.get('storage_power_share'), '{:.1%}')} | "
              f"{_f(r.get('clock_network_share'), '{:.1%}')} |" for r in rows]
    lines += ["", "Storage the energy column prices (SRAM macros, per design):", ""]
    lines += [f"* {r['design']}: {r.get('storage', '-')}" for r in rows]
    e = doc.get("energy_model") or {}
    lines += ["", f"Energy model: {e.get('model', '-')}. On-chip: the tile buffers and chip "
              "memories as SRAM macros (accesses and leakage); compute: the tile power "
              "without its operand buffers (flip-flops, or the gate-level run's SRAM "
              "macros), which those macros stand for.", ""]
    lines += _dram_sensitivity(rows, e.get("dram_sensitivity") or {})
    lines += ["## How each figure is obtained", ""]
    lines += [f"* {k}: {v}" for k, v in doc["methods"].items()]
    lines += ["", "## Time on this machine", ""]
    lines += [f"* {k}: {v} s" for k, v in doc["wall_s"].items()]
    lines += ["", "Files: " + ", ".join(doc["files"]), ""]
    return "\n".join(lines)


def _csv(doc: dict) -> str:
    import io
    cols = ["design", "preset", "top", "area_mm2", "area_without_buffers_mm2", "fmax_mhz",
            "drv_violations", "power_mw", "cycles", "rtl_cycles", "speedup_cycles",
            "speedup_time", "inferences_per_s_per_mm2", "perf_per_mm2_over_baseline",
            "compute_uj", "onchip_uj", "offchip_uj", "energy_per_inference_uj",
            "energy_efficiency"]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols + ["paper_speedup", "paper_energy_efficiency"])
    for r in doc["rows"]:
        p = r["paper"] or {}
        w.writerow([r[c] if r[c] is not None else "" for c in cols]
                   + [p.get("speedup") or "", p.get("energy_efficiency") or ""])
    return buf.getvalue()


def _plots(doc: dict, out_dir: str) -> list[str]:
    from . import plots
    rows = doc["rows"]
    names = [r["design"] for r in rows]
    styles = plots.design_styles(names)
    title = f"{doc['workload']}, {doc['hardware']}"
    paths = []
    # speedup vs area: one point per design, labelled
    fig, ax = plots.new_figure(6.4, 4.6)
    xs = [r["area_mm2"] for r in rows]
    ys = [r["speedup_time"] for r in rows]
    for r, x, y in zip(rows, xs, ys):
        st = styles[r["design"]]
        ax.scatter([x], [y], color=st["color"], marker=st["marker"], s=28, zorder=3)
    plots.set_value_scale(ax, xs, "tile area (mm2, OSU 0.18 um)", axis="x")
    plots.set_value_scale(ax, ys + [1.0], "speedup over the baseline (time at each Fmax)")
    ax.axhline(1.0, color="black", lw=0.6, ls="--")
    ax.grid(alpha=0.3, which="major")
    ax.tick_params(labelsize=plots.FONT)
    ax.set_title(f"Speedup vs area: {title}", fontsize=plots.FONT + 1)
    # designs of nearly equal area and speed (Stripes and its variants, TCLp and
    # Pragmatic) would write their names over each other at one fixed offset
    plots.label_points(ax, list(zip(xs, ys)), [r["design"] for r in rows])
    paths.append(plots.save(fig, os.path.join(out_dir, "report_speedup_area.png")))
    # energy efficiency per design, beside the paper's where it states one
    have = [r for r in rows if r["energy_efficiency"] is not None]
    if have:
        series = {"termwise": [r["energy_efficiency"] for r in have],
                  "paper": [(r["paper"] or {}).get("energy_efficiency") or float("nan")
                            for r in have]}
        if all(math.isnan(v) for v in series["paper"]):
            del series["paper"]
        fig, _ = plots.hbar_chart([r["design"] for r in have], series,
                                  xlabel="energy efficiency over the baseline",
                                  title=f"Energy efficiency: {title}",
                                  value_format=plots.ratio_text, reference=1.0,
                                  reference_label="baseline",
                                  styles={"termwise": {"color": "#1f77b4"},
                                          "paper": {"color": "#bbbbbb"}})
        paths.append(plots.save(fig, os.path.join(out_dir, "report_energy.png")))
    fig, _ = plots.hbar_chart(names, {"termwise": [r["perf_per_mm2_over_baseline"]
                                                   for r in rows]},
                              xlabel="performance per mm2 over the baseline",
                              title=f"Performance per mm2: {title}",
                              value_format=plots.ratio_text, reference=1.0,
                              reference_label="baseline",
                              styles={"termwise": {"color": "#1f77b4"}})
    paths.append(plots.save(fig, os.path.join(out_dir, "report_perf_area.png")))
    return paths


def write_reports(out_dir: str, doc: dict, plot: bool = True) -> list[str]:
    """Write report.json, report.csv, report.md, report.html (and the PNGs, which the page
    embeds: :mod:`.html`); returns the paths."""
    from ...emit import write_atomically
    from .html import write_html
    os.makedirs(out_dir, exist_ok=True)
    names = ["report.json", "report.csv", "report.md", "report.html"]
    if plot:
        names += ["report_speedup_area.png", "report_energy.png", "report_perf_area.png"]
    doc["files"] = names
    paths = _plots(doc, out_dir) if plot else []
    doc["files"] = [n for n in names if not n.endswith(".png")] + [
        os.path.basename(p) for p in paths]
    write_atomically(os.path.join(out_dir, "report.csv"), _csv(doc))
    write_atomically(os.path.join(out_dir, "report.md"), to_markdown(doc) + "\n")
    write_html(out_dir, doc)
    write_atomically(os.path.join(out_dir, "report.json"),
                     json.dumps(doc, indent=1, default=float) + "\n")
    return [os.path.join(out_dir, n) for n in doc["files"]]
