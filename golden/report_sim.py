"""Reports of the network simulator: sim.json, sim.csv, sim.md and PNG plots."""

from __future__ import annotations

import csv
import json
import os

import numpy as np

__all__ = ["summarise", "write_reports"]

STAT_KEYS = ("act_zero_fraction", "wgt_zero_fraction", "act_precision", "wgt_precision",
             "act_group_precision_mean", "act_essential_bits_mean", "act_booth_terms_mean",
             "wgt_booth_terms_mean")


def summarise(results, archs) -> tuple[list, dict]:
    """Per-layer rows and network totals: cycles, speedup over the baseline, ideal
    (potential) speedup and achieved / ideal, per design."""
    layers = []
    tot = {a: {"cycles": 0, "rtl_cycles": 0, "work": 0, "runs": 0} for a in archs}
    for r in results:
        base = r.designs["baseline"]
        row = {"name": r.name, "shape": r.shape, "macs": r.macs, "stats": r.stats,
               "designs": {}}
        for a in archs:
            d = r.designs[a]
            sp = base["cycles"] / d["cycles"]
            ideal = base["work"] / d["work"] if d["work"] else float("inf")
            row["designs"][a] = {"cycles": d["cycles"], "runs": d["runs"], "steps": d["steps"],
                                 "sampled": d["sampled"], "work": d["work"], "rt": d["rt"],
                                 "speedup": sp, "ideal": ideal,
                                 "achieved_over_ideal": sp / ideal if ideal else float("nan")}
            tot[a]["cycles"] += d["cycles"]
            tot[a]["rtl_cycles"] += d.get("rtl_cycles", d["cycles"])
            tot[a]["work"] += d["work"]
            tot[a]["runs"] += d["runs"]
        layers.append(row)
    b = tot["baseline"]
    for a in archs:
        t = tot[a]
        t["speedup"] = b["cycles"] / t["cycles"]
        t["ideal"] = b["work"] / t["work"] if t["work"] else float("inf")
        t["achieved_over_ideal"] = t["speedup"] / t["ideal"]
    return layers, tot


def _fmt(x, nd=2):
    return f"{x:.{nd}f}" if isinstance(x, float) else str(x)


def write_reports(out_dir, doc, plots=True) -> list[str]:
    """Write ``doc`` (see :func:`termwise.gen.sim_cli.run_sim`) as JSON, CSV, Markdown and
    PNG plots into ``out_dir``; returns the paths."""
    os.makedirs(out_dir, exist_ok=True)
    archs = list(doc["total"])
    paths = []
    p = os.path.join(out_dir, "sim.json")
    with open(p, "w") as f:
        json.dump(doc, f, indent=1, default=float)
    paths.append(p)

    p = os.path.join(out_dir, "sim.csv")
    traffic = doc.get("traffic")
    tkeys = ("fusable", "unfused_bits", "fused_bits") if traffic else ()
    with open(p, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["layer", "shape", "macs", *STAT_KEYS] +
                   [f"{a}_{k}" for a in archs for k in ("cycles", "speedup", "ideal",
                                                         "achieved_over_ideal", "rt")] +
                   [f"traffic_{k}" for k in tkeys])
        for i, row in enumerate(doc["layers"]):
            w.writerow([row["name"], row["shape"], row["macs"],
                        *[_fmt(row["stats"][k], 4) for k in STAT_KEYS]] +
                       [v for a in archs for v in (
                           row["designs"][a]["cycles"], _fmt(row["designs"][a]["speedup"], 4),
                           _fmt(row["designs"][a]["ideal"], 4),
                           _fmt(row["designs"][a]["achieved_over_ideal"], 4),
                           " ".join(f"{k}={v}" for k, v in row["designs"][a]["rt"].items()))]
                       + [traffic["layers"][i][k] for k in tkeys])
        w.writerow(["TOTAL", "", sum(r["macs"] for r in doc["layers"]), *[""] * len(STAT_KEYS)]
                   + [v for a in archs for v in (
                       doc["total"][a]["cycles"], _fmt(doc["total"][a]["speedup"], 4),
                       _fmt(doc["total"][a]["ideal"], 4),
                       _fmt(doc["total"][a]["achieved_over_ideal"], 4), "")]
                   + ([traffic["total"]["fusable_layers"], traffic["total"]["unfused_bits"],
                       traffic["total"]["fused_bits"]] if traffic else []))
    paths.append(p)

    p = os.path.join(out_dir, "sim.md")
    with open(p, "w") as f:
        f.write(_markdown(doc, archs))
    paths.append(p)
    if plots:
        paths += _plots(out_dir, doc, archs)
    return paths


