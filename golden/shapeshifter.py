"""ShapeShifter (Lascorz et al., "ShapeShifter: Enabling Fine-Grain Data Width Adaptation in
Deep Learning", MICRO 2019): per-group data widths for memory traffic.

Values are stored in groups of ``group`` consecutive values (along the inner dimension, the
order the tiles consume them). Each group is stored at its own width, the bits its widest
value needs (:func:`termwise.golden.terms.group_precision`, sign bit included for signed
data, at least 1), behind a small header that carries the width
(``ceil(log2(bits))`` bits: widths 1..bits). Weights' widths are fixed offline; activations'
are detected at run time by the producing layer's output stage, with the same rule.

The model gives, per tensor and per layer, the off-chip footprint in bits against the
fixed-width baseline (``bits`` per value), and the compute cycles of a Stripes-style
time-scaling tile that processes each activation group at its stored width (Dynamic
Stripes with the ShapeShifter group as its precision group). The paper reports off-chip
traffic falling to 33% (8-bit) and 36% (16-bit) of the fixed-width baseline.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .terms import precision_needed

__all__ = ["header_bits", "group_widths", "footprint_bits", "TensorFootprint",
           "tensor_footprint", "layer_traffic", "GROUP_RANGE"]

#: Group sizes the issue asks to support.
GROUP_RANGE = (16, 256)


def header_bits(bits: int) -> int:
    """Bits of a group header naming a width in 1..bits."""
    return max(1, math.ceil(math.log2(bits)))


def _check_group(group: int) -> int:
    if isinstance(group, bool) or not isinstance(group, int) or \
            not GROUP_RANGE[0] <= group <= GROUP_RANGE[1]:
        raise ValueError(f"group: must be an integer in {GROUP_RANGE[0]}..{GROUP_RANGE[1]}, "
                         f"got {group!r}")
    return group


def group_widths(values, bits: int, signed: bool, group: int) -> np.ndarray:
    """Stored width of every group of ``group`` consecutive values of the flattened tensor
    (the last group is zero padded)."""
    _check_group(group)
    flat = np.asarray(values, dtype=np.int64).ravel()
    pad = (-flat.size) % group
    flat = np.pad(flat, (0, pad)).reshape(-1, group)
    return precision_needed(flat, bits, signed).max(axis=1)


def footprint_bits(values, bits: int, signed: bool, group: int) -> int:
    """Bits to store ``values`` in ShapeShifter format (payloads at group widths, headers).
    Padding values of the last group are not stored."""
    widths = group_widths(values, bits, signed, group)
    n = np.asarray(values).size
    full = int(widths.sum()) * group
    last_pad = (-n) % group
    return full - last_pad * int(widths[-1]) + len(widths) * header_bits(bits) if n else 0


@dataclass(frozen=True)
class TensorFootprint:
    values: int
    bits: int
    baseline_bits: int         # values * bits
    shapeshifter_bits: int
    mean_width: float          # average stored width (payload only)

    @property
    def ratio(self) -> float:
        """ShapeShifter footprint / fixed-width footprint."""
        return self.shapeshifter_bits / self.baseline_bits if self.baseline_bits else 1.0


def tensor_footprint(values, bits: int, signed: bool, group: int) -> TensorFootprint:
    values = np.asarray(values)
    ss = footprint_bits(values, bits, signed, group)
    widths = group_widths(values, bits, signed, group) if values.size else np.zeros(1)
    return TensorFootprint(int(values.size), bits, int(values.size) * bits, ss,
                           float(widths.mean()))


def layer_traffic(act, wgt, out, *, bits: int, act_signed: bool, group: int) -> dict:
    """Off-chip traffic of one layer: input activations read, weights read, outputs written
    (each once), fixed width vs ShapeShifter; returns a dict of bits and the ratio."""
    parts = {"act": tensor_footprint(act, bits, act_signed, group),
             "wgt": tensor_footprint(wgt, bits, True, group),
             "out": tensor_footprint(out, bits, act_signed, group)}
    base = sum(p.baseline_bits for p in parts.values())
    ss = sum(p.shapeshifter_bits for p in parts.values())
    return {"baseline_bits": base, "shapeshifter_bits": ss, "ratio": ss / base if base else 1.0,
            **{f"{k}_ratio": v.ratio for k, v in parts.items()},
            **{f"{k}_mean_width": v.mean_width for k, v in parts.items()}}
