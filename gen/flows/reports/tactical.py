"""Bit-Tactical report: speedups on pruned networks and the efficiency of the schedule.

For every sparsity (dense and magnitude-pruned variants, :mod:`.workloads.pruning`) of a
network, the network simulator (:mod:`.netsim`) counts the steady-state cycles of

* ``baseline`` (DaDianNao-like, 16 filters x 16 lanes, one window),
* ``dstripes`` and ``pragmatic-booth``: the back ends *without* Tactical's front end, at
  the same peak throughput as the Tactical presets (``dstripes-16x16`` has the 16 windows
  of ``tactical-tclp-16x16``; ``pragmatic-booth-16x16`` the 8 windows and Booth encoding
  of ``tactical-tcle-16x16``),
* ``tactical-tclp`` and ``tactical-tcle`` (T<2,5> front end),

all at equal peak throughput (256 MAC/cycle on hardware as wide as the workload's values:
the ``-16x16`` presets at 16 bits, the ``-16x16-8b`` ones at 8), and reports the speedups
over the baseline of that width (as the paper does) and over the same back end without
the front end (the gain of weight skipping alone). Cycles of the Tactical designs are
exact (the vectorised :func:`termwise.golden.arch.tactical.layer_run_cycles`) unless
window groups are sampled.

Schedule efficiency, per connectivity ``T<2,5>`` / ``L<h,d>`` (16 filters x 16 lanes,
16 bricks per chunk, i.e. the 16x16 presets): every (group, filter group, K chunk) of every
layer is scheduled once (:func:`termwise.golden.arch.tactical.layer_schedule`, the greedy
of :mod:`.tactical_schedule`), and

    reduction  = 1 - kept steps / steps        (summed over all schedules)
    efficiency = reduction / zero fraction      (zero fraction of the lowered weights)

on the weights lowered in the channel-major brick order (no padding inside K, so the
lowered weights' zeros are the network's); the cycles use the simulator's default brick
order (the papers', recorded as ``brick_order``).

i.e. the achieved step reduction over the ideal one (every zero weight skipped; the ideal
is not always reachable: the filters of a group share their steps). Metadata: the select
of each weight, ``ceil(log2(sources + 1))`` bits. Reported next to the papers' figures
(docs/papers.md#headline-figures): TCLe 11.3x and TCLp 6.7x over a dense baseline on their
sparse networks.
"""

from __future__ import annotations

import csv
import json
import os
import re
import time

import numpy as np

from ....golden.lowering import DEFAULT_ORDER

__all__ = ["DESIGNS", "BACK_ENDS", "CONNECTIVITIES", "PAPER", "parse_connectivity",
           "parse_sparsities", "schedule_efficiency", "build_report", "write_report"]

#: Designs simulated (netsim names), the baseline first.
DESIGNS = ("baseline", "dstripes", "pragmatic-booth", "tactical-tclp", "tactical-tcle")
#: Tactical design -> the same back end without the front end, at equal peak throughput.
BACK_ENDS = {"tactical-tclp": "dstripes", "tactical-tcle": "pragmatic-booth"}
#: Default connectivities of the schedule study: (shape, lookahead h, lookaside d).
CONNECTIVITIES = (("T", 2, 5), ("L", 1, 0), ("L", 2, 1), ("L", 2, 5), ("L", 4, 3),
                  ("L", 4, 7))
#: The paper's headline (its ASPLOS 2019 abstract; docs/papers.md#headline-figures).
PAPER = {"tactical-tcle": 11.3, "tactical-tclp": 6.7,
         "text": "Bit-Tactical (ASPLOS 2019): TCLe 11.3x, TCLp 6.7x over a dense baseline on "
                 "sparse (pruned) networks; TCLp about +10% area"}


def _label(c) -> str:
    return f"{c[0]}<{c[1]},{c[2]}>"


