"""``termwise tune``'s reports: tune.json (the document of :func:`.run.run_tune`), tune.md,
best.toml (the chosen tile, as ``termwise gen --config`` reads it) and tune_pareto.png."""

from __future__ import annotations

import json
import os

from ...emit import write_atomically
from .objectives import OBJECTIVES

__all__ = ["write_reports", "to_markdown", "best_toml", "pareto_plot"]


def _num(v, digits: int = 4) -> str:
    if v is None:
        return "-"
    if isinstance(v, int) or float(v).is_integer() and abs(v) >= 1000:
        return f"{int(v)}"
    return f"{v:.{digits}g}"


def best_toml(doc: dict) -> str | None:
    """best.toml's text, or None without a chosen tile."""
    from ...config import from_mapping, to_toml
    best = doc["best"]
    if best is None:
        return None
    head = (f"# termwise tune: the best tile for objective {doc['objective']} on "
            f"{doc['workload']} at {doc['bits']} bits ({best['top']})\n")
    return head + to_toml(from_mapping(best["config"]))


def to_markdown(doc: dict) -> str:
    """tune.md's text."""
    obj = OBJECTIVES[doc["objective"]]
    c = doc["candidates"]
    lines = [f"# Tune: {doc['workload']} at {doc['bits']} bits, objective {obj.name}", "",
             f"Objective: {obj.text} ({obj.unit}). Mode: {doc['mode']}; perf-db "
             f"{', '.join(doc['dbs'])}."]
    if doc["area_budget_mm2"] is not None:
        lines.append(f"Area budget: {doc['area_budget_mm2']:g} mm2 of synthesised area.")
    if doc["evaluated"] is not None:
        ev = doc["evaluated"]
        lines.append("Find mode: " + "; ".join(
            f"{job} {ev['evaluated'][job]} evaluated, {ev['reused'][job]} from the perf-db, "
            f"{ev['failed'][job]} failed" for job in ev["jobs"])
            + (f"; {doc['power_recorded']} power records recorded"
               if doc.get("power_recorded") else "") + ".")
    lines += ["", "## Candidate space", "", doc["space_text"], "",
              f"{len(c)} candidates ({len(doc['ranking'])} ranked)."]
    best = doc["best"]
    lines += ["", "## Chosen tile", ""]
    if best is None:
        lines.append("None: no candidate could be ranked (see below).")
    else:
        lines.append(f"`{best['top']}` ({best['design']}"
                     + (f", preset {best['preset']}" if best["preset"] else "")
                     + f"): {_num(best['figure'])} {obj.unit}. Written as best.toml "
                       "(`termwise gen --config best.toml`).")
    pl = doc["per_layer"]
    if pl is not None:
        unit = "us" if doc["objective"] == "perf-per-area" else obj.unit
        lines += ["", "## Per layer (if the tile could switch)", "",
                  "| layer | best tile | design | cost |", "|---|---|---|---|"]
        for x in pl["layers"]:
            lines.append(f"| {x['layer']} | `{x['top']}` | {c[x['index']]['design']} | "
                         f"{_num(x['cost'])} |")
        lines += ["", f"Switching: {_num(pl['total'])} against the one tile's "
                      f"{_num(pl['one_tile'])} ({unit if unit in ('cycles', 'us') else 'cost'}), "
                      f"a gain of {pl['gain']:.3f}x."]
    extra = doc["objective"] != "cycles"
    lines += ["", "## Ranking", "",
              "| # | tile | design | preset | " + obj.unit + " |" + (" cycles |" * extra)
              + " area (mm2) | energy (uJ/inf) | from |",
              "|---|---|---|---|---|" + "---|" * extra + "---|---|---|"]
    for r in doc["ranking"]:
        e = c[r["index"]]
        src = "db" if not e["fallback"] else f"analytic ({len(e['fallback'])} layers)"
        energy = e["energy"]["per_inference_j"] * 1e6 if e["energy"] else None
        lines.append(f"| {r['rank']} | `{e['top']}` | {e['design']} | {e['preset'] or ''} | "
                     f"{_num(r['figure'])} |" + (f" {r['cycles']} |" * extra)
                     + f" {_num(e['area_mm2'])} | "
                     f"{_num(energy)} | {src} |")
    if doc["unranked"]:
        lines += ["", "Not ranked:", ""]
        lines += [f"- `{u['top']}`: {u['reason']}" for u in doc["unranked"]]
    powered = [e for e in c if e["energy"]]
    if powered:
        # Where each energy figure's tile power comes from: a gate-level power report of
        # some activity (maybe another workload's), named so a reader can judge it.
        lines += ["", "## Tile power used", ""]
        lines += [f"- `{e['top']}`: {e['energy']['power']['tile_w'] * 1e3:.1f} mW at "
                  f"{e['energy']['power']['clock_mhz']:g} MHz; {e['energy']['power']['source']}"
                  for e in powered]
    fb = [e for e in c if e["fallback"]]
    lines += ["", "## Fallbacks", ""]
    if fb:
        lines.append(f"Estimated with the analytic model ({doc['analytic_model']}), because "
                     "the perf-db has no cycles of them:")
        lines += [f"- `{e['top']}`: {', '.join(e['fallback'])}" for e in fb]
    else:
        lines.append("None: every figure is from the perf-db (cycle model"
                     + (", synthesis" if doc["needs_synth"] else "") + ").")
    lines += ["", "## Chosen tile per objective against the fixed presets", ""]
    for name, o in doc["objectives"].items():
        if o["best"] is None:
            lines.append(f"- {name}: not computable ({o['why']}).")
            continue
        vs = ", ".join(f"{p['preset']} {p['ratio']:.3f}x" for p in o["vs_presets"])
        lines.append(f"- {name}: `{o['best']}` ({o['design']}), {_num(o['figure'])} "
                     f"{OBJECTIVES[name].unit}; each preset's cost over it: {vs or '-'}.")
    return "\n".join(lines) + "\n"


