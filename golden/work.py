"""Per-operand factors of the ideal ("potential") work, shared by the per-design models.

Every design's ideal work per MAC is a product ``fa(act) * fw(wgt)`` of an activation factor
and a weight factor (docs/papers.md#ideal-potential-work), so a layer's total is
``sum_k (sum_m fa[m, k]) * (sum_n fw[n, k])``. Each golden model in
:mod:`termwise.golden.arch` that has an ideal work defines

``work_factors(cfg, a, w, rt, cache) -> (fa, fw)``
    factors of the lowered operands ``a`` (..., K) and ``w`` (..., K) on configuration
    ``cfg`` with runtime registers ``rt`` (scalars where a factor does not depend on the
    values);

``ideal_work(act, wgt, settings) -> ndarray``
    the same work per MAC on broadcast operand pairs, for :mod:`termwise.golden.potential`
    (an independent formulation the simulator's factored sums are tested against).

The helpers here compute the factors several designs share, memoised in ``cache`` (a dict
per layer) so that designs simulated together compute each once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .terms import group_precision, precision_needed, term_count

__all__ = ["WorkSettings", "layer_precision", "grouped_precision", "group_precision_of",
           "act_terms", "wgt_terms", "nonzero_weights", "MODEL_ENCODING", "signed_digits"]


@dataclass(frozen=True)
class WorkSettings:
    """How :func:`termwise.golden.potential.mac_work` counts work: operand widths and
    signedness, the term encoding, the precision group, and the per-layer precisions
    (``None``: lossless on the data)."""

    act_bits: int = 16
    wgt_bits: int = 16
    act_signed: bool = False
    wgt_signed: bool = True
    encoding: str = "booth"
    group: int = 16
    act_precision: int | None = None
    wgt_precision: int | None = None


#: Key of the runtime dict naming a model-only signed-digit encoding (``termwise sim
#: --signed-digits csd``): the designs whose hardware uses radix-4 Booth terms (Bit-Pragmatic
#: and Bit-Tactical TCLe with ``encoding = "booth"``, Laconic, Diffy) are then costed in
#: the non-adjacent-form digits of ``|x|`` (CSD), the encoding some simulators of this
#: family count. The RTL implements Booth only; a result with ``"csd"`` is a model.
MODEL_ENCODING = "signed_digits"


def signed_digits(encoding: str | None, rt) -> str:
    """The term encoding a model counts: the configuration's ``encoding`` (``None``: Booth,
    for designs whose only encoding it is), or ``"csd"`` in place of Booth when ``rt`` asks
    for it (:data:`MODEL_ENCODING`); a plain encoding is never replaced."""
    encoding = encoding or "booth"
    if encoding == "booth" and rt and rt.get(MODEL_ENCODING, "booth") != "booth":
        if rt[MODEL_ENCODING] != "csd":
            raise ValueError(f"{MODEL_ENCODING}: must be booth or csd, got {rt[MODEL_ENCODING]!r}")
        return "csd"
    return encoding


def layer_precision(values, bits: int, signed: bool) -> int:
    """Lossless per-layer precision: the bits needed by the widest value (at least 1)."""
    arr = np.asarray(values)
    if arr.size == 0:
        return 1
    return int(group_precision(arr, axis=None, bits=bits, signed=signed))


def grouped_precision(values, bits: int, signed: bool, group: int) -> np.ndarray:
    """Per-value precision of its group of ``group`` consecutive values along the last axis,
    same shape as ``values`` (each value carries its group's precision)."""
    if group < 1:
        raise ValueError(f"group must be >= 1, got {group}")
    prec = precision_needed(values, bits, signed)
    if group == 1 or prec.ndim == 0:
        return prec
    k = prec.shape[-1]
    pad = (-k) % group
    padded = np.concatenate([prec, np.ones(prec.shape[:-1] + (pad,), prec.dtype)], axis=-1)
    blocks = padded.reshape(prec.shape[:-1] + (-1, group))
    widest = blocks.max(axis=-1, keepdims=True)
    return np.broadcast_to(widest, blocks.shape).reshape(padded.shape)[..., :k]


def _memo(cache, key, fn):
    if cache is None:
        return fn()
    if key not in cache:
        cache[key] = fn()
    return cache[key]


def group_precision_of(cfg, a, signed: bool, cache=None) -> np.ndarray:
    """Activations' group precision (groups of ``cfg.lanes``: one brick's lanes);
    ``signed``: the layer's activations are two's complement (``act_signed``)."""
    return _memo(cache, ("gp", cfg.act_bits, cfg.lanes, signed),
                 lambda: grouped_precision(a, cfg.act_bits, signed, cfg.lanes))


def act_terms(cfg, a, encoding: str, signed: bool, cache=None) -> np.ndarray:
    """Terms of every activation in ``encoding``; ``signed`` as for
    :func:`group_precision_of`."""
    return _memo(cache, ("ta", cfg.act_bits, encoding, signed),
                 lambda: term_count(a, cfg.act_bits, encoding, signed=signed))


def wgt_terms(cfg, w, encoding: str, cache=None) -> np.ndarray:
    """Terms of every weight in ``encoding`` (weights are two's complement)."""
    return _memo(cache, ("tw", cfg.wgt_bits, encoding),
                 lambda: term_count(w, cfg.wgt_bits, encoding, signed=True))


def nonzero_weights(cfg, w, cache=None) -> np.ndarray:
    """``wgt_bits`` for every non-zero weight, 0 for a zero one (skipped)."""
    return _memo(cache, ("nzw", cfg.wgt_bits),
                 lambda: (np.asarray(w) != 0).astype(np.int64) * cfg.wgt_bits)
