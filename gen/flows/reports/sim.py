"""Reports of the network simulator: sim.json, sim.csv, sim.md and the PNG plots
(:mod:`.sim_plots`)."""

from __future__ import annotations

import csv
import json
import os

from ....golden.netsim.presets import REFERENCE
from .sim_plots import plot_title, write_plots

__all__ = ["summarise", "write_reports", "plot_title", "hardware_basis", "utilisation",
           "joules"]

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
ENERGY_CSV = ("compute_j", "tile_buffer_j", "chip_memory_j", "onchip_j", "offchip_j")


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
        paths += write_plots(out_dir, doc, archs)
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
    """sim.md: the title and the notes on what was simulated and how, the totals, the
    per-layer table, the output traffic and the energy."""
    syn = " (SYNTHETIC values)" if doc["synthetic"] else ""
    bits = hardware_basis(doc)["bits"]
    on = f" values on {bits}-bit hardware" if bits else ""
    lines = [f"# termwise sim: {doc['workload']}{syn}, {doc['precision']}-bit{on}", ""]
    lines += [f"- {n}" for n in doc["notes"]]
    lines += _hardware_notes(doc, archs)
    lines += _mapping_notes(doc)
    lines += _method_notes(doc)
    lines += _totals_markdown(doc, archs)
    lines += _layers_markdown(doc, archs)
    lines += _traffic_markdown(doc.get("traffic"))
    lines += _energy_markdown(doc.get("energy"), archs)
    lines.append("")
    return "\n".join(lines)


def _hardware_notes(doc, archs) -> list[str]:
    """The hardware the speedups rest on and the presets compared."""
    hw = hardware_basis(doc)
    bits = hw["bits"]
    lines = []
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
    return lines


def _mapping_notes(doc) -> list[str]:
    """How the layers were mapped: brick order, depthwise and fully-connected mappings
    (each one's default of the time for a document written before it was recorded)."""
    lines = []
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
        lines.append("- Depthwise convolutions" +
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
    return lines


def _method_notes(doc) -> list[str]:
    """How cycles and ideal work are counted: term encodings, the cycle basis, sampling,
    the ideal; the designs skipped."""
    enc = doc.get("encodings") or {}
    csd = doc.get("signed_digits") == "csd"
    lines = ["- Term encodings (cycles and ideal work): "
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
    return lines


def _totals_markdown(doc, archs) -> list[str]:
    """The network totals per design."""
    lines = ["", "## Totals", "", "| design | cycles | speedup vs baseline | ideal | "
             "achieved/ideal |", "|---|---:|---:|---:|---:|"]
    for a in archs:
        t = doc["total"][a]
        lines.append(f"| {a} | {t['cycles']} | {t['speedup']:.2f}x | {t['ideal']:.2f}x | "
                     f"{t['achieved_over_ideal']:.2f} |")
    return lines


def _layers_markdown(doc, archs) -> list[str]:
    """The per-layer table: shape, MACs, utilisation, value statistics and each design's
    speedup / ideal."""
    util = doc["total"].get(REFERENCE, {}).get("utilisation")
    lines = ["", "## Per layer (speedup / ideal)", "",
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
    return lines


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
    """The energy per inference (:mod:`termwise.golden.netsim.energy`): a table per design,
    the storage levels, the table's sensitivity to the DRAM energy, and the model with its
    constants, sources and what is not modelled."""
    if not en:
        return []
    c, src = en["constants"], en["constants"]["sources"]
    designs = en["designs"]
    lines = ["", "## Energy", "",
             f"Per inference ({en['images']} input(s) simulated; the totals divided by "
             "them). Compute: the tile's power from a `termwise power` report of the "
             "design's preset without its flip-flop operand buffers (priced as the SRAM "
             "macros of the tile-buffer level instead) x its `rtl_cycles` / that report's "
             "clock; a design without a power record has no compute energy (`-`) and no "
             "total: only its access energy is modelled.", "",
             "| design | compute | tile buffers | chip memories | off-chip | "
             "total per inference | efficiency over baseline | power source |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for a in archs:
        d = designs.get(a)
        if d is None:
            continue
        e = d["per_inference"]
        total = joules(e["total_j"]) if e["total_j"] is not None else \
            f"- (memory {joules(e['memory_j'])})"
        eff = d.get("efficiency_over_baseline")
        source = d["power"]["source"] if d.get("power") else "none: access energy only"
        lines.append(f"| {a} | {joules(e['compute_j'])} | {joules(e['tile_buffer_j'])} | "
                     f"{joules(e['chip_memory_j'])} | "
                     f"{joules(e['offchip_j'])} | {total} | "
                     f"{'-' if eff is None else f'{eff:.2f}x'} | {source} |")
    lines += _sensitivity_markdown(en, archs) + _levels_markdown(designs, archs)
    lines += ["", "Storage model: every level is a bank of SRAM macros at its real shape, "
              "and each brick is charged once per level it crosses. Tile buffers: a run "
              "writes its rows once and reads each once. Chip memories: the tile's operand "
              "loads (activation bricks once per group of `filters` filters, weight bricks "
              "once per group of `windows` windows) and the partial-sum read-backs read "
              "them; DRAM fills and outputs write them. Off-chip: each layer's weights, "
              "inputs and outputs once at the hardware width (refetched when a layer "
              "overflows the chip memories); the weights once for all the inputs simulated.",
              "",
              f"- Chip memories: {c['weight_memory_kib']} KiB of weights and "
              f"{c['activation_memory_kib']} KiB of activations, "
              f"{c['chip_word_bits']}-bit words ({src['chip_memory_sizes']}); the wire "
              f"across each bank: {src['wire']}.",
              f"- SRAM macros: {src['sram']}.",
              f"- Off-chip DRAM: {c['dram_pj_per_bit']:.3g} pJ/bit; {src['dram']}.",
              "- Not modelled: " + "; ".join(en["not_modelled"]) + "."]
    return lines


def _sensitivity_markdown(en, archs) -> list[str]:
    """Efficiency over the baseline at each DRAM energy scale of ``dram_sensitivity``."""
    sens = en.get("dram_sensitivity") or {}
    if not any(v is not None for row in sens.values() for v in row.values()):
        return []
    scales = list(sens)
    lines = ["", "Sensitivity to the one constant no compiler gives, the DRAM energy per "
             "bit (efficiency over the baseline at each multiple of it):", "",
             "| design | " + " | ".join(f"DRAM x{s}" for s in scales) + " |",
             "|---|" + "---:|" * len(scales)]
    for a in archs:
        vals = [sens[s].get(a) for s in scales]
        if all(v is None for v in vals):
            continue
        lines.append(f"| {a} | " + " | ".join("-" if v is None else f"{v:.2f}x"
                                              for v in vals) + " |")
    return lines


def _levels_markdown(designs, archs) -> list[str]:
    """Each design's storage levels: shape, macros, energy per access."""
    lines = ["", "| design | level | words x bits | macros | read pJ | write pJ | "
             "area mm2 | macro model |", "|---|---|---|---:|---:|---:|---:|---|"]
    for a in archs:
        for name, lv in (designs.get(a) or {}).get("levels", {}).items():
            lines.append(f"| {a} | {name} | {lv['words']} x {lv['width']} | {lv['macros']} "
                         f"| {lv['read_pj'] + lv['wire_pj']:.3g} | "
                         f"{lv['write_pj'] + lv['wire_pj']:.3g} | "
                         f"{lv['area_um2'] / 1e6:.3g} | {lv['source']} |")
    return lines
