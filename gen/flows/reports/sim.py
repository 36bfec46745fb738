"""Reports of the network simulator: sim.json, sim.csv, sim.md and PNG plots."""

from __future__ import annotations

import csv
import json
import os

import numpy as np

from ....golden.netsim.simulate import REFERENCE

__all__ = ["summarise", "write_reports", "plot_title", "hardware_basis", "utilisation"]

STAT_KEYS = ("act_zero_fraction", "wgt_zero_fraction", "act_precision", "wgt_precision",
             "act_group_precision_mean", "act_essential_bits_mean", "act_booth_terms_mean",
             "wgt_booth_terms_mean")


def utilisation(macs: int, cycles: int, slots: int | None) -> float | None:
    """The fraction of a tile's MAC slots (``slots`` = filters x windows x lanes per
    cycle) over ``cycles`` that do one of the ``macs`` MACs; ``None`` when not known."""
    return macs / (cycles * slots) if slots and cycles else None


def summarise(results, archs) -> tuple[list, dict]:
    """Per-layer rows and network totals: cycles, speedup over the baseline, ideal
    (potential) speedup and achieved / ideal, per design; per layer and for the network,
    the ``utilisation`` of the baseline's MAC slots (:func:`utilisation`: how well the
    mapping fills the tile)."""
    layers = []
    tot = {a: {"cycles": 0, "rtl_cycles": 0, "work": 0, "runs": 0} for a in archs}
    for r in results:
        base = r.designs[REFERENCE]
        row = {"name": r.name, "shape": r.shape, "macs": r.macs, "stats": r.stats,
               "utilisation": utilisation(r.macs, base["cycles"], base.get("mac_slots")),
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
    b = tot[REFERENCE]
    slots = {r.designs[REFERENCE].get("mac_slots") for r in results}
    if len(slots) == 1:
        b["utilisation"] = utilisation(sum(r.macs for r in results), b["cycles"], slots.pop())
    for a in archs:
        t = tot[a]
        t["speedup"] = b["cycles"] / t["cycles"]
        t["ideal"] = b["work"] / t["work"] if t["work"] else float("inf")
        t["achieved_over_ideal"] = t["speedup"] / t["ideal"]
    return layers, tot


#: Per-layer energy columns of sim.csv, per design (joules; empty when not modelled).
ENERGY_CSV = ("compute_j", "onchip_j", "offchip_j")


def _sci(x) -> str:
    """A value in joules for the CSV: 4 significant digits, empty for ``None``."""
    return "" if x is None else f"{x:.4g}"


def _fmt(x, nd=2):
    if x is None:
        return ""
    return f"{x:.{nd}f}" if isinstance(x, float) else str(x)


def write_reports(out_dir, doc, plots=True) -> list[str]:
    """Write ``doc`` (see :func:`termwise.gen.flows.simulation.run_sim`) as JSON, CSV, Markdown and
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
    energy = (doc.get("energy") or {}).get("designs") or {}
    ecols = [(a, k) for a in archs if a in energy for k in ENERGY_CSV]
    with open(p, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["layer", "shape", "macs", *STAT_KEYS] +
                   [f"{a}_{k}" for a in archs for k in ("cycles", "speedup", "ideal",
                                                         "achieved_over_ideal", "rt")] +
                   [f"traffic_{k}" for k in tkeys] + ["baseline_utilisation"] +
                   [f"{a}_{k}" for a, k in ecols])
        for i, row in enumerate(doc["layers"]):
            w.writerow([row["name"], row["shape"], row["macs"],
                        *[_fmt(row["stats"][k], 4) for k in STAT_KEYS]] +
                       [v for a in archs for v in (
                           row["designs"][a]["cycles"], _fmt(row["designs"][a]["speedup"], 4),
                           _fmt(row["designs"][a]["ideal"], 4),
                           _fmt(row["designs"][a]["achieved_over_ideal"], 4),
                           " ".join(f"{k}={v}" for k, v in row["designs"][a]["rt"].items()))]
                       + [traffic["layers"][i][k] for k in tkeys]
                       + [_fmt(row.get("utilisation"), 4)]
                       + [_sci(energy[a]["layers"][i][k]) for a, k in ecols])
        w.writerow(["TOTAL", "", sum(r["macs"] for r in doc["layers"]), *[""] * len(STAT_KEYS)]
                   + [v for a in archs for v in (
                       doc["total"][a]["cycles"], _fmt(doc["total"][a]["speedup"], 4),
                       _fmt(doc["total"][a]["ideal"], 4),
                       _fmt(doc["total"][a]["achieved_over_ideal"], 4), "")]
                   + ([traffic["total"]["fusable_layers"], traffic["total"]["unfused_bits"],
                       traffic["total"]["fused_bits"]] if traffic else [])
                   + [_fmt(doc["total"][REFERENCE].get("utilisation"), 4)]
                   + [_sci(energy[a][k]) for a, k in ecols])
    paths.append(p)

    p = os.path.join(out_dir, "sim.md")
    with open(p, "w") as f:
        f.write(_markdown(doc, archs))
    paths.append(p)
    if plots:
        paths += _plots(out_dir, doc, archs)
    return paths


def hardware_basis(doc) -> dict:
    """What a sim document's speedups rest on: ``{"bits": hardware width or None,
    "reference": reference preset or None, "peak": peak MAC/cycle or None}``. Documents
    written before the width was recorded ran on the 16-bit presets."""
    designs = doc.get("designs") or {}
    ref = doc.get("reference") or {}
    bits = doc.get("hardware_bits")
    preset = ref.get("preset") if isinstance(ref, dict) else None
    base = designs.get(REFERENCE) if isinstance(designs.get(REFERENCE), dict) else {}
    if preset is None:
        preset = base.get("preset")
    if bits is None and isinstance(base.get("config"), dict):
        bits = base["config"].get("act_bits")
    peak = next((v for k, v in base.items() if k.startswith("peak_macs_per_cycle")), None)
    return {"bits": bits, "reference": preset, "peak": peak}


def _markdown(doc, archs) -> str:
    syn = " (SYNTHETIC values)" if doc["synthetic"] else ""
    hw = hardware_basis(doc)
    bits = hw["bits"]
    on = f" values on {bits}-bit hardware" if bits else ""
    lines = [f"# termwise sim: {doc['workload']}{syn}, {doc['precision']}-bit{on}", ""]
    lines += [f"- {n}" for n in doc["notes"]]
    presets = ", ".join(f"{a}: `{doc['designs'][a]['preset']}`" for a in archs)
    if bits:
        peak = f"{hw['peak']:g} {bits}-bit MAC/cycle at {bits} bits" if hw["peak"] else \
            "the baseline's peak"
        lines += [f"- Hardware: {bits}-bit operands for the workload's {doc['precision']}-bit "
                  f"values; every speedup divides by the bit-parallel baseline "
                  f"`{hw['reference'] or REFERENCE}`.",
                  f"- Designs compared at equal peak throughput: each design's 16x16 preset of "
                  f"{bits}-bit hardware, {peak} ({presets})."]
    else:
        lines += [f"- Designs compared at equal peak throughput: each design's preset "
                  f"({presets})."]
    order = doc.get("brick_order")
    if order:
        text = doc.get("brick_order_text")
        lines.append(f"- Brick order: `{order}`" + (f" ({text})" if text else "") + ".")
    else:       # a document written before the order was recorded
        lines.append("- Brick order: not recorded (`channel`, the only order then).")
    dw = doc.get("depthwise")
    if dw:
        text = doc.get("depthwise_text")
        count = doc.get("depthwise_layers")
        lines.append(f"- Depthwise convolutions" +
                     (f" ({count} layers of this workload)" if count is not None else "") +
                     f": mapping `{dw}`" + (f" ({text})" if text else "") + ". Their ideal "
                     "work counts the layer's MACs only, the same in every mapping.")
    else:       # a document written before the mapping was recorded
        lines.append("- Depthwise convolutions: mapping not recorded (`group`, one group per "
                     "channel, the only mapping then).")
    fc = doc.get("fc")
    if fc:
        on = doc.get("fc_columns") or []
        lines.append(f"- Fully-connected layers at batch 1: mapping `{fc}` ({doc.get('fc_text')})"
                     + (f"; on per-column weights: {', '.join(on)} (their presets with "
                        "`fc_columns = 1`)" if on else "") + ".")
    else:       # a document written before the mapping was recorded
        lines.append("- Fully-connected layers at batch 1: mapping not recorded (`window`, "
                     "one window column, the only mapping then).")
    enc = doc.get("encodings") or {}
    csd = doc.get("signed_digits") == "csd"
    lines += ["- Term encodings (cycles and ideal work): "
              + (", ".join(f"{d} {e}" for d, e in enc.items()) or "none") + " (Diffy: of "
              "its deltas). `booth` is radix-4 modified Booth recoding of the two's "
              "complement value (an unsigned activation zero-extended by one bit first); "
              "`plain` the one-bits of the magnitude; `csd` the minimal signed digits of "
              "|x| (the non-adjacent form). "
              + ("**`--signed-digits csd`: the Booth-coded designs are costed in CSD terms, "
                 "a model only: their RTL implements Booth** (for comparison with simulators "
                 "that count CSD, which finds about 10% fewer terms per 8-bit value)."
                 if csd else "The RTL implements these; `termwise sim --signed-digits csd` "
                 "costs the Booth-coded designs in CSD terms instead (a model only, about "
                 "10% fewer terms per 8-bit value).") +
              " (docs/papers.md#term-encodings)",
              "- Cycles are steady-state step cycles (the papers' basis: a pipelined host "
              "overlaps runs); `rtl_cycles` in sim.json adds this RTL's fixed per-run "
              "overhead (its runs do not overlap: the design's run overhead, the registered "
              "PE inputs of the presets with `pe_stages`, the fused output stage).",
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
    util = doc["total"].get(REFERENCE, {}).get("utilisation")
    lines += ["", "## Per layer (speedup / ideal)", "",
              "`util.`: the fraction of the baseline tile's MAC slots (its cycles x filters x "
              "windows x lanes) that do the layer's MACs under the mapping"
              + (f"; {100 * util:.1f}% for the whole network" if util is not None else "")
              + ". `sign`: the layer's `act_signed` runtime register, `u` for unsigned input "
              "activations (none negative, e.g. after a ReLU: detectors and serial PEs spend "
              "no sign bit, and `p` counts none), `s` for two's complement.", "",
              "| layer | shape | MACs | util. | sign | act zero | p | Pw | group prec | "
              "ess. bits | Booth a | " + " | ".join(archs) + " |",
              "|---|---|---:|---:|:-:|---:|---:|---:|---:|---:|---:|" + "---:|" * len(archs)]
    for row in doc["layers"]:
        s = row["stats"]
        # p and Pw: the layer's runtime precisions (its profile, else lossless on the data).
        rtp = s.get("profile_act_precision", s["act_precision"])
        rtw = s.get("profile_wgt_precision", s["wgt_precision"])
        u = row.get("utilisation")
        signed = row["designs"].get(REFERENCE, {}).get("rt", {}).get("act_signed")
        sign = "-" if signed is None else ("s" if signed else "u")
        lines.append(f"| {row['name']} | {row['shape']} | {row['macs']} | "
                     f"{'-' if u is None else _percent(u)} | {sign} | "
                     f"{s['act_zero_fraction']:.2f} | {rtp} | {rtw} | "
                     f"{s['act_group_precision_mean']:.1f} | "
                     f"{s['act_essential_bits_mean']:.2f} | {s['act_booth_terms_mean']:.2f} | " +
                     " | ".join(f"{row['designs'][a]['speedup']:.2f}/"
                                f"{row['designs'][a]['ideal']:.2f}" for a in archs) + " |")
    lines += _traffic_markdown(doc.get("traffic"))
    lines += _energy_markdown(doc.get("energy"), archs)
    lines.append("")
    return "\n".join(lines)


def _percent(x: float) -> str:
    """A utilisation as a percentage, small ones with enough digits to compare."""
    return f"{100 * x:.1f}%" if x >= 0.01 else f"{100 * x:.2f}%"


def _traffic_markdown(tr) -> list[str]:
    """The fused output stage's traffic saving (:mod:`termwise.golden.netsim.traffic`)."""
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


