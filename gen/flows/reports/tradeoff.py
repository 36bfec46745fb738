"""Report writer of ``termwise tradeoff``: tradeoff.json, tradeoff.csv, tradeoff.md and
tradeoff.png (accuracy vs precision vs speedup on the digits CNN)."""

from __future__ import annotations

import csv
import json
import os

__all__ = ["DESIGNS", "write_reports", "plot_title"]

#: The designs of the trade-off study (each on its equal-peak 16x16 preset of the setting's
#: base width: ``-16x16`` for the 16-bit base, ``-16x16-8b`` for the 8-bit one).
DESIGNS = ("baseline", "stripes", "loom")


def write_reports(out_dir, doc, plot=True) -> list[str]:
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    p = os.path.join(out_dir, "tradeoff.json")
    with open(p, "w") as f:
        json.dump(doc, f, indent=1, default=float)
    paths.append(p)
    names = doc["layers"]
    p = os.path.join(out_dir, "tradeoff.csv")
    with open(p, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["group", "setting", "base_bits", *[f"act_{n}" for n in names],
                    *[f"wgt_{n}" for n in names], "test_accuracy", "lossless",
                    *[f"{d}_cycles" for d in DESIGNS], "stripes_speedup", "loom_speedup",
                    "hardware_bits", "speedup_over"])
        for r in doc["rows"]:
            w.writerow([r["group"], r["label"], r["bits"], *r["act"], *r["wgt"],
                        f"{r['accuracy']:.2f}", int(r["lossless"]),
                        *[r["cycles"][d] for d in DESIGNS],
                        f"{r['speedup']['stripes']:.4f}", f"{r['speedup']['loom']:.4f}",
                        r.get("hardware_bits", 16), r.get("reference", "")])
    paths.append(p)
    p = os.path.join(out_dir, "tradeoff.md")
    pr = doc["profiles"]
    lines = [
        "# digits-cnn: accuracy / precision / speedup trade-off", "",
        f"Network {doc['architecture']} trained in NumPy on scikit-learn digits (seed "
        f"{doc['train']['seed']}, {doc['train']['epochs']} epochs, Adam lr "
        f"{doc['train']['lr']}). Accuracy measured on all {doc['test_images_accuracy']} test "
        f"images with integer arithmetic; cycles from golden/netsim on the first "
        f"{doc['test_images_cycles']} test images. {doc['equal_peak_throughput']}.", "",
        f"- float test accuracy: **{doc['float_test_accuracy']:.2f}%**",
        f"- 16-bit fixed point: {doc['quant_test_accuracy']['16']:.2f}%; 8-bit: "
        f"{doc['quant_test_accuracy']['8']:.2f}%",
        f"- lossless = accuracy >= float - {doc['lossless_margin_points']} points = "
        f"{doc['lossless_floor']:.2f}%",
        f"- lowest lossless uniform precision: activations {doc['lowest_lossless_uniform']['act']}"
        f" bits (weights 16), weights {doc['lowest_lossless_uniform']['wgt']} bits "
        f"(activations 16), every higher one lossless too; lossless uniform settings: "
        f"activations {doc['lossless_uniform_settings']['act']}, weights "
        f"{doc['lossless_uniform_settings']['wgt']} (accuracy is not monotone in precision)",
        f"- lossless per-layer profile (16-bit base, layers {', '.join(names)}): activations "
        f"{pr['16']['act']['profile']}, weights {pr['16']['wgt']['profile']} "
        f"(accuracy {pr['16']['wgt']['accuracy']:.2f}%); each layer alone: activations "
        f"{pr['16']['act']['per_layer_single']}, weights {pr['16']['wgt']['per_layer_single']}",
        f"- 8-bit base profile: activations {pr['8']['act']['profile']}, weights "
        f"{pr['8']['wgt']['profile']} (accuracy {pr['8']['wgt']['accuracy']:.2f}%)",
        "- Precisions are widths of the quantiser's two's complement grid. Stripes runs at the "
        "activation precision (runtime `precision`), one bit less on a layer whose inputs "
        "are never negative (pixels, ReLU outputs: its `act_signed` register is 0 and the "
        "always-0 sign bit is not processed); Loom detects the activation precision per "
        "group of 16 values and runs at the weight precision (`wgt_precision`). Profiles "
        "searched on the test set.",
        f"- Brick order of the convolutions: `{doc.get('brick_order', 'channel')}` "
        "(docs/papers.md#mapping-conventions).", "",
        f"| setting | act ({'/'.join(names)}) | wgt | accuracy % | lossless | Stripes | Loom | "
        "speedups over |",
        "|---|---|---|---:|:---:|---:|---:|---|"]
    for r in doc["rows"]:
        lines.append(f"| {r['label']} | {'/'.join(map(str, r['act']))} | "
                     f"{'/'.join(map(str, r['wgt']))} | {r['accuracy']:.2f} | "
                     f"{'yes' if r['lossless'] else 'no'} | {r['speedup']['stripes']:.2f}x | "
                     f"{r['speedup']['loom']:.2f}x | {_over(r)} |")
    with open(p, "w") as f:
        f.write("\n".join(lines) + "\n")
    paths.append(p)
    if plot:
        paths.append(_plot(out_dir, doc))
    return paths


