"""Ideal-work ("potential") model of the value-based designs (pure NumPy).

Work is counted per MAC in single-bit products, as in the reference family description:

============  ==========================  ===============================================
design        work per MAC                source
============  ==========================  ===============================================
baseline      ``Wa * Ww``                 DaDianNao-like bit-parallel MAC
stripes       ``p * Ww``                  Stripes (Judd et al., MICRO 2016); ``p`` per layer
dstripes      ``width_group(a) * Ww``     Dynamic Stripes (Delmas et al., arXiv 1706.00504)
loom          ``width_group(a) * Pw``     Loom (Sharify et al., DAC 2018)
pragmatic     ``terms(a) * Ww``           Bit-Pragmatic (Albericio et al., MICRO 2017)
laconic       ``terms(a) * terms(w)``     Laconic (Sharify et al., ISCA 2019)
============  ==========================  ===============================================

The ideal ("potential") speedup of a design is the total baseline work over the total
design work: it ignores synchronisation between lanes, columns and tiles, which the cycle
models account for. It is an upper bound at equal peak throughput.

Conventions
-----------
* ``act`` and ``wgt`` are the operands already lowered to MAC pairs: ``act[..., k]`` is
  multiplied by ``wgt[..., k]`` (they broadcast against each other, e.g. an im2col matrix
  ``(windows, 1, K)`` against the filters ``(1, filters, K)``). The per-MAC work has the
  broadcast shape.
* ``p`` (Stripes) and ``Pw`` (Loom) are per-layer precisions. When not given they are the
  lossless ones measured on the data (the widest value of the tensor), i.e. the profile of
  this very input; the papers use profiled precisions that may be lower at no accuracy loss.
* ``width_group(a)`` is the precision of the widest activation of its group of ``group``
  consecutive activations along the last (``k``) axis -- one brick's lanes for a 16-lane
  PE; ``group=1`` gives per-value precision. A last, partial group is its own group.
  Precision is at least 1 bit (an all-zero group still costs one cycle), see
  :func:`termwise.golden.terms.group_precision`.
* ``terms`` follows ``encoding``: ``'booth'`` (radix-4 modified Booth of the two's
  complement value, the papers' choice), ``'csd'`` (canonical signed digit, minimal) or
  ``'plain'`` (oneffsets of the magnitude, Bit-Pragmatic without Booth). A zero operand has
  no terms and costs no work in Pragmatic and Laconic: the potential counts effectual work
  only (the cycle models charge at least one cycle per brick). Always report the encoding.
"""

import numpy as np

from .arch import model
from .terms import check_range
from .work import WorkSettings, grouped_precision, layer_precision

__all__ = [
    "DESIGNS", "layer_precision", "grouped_precision", "mac_work", "total_work",
    "potential_speedup", "potential_report",
]


def _designs_with_ideal_work() -> tuple:
    """The registered designs (:func:`termwise.gen.designs.archs`, in its order) whose
    golden model states an ``ideal_work`` (:mod:`termwise.golden.work`): a new design's
    model that has one is reported without an edit here."""
    from ..gen.designs import archs
    return tuple(a for a in archs() if hasattr(model(a), "ideal_work"))


#: The designs whose ideal work this model reports by default, from the registry.
DESIGNS = _designs_with_ideal_work()


def mac_work(act, wgt, design: str, *, act_bits: int = 16, wgt_bits: int = 16,
             act_signed: bool = False, wgt_signed: bool = True, encoding: str = "booth",
             act_precision: int | None = None, wgt_precision: int | None = None,
             group: int = 16) -> np.ndarray:
    """Single-bit-product work of every MAC ``act[..., k] * wgt[..., k]`` for ``design``.

    Parameters
    ----------
    act, wgt : array_like of int
        Lowered operands, broadcastable against each other, within their ranges.
    design : str
        One of :data:`DESIGNS`.
    act_bits, wgt_bits : int
        ``Wa`` and ``Ww``, the bit-parallel widths.
    act_signed, wgt_signed : bool
    encoding : {'booth', 'csd', 'plain'}
        Term encoding for Pragmatic (activations) and Laconic (both operands).
    act_precision : int, optional
        Stripes' per-layer ``p``; default the lossless :func:`layer_precision` of ``act``.
    wgt_precision : int, optional
        Loom's per-layer ``Pw``; default the lossless :func:`layer_precision` of ``wgt``.
    group : int
        Activations per precision group (Dynamic Stripes, Loom), along the last axis.

    Returns
    -------
    numpy.ndarray of int64 with the broadcast shape of ``act`` and ``wgt``.
    """
    a = check_range(act, act_bits, act_signed)
    w = check_range(wgt, wgt_bits, wgt_signed)
    shape = np.broadcast_shapes(a.shape, w.shape)
    if act_precision is None:
        act_precision = layer_precision(a, act_bits, act_signed)
    if not 1 <= act_precision <= act_bits:
        raise ValueError(f"act_precision must be in 1..{act_bits}, got {act_precision}")
    if wgt_precision is None:
        wgt_precision = layer_precision(w, wgt_bits, wgt_signed)
    if not 1 <= wgt_precision <= wgt_bits:
        raise ValueError(f"wgt_precision must be in 1..{wgt_bits}, got {wgt_precision}")
    settings = WorkSettings(act_bits, wgt_bits, act_signed, wgt_signed, encoding, group,
                            act_precision, wgt_precision)
    try:
        formula = model(design).ideal_work
    except (ValueError, AttributeError):
        raise ValueError(f"unknown design {design!r}; expected one of {DESIGNS}") from None
    work = np.asarray(formula(a, w, settings), dtype=np.int64)
    return np.broadcast_to(work, shape).copy()


def total_work(act, wgt, design: str, **kwargs) -> int:
    """Sum of :func:`mac_work` over every MAC."""
    return int(mac_work(act, wgt, design, **kwargs).sum())


def potential_speedup(act, wgt, design: str, **kwargs) -> float:
    """Ideal speedup: baseline work / design work (``inf`` when the design has no
    effectual work, e.g. Pragmatic on all-zero activations; ``nan`` with no MACs)."""
    base = total_work(act, wgt, "baseline", **kwargs)
    work = total_work(act, wgt, design, **kwargs)
    if work == 0:
        return float("inf") if base else float("nan")
    return base / work


def potential_report(act, wgt, designs=DESIGNS, **kwargs) -> dict:
    """Work and ideal speedup of each design, with the settings that produced them.

    Returns
    -------
    dict
        ``{"encoding": ..., "act_bits": ..., "wgt_bits": ..., "group": ..., "macs": n,
        "designs": {design: {"work": int, "work_per_mac": float, "speedup": float}}}``.
    """
    base = total_work(act, wgt, "baseline", **kwargs)
    macs = int(np.prod(np.broadcast_shapes(np.shape(act), np.shape(wgt)), dtype=np.int64))
    out = {}
    for design in designs:
        work = total_work(act, wgt, design, **kwargs)
        out[design] = {
            "work": work,
            "work_per_mac": work / macs if macs else float("nan"),
            "speedup": (base / work) if work else (float("inf") if base else float("nan")),
        }
    return {
        "encoding": kwargs.get("encoding", "booth"),
        "act_bits": kwargs.get("act_bits", 16),
        "wgt_bits": kwargs.get("wgt_bits", 16),
        "group": kwargs.get("group", 16),
        "macs": macs,
        "designs": out,
    }