def joules(x: float | None) -> str:
    """An energy with an SI prefix (``"12.1 uJ"``); ``"-"`` for ``None``."""
    if x is None:
        return "-"
    for scale, unit in ((1, "J"), (1e-3, "mJ"), (1e-6, "uJ"), (1e-9, "nJ")):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x / 1e-12:.3g} pJ"


def _energy_markdown(en, archs) -> list[str]:
    """The energy per inference (:mod:`termwise.golden.netsim.energy`): a table per design
    and the memory model with its constants, sources and what is not modelled."""
    if not en:
        return []
    c, src = en["constants"], en["constants"]["sources"]
    designs = en["designs"]
    lines = ["", "## Energy", "",
             f"Per inference ({en['images']} input(s) simulated; the totals divided by "
             "them). Compute: the tile's power from a `termwise power` report of the "
             "design's preset x its `rtl_cycles` / that report's clock; a design without a "
             "power record has no compute energy (`-`) and no total: only its memory "
             "energy is modelled.", "",
             "| design | compute | on-chip | off-chip | total per inference | efficiency "
             "over baseline | power source |", "|---|---:|---:|---:|---:|---:|---|"]
    for a in archs:
        d = designs.get(a)
        if d is None:
            continue
        e = d["per_inference"]
        total = joules(e["total_j"]) if e["total_j"] is not None else \
            f"- (memory {joules(e['memory_j'])})"
        eff = d.get("efficiency_over_baseline")
        source = d["power"]["source"] if d.get("power") else "none: memory only"
        lines.append(f"| {a} | {joules(e['compute_j'])} | {joules(e['onchip_j'])} | "
                     f"{joules(e['offchip_j'])} | {total} | "
                     f"{'-' if eff is None else f'{eff:.2f}x'} | {source} |")
    lines += ["", "Memory model: every layer on each design's own lowering (brick padding, "
              "channel-diagonal depthwise packing, fc rounds on the designs with per-column "
              "weight registers included). On-chip: activation bricks read once per group of "
              "`filters` filters, weight bricks once per group of `windows` windows, at the "
              "hardware width, plus the output traffic (partial sums written and read back "
              "at the accumulator width, finished outputs written; fused when the tile has an "
              "output stage that can finish the layer). Off-chip: each layer's weights, input "
              "activations and outputs once at the hardware width, assuming the on-chip "
              "buffers hold a layer's working set; the weights once for all the inputs "
              "simulated.", "",
              f"- On-chip SRAM: {c['sram_pj_per_bit']:g} pJ/bit read or write = "
              f"{c['sram_pj_per_64b_45nm']:g} pJ per 64-bit access ({c['sram_size']}, 45 nm, "
              f"0.9 V) x {c['node_factor']:g}; {src['sram_scaling']}.",
              f"- Off-chip DRAM: {c['dram_pj_per_bit']:.3g} pJ/bit = "
              f"{c['dram_pj_per_64b']:g} pJ per 64-bit access, not scaled (the interface "
              "dominates it).",
              f"- Source: {src['citation']}. SRAM: {src['sram']}. DRAM: {src['dram']}.",
              "- Not modelled: " + "; ".join(en["not_modelled"]) + "."]
    return lines