def parse_connectivity(text) -> list[tuple[str, int, int]]:
    """``"T<2,5>,L<4,3>"`` -> ``[("T", 2, 5), ("L", 4, 3)]`` (the ranges of the
    ``tactical`` arch's options: T is only <2,5>; L has h 1..4 and d 0..7)."""
    from ...config import ConfigError
    from ...designs.tactical import SPEC
    hs, ds = SPEC.option("lookahead").valid, SPEC.option("lookaside").valid
    items = re.findall(r"[^,<>]*<[^>]*>|[^,]+", str(text or ""))
    out = []
    for raw in (i.strip() for i in items):
        if not raw or raw == ",":
            continue
        m = re.fullmatch(r"([TL])<(\d+),(\d+)>", raw.replace(" ", ""))
        if not m:
            raise ConfigError("connectivity", f"expected T<2,5> or L<h,d> items separated "
                              f"by commas, got {raw!r}")
        c = (m.group(1), int(m.group(2)), int(m.group(3)))
        if c[0] == "T" and c[1:] != (2, 5):
            raise ConfigError("connectivity", f"T is the <2,5> connectivity, got {raw!r}")
        if c[0] == "L" and (c[1] not in hs or c[2] not in ds):
            raise ConfigError("connectivity", f"L<h,d> needs h in {hs[0]}..{hs[-1]} and d in "
                              f"{ds[0]}..{ds[-1]}, got {raw!r}")
        out.append(c)
    if not out:
        raise ConfigError("connectivity", "give one or more of T<2,5>, L<h,d>")
    return list(dict.fromkeys(out))


def parse_sparsities(text) -> list[float]:
    """``"0,50,70,90"`` (percent of each layer's weights pruned, 0 <= p < 100) -> fractions."""
    from ...config import ConfigError
    out = []
    for item in str(text or "").split(","):
        item = item.strip()
        try:
            p = float(item)
        except ValueError:
            raise ConfigError("sparsity", f"expected percentages 0 <= p < 100 separated by "
                              f"commas, got {item!r}") from None
        if not 0 <= p < 100:
            raise ConfigError("sparsity", f"must be 0 <= p < 100 (percent), got {item!r}")
        out.append(p / 100)
    return list(dict.fromkeys(out))


