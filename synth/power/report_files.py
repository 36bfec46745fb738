"""The power report's files and words: ``power_report.json`` and ``power_report.md``
(:func:`to_markdown`), and the one line ``termwise power`` prints."""

from __future__ import annotations

import json
import os

__all__ = ["to_markdown", "write_report", "summary_line"]


def _w(x: float) -> str:
    return f"{x * 1e3:.4g} mW"


def write_report(rep: dict, out_dir: str, markdown: bool = True) -> list[str]:
    """Write ``rep`` as ``out_dir/power_report.json`` and, if ``markdown``,
    ``power_report.md`` (each atomically); returns the paths written."""
    from ...gen.emit import write_atomically
    os.makedirs(out_dir, exist_ok=True)
    paths = [os.path.join(out_dir, "power_report.json")]
    write_atomically(paths[0], json.dumps(rep, indent=2) + "\n")
    if markdown:
        paths.append(os.path.join(out_dir, "power_report.md"))
        write_atomically(paths[1], to_markdown(rep) + "\n")
    return paths


def summary_line(rep: dict) -> str:
    """One line of ``rep``: its power, energy per MAC, method and the OpenSTA figure."""
    p, e = rep["power_w"], rep["energy"]
    mode = rep["method"]["mode"]
    whole = mode in ("whole", "sampled")
    return (f"{rep['top']}: {p['total'] * 1e3:.3f} mW at {rep['clock']['mhz']:g} MHz "
            f"(dynamic {p['dynamic'] * 1e3:.3f} mW, leakage {p['leakage'] * 1e6:.3f} uW), "
            f"{e['per_mac_at_peak_pj']:.3g} pJ/MAC at peak"
            + (f", {e['per_real_mac_pj']:.3g} pJ per real MAC of {rep['activity']['source']}"
               if rep["activity"]["source"] != "random" and e["per_real_mac_pj"] else "")
            + ("; replicated modules sampled"
               + "".join(f" ({len(e['sampled'])} of {e['instances']}, "
                         f"+/-{e['bound95_fraction']:.1%})"
                         for e in rep["sampling"]["modules"].values())
               if mode == "sampled" else "")
            + ("" if whole else
               f"; from {'a slice of ' if mode == 'slice' else ''}"
               f"one PE row ({rep['method']['part_top']}), scaled")
            + "; OpenSTA vectorless "
            + ("" if whole else "(the part) ")
            + f"{rep['opensta']['total_w'] * 1e3:.3f} mW "
            + (f"(cached report {rep['cache']['key']})" if rep["cached"] else
               f"({rep['wall_s']['total']} s)"))


