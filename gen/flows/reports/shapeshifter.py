"""ShapeShifter report: off-chip footprint / traffic and Stripes-style compute cycles of a
workload, fixed width vs per-group widths (:mod:`termwise.golden.shapeshifter`).

Per layer (``Layer`` of :mod:`termwise.golden.workloads`):

* **Storage order.** Activations are grouped along the channels (NHWC order: a group is
  ``G`` consecutive channels of one pixel, then the next pixel: the order a tile's lanes
  consume them; for layers with fewer than ``G`` channels a group spans pixels).
  Weights are grouped in the lowered order (per filter, ``C*R*S`` channel-major, as
  ``wgt.reshape(K, -1)`` that the tile streams).
* **Formats.** Weights: widths fixed offline per group (signed). Activations: widths
  detected per group at run time by the producer's output stage; a layer's input is stored
  unsigned when the trace has no negative input value (ReLU/ReLU6 outputs), else signed.
  Every group has a header of ``ceil(log2(bits))`` bits.
* **Traffic** of a layer = its input activations read + its weights read + its outputs
  written, each once; the outputs written are modelled by the *next* layer's recorded input
  (the stored form of this layer's output, same format); the last layer's output is not
  counted. The network totals sum the layers.
* **Compute cycles** at equal peak throughput (256 MAC/cycle at the workload's width, 16
  filters x 16 lanes; hardware as wide as the data): baseline (bit-parallel, one window per
  cycle): ``G * ceil(kg/16) * M * ceil(Kin/16)``; Stripes (``W`` windows in parallel, 16 at
  16 bits and 8 at 8 bits, ``p`` cycles per brick, ``p`` the layer's
  activation precision, :func:`termwise.golden.netsim.layer_runtime`'s rule):
  ``G * ceil(kg/16) * ceil(M/W) * ceil(Kin/16) * p``; ShapeShifter-Stripes (Dynamic
  Stripes whose precision group is the ShapeShifter group, along the im2col rows the tile
  consumes): the ``W`` windows of a window group run in lock step, so the bricks of inner
  group ``j`` take ``max over the W windows of width(window, j)`` cycles each, at least 1.
"""

from __future__ import annotations

import csv
import json
import math
import os

import numpy as np

from ....golden.shapeshifter import GROUP_RANGE, header_bits, tensor_footprint
from ....golden.terms import precision_needed

__all__ = ["tile_cycles", "layer_report", "workload_report", "write_reports", "DESIGNS",
           "geometry"]

#: The designs of the study: the baseline, Stripes, and Stripes at ShapeShifter's widths.
DESIGNS = ("baseline", "stripes", "ss_stripes")


def geometry(bits: int = 16) -> tuple[int, int, int]:
    """``(filters, windows, lanes)`` of the equal-peak Stripes tile the study runs on: its
    ``termwise sim`` preset on ``bits``-bit hardware (16 x 16 x 16 at 16 bits, 16 x 8 x 16
    at 8 bits, where a brick takes 8 cycles)."""
    from ....golden.netsim import design_config
    cfg = design_config(DESIGNS[1], bits)
    return cfg.filters, cfg.windows, cfg.lanes


def _nhwc(act) -> np.ndarray:
    act = np.asarray(act)
    return act.transpose(0, 2, 3, 1) if act.ndim == 4 else act


def _act_signed(layer) -> bool:
    return bool(layer.act_signed and (np.asarray(layer.act) < 0).any())


