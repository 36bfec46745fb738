"""Problem keys: the MIOpen-style strings the perf-db files its results under.

A layer's key spells out everything the cycle models read about it::

    C-H-W-RxS-K-OH-OW-N-pP-sS-dD-gG-bB-aA[u|s]-wW-vHASH
    8-8-8-3x3-16-4-4-360-p1-s2-d1-g1-b8-a6u-w4-v0c1d2e3f4a5b6

(input channels, height, width, kernel, filters, output height and width, batch, padding,
stride, dilation, groups, value bits, activation precision with ``u`` for unsigned / ``s``
for two's complement activations, weight precision, and the values' hash). A
fully-connected layer is a 1x1 convolution on a 1x1 image (``256-1-1-1x1-10-1-1-360-...``).
The cycle models depend on the operand values themselves (term counts, precisions per
brick, zeros), not on summary statistics, so the hash is of the values: the sha256 of the
activations and weights as little-endian int64 (shapes included), first 12 hex digits.
Two layers with one key therefore have the same cycles on every configuration.

A synthesis flow's key (its results depend on the tile only) is ``synth-TARGET-clkNS``,
e.g. ``synth-asic-clk10``.
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["layer_key", "layer_detail", "synth_key", "values_hash"]


def values_hash(act, wgt) -> str:
    """The first 12 hex digits of the sha256 of ``act`` and ``wgt`` (shape and values, as
    little-endian int64)."""
    h = hashlib.sha256()
    for array in (act, wgt):
        a = np.ascontiguousarray(np.asarray(array), dtype="<i8")
        h.update(repr(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:12]


def layer_detail(layer) -> dict:
    """The fields of a layer's key, named (``problem.detail`` in the perf-db).

    Parameters
    ----------
    layer : termwise.golden.workloads.Layer
        A convolution or fully-connected layer with integer operands.
    """
    act, wgt = np.asarray(layer.act), np.asarray(layer.wgt)
    if layer.kind == "fc":
        n, c = act.shape
        h = w = r = s = oh = ow = 1
        k = wgt.shape[0]
    else:
        n, c, h, w = act.shape
        k, _, r, s = wgt.shape
        oh, ow = layer.out_hw
    return {"C": int(c), "H": int(h), "W": int(w), "R": int(r), "S": int(s), "K": int(k),
            "OH": int(oh), "OW": int(ow), "N": int(n), "padding": int(layer.padding),
            "stride": int(layer.stride), "dilation": int(layer.dilation),
            "groups": int(layer.groups), "bits": int(layer.bits),
            "act_precision": None if layer.act_precision is None else int(layer.act_precision),
            "act_signed": bool(layer.act_signed),
            "wgt_precision": None if layer.wgt_precision is None else int(layer.wgt_precision),
            "values": values_hash(act, wgt)}


def layer_key(layer) -> str:
    """The MIOpen-style problem string of ``layer`` (see the module's docstring)."""
    d = layer_detail(layer)
    ap = "x" if d["act_precision"] is None else d["act_precision"]
    wp = "x" if d["wgt_precision"] is None else d["wgt_precision"]
    return (f"{d['C']}-{d['H']}-{d['W']}-{d['R']}x{d['S']}-{d['K']}-{d['OH']}-{d['OW']}-"
            f"{d['N']}-p{d['padding']}-s{d['stride']}-d{d['dilation']}-g{d['groups']}-"
            f"b{d['bits']}-a{ap}{'s' if d['act_signed'] else 'u'}-w{wp}-v{d['values']}")


def synth_key(target: str, clock_ns: float) -> str:
    """The problem string of a synthesis flow: ``synth-asic-clk10`` (``clock_ns`` as
    ``%g``)."""
    return f"synth-{target}-clk{clock_ns:g}"
