"""Diffy's delta statistics of a traced workload: how many terms (Booth digits) an
activation and its delta along x (``a(x) - a(x - 1 window)``) cost, per layer and in
total; the imaging traces (:mod:`.dncnn`, :mod:`.ffdnet`) store them in their metadata
and ``termwise shapeshifter`` prints them."""

from __future__ import annotations

import numpy as np

__all__ = ["layer_deltas", "delta_term_stats", "delta_table"]


def _lowered(layer):
    """The layer's im2col values (channel-major rows, no brick padding: these are
    statistics of the values, not of the tile's bricks)."""
    from ..netsim import lowered_operands
    return lowered_operands(layer, order="channel")


def layer_deltas(layer) -> tuple[np.ndarray, np.ndarray]:
    """(im2col activations, deltas along x) of a conv layer, both shaped (G, N, OH, OW, K):
    ``delta(x) = a(x) - a(x - 1 window)`` (the window ``stride`` input columns to the
    left), predecessor 0 at the start of every output row."""
    a, _ = _lowered(layer)
    n = layer.act.shape[0]
    oh, ow = layer.out_hw
    a = a.reshape(a.shape[0], n, oh, ow, a.shape[-1])
    d = a.copy()
    d[:, :, :, 1:] -= a[:, :, :, :-1]
    return a, d


def delta_term_stats(layer, encoding: str = "booth") -> dict:
    """Mean terms per im2col activation vs per delta (deltas: ``bits + 1``-bit signed);
    fully-connected layers have no x dimension (``None`` deltas)."""
    from ..terms import term_count
    bits = layer.bits
    if layer.kind != "conv":
        a, _ = _lowered(layer)
        ta = float(term_count(a, bits, encoding, signed=True).mean())
        return {"name": layer.name, "act_terms": ta, "delta_terms": None, "ratio": None,
                "act_zero": float((a == 0).mean()), "delta_zero": None}
    a, d = layer_deltas(layer)
    ta = term_count(a, bits, encoding, signed=True)
    td = term_count(d, bits + 1, encoding, signed=True)
    mta, mtd = float(ta.mean()), float(td.mean())
    return {"name": layer.name, "act_terms": mta, "delta_terms": mtd,
            "ratio": mtd / mta if mta else None, "act_zero": float((a == 0).mean()),
            "delta_zero": float((d == 0).mean()), "values": int(a.size)}


def delta_table(workload, encoding: str = "booth") -> dict:
    """Per-layer statistics and two totals over the conv layers: ``total`` weighted by the
    layer's im2col values, ``total_macs`` weighted by its MACs (each im2col value meets
    ``K / groups`` filters: the work of a term-serial design such as Pragmatic / Diffy)."""
    rows = [delta_term_stats(l, encoding) for l in workload.layers]
    for r, l in zip(rows, workload.layers):
        r["macs"] = l.macs
    conv = [r for r in rows if r["delta_terms"] is not None]

    def total(key):
        tw = sum(r[key] for r in conv)
        if not tw:
            return {"act_terms": None, "delta_terms": None, "ratio": None}
        ta = sum(r["act_terms"] * r[key] for r in conv) / tw
        td = sum(r["delta_terms"] * r[key] for r in conv) / tw
        return {"act_terms": ta, "delta_terms": td, "ratio": td / ta if ta else None}
    return {"workload": workload.name, "bits": workload.bits, "encoding": encoding,
            "layers": rows, "total": total("values"), "total_macs": total("macs")}