def tile_cycles(layer, group: int, a=None) -> dict:
    """Baseline, Stripes and ShapeShifter-Stripes cycles of one layer (see module doc)."""
    from ....golden.netsim import lowered_operands
    from ....golden.potential import layer_precision
    if a is None:
        # ShapeShifter's groups run along the channel-major im2col rows (no brick padding).
        a, _ = lowered_operands(layer, order="channel")
    g, m, kin = a.shape
    filters, windows, lanes = geometry(layer.bits)
    kg = (layer.wgt.shape[0] // layer.groups) if layer.kind == "conv" else layer.wgt.shape[0]
    fg = math.ceil(kg / filters)
    bricks = math.ceil(kin / lanes)
    bits = layer.bits
    p = min(layer.act_precision or layer_precision(layer.act, bits, True), bits)
    base = g * fg * m * bricks
    stripes = g * fg * math.ceil(m / windows) * bricks * p
    # ShapeShifter widths of the im2col rows, groups of `group` along Kin
    ng = math.ceil(kin / group)
    mp = math.ceil(m / windows) * windows
    ap = np.zeros((g, mp, ng * group), dtype=np.int64)
    ap[:, :m, :kin] = a
    signed = _act_signed(layer)
    wid = precision_needed(ap.reshape(g, mp, ng, group), bits, signed).max(axis=3)
    wmax = wid.reshape(g, mp // windows, windows, ng).max(axis=2)      # (g, wg, ng)
    # An all-zero group still takes a cycle per brick, as in Dynamic Stripes (at least 1).
    wmax = np.maximum(wmax, 1)
    steps = np.array([math.ceil(min(group, kin - j * group) / lanes) for j in range(ng)])
    ss = int(fg * (wmax * steps).sum())
    return {"baseline": int(base), "stripes": int(stripes), "ss_stripes": ss, "p": int(p),
            "ss_mean_width": float(wid[:, :m].mean())}


def layer_report(layer, next_layer, group: int) -> dict:
    bits = layer.bits
    s_in = _act_signed(layer)
    act = tensor_footprint(_nhwc(layer.act), bits, s_in, group)
    wgt = tensor_footprint(np.asarray(layer.wgt).reshape(layer.wgt.shape[0], -1), bits, True,
                           group)
    parts = {"act": act, "wgt": wgt}
    if next_layer is not None:
        parts["out"] = tensor_footprint(_nhwc(next_layer.act), bits, _act_signed(next_layer),
                                        group)
    row = {"name": layer.name, "shape": layer.shape_text(), "macs": layer.macs}
    for k, v in parts.items():
        row[f"{k}_fixed_bits"] = v.baseline_bits
        row[f"{k}_ss_bits"] = v.shapeshifter_bits
        row[f"{k}_ratio"] = v.ratio
        row[f"{k}_mean_width"] = v.mean_width
    row["act_signed"] = s_in
    row["fixed_bits"] = sum(v.baseline_bits for v in parts.values())
    row["ss_bits"] = sum(v.shapeshifter_bits for v in parts.values())
    row["ratio"] = row["ss_bits"] / row["fixed_bits"] if row["fixed_bits"] else 1.0
    row["footprint_fixed_bits"] = act.baseline_bits + wgt.baseline_bits
    row["footprint_ss_bits"] = act.shapeshifter_bits + wgt.shapeshifter_bits
    row["cycles"] = tile_cycles(layer, group)
    return row


def _check_groups(groups) -> list[int]:
    from ...config import ConfigError
    out = []
    for g in groups:
        if isinstance(g, bool) or not isinstance(g, (int, np.integer)) or \
                not GROUP_RANGE[0] <= g <= GROUP_RANGE[1]:
            raise ConfigError("group", f"must be integers in {GROUP_RANGE[0]}..{GROUP_RANGE[1]}"
                                       f", got {g!r}")
        out.append(int(g))
    if not out:
        raise ConfigError("group", "give at least one group size")
    return list(dict.fromkeys(out))


def workload_report(workload, groups=(16,), log=None) -> dict:
    """The report document of ``workload`` for each group size in ``groups``."""
    groups = _check_groups(groups)
    layers = workload.layers
    doc = {"workload": workload.name, "precision": workload.bits,
           "synthetic": workload.synthetic, "notes": list(workload.notes),
           "header_bits": header_bits(workload.bits), "groups": {},
           "equal_peak_throughput": f"baseline, Stripes and ShapeShifter-Stripes at 256 "
                                    f"{workload.bits}-bit MAC/cycle on {workload.bits}-bit "
                                    f"hardware (16 filters x 16 lanes; {geometry(workload.bits)[1]} "
                                    f"windows bit-serially)",
           "traffic_model": "per layer: input activations read + weights read + outputs "
                            "written (= next layer's recorded input; last layer's output "
                            "not counted), each once",
           "storage_order": "activations NHWC (groups along channels), weights per filter "
                            "in C*R*S order"}
    for g in groups:
        rows = []
        for i, layer in enumerate(layers):
            nxt = layers[i + 1] if i + 1 < len(layers) else None
            rows.append(layer_report(layer, nxt, g))
            if log:
                log(f"  group {g:3d} [{i + 1:3d}/{len(layers)}] {layer.name:14s} traffic "
                    f"{rows[-1]['ratio']:.3f}")
        tot = {}
        for key in ("fixed_bits", "ss_bits", "footprint_fixed_bits", "footprint_ss_bits",
                    "act_fixed_bits", "act_ss_bits", "wgt_fixed_bits", "wgt_ss_bits",
                    "out_fixed_bits", "out_ss_bits", "macs"):
            tot[key] = int(sum(r.get(key, 0) for r in rows))
        tot["ratio"] = tot["ss_bits"] / tot["fixed_bits"] if tot["fixed_bits"] else 1.0
        tot["footprint_ratio"] = (tot["footprint_ss_bits"] / tot["footprint_fixed_bits"]
                                  if tot["footprint_fixed_bits"] else 1.0)
        for k in ("act", "wgt", "out"):
            f = tot[f"{k}_fixed_bits"]
            tot[f"{k}_ratio"] = tot[f"{k}_ss_bits"] / f if f else 1.0
        cyc = {d: int(sum(r["cycles"][d] for r in rows))
               for d in DESIGNS}
        tot["cycles"] = cyc
        tot["speedup"] = {d: cyc["baseline"] / c if c else 0.0 for d, c in cyc.items()}
        doc["groups"][str(g)] = {"layers": rows, "total": tot}
    return doc


def _f(x, nd=3):
    return f"{x:.{nd}f}"


def _markdown(doc) -> str:
    out = [f"# ShapeShifter: {doc['workload']} at {doc['precision']} bits", ""]
    if doc["synthetic"]:
        out += ["**synthetic values**", ""]
    out += [f"- {n}" for n in doc["notes"]]
    out += [f"- group header: {doc['header_bits']} bits; {doc['storage_order']}",
            f"- traffic: {doc['traffic_model']}",
            f"- cycles: {doc['equal_peak_throughput']}; SS-Stripes = Dynamic Stripes with the "
            "ShapeShifter group as its precision group (groups along the im2col rows, 16 "
            "windows in lock step)",
            "- paper (MICRO 2019): off-chip traffic to 33% (8b) and 36% (16b)", "",
            "## Totals", "",
            "| group | traffic fixed (Mb) | traffic SS (Mb) | traffic ratio | act | wgt | out | "
            "footprint ratio | Stripes speedup | SS-Stripes speedup |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for g, d in doc["groups"].items():
        t = d["total"]
        out.append(f"| {g} | {t['fixed_bits'] / 1e6:.2f} | {t['ss_bits'] / 1e6:.2f} | "
                   f"{_f(t['ratio'])} | {_f(t['act_ratio'])} | {_f(t['wgt_ratio'])} | "
                   f"{_f(t['out_ratio'])} | {_f(t['footprint_ratio'])} | "
                   f"{t['speedup']['stripes']:.2f}x | {t['speedup']['ss_stripes']:.2f}x |")
    for g, d in doc["groups"].items():
        out += ["", f"## Per layer, group {g}", "",
                "| layer | shape | act ratio | act width | wgt ratio | out ratio | traffic "
                "ratio | p | Stripes | SS-Stripes |", "|---|---|---|---|---|---|---|---|---|---|"]
        for r in d["layers"]:
            c = r["cycles"]
            out.append(f"| {r['name']} | {r['shape']} | {_f(r['act_ratio'])} | "
                       f"{r['act_mean_width']:.2f} | {_f(r['wgt_ratio'])} | "
                       f"{_f(r['out_ratio']) if 'out_ratio' in r else '-'} | {_f(r['ratio'])} |"
                       f" {c['p']} | {c['baseline'] / c['stripes']:.2f}x | "
                       f"{c['baseline'] / c['ss_stripes']:.2f}x |")
    return "\n".join(out) + "\n"


CSV_FIELDS = ("group", "name", "shape", "macs", "act_signed", "act_fixed_bits", "act_ss_bits",
              "act_ratio", "act_mean_width", "wgt_fixed_bits", "wgt_ss_bits", "wgt_ratio",
              "wgt_mean_width", "out_fixed_bits", "out_ss_bits", "out_ratio", "fixed_bits",
              "ss_bits", "ratio", "p", "baseline_cycles", "stripes_cycles",
              "ss_stripes_cycles")


def write_reports(out_dir, doc, stem="shapeshifter") -> list[str]:
    os.makedirs(out_dir, exist_ok=True)
    paths = [os.path.join(out_dir, f"{stem}.{e}") for e in ("json", "csv", "md")]
    with open(paths[0], "w") as f:
        json.dump(doc, f, indent=1)
    with open(paths[1], "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        w.writeheader()
        for g, d in doc["groups"].items():
            for r in d["layers"] + [dict(d["total"], name="TOTAL", shape="")]:
                c = r["cycles"]
                w.writerow(dict(r, group=g, p=c.get("p", ""), baseline_cycles=c["baseline"],
                                stripes_cycles=c["stripes"], ss_stripes_cycles=c["ss_stripes"]))
    with open(paths[2], "w") as f:
        f.write(_markdown(doc))
    return paths