def _over(row) -> str:
    """The baseline preset a row's speedups divide by, and its width."""
    ref = row.get("reference")
    return f"`{ref}` ({row.get('hardware_bits')}-bit)" if ref else "baseline"


def plot_title(doc) -> str:
    """Workload and hardware of a tradeoff document, for the figure title (every base
    width's hardware: ``8/16-bit hardware`` when the 8-bit settings ran on 8-bit presets)."""
    from .plots import hardware_summary
    by_bits = doc.get("designs_by_bits") or {}
    every = {f"{d}@{b}": e for b, entries in by_bits.items() for d, e in entries.items()}
    hw = hardware_summary(every or doc.get("designs"))
    designs = ", ".join(d if d == DESIGNS[0] else d.capitalize() for d in doc.get(
        "designs", DESIGNS))
    return f"{doc['workload']}: {designs}" + (f" on {hw}" if hw else "")


def _plot(out_dir, doc) -> str:
    """tradeoff.png: accuracy vs uniform precision (left), accuracy vs speedup of every
    setting (right); axis, label and title rules of :mod:`termwise.gen.flows.reports.plots`."""
    from matplotlib.lines import Line2D

    from . import plots as P
    rows = doc["rows"]
    fig, (ax1, ax2) = P.new_figure(12.5, 4.6, 1, 2)
    colors = {"stripes": "#1f77b4", "loom": "#ff7f0e"}
    markers = {"stripes": "o", "loom": "s"}
    xs = []
    for group, key, lab, c, mk in (
            ("uniform act", "act", "activations (weights 16b)", "#2ca02c", "o"),
            ("uniform wgt", "wgt", "weights (activations 16b)", "#9467bd", "s")):
        rs = sorted((r for r in rows if r["group"] == group), key=lambda r: r[key][0])
        if group == "uniform wgt":
            rs = rs + [r for r in rows if r["group"] == "uniform act" and r["act"][0] == 16]
        ax1.plot([r[key][0] for r in rs], [r["accuracy"] for r in rs], marker=mk, color=c,
                 ms=5, lw=1.2, label=lab)
        xs += [r[key][0] for r in rs]
    for ax in (ax1, ax2):
        ax.axhline(doc["float_test_accuracy"], color="k", lw=0.8,
                   label=f"float ({doc['float_test_accuracy']:.2f}%)")
        ax.axhline(doc["lossless_floor"], color="k", ls="--", lw=0.8,
                   label=f"lossless floor (float - {doc['lossless_margin_points']} pt)")
    P.set_value_scale(ax1, xs, "uniform precision (bits)", axis="x")
    ax1.set_xticks(sorted(set(xs)))
    ax1.set_title("accuracy vs uniform precision", fontsize=P.FONT + 1)
    ax1.legend(fontsize=P.FONT, loc="lower right")
    sp = []
    best = [r for r in rows if r["group"] == "profile"][-1:]
    for d in DESIGNS[1:]:
        v = [r["speedup"][d] for r in rows]
        sp += v
        ax2.scatter(v, [r["accuracy"] for r in rows], marker=markers[d], color=colors[d],
                    s=22, alpha=0.65, label=d.capitalize(), zorder=2)
        for r in best:
            ax2.scatter([r["speedup"][d]], [r["accuracy"]], marker=markers[d], s=130,
                        facecolors="none", edgecolors="#d62728", lw=1.5, zorder=3)
            ax2.annotate(f"{d.capitalize()} {P.ratio_text(r['speedup'][d])}",
                         (r["speedup"][d], r["accuracy"]), xytext=(0, -16),
                         textcoords="offset points", ha="center", va="top",
                         fontsize=P.FONT - 1, color="#d62728")
    P.set_value_scale(ax2, sp, "speedup over the bit-parallel baseline of the same width",
                      axis="x")
    ax2.xaxis.set_major_formatter(lambda v, _pos: P.ratio_text(v).replace(".00x", "x"))
    ax2.set_title("every precision setting", fontsize=P.FONT + 1)
    handles, labels = ax2.get_legend_handles_labels()
    if best:
        handles.append(Line2D([], [], ls="none", marker="o", ms=9, mfc="none",
                              mec="#d62728", mew=1.5))
        labels.append("lossless act + wgt profile")
    ax2.legend(handles, labels, fontsize=P.FONT, loc="upper left", bbox_to_anchor=(1.01, 1.0),
               frameon=False)
    lo = min(r["accuracy"] for r in rows)
    for ax in (ax1, ax2):
        P.set_value_scale(ax, [r["accuracy"] for r in rows], "test accuracy (%)")
        ax.set_ylim(max(0, lo - 8), 100.5)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=P.FONT)
    fig.suptitle(f"Accuracy / precision / speedup trade-off\n{plot_title(doc)}",
                 fontsize=P.FONT + 1)
    return P.save(fig, os.path.join(out_dir, "tradeoff.png"))
