"""``termwise tradeoff``: accuracy / precision / speedup trade-off of the ``digits-cnn``.

    python -m termwise.gen.tradeoff_cli -o DIR [--images N] [--seed S] [--no-plot]

Hook into :mod:`termwise.gen.cli` with ``tradeoff_cli.register(sub, add_config_arguments,
config_from_args)``. For every precision setting (uniform activation precision, uniform
weight precision, one layer lowered at a time, the lossless per-layer profiles, the 8-bit
base) the integer model of :mod:`termwise.golden.workloads.digits` is run on the 360 test
images (measured accuracy), its integer layer inputs on the first ``N`` test images are
traced and :func:`termwise.golden.netsim.simulate_layers` counts the steady-state cycles of
the baseline, Stripes and Loom on their 16x16 presets (equal peak throughput: 256 16-bit
MAC/cycle at 16 bits). Stripes runs each layer at its activation precision (runtime
``precision``); Loom detects the activation precision per group of 16 and runs at the
layer's weight precision (``wgt_precision``). Lossless: accuracy within
:data:`~termwise.golden.workloads.digits.LOSSLESS_MARGIN` points of the float model.
Writes DIR/tradeoff.md, tradeoff.csv, tradeoff.json and tradeoff.png.
"""

from __future__ import annotations

import csv
import json
import os
import sys
import time

from .config import ConfigError

__all__ = ["register", "run_tradeoff", "settings", "main"]

DESIGNS = ("baseline", "stripes", "loom")
UNIFORM_ACT = (16, 12, 10, 8, 7, 6, 5, 4, 3, 2)
UNIFORM_WGT = (12, 10, 8, 7, 6, 5, 4, 3, 2)
SINGLE_LAYER = (8, 6, 5, 4, 3, 2)


def settings(prof16: dict, prof8: dict) -> list[dict]:
    """The precision settings: ``{"group", "label", "bits", "act", "wgt"}``."""
    from ..golden.workloads.digits import ARCH, LAYER_NAMES
    n = len(ARCH)
    out = []
    for p in UNIFORM_ACT:
        out.append({"group": "uniform act", "label": f"act {p}b, wgt 16b", "bits": 16,
                    "act": [p] * n, "wgt": [16] * n})
    for pw in UNIFORM_WGT:
        out.append({"group": "uniform wgt", "label": f"act 16b, wgt {pw}b", "bits": 16,
                    "act": [16] * n, "wgt": [pw] * n})
    for i, name in enumerate(LAYER_NAMES):
        for p in SINGLE_LAYER:
            act = [16] * n
            act[i] = p
            out.append({"group": "one layer act", "label": f"act {name}={p}b, others 16b",
                        "bits": 16, "act": act, "wgt": [16] * n})
    ap, wp = prof16["act_profile"]["profile"], prof16["wgt_profile"]["profile"]
    out.append({"group": "profile", "label": f"lossless act profile {ap}, wgt 16b",
                "bits": 16, "act": list(ap), "wgt": [16] * n})
    out.append({"group": "profile", "label": f"lossless act {ap} + wgt {wp} profile",
                "bits": 16, "act": list(ap), "wgt": list(wp)})
    out.append({"group": "8-bit base", "label": "8-bit base, act 8b, wgt 8b", "bits": 8,
                "act": [8] * n, "wgt": [8] * n})
    ap8, wp8 = prof8["act_profile"]["profile"], prof8["wgt_profile"]["profile"]
    out.append({"group": "8-bit base", "label": f"8-bit base, lossless act {ap8} + wgt {wp8}",
                "bits": 8, "act": list(ap8), "wgt": list(wp8)})
    return out


def _lowest_uniform(rows, group, key, floor):
    """Smallest uniform precision with every higher one in the sweep lossless."""
    best = 16
    for r in sorted((r for r in rows if r["group"] == group), key=lambda r: -r[key][0]):
        if r["accuracy"] < floor:
            break
        best = r[key][0]
    return best