def schedule_efficiency(layers, conn, cfg=None) -> dict:
    """Step reduction of connectivity ``conn`` over a network's lowered weights (see the
    module docstring); ``cfg`` the tile (default: ``tactical-tclp-16x16``)."""
    from ...config import preset
    from ....golden.arch.tactical import layer_schedule
    from ....golden.netsim import lowered_operands
    from ....golden.tactical_schedule import metadata_bits, sources
    base = cfg or preset("tactical-tclp-16x16")
    cfg = base.replace(shape=conn[0], lookahead=conn[1], lookaside=conn[2])
    steps = kept = zeros = weights = 0
    for layer in layers:
        # The channel-major rows: no brick padding, so the zeros are the network's own and
        # the efficiency compares with its weight zero fraction.
        _, wm = lowered_operands(layer, "channel", cfg.lanes)
        g, kg, k = wm.shape
        ks, _ = layer_schedule(cfg, wm)
        steps += g * -(-kg // cfg.filters) * -(-k // cfg.lanes)
        kept += int(ks.sum())
        zeros += int(np.count_nonzero(wm == 0))
        weights += wm.size
    reduction = 1 - kept / steps if steps else 0.0
    zero = zeros / weights if weights else 0.0
    return {"steps": steps, "kept": kept, "reduction": reduction, "zero_fraction": zero,
            "efficiency": reduction / zero if zero > 0 else None,
            "metadata_bits": metadata_bits(sources(*conn))}


def build_report(workload: str, sparsities, connectivities=CONNECTIVITIES, *,
                 precision: int = 16, images: int | None = None,
                 max_window_groups: int | None = None, sample_pairs: int | None = None,
                 loader=None, log=None) -> dict:
    """Simulate ``workload`` at every sparsity and collect the report document.

    ``loader(sparsity) -> Workload`` overrides :func:`.workloads.pruning.load_pruned`
    (tests use tiny networks)."""
    from ....golden import netsim
    from .sim import summarise
    from ....golden.workloads.pruning import load_pruned
    log = log or (lambda msg: None)
    t0 = time.perf_counter()
    rows = []
    for s in sparsities:
        if loader is not None:
            wl = loader(s)
        else:
            kw = {} if images is None else {"images": images}
            wl = load_pruned(workload, s, precision, log=log, **kw)
        t1 = time.perf_counter()
        res = netsim.simulate_layers(wl.layers, list(DESIGNS), bits=precision,
                                     max_window_groups=max_window_groups,
                                     sample_pairs=sample_pairs)
        _, total = summarise(res, list(DESIGNS))
        sim_s = time.perf_counter() - t1
        w_zero = sum(int(np.count_nonzero(layer.wgt == 0)) for layer in wl.layers) / \
            sum(layer.wgt.size for layer in wl.layers)
        sched = {_label(c): schedule_efficiency(wl.layers, c) for c in connectivities}
        row = {
            "sparsity": s, "workload": wl.name, "notes": list(wl.notes),
            "weight_zero_fraction": w_zero,
            "test_accuracy": wl.meta.get("test_accuracy"),
            "sampled": any(d["sampled"] for r in res for d in r.designs.values()),
            "cycles": {d: total[d]["cycles"] for d in DESIGNS},
            "speedup": {d: total[d]["speedup"] for d in DESIGNS},
            "ideal": {d: total[d]["ideal"] for d in DESIGNS},
            "over_back_end": {t: total[b]["cycles"] / total[t]["cycles"]
                              for t, b in BACK_ENDS.items()},
            "schedule": sched,
            "sim_seconds": sim_s,
        }
        rows.append(row)
        log(f"{wl.name}: zero weights {w_zero:.3f}; TCLp {row['speedup']['tactical-tclp']:.2f}x"
            f" ({row['over_back_end']['tactical-tclp']:.2f}x over dstripes), TCLe "
            f"{row['speedup']['tactical-tcle']:.2f}x "
            f"({row['over_back_end']['tactical-tcle']:.2f}x over pragmatic-booth); "
            f"{sim_s:.1f} s")
    cfgs = {d: netsim.design_config(d, precision) for d in DESIGNS}
    reference = netsim.design_preset(DESIGNS[0], precision)
    peak = cfgs[DESIGNS[0]].peak_macs_per_cycle(precision)
    width = "" if precision == 16 else f" of {precision}-bit hardware"
    return {
        "workload": workload, "precision": precision,
        "designs": {d: {"preset": netsim.design_preset(d, precision),
                        f"peak_macs_per_cycle_{precision}b":
                            cfgs[d].peak_macs_per_cycle(precision),
                        "hardware_bits": precision, "reference": reference}
                    for d in DESIGNS},
        "hardware_bits": precision,
        "reference": {"design": DESIGNS[0], "preset": reference},
        "equal_peak_throughput": f"every design at {peak:g} {precision}-bit MAC/cycle (16x16 "
                                 f"presets{width}; speedups over {reference})",
        "brick_order": DEFAULT_ORDER,
        "back_ends": dict(BACK_ENDS),
        "encodings": {"tactical-tcle": cfgs["tactical-tcle"].encoding,
                      "pragmatic-booth": cfgs["pragmatic-booth"].encoding},
        "connectivities": [_label(c) for c in connectivities],
        "sampling": (f"window groups sampled (max_window_groups={max_window_groups})"
                     if max_window_groups else "none for the Tactical designs") +
                    (f"; other designs at most {sample_pairs} PE-lane evaluations per layer"
                     if sample_pairs else ""),
        "paper": PAPER,
        "rows": rows,
        "seconds": time.perf_counter() - t0,
    }


def _f(x, nd=2, suffix=""):
    return "-" if x is None else f"{x:.{nd}f}{suffix}"


def write_report(out_dir: str, doc: dict) -> list[str]:
    """Write ``doc`` as tactical.json, tactical.csv and tactical.md; returns the paths."""
    os.makedirs(out_dir, exist_ok=True)
    conns = doc["connectivities"]
    paths = [os.path.join(out_dir, f"tactical.{ext}") for ext in ("json", "csv", "md")]
    with open(paths[0], "w") as f:
        json.dump(doc, f, indent=1)
    with open(paths[1], "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["sparsity", "workload", "weight_zero_fraction", "test_accuracy"] +
                   [f"cycles_{d}" for d in DESIGNS] + [f"speedup_{d}" for d in DESIGNS] +
                   [f"{t}_over_{b}" for t, b in BACK_ENDS.items()] +
                   [f"efficiency_{c}" for c in conns])
        for r in doc["rows"]:
            w.writerow([r["sparsity"], r["workload"], r["weight_zero_fraction"],
                        r["test_accuracy"]] + [r["cycles"][d] for d in DESIGNS] +
                       [r["speedup"][d] for d in DESIGNS] +
                       [r["over_back_end"][t] for t in BACK_ENDS] +
                       [r["schedule"][c]["efficiency"] for c in conns])
    lines = [f"# Bit-Tactical on pruned {doc['workload']} ({doc['precision']}-bit fixed point)",
             "", f"All designs at equal peak throughput ({doc['equal_peak_throughput']}); "
             f"steady-state cycles. Tactical front end T<2,5>; TCLe and pragmatic-booth use "
             f"{doc['encodings']['tactical-tcle']} terms. Brick order of the convolutions: "
             f"`{doc.get('brick_order', 'channel')}`. Sampling: {doc['sampling']}.", "",
             f"Paper: {doc['paper']['text']} (their networks, their baseline; not these).", "",
             "| sparsity | workload | zero wgts | accuracy | TCLp | TCLe | dstripes | "
             "pragmatic-booth | TCLp / dstripes | TCLe / pragmatic-booth | paper TCLp | "
             "paper TCLe |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        sp = r["speedup"]
        lines.append(
            f"| {r['sparsity']:.0%} | {r['workload']} | {r['weight_zero_fraction']:.3f} | "
            f"{_f(r['test_accuracy'], 2, '%')} | {sp['tactical-tclp']:.2f}x | "
            f"{sp['tactical-tcle']:.2f}x | {sp['dstripes']:.2f}x | "
            f"{sp['pragmatic-booth']:.2f}x | {r['over_back_end']['tactical-tclp']:.2f}x | "
            f"{r['over_back_end']['tactical-tcle']:.2f}x | {PAPER['tactical-tclp']}x | "
            f"{PAPER['tactical-tcle']}x |")
    lines += ["", "Speedups are over the baseline (DaDianNao-like, dense); the two ratio "
              "columns are the gain of the weight-skipping front end alone over the same back "
              "end at equal peak throughput.", "",
              "## Schedule efficiency (achieved step reduction / weight zero fraction)", "",
              "16 filters x 16 lanes, 16 bricks per chunk; metadata = select bits per weight.",
              "", "| sparsity | " + " | ".join(conns) + " |",
              "|---|" + "---|" * len(conns)]
    for r in doc["rows"]:
        cells = [f"{_f(r['schedule'][c]['efficiency'])} ({r['schedule'][c]['reduction']:.1%}"
                 f" of {r['schedule'][c]['zero_fraction']:.1%})" for c in conns]
        lines.append(f"| {r['sparsity']:.0%} | " + " | ".join(cells) + " |")
    first = doc["rows"][0]["schedule"] if doc["rows"] else {}
    lines += ["", "| connectivity | metadata bits per weight |", "|---|---|"]
    lines += [f"| {c} | {first[c]['metadata_bits']} |" for c in conns if c in first]
    lines += ["", "## Workloads", ""]
    for r in doc["rows"]:
        lines += [f"- {n}" for n in r["notes"]]
    with open(paths[2], "w") as f:
        f.write("\n".join(lines) + "\n")
    return paths
