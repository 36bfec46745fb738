"""``termwise tradeoff``'s flow: accuracy and cycles of every precision setting of the digits
CNN (:mod:`termwise.gen.commands.tradeoff` states the method)."""

from __future__ import annotations

import sys
import time

from ...errors import ConfigError
from .settings import settings

__all__ = ["run_tradeoff"]


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
    from ....golden import netsim
    from ....golden.lowering import DEFAULT_ORDER
    from ....golden.workloads import digits as dg
    from ..reports.sim import summarise
    from ..reports.tradeoff import DESIGNS, write_reports

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
        res = netsim.simulate_layers(layers, list(DESIGNS), bits=s["bits"])
        _, tot = summarise(res, list(DESIGNS))
        row = dict(s, accuracy=acc, lossless=acc >= floor, hardware_bits=s["bits"],
                   reference=netsim.design_preset(DESIGNS[0], s["bits"]),
                   cycles={d: tot[d]["cycles"] for d in DESIGNS},
                   speedup={d: tot[d]["speedup"] for d in DESIGNS},
                   loom_detected_act_precision=[
                       round(float(r.stats["act_group_precision_mean"]), 2) for r in res])
        rows.append(row)
        log(f"  [{k + 1:2d}/{len(sets)}] {s['label']:44s} acc {acc:6.2f}%  stripes "
            f"{row['speedup']['stripes']:5.2f}x  loom {row['speedup']['loom']:5.2f}x")
    widths = sorted({s["bits"] for s in sets}, reverse=True)
    cfgs = {b: {d: netsim.sim_config(d, b) for d in DESIGNS} for b in widths}
    hardware = {str(b): {d: {"preset": netsim.design_preset(d, b), "config": c.to_dict(),
                             f"peak_macs_per_cycle_{b}b": c.peak_macs_per_cycle(b),
                             "hardware_bits": b,
                             "reference": netsim.design_preset(DESIGNS[0], b)}
                         for d, c in cfgs[b].items()} for b in widths}
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
        "equal_peak_throughput": "every design on its 16x16 preset of hardware as wide as the "
                                 "setting's base (256 16-bit MAC/cycle for the 16-bit base, "
                                 "256 8-bit MAC/cycle on the -16x16-8b presets for the 8-bit "
                                 "base); speedup = steady-state cycles of the baseline of "
                                 "that width / design cycles",
        # The simulated 16-bit hardware (the same entries as sim.json's "designs"), and the
        # hardware of every base width (the rows' "hardware_bits").
        "designs": hardware.get("16", {}),
        "designs_by_bits": hardware,
        "layers": list(dg.LAYER_NAMES),
        # What a convolution's brick holds (netsim's default: the papers' order), and how a
        # batch-1 fc layer is mapped (netsim's default: over the window columns).
        "brick_order": DEFAULT_ORDER,
        "fc": netsim.DEFAULT_FC,
        "rows": rows,
    }
    doc["seconds"] = time.perf_counter() - t0
    paths = write_reports(out_dir, doc, plot=plot)
    log(f"wrote {', '.join(paths)} in {doc['seconds']:.1f} s")
    return doc