def to_markdown(r: dict) -> str:
    """``power_report.md``: the report ``r`` for a reader.

    Parameters
    ----------
    r : dict
        A power report (:func:`.flow.power_report`).

    Returns
    -------
    str
        Markdown: the power, by kind, energy, activity, its source, the OpenSTA
        cross-check and what is and is not modelled.
    """
    p, e, a, s = r["power_w"], r["energy"], r["activity_source"], r["opensta"]
    act = r["activity"]
    source = ("random operands" if act["source"] == "random" else
              f"workload {act['source']}")
    lines = [f"# Power of {r['top']}", "",
             f"Gate-level power at {r['clock']['mhz']:g} MHz ({r['clock']['source']}), "
             f"activity from {a['cycles']} simulated cycles of tile runs of {source}."
             + (" Cached report (key " + r["cache"]["key"] + ")." if r.get("cached") else ""),
             "", *_method_lines(r.get("method")), *_simulator_lines(r.get("simulator")),
             *_sampling_lines(r.get("sampling")),
             "| | power |", "|---|---|",
             f"| total (simulated cells, IO wrapper included) | {_w(p['total'])} |",
             f"| dynamic (internal + switching) | {_w(p['dynamic'])} |",
             f"| internal | {_w(p['internal'])} |",
             f"| switching | {_w(p['switching'])} |",
             f"| leakage | {_w(p['leakage'])} |",
             f"| tile (total without the IO wrapper) | {_w(p['tile'])} |",
             f"| clock net switching (apart, not in the total) | "
             f"{_w(p['clock_net_switching_apart'])} |", "",
             "## By kind", "", "| kind | cells | internal | switching | leakage | total | "
             "share |", "|---|---|---|---|---|---|---|"]
    for k, v in r["by_kind_w"].items():
        share = v["total_w"] / p["total"] * 100 if p["total"] else 0.0
        lines.append(f"| {k} | {v['cells']} | {_w(v['internal_w'])} | "
                     f"{_w(v['switching_w'])} | {_w(v['leakage_w'])} | {_w(v['total_w'])} | "
                     f"{share:.1f}% |")
    issued, real = e["per_mac_issued_pj"], e["per_real_mac_pj"]
    lines += ["", "## Energy", "",
              f"* per cycle: {e['per_cycle_pj']:.4g} pJ (tile {e['tile_per_cycle_pj']:.4g} pJ)",
              f"* per MAC at peak: {e['per_mac_at_peak_pj']:.4g} pJ ({e['per_mac_at_peak_note']})",
              "* per MAC issued: " + (f"{issued:.4g} pJ" if issued is not None else "-")
              + f" ({e['per_mac_issued_note']})",
              "* per real MAC: " + (f"{real:.4g} pJ" if real is not None else
                                     "- (no run completed)")
              + f" ({e['per_real_mac_note']})", ""]
    lines += _phase_lines(r.get("phases"))
    lines += _activity_lines(act)
    lines += ["", "## Activity source", "",
              f"* stimulus: {a['stimulus']}",
              f"* operands: {a['operands']}",
              f"* simulator: {a['simulator']}",
              f"* {a['cycles']} cycles (seed {a['seed']}): {a['runs_completed']} runs "
              f"completed, {a['timeouts']} timeouts, busy {a['busy_fraction'] * 100:.1f}% "
              f"of the cycles, {a['macs_issued']} MACs",
              f"* clock: {r['clock']['mhz']:g} MHz ({r['clock']['source']}); simulated at "
              f"{a['simulated_period_ns']:g} ns, toggle counts per cycle rescaled",
              f"* average activity: {a['average_activity_per_cycle']:.4g} transitions per "
              "net per cycle (clock excluded)", "",
              "## Cross-check: OpenSTA vectorless report_power", "",
              f"`{s['command']}` (every net at the simulation's average activity): total "
              f"{_w(s['total_w'])} (internal {_w(s['internal_w'])}, switching "
              f"{_w(s['switching_w'])}, leakage {_w(s['leakage_w'])}); termwise / OpenSTA = "
              f"{s['ratio_termwise_to_opensta']:.3g}. {s['why']}.", "",
              "## What is modelled", ""]
    lines += [f"* {x}" for x in r["modelled"]]
    lines += ["", "## What is not modelled", ""]
    lines += [f"* {x}" for x in r["not_modelled"]]
    return "\n".join(lines)


def _phase_lines(ph: dict | None) -> list[str]:
    """Markdown: the energy of a busy, a load and an idle cycle (:mod:`.phases`)."""
    if not ph:
        return []
    t = ph["per_cycle_pj"]["tile"]
    lines = ["## Busy, load and idle cycles", "",
             f"{ph['how']}{' (' + ph['scaled'] + ')' if ph.get('scaled') else ''}.", "",
             "| run | busy cycles | load cycles | other cycles | tile energy |",
             "|---|---|---|---|---|"]
    lines += [f"| {x['run']} | {x['busy_cycles']} | {x['load_cycles']} | "
              f"{x['other_cycles']} | {x['tile_j'] * 1e9:.4g} nJ |" for x in ph["runs"]]
    lines += ["", f"Tile energy per busy cycle {t['busy']:.4g} pJ ({_w(ph['busy_w'])} while "
              f"computing; buffers {_w(ph['busy_buffers_w'])}), per load cycle "
              f"{t['load']:.4g} pJ, per idle cycle {t['idle']:.4g} pJ ({_w(ph['idle_w'])}); "
              f"a loaded row adds {ph['load_row_pj']:.4g} pJ to an idle cycle (buffers "
              f"{ph['load_row_buffers_pj']:.4g} pJ).", ""]
    return lines