def run_tradeoff(out_dir, *, images: int = 360, seed: int | None = None, plot: bool = True,
                 log=None) -> dict:
    """Measure every setting and write the reports; returns the tradeoff.json document."""
    from ..golden import netsim
    from ..golden.report_sim import summarise
    from ..golden.workloads import digits as dg

    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    if isinstance(images, bool) or not isinstance(images, int) or images < 1:
        raise ConfigError("images", f"must be a positive integer, got {images!r}")
    seed = dg.SEED if seed is None else seed
    t0 = time.perf_counter()
    params, info = dg.trained(seed, log=log)
    xtr, ytr, xte, yte = dg.dataset()
    images = min(images, len(xte))
    amax = dg.calibrate(params, xtr)
    log("searching the lossless profiles (16- and 8-bit bases)...")
    prof = {b: dg.profiles(b, seed) for b in (16, 8)}
    facc = prof[16]["float_test_accuracy"]
    floor = facc - dg.LOSSLESS_MARGIN
    rows = []
    sets = settings(prof[16], prof[8])
    for k, s in enumerate(sets):
        qm = dg.quant_model(params, amax, s["bits"], s["act"], s["wgt"])
        acc = dg.int_accuracy(qm, xte, yte)
        layers = dg.trace_layers(qm, xte[:images])
        res = netsim.simulate_layers(layers, list(DESIGNS))
        _, tot = summarise(res, list(DESIGNS))
        row = dict(s, accuracy=acc, lossless=acc >= floor,
                   cycles={d: tot[d]["cycles"] for d in DESIGNS},
                   speedup={d: tot[d]["speedup"] for d in DESIGNS},
                   loom_detected_act_precision=[
                       round(float(r.stats["act_group_precision_mean"]), 2) for r in res])
        rows.append(row)
        log(f"  [{k + 1:2d}/{len(sets)}] {s['label']:44s} acc {acc:6.2f}%  stripes "
            f"{row['speedup']['stripes']:5.2f}x  loom {row['speedup']['loom']:5.2f}x")
    cfgs = {d: netsim.design_config(d) for d in DESIGNS}
    doc = {
        "workload": "digits-cnn",
        "architecture": dg.ARCH_KEY,
        "train": info,
        "float_test_accuracy": facc,
        "quant_test_accuracy": {str(b): prof[b]["quant_test_accuracy"] for b in prof},
        "lossless_margin_points": dg.LOSSLESS_MARGIN,
        "lossless_floor": floor,
        "test_images_accuracy": len(xte),
        "test_images_cycles": images,
        "profiles": {str(b): {"act": prof[b]["act_profile"], "wgt": prof[b]["wgt_profile"]}
                     for b in prof},
        "lowest_lossless_uniform": {
            "act": _lowest_uniform(rows, "uniform act", "act", floor),
            "wgt": _lowest_uniform(rows, "uniform wgt", "wgt", floor)},
        "lossless_uniform_settings": {
            k: sorted({r[k][0] for r in rows if r["group"] == g and r["lossless"]} |
                      ({16} if k == "wgt" else set()))
            for k, g in (("act", "uniform act"), ("wgt", "uniform wgt"))},
        "equal_peak_throughput": "every design on its 16x16 preset (256 16-bit MAC/cycle); "
                                 "speedup = baseline steady-state cycles / design cycles",
        # The simulated hardware (the same entries as sim.json's "designs").
        "designs": {d: {"preset": netsim.PRESETS[d], "config": cfgs[d].to_dict(),
                        "peak_macs_per_cycle_16b": cfgs[d].peak_macs_per_cycle(16)}
                    for d in DESIGNS},
        "layers": list(dg.LAYER_NAMES),
        "rows": rows,
    }
    doc["seconds"] = time.perf_counter() - t0
    paths = write_reports(out_dir, doc, plot=plot)
    log(f"wrote {', '.join(paths)} in {doc['seconds']:.1f} s")
    return doc


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
                    *[f"{d}_cycles" for d in DESIGNS], "stripes_speedup", "loom_speedup"])
        for r in doc["rows"]:
            w.writerow([r["group"], r["label"], r["bits"], *r["act"], *r["wgt"],
                        f"{r['accuracy']:.2f}", int(r["lossless"]),
                        *[r["cycles"][d] for d in DESIGNS],
                        f"{r['speedup']['stripes']:.4f}", f"{r['speedup']['loom']:.4f}"])
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
        "- Stripes runs at the activation precision (runtime `precision`); Loom detects the "
        "activation precision per group of 16 values and runs at the weight precision "
        "(`wgt_precision`). Profiles searched on the test set.", "",
        f"| setting | act ({'/'.join(names)}) | wgt | accuracy % | lossless | Stripes | Loom |",
        "|---|---|---|---:|:---:|---:|---:|"]
    for r in doc["rows"]:
        lines.append(f"| {r['label']} | {'/'.join(map(str, r['act']))} | "
                     f"{'/'.join(map(str, r['wgt']))} | {r['accuracy']:.2f} | "
                     f"{'yes' if r['lossless'] else 'no'} | {r['speedup']['stripes']:.2f}x | "
                     f"{r['speedup']['loom']:.2f}x |")
    with open(p, "w") as f:
        f.write("\n".join(lines) + "\n")
    paths.append(p)
    if plot:
        paths.append(_plot(out_dir, doc))
    return paths


def plot_title(doc) -> str:
    """Workload and hardware of a tradeoff document, for the figure title."""
    from .plots import hardware_summary
    hw = hardware_summary(doc.get("designs"))
    designs = ", ".join(d if d == "baseline" else d.capitalize() for d in doc.get(
        "designs", DESIGNS))
    return f"{doc['workload']}: {designs}" + (f" on {hw}" if hw else "")


def _plot(out_dir, doc) -> str:
    """tradeoff.png: accuracy vs uniform precision (left), accuracy vs speedup of every
    setting (right); axis, label and title rules of :mod:`termwise.gen.plots`."""
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
    for d in ("stripes", "loom"):
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
    P.set_value_scale(ax2, sp, "speedup over the bit-parallel baseline", axis="x")
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


def _cmd_tradeoff(args) -> int:
    doc = run_tradeoff(args.output, images=args.images, seed=args.seed, plot=not args.no_plot)
    pr = doc["profiles"]["16"]
    print(f"float {doc['float_test_accuracy']:.2f}%  16-bit {doc['quant_test_accuracy']['16']:.2f}%"
          f"  8-bit {doc['quant_test_accuracy']['8']:.2f}%  lossless profile act "
          f"{pr['act']['profile']} wgt {pr['wgt']['profile']}")
    return 0


def register(subparsers, add_config_arguments=None, config_from_args=None):
    """Add the ``tradeoff`` subcommand (the designs run on their 16x16 presets, so the
    configuration arguments are not used)."""
    p = subparsers.add_parser("tradeoff", help="digits-cnn accuracy / precision / speedup "
                                               "trade-off (Stripes, Loom vs the baseline)")
    p.add_argument("--images", type=int, default=360,
                   help="test images traced for the cycle counts (accuracy: all 360)")
    p.add_argument("--seed", type=int, default=None, help="training seed (default 0)")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.set_defaults(func=_cmd_tradeoff)
    return p


def main(argv=None) -> int:
    """Standalone entry: ``python -m termwise.gen.tradeoff_cli ARGS`` == ``termwise tradeoff ARGS``."""
    from .cli import run_subcommand
    return run_subcommand("tradeoff", argv)


if __name__ == "__main__":
    sys.exit(main())