def _markdown(doc, archs) -> str:
    syn = " (SYNTHETIC values)" if doc["synthetic"] else ""
    lines = [f"# termwise sim: {doc['workload']}{syn}, {doc['precision']}-bit", ""]
    lines += [f"- {n}" for n in doc["notes"]]
    lines += ["- Designs compared at equal peak throughput: each design's 16x16 preset, "
              "256 16-bit MAC/cycle at 16 bits (" +
              ", ".join(f"{a}: `{doc['designs'][a]['preset']}`" for a in archs) + ").",
              f"- Term encodings of the ideal work: {doc['encodings']}.",
              "- Cycles are steady-state step cycles (the papers' basis: a pipelined host "
              "overlaps runs); `rtl_cycles` in sim.json adds this RTL's fixed per-run "
              "overhead (its runs do not overlap).",
              f"- Sampling: {doc['sampling']}.",
              "- Ideal = bit-parallel work / effectual work over the layer's MACs (the "
              "papers' potential, no padding); achieved = baseline cycles / design cycles, "
              "which include the padding of partly filled lanes, filters and windows. A "
              "network total can therefore exceed its total ideal when the padding-heavy "
              "layers are also the ones a design speeds up most, even when no single layer does."]
    for a, why in doc.get("skipped", {}).items():
        lines.append(f"- {a} skipped: {why}")
    lines += ["", "## Totals", "", "| design | cycles | speedup vs baseline | ideal | "
              "achieved/ideal |", "|---|---:|---:|---:|---:|"]
    for a in archs:
        t = doc["total"][a]
        lines.append(f"| {a} | {t['cycles']} | {t['speedup']:.2f}x | {t['ideal']:.2f}x | "
                     f"{t['achieved_over_ideal']:.2f} |")
    lines += ["", "## Per layer (speedup / ideal)", "",
              "| layer | shape | MACs | act zero | p | Pw | group prec | ess. bits | "
              "Booth a | " + " | ".join(archs) + " |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * len(archs)]
    for row in doc["layers"]:
        s = row["stats"]
        # p and Pw: the layer's runtime precisions (its profile, else lossless on the data).
        rtp = s.get("profile_act_precision", s["act_precision"])
        rtw = s.get("profile_wgt_precision", s["wgt_precision"])
        lines.append(f"| {row['name']} | {row['shape']} | {row['macs']} | "
                     f"{s['act_zero_fraction']:.2f} | {rtp} | {rtw} | "
                     f"{s['act_group_precision_mean']:.1f} | "
                     f"{s['act_essential_bits_mean']:.2f} | {s['act_booth_terms_mean']:.2f} | " +
                     " | ".join(f"{row['designs'][a]['speedup']:.2f}/"
                                f"{row['designs'][a]['ideal']:.2f}" for a in archs) + " |")
    lines += _traffic_markdown(doc.get("traffic"))
    lines.append("")
    return "\n".join(lines)


def _traffic_markdown(tr) -> list[str]:
    """The fused output stage's traffic saving (:mod:`termwise.golden.traffic`)."""
    if not tr:
        return []
    t, tile = tr["total"], tr["tile"]
    mb = 1 / 8e6
    lines = ["", "## Output traffic: fused output stage", "",
             f"Tile {tile['lanes']} lanes x depth {tile['depth']} bricks, partial sums "
             f"{tile['acc_bits']} bits, outputs {tr['out_bits']} bits. Unfused: every run "
             "writes partial sums at full width, the host reads them back and writes the "
             "finished outputs; fused: the tile writes finished outputs, possible when one "
             "run holds the whole dot product (K <= depth x lanes).", "",
             "| | MB | vs unfused |", "|---|---:|---:|",
             f"| unfused | {t['unfused_bits'] * mb:.2f} | 100% |",
             f"| fused (this tile: {t['fusable_layers']}/{t['layers']} layers fusable) | "
             f"{t['fused_bits'] * mb:.2f} | {100 * (1 - t['saved_fraction']):.1f}% |",
             f"| fused, depth {t['depth_for_all']} (every layer fusable) | "
             f"{t['fused_deep_bits'] * mb:.2f} | {100 * (1 - t['saved_fraction_deep']):.1f}% |"]
    return lines


def _plots(out_dir, doc, archs) -> list[str]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["name"] for r in doc["layers"]]
    x = np.arange(len(names))
    title = f"{doc['workload']}{' (synthetic)' if doc['synthetic'] else ''}, " \
            f"{doc['precision']}-bit, equal peak throughput (16x16 presets)"
    out = []

    def per_layer(key):
        return {a: np.array([r["designs"][a][key] for r in doc["layers"]], float) for a in archs}

    def save(fig, name):
        p = os.path.join(out_dir, name)
        fig.tight_layout()
        fig.savefig(p, dpi=110)
        plt.close(fig)
        out.append(p)

    width = max(10, len(names) * 0.18)
    fig, ax = plt.subplots(figsize=(width, 4.5))
    for a, v in per_layer("cycles").items():
        ax.plot(x, v, marker=".", label=a)
    ax.set_yscale("log")
    ax.set_ylabel("cycles")
    ax.set_xticks(x, names, rotation=90, fontsize=6)
    ax.set_title("cycles per layer: " + title, fontsize=9)
    ax.legend(fontsize=7)
    save(fig, "sim_cycles.png")

    fig, axes = plt.subplots(3, 1, figsize=(width, 10), sharex=True)
    for key, ax, lab in zip(("speedup", "ideal", "achieved_over_ideal"), axes,
                            ("speedup vs baseline", "ideal (potential) speedup",
                             "achieved / ideal")):
        for a, v in per_layer(key).items():
            if a != "baseline":
                ax.plot(x, v, marker=".", label=a)
        ax.set_ylabel(lab)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, ncol=3)
    axes[0].set_title(title, fontsize=9)
    axes[-1].set_xticks(x, names, rotation=90, fontsize=6)
    save(fig, "sim_speedup.png")

    fig, ax = plt.subplots(figsize=(7, 4))
    xs = np.arange(len(archs))
    sp = [doc["total"][a]["speedup"] for a in archs]
    ide = [doc["total"][a]["ideal"] for a in archs]
    ax.bar(xs - 0.2, sp, 0.4, label="achieved (cycles)")
    ax.bar(xs + 0.2, ide, 0.4, label="ideal (potential)")
    for i, (s, d) in enumerate(zip(sp, ide)):
        ax.text(i - 0.2, s, f"{s:.2f}", ha="center", va="bottom", fontsize=7)
        ax.text(i + 0.2, d, f"{d:.2f}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(xs, archs)
    ax.set_ylabel("speedup over baseline")
    ax.set_title("network total: " + title, fontsize=8)
    ax.legend(fontsize=7)
    save(fig, "sim_total.png")

    fig, axes = plt.subplots(3, 1, figsize=(width, 9), sharex=True)
    st = {k: np.array([r["stats"][k] for r in doc["layers"]], float)
          for k in doc["layers"][0]["stats"]}
    axes[0].plot(x, st["act_zero_fraction"], marker=".", label="activation zeros")
    axes[0].plot(x, st["wgt_zero_fraction"], marker=".", label="weight zeros")
    axes[0].set_ylabel("zero fraction")
    rt = {k: np.array([r["designs"][a]["rt"].get(k, np.nan) for r in doc["layers"]], float)
          for a, k in (("stripes", "precision"), ("loom", "wgt_precision")) if a in archs}
    for k, v in rt.items():
        axes[1].plot(x, v, marker=".", label=f"layer {k} (runtime)")
    axes[1].plot(x, st["act_group_precision_mean"], marker=".", label="act group precision "
                 "(16 lanes, mean)")
    axes[1].plot(x, st["act_precision"], marker=".", label="act precision (lossless)")
    axes[1].set_ylabel("bits")
    axes[2].plot(x, st["act_essential_bits_mean"], marker=".", label="act essential bits")
    axes[2].plot(x, st["act_booth_terms_mean"], marker=".", label="act Booth terms")
    axes[2].plot(x, st["wgt_booth_terms_mean"], marker=".", label="wgt Booth terms")
    axes[2].set_ylabel("per value (mean)")
    for ax in axes:
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    axes[0].set_title("value statistics: " + title, fontsize=9)
    axes[-1].set_xticks(x, names, rotation=90, fontsize=6)
    save(fig, "sim_stats.png")
    return out