def plot_title(doc) -> str:
    """Workload and hardware of a sim document, for the figure titles: e.g.
    ``"digits-cnn, 8-bit values, 8-bit hardware, equal peak 256 MAC/cycle, position bricks,
    speedups over baseline-16x16-8b"`` (the brick order and the reference when the document
    records them)."""
    from .plots import hardware_summary
    syn = " (synthetic values)" if doc.get("synthetic") else ""
    hw = hardware_summary(doc.get("designs"), doc.get("precision"))
    ref = doc.get("reference")
    order = f", {doc['brick_order']} bricks" if doc.get("brick_order") else ""
    over = f", speedups over {ref['preset']}" if isinstance(ref, dict) and \
        ref.get("preset") else ""
    return f"{doc['workload']}{syn}" + (f", {hw}" if hw else "") + order + over


def _plots(out_dir, doc, archs) -> list[str]:
    """sim_cycles.png, sim_speedup.png, sim_total.png and sim_stats.png (the axis, label
    and title rules of :mod:`termwise.gen.flows.reports.plots`)."""
    from . import plots as P

    names = [r["name"] for r in doc["layers"]]
    x = np.arange(len(names))
    title = plot_title(doc)
    styles = P.design_styles(archs)
    width = P.category_figure_width(names)
    ms = 4 if len(names) <= 20 else 2.5
    out = []

    def per_layer(key, designs):
        return {a: np.array([r["designs"][a][key] for r in doc["layers"]], float)
                for a in designs}

    def save(fig, name):
        out.append(P.save(fig, os.path.join(out_dir, name)))

    def lines(ax, series, style=None):
        for lab, v in series.items():
            ax.plot(x, v, label=lab, **{"lw": 1.1, "ms": ms, **(style or styles)[lab]})
        ax.grid(alpha=0.3)
        ax.margins(y=0.08)
        ax.tick_params(labelsize=P.FONT)

    def legend(ax, **kw):
        ax.legend(fontsize=P.FONT, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  frameon=False, **kw)

    def reference(ax, label=None):
        ax.axhline(1.0, color="black", lw=0.8, ls="--", zorder=1, label=label)

    # Cycles per layer, every design (the baseline in black).
    fig, ax = P.new_figure(width, 4.0)
    cyc = per_layer("cycles", archs)
    lines(ax, cyc)
    P.set_value_scale(ax, list(cyc.values()), "steady-state cycles")
    P.category_axis(ax, names)
    ax.set_xlabel("layer", fontsize=P.FONT + 1)
    legend(ax)
    fig.suptitle(f"Cycles per layer\n{title}", fontsize=P.FONT + 1)
    save(fig, "sim_cycles.png")

    # Speedup, ideal speedup and achieved / ideal per layer: one panel each.
    others = [a for a in archs if a != REFERENCE] or list(archs)
    fig, axes = P.new_figure(width, 8.2, 3, 1, sharex=True)
    for key, ax, lab in zip(("speedup", "ideal", "achieved_over_ideal"), axes,
                            ("speedup over baseline", "ideal (potential) speedup",
                             "achieved / ideal")):
        v = per_layer(key, others)
        lines(ax, v)
        reference(ax, "1 = baseline (bottom panel: ideal)" if key == "speedup" else None)
        P.set_value_scale(ax, list(v.values()) + [[1.0]], lab)
        ax.yaxis.label.set_fontsize(P.FONT + 1)
    legend(axes[0])
    P.category_axis(axes[-1], names)
    axes[-1].set_xlabel("layer", fontsize=P.FONT + 1)
    fig.suptitle(f"Speedup per layer over the bit-parallel baseline\n{title}",
                 fontsize=P.FONT + 1)
    save(fig, "sim_speedup.png")

    # Network total: achieved and ideal speedup per design, horizontal bars.
    fig, ax = P.hbar_chart(
        others, {"achieved (cycles)": [doc["total"][a]["speedup"] for a in others],
                 "ideal (potential)": [doc["total"][a]["ideal"] for a in others]},
        xlabel="network speedup over the bit-parallel baseline", value_format=P.ratio_text,
        reference=1.0, reference_label="baseline (1x)",
        styles={"achieved (cycles)": {"color": "#1f77b4"},
                "ideal (potential)": {"color": "#ff7f0e"}})
    fig.suptitle(f"Network total speedup\n{title}", fontsize=P.FONT + 1)
    save(fig, "sim_total.png")

    # Value statistics per layer.
    fig, axes = P.new_figure(width, 8.2, 3, 1, sharex=True)
    st = {k: np.array([r["stats"][k] for r in doc["layers"]], float)
          for k in doc["layers"][0]["stats"]} if doc["layers"] else {}
    sty = {"activation zeros": {"color": "#1f77b4", "marker": "o", "linestyle": "-"},
           "weight zeros": {"color": "#ff7f0e", "marker": "s", "linestyle": "-"}}
    zeros = {"activation zeros": st["act_zero_fraction"],
             "weight zeros": st["wgt_zero_fraction"]}
    lines(axes[0], zeros, sty)
    P.set_value_scale(axes[0], list(zeros.values()), "zero fraction", scale="linear")
    axes[0].set_ylim(0, 1)
    bits = {"activation precision (lossless)": st["act_precision"]}
    sty = {"activation precision (lossless)": {"color": "#1f77b4", "marker": "o",
                                               "linestyle": "-", "mfc": "none", "ms": 7}}
    for a, k, lab, c in (("stripes", "precision", "Stripes runtime act precision", "#d62728"),
                         ("loom", "wgt_precision", "Loom runtime wgt precision", "#2ca02c")):
        if a in archs:
            bits[lab] = np.array([r["designs"][a]["rt"].get(k, np.nan) for r in doc["layers"]],
                                 float)
            sty[lab] = {"color": c, "marker": "x", "linestyle": "--"}
    bits["activation group precision (16 lanes, mean)"] = st["act_group_precision_mean"]
    sty["activation group precision (16 lanes, mean)"] = {"color": "#9467bd", "marker": "^",
                                                          "linestyle": "-."}
    lines(axes[1], bits, sty)
    if not P.set_value_scale(axes[1], list(bits.values()), "bits"):
        from matplotlib.ticker import MaxNLocator
        axes[1].yaxis.set_major_locator(MaxNLocator(integer=True))
    terms = {"activation essential bits": st["act_essential_bits_mean"],
             "activation Booth terms": st["act_booth_terms_mean"],
             "weight Booth terms": st["wgt_booth_terms_mean"]}
    sty = {"activation essential bits": {"color": "#1f77b4", "marker": "o", "linestyle": "-"},
           "activation Booth terms": {"color": "#ff7f0e", "marker": "s", "linestyle": "--"},
           "weight Booth terms": {"color": "#2ca02c", "marker": "^", "linestyle": "-."}}
    lines(axes[2], terms, sty)
    P.set_value_scale(axes[2], list(terms.values()), "per value (mean)")
    for ax in axes:
        legend(ax)
        ax.yaxis.label.set_fontsize(P.FONT + 1)
    P.category_axis(axes[-1], names)
    axes[-1].set_xlabel("layer", fontsize=P.FONT + 1)
    fig.suptitle(f"Value statistics per layer\n{title}", fontsize=P.FONT + 1)
    save(fig, "sim_stats.png")
    return out