def pareto_plot(doc: dict, path: str) -> str:
    """tune_pareto.png: cycles against area (or, without areas, against the ideal work of
    the cycle model), and against energy where known; the Pareto front joined."""
    from ..reports.plots import design_styles, new_figure, save, set_value_scale
    from .rank import pareto_front
    c = [e for e in doc["candidates"] if not e["excluded"]]
    cyc = {e["top"]: sum(x["cycles"] for x in e["layers"]) for e in c}
    panels = []
    with_area = [e for e in c if e["area_mm2"] is not None]
    if with_area:
        panels.append(("synthesised area (mm2)", [(e, e["area_mm2"]) for e in with_area]))
    else:
        known = [e for e in c if not e["fallback"]]
        if known:
            panels.append(("ideal work of the cycle model (terms)",
                           [(e, sum(x["work"] for x in e["layers"])) for e in known]))
    with_energy = [e for e in c if e["energy"] is not None]
    if with_energy:
        panels.append(("energy per inference (uJ)",
                       [(e, e["energy"]["per_inference_j"] * 1e6) for e in with_energy]))
    if not panels:
        panels.append(("analytic estimate (no data)", [(e, 1.0) for e in c]))
    styles = design_styles(list(dict.fromkeys(e["design"] for e in doc["candidates"])))
    fig, axes = new_figure(5.2 * len(panels), 4.2, 1, len(panels))
    axes = [axes] if len(panels) == 1 else list(axes)
    best = doc["best"]["top"] if doc["best"] else None
    for ax, (label, pts) in zip(axes, panels):
        shown = set()
        for e, x in pts:
            s = styles[e["design"]]
            ax.scatter([x], [cyc[e["top"]]], color=s["color"], marker=s["marker"], s=28,
                       label=None if e["design"] in shown else e["design"], zorder=2)
            shown.add(e["design"])
        xy = [(x, cyc[e["top"]]) for e, x in pts]
        front = pareto_front(xy)
        ax.plot([xy[i][0] for i in front], [xy[i][1] for i in front], color="0.5",
                linestyle="--", linewidth=1, zorder=1, label="Pareto front")
        for e, x in pts:
            if e["top"] == best:
                ax.scatter([x], [cyc[e["top"]]], marker="*", s=180, facecolor="none",
                           edgecolor="black", zorder=3, label="chosen")
        set_value_scale(ax, [p[0] for p in xy], label, axis="x")
        set_value_scale(ax, [p[1] for p in xy], "cycles", axis="y")
        ax.legend(fontsize=6, loc="best")
    axes[0].set_title(f"{doc['workload']} at {doc['bits']} bits: objective "
                      f"{doc['objective']}", fontsize=9)
    return save(fig, path)


def write_reports(out_dir: str, doc: dict, *, plot: bool = True) -> list[str]:
    """Write tune.json, tune.md, best.toml (when a tile was chosen) and tune_pareto.png to
    ``out_dir``; returns their paths."""
    os.makedirs(out_dir, exist_ok=True)
    paths = [os.path.join(out_dir, "tune.json"), os.path.join(out_dir, "tune.md")]
    write_atomically(paths[0], json.dumps(doc, indent=1, sort_keys=True) + "\n")
    write_atomically(paths[1], to_markdown(doc))
    toml = best_toml(doc)
    if toml is not None:
        paths.append(os.path.join(out_dir, "best.toml"))
        write_atomically(paths[-1], toml)
    if plot:
        paths.append(pareto_plot(doc, os.path.join(out_dir, "tune_pareto.png")))
    return paths