def _activity_lines(act: dict) -> list[str]:
    """Markdown: the ``activity`` record (and its layers' table, for a workload)."""
    lines = ["## Activity", "",
             f"* source: {act['source']}; {act['cycles_simulated']} cycles simulated "
             f"({act['cycles_requested']} requested), {act['runs_completed']} runs "
             f"completed, {act['timeouts']} timeouts, {act['macs_issued']} MACs issued, "
             f"{act['real_macs']} real MACs"]
    if act["layers"]:
        lines += [f"* {act['what']}; "
                  f"{act['runs_in_stimulus']} runs in the stimulus, {act['runs_reached']} "
                  f"reached; the cycle model expected {act['estimated_cycles']} cycles", "",
                  "| layer | shape | runtime registers | lowered runs | runs | completed | "
                  "real MACs | MACs issued |", "|---|---|---|---|---|---|---|---|"]
        for d in act["layers"]:
            regs = ", ".join(f"{k}={v}" for k, v in d["runtime"].items())
            lines.append(f"| {d['name']} | {d['shape']} | {regs} | {d['lowered_runs']} | "
                         f"{d['runs']} | {d['runs_completed']} | {d['real_macs']} | "
                         f"{d['macs_issued']} |")
    return lines


def _sampling_lines(smp: dict | None) -> list[str]:
    """Markdown: the replicated modules' sampled instances and the error of their power."""
    if not smp:
        return []
    lines = ["| replicated module | instances | sampled | dynamic power (mW) | "
             "95% bound |", "|---|---|---|---|---|"]
    for m, e in smp["modules"].items():
        lines.append(f"| {m} | {e['instances']} | {len(e['sampled'])} | "
                     f"{e['dynamic_total_w'] * 1e3:.3f} | "
                     f"+/- {e['bound95_w'] * 1e3:.3f} ({e['bound95_fraction']:.1%}) |")
    return lines + ["", smp["how"] + ".", ""]


def _simulator_lines(sim: dict | None) -> list[str]:
    """Markdown: the simulator, when not the Verilated model."""
    return [f"Simulator: {sim['name']} (version {sim['version']}): {sim['how']}.", ""] \
        if sim else []


def _method_lines(m: dict | None) -> list[str]:
    """Markdown: how the figures were obtained (whole tile, or one PE row scaled)."""
    if not m:
        return []
    if m["mode"] == "whole":
        return [f"Method: whole tile ({m['why']}): {m['how']}.", ""]
    if m["mode"] == "sampled":
        return [f"Method: whole tile, replicated modules sampled ({m['why']}): {m['how']}.",
                ""]
    title = ("a slice of one PE row" if m["mode"] == "slice" else "one PE row")
    lines = [f"## Method: {title}, scaled to the whole tile", "", m["how"], "",
             f"Why: {m['why']}. The part: {m['part_top']} (synthesis "
             f"{m['part_synthesis_key']}; the whole tile's {m['synthesis_key']}). "
             f"Leakage: {m['leakage']}. MACs: {m['macs']['how']}.", "",
             "| kind | part area (um2) | whole area (um2) | area ratio | dynamic scale |",
             "|---|---|---|---|---|"]
    for k, f in m["kind_factors"].items():
        ar = "-" if f["area_ratio"] is None else f"{f['area_ratio']:.3f}"
        ds = "-" if f["dynamic_scale"] is None else f"{f['dynamic_scale']:.3f}"
        lines.append(f"| {k} | {f['part_area_um2']:,.0f} | {f['whole_area_um2']:,.0f} | "
                     f"{ar} | {ds} |")
    lines += ["", "Assumed: " + "; ".join(m["assumed"]) + ".", ""]
    return lines
