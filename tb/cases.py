"""Stimulus for the tile regressions: named suites of runs, reproducible from a seed.

Expected values never come from here: the testbench asks the golden models
(:mod:`termwise.golden.tile_model`, :mod:`termwise.golden.cycles`,
:mod:`termwise.golden.primitives`) for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..golden.fixedpoint import value_range

__all__ = ["Case", "SUITES", "suite", "conv_layer"]


@dataclass
class Case:
    name: str
    act: np.ndarray            # (windows, K)
    wgt: np.ndarray            # (filters, K)
    precision: int | None = None
    reload_weights: bool = True
    meta: dict = field(default_factory=dict)


def _precision_values(rng, cfg, shape, precision):
    """Random activations that fit in ``precision`` bits (the host's quantisation)."""
    lo, hi = value_range(precision, cfg.act_signed)
    return rng.integers(lo, hi + 1, size=shape, dtype=np.int64)


def _weights(rng, cfg, shape):
    lo, hi = value_range(cfg.wgt_bits, True)
    return rng.integers(lo, hi + 1, size=shape, dtype=np.int64)


def _precisions(cfg):
    return list(range(1 if not cfg.act_signed else 2, cfg.act_bits + 1)) if cfg.serial else [None]


def random_cases(cfg, rng, count: int = 8) -> list[Case]:
    cases = []
    for i in range(count):
        k = int(rng.integers(1, cfg.depth * cfg.lanes + 1)) if i % 2 else \
            int(rng.integers(1, min(4, cfg.depth) * cfg.lanes + 1))
        p = int(rng.choice(_precisions(cfg))) if cfg.serial else None
        act = _precision_values(rng, cfg, (cfg.windows, k), p or cfg.act_bits)
        cases.append(Case(f"random{i}_k{k}_p{p}", act, _weights(rng, cfg, (cfg.filters, k)), p))
    return cases


def corner_cases(cfg, rng) -> list[Case]:
    w, f, lanes, a_bits = cfg.windows, cfg.filters, cfg.lanes, cfg.act_bits
    a_lo, a_hi = value_range(a_bits, cfg.act_signed)
    w_lo, w_hi = value_range(cfg.wgt_bits, True)
    full_k = cfg.depth * lanes
    full = cfg.act_bits if cfg.serial else None
    cases = [
        Case("all_zero", np.zeros((w, 2 * lanes), np.int64), np.zeros((f, 2 * lanes), np.int64),
             full),
        Case("zero_act", np.zeros((w, lanes), np.int64), _weights(rng, cfg, (f, lanes)), full),
        Case("all_max_full_depth", np.full((w, full_k), a_hi), np.full((f, full_k), w_hi), full),
        Case("most_negative", np.full((w, full_k), a_lo), np.full((f, full_k), w_lo), full),
        Case("max_times_most_negative", np.full((w, lanes), a_hi), np.full((f, lanes), w_lo),
             full),
        Case("single_brick", _precision_values(rng, cfg, (w, lanes), a_bits),
             _weights(rng, cfg, (f, lanes)), full),
        Case("single_value", _precision_values(rng, cfg, (w, 1), a_bits),
             _weights(rng, cfg, (f, 1)), full),
        Case("k_not_multiple_of_lanes", _precision_values(rng, cfg, (w, 3 * lanes + 1), a_bits),
             _weights(rng, cfg, (f, 3 * lanes + 1)), full),
    ]
    if cfg.serial:
        lowest = 2 if cfg.act_signed else 1
        cases += [
            Case(f"precision_{lowest}", _precision_values(rng, cfg, (w, 2 * lanes), lowest),
                 _weights(rng, cfg, (f, 2 * lanes)), lowest),
            Case("precision_full", _precision_values(rng, cfg, (w, 2 * lanes), a_bits),
                 _weights(rng, cfg, (f, 2 * lanes)), a_bits),
            # Values wider than P: the tile uses their P low bits, as the model says.
            Case("precision_truncates", _precision_values(rng, cfg, (w, lanes), a_bits),
                 _weights(rng, cfg, (f, lanes)), max(lowest, a_bits // 2)),
        ]
        # Reuse the weights already in the tile: only activations are reloaded.
        last = cases[-1]
        reuse = Case("weights_kept", _precision_values(rng, cfg, last.act.shape, a_bits),
                     last.wgt, a_bits, reload_weights=False)
        cases.append(reuse)
    return cases


def conv_layer(cfg, rng, *, channels=16, filters=16, size=8, kernel=3, padding=1,
               precision: int | None = None):
    """A real convolution layer's operands: activations quantised to ``precision`` bits."""
    p = precision or min(cfg.act_bits, 8)
    lo, hi = value_range(p, cfg.act_signed)
    x = rng.integers(lo, hi + 1, size=(1, channels, size, size), dtype=np.int64)
    # Post-ReLU-like sparsity: a third of the activations are zero.
    x[rng.random(x.shape) < 1 / 3] = 0
    lo, hi = value_range(min(cfg.wgt_bits, 8), True)
    w = rng.integers(lo, hi + 1, size=(filters, channels, kernel, kernel), dtype=np.int64)
    return x, w, dict(stride=1, padding=padding, dilation=1, groups=1), p


SUITES = ("random", "corners", "conv")


def suite(cfg, name: str, seed: int) -> list[Case]:
    rng = np.random.default_rng(seed)
    if name == "random":
        return random_cases(cfg, rng)
    if name == "corners":
        return corner_cases(cfg, rng)
    raise ValueError(f"suite: unknown suite {name!r} (valid: {', '.join(SUITES)})")
