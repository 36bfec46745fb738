"""Stimulus for the tile regressions: named suites of runs, reproducible from a seed.

Expected values never come from here: the testbench asks the golden models
(:mod:`termwise.golden.tile_model`, :mod:`termwise.golden.cycles`,
:mod:`termwise.golden.primitives`) for them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..golden.twos_complement import value_range

__all__ = ["Case", "SUITES", "suite", "conv_layer", "fc_layers"]


@dataclass
class Case:
    name: str
    act: np.ndarray            # (windows, K)
    wgt: np.ndarray            # (filters, K)
    precision: int | None = None        # runtime activation precision (if the arch has one)
    reload_weights: bool = True
    wgt_precision: int | None = None    # runtime weight precision (if the arch has one)
    stage: dict | None = None           # output-stage registers: multiplier, shift, cap
    bias: np.ndarray | None = None      # (filters,) with cfg.bias
    residual: np.ndarray | None = None  # (windows, filters) with cfg.residual
    act_signed: bool = True             # the run's act_signed register
    # Command fields sent as they are, past runtime_values' validation (the edges suite:
    # e.g. a precision of 0 or wider than the datapath); the golden models read them as the
    # tile promises to (golden/registers.py).
    registers: dict | None = None

    def runtime(self, cfg) -> dict:
        sign = {"act_signed": self.act_signed} if "act_signed" in cfg.runtime else {}
        rt = cfg.runtime_values(
            self.precision if "precision" in cfg.runtime else None,
            self.wgt_precision if "wgt_precision" in cfg.runtime else None,
            **sign, **(self.stage or {}))
        return {**rt, **(self.registers or {})}


#: Both kinds of run every integer tile executes (its ``act_signed`` register).
SIGNEDNESS = (True, False)


def _precision_values(rng, cfg, shape, precision, signed: bool = True):
    """Random activations that fit in ``precision`` bits of the run's signedness (the
    host's quantisation)."""
    lo, hi = value_range(precision, signed)
    return rng.integers(lo, hi + 1, size=shape, dtype=np.int64)


def _weights(rng, cfg, shape, bits=None):
    lo, hi = value_range(bits or cfg.wgt_bits, True)
    return rng.integers(lo, hi + 1, size=shape, dtype=np.int64)


def _act_precision_runtime(cfg) -> bool:
    return "precision" in cfg.runtime


def _wgt_precision_runtime(cfg) -> bool:
    return "wgt_precision" in cfg.runtime


def random_cases(cfg, rng, count: int = 8) -> list[Case]:
    """Random operands; with runtime precisions, random precisions too. Activations are
    drawn at a random width so data-dependent designs see varied step lengths; signed and
    unsigned runs alternate (unsigned ones have odd indexes)."""
    cases = []
    for i in range(count):
        signed = SIGNEDNESS[i % 2]
        k = int(rng.integers(1, cfg.depth * cfg.lanes + 1)) if i % 2 else \
            int(rng.integers(1, min(4, cfg.depth) * cfg.lanes + 1))
        width = int(rng.integers(1, cfg.act_bits + 1))
        p = width if _act_precision_runtime(cfg) else None
        pw = int(rng.integers(2, cfg.wgt_bits + 1)) if _wgt_precision_runtime(cfg) else None
        act = _precision_values(rng, cfg, (cfg.windows, k), width, signed)
        wgt = _weights(rng, cfg, (cfg.filters, k), pw or cfg.wgt_bits)
        if i == count - 1:      # sparse values: many zero terms and zero bricks
            act[rng.random(act.shape) < 0.7] = 0
        cases.append(Case(f"random{i}_k{k}_a{width}{'s' if signed else 'u'}"
                          + (f"_pw{pw}" if pw else ""), act, wgt, p, wgt_precision=pw,
                          act_signed=signed))
    return cases


def corner_cases(cfg, rng) -> list[Case]:
    """The corners of :func:`signed_corner_cases` in a signed run and in an unsigned run
    (names suffixed ``_u``)."""
    cases = []
    for signed in SIGNEDNESS:
        for case in signed_corner_cases(cfg, rng, signed):
            case.act_signed = signed
            case.name += "" if signed else "_u"
            cases.append(case)
    return cases


def signed_corner_cases(cfg, rng, signed: bool) -> list[Case]:
    """Corner runs with activations of one signedness (``signed``, the run's
    ``act_signed``)."""
    def values(shape, precision):
        return _precision_values(rng, cfg, shape, precision, signed)

    w, f, lanes, a_bits = cfg.windows, cfg.filters, cfg.lanes, cfg.act_bits
    a_lo, a_hi = value_range(a_bits, signed)
    w_lo, w_hi = value_range(cfg.wgt_bits, True)
    full_k = cfg.depth * lanes
    full = cfg.act_bits if _act_precision_runtime(cfg) else None
    cases = [
        Case("all_zero", np.zeros((w, 2 * lanes), np.int64), np.zeros((f, 2 * lanes), np.int64),
             full),
        Case("zero_act", np.zeros((w, lanes), np.int64), _weights(rng, cfg, (f, lanes)), full),
        Case("all_max_full_depth", np.full((w, full_k), a_hi), np.full((f, full_k), w_hi), full),
        Case("most_negative", np.full((w, full_k), a_lo), np.full((f, full_k), w_lo), full),
        Case("max_times_most_negative", np.full((w, lanes), a_hi), np.full((f, lanes), w_lo),
             full),
        Case("single_brick", values((w, lanes), a_bits),
             _weights(rng, cfg, (f, lanes)), full),
        Case("single_value", values((w, 1), a_bits),
             _weights(rng, cfg, (f, 1)), full),
        Case("k_not_multiple_of_lanes", values((w, 3 * lanes + 1), a_bits),
             _weights(rng, cfg, (f, 3 * lanes + 1)), full),
    ]
    # Term patterns: every other bit set (most terms for plain encodings), and alternating
    # runs (Booth's worst and best cases), both signs.
    for pattern in (0x55555555, 0xAAAAAAAA, 0x33333333):
        v = pattern & ((1 << a_bits) - 1)
        if signed and v >= 1 << (a_bits - 1):
            v -= 1 << a_bits
        wv = pattern & ((1 << cfg.wgt_bits) - 1)
        if wv >= 1 << (cfg.wgt_bits - 1):
            wv -= 1 << cfg.wgt_bits
        cases.append(Case(f"pattern_{pattern & 0xff:#04x}", np.full((w, 2 * lanes), v),
                          np.full((f, 2 * lanes), wv), full))
    # One non-zero value in an otherwise zero tile: steps driven by a single lane.
    one = np.zeros((w, 3 * lanes), np.int64)
    one[w - 1, 2 * lanes - 1] = a_lo if signed else a_hi
    cases.append(Case("single_nonzero_extreme", one, _weights(rng, cfg, (f, 3 * lanes)),
                      full))
    if _wgt_precision_runtime(cfg):
        for pw in (1, cfg.wgt_bits):
            cases.append(Case(f"wgt_precision_{pw}", values((w, lanes), a_bits),
                              _weights(rng, cfg, (f, lanes), pw), full, wgt_precision=pw))
    if _act_precision_runtime(cfg):
        cases += [
            Case("precision_1", values((w, 2 * lanes), 1),
                 _weights(rng, cfg, (f, 2 * lanes)), 1),
            Case("precision_full", values((w, 2 * lanes), a_bits),
                 _weights(rng, cfg, (f, 2 * lanes)), a_bits),
            # Values wider than P: the tile uses their P low bits, as the model says.
            Case("precision_truncates", values((w, lanes), a_bits),
                 _weights(rng, cfg, (f, lanes)), max(1, a_bits // 2)),
        ]
        # Reuse the weights already in the tile: only activations are reloaded.
        last = cases[-1]
        reuse = Case("weights_kept", values(last.act.shape, a_bits),
                     last.wgt, a_bits, reload_weights=False, wgt_precision=last.wgt_precision)
        cases.append(reuse)
    return cases


def conv_layer(cfg, rng, *, channels=16, filters=16, size=8, kernel=3, padding=1,
               precision: int | None = None, signed: bool = False):
    """A real convolution layer's operands, activations quantised to ``precision`` bits
    (unsigned, as after a ReLU, unless ``signed``) and weights to 8 (or fewer) bits;
    returns (x, w, geometry, runtime registers)."""
    p = precision or min(cfg.act_bits, 8)
    lo, hi = value_range(p, signed)
    x = rng.integers(lo, hi + 1, size=(1, channels, size, size), dtype=np.int64)
    # Post-ReLU-like sparsity: a third of the activations are zero.
    x[rng.random(x.shape) < 1 / 3] = 0
    pw = min(cfg.wgt_bits, 8)
    lo, hi = value_range(pw, True)
    w = rng.integers(lo, hi + 1, size=(filters, channels, kernel, kernel), dtype=np.int64)
    sign = {"act_signed": signed} if "act_signed" in cfg.runtime else {}
    rt = cfg.runtime_values(p if _act_precision_runtime(cfg) else None,
                            pw if _wgt_precision_runtime(cfg) else None, **sign)
    return x, w, dict(stride=1, padding=padding, dilation=1, groups=1), rt


def fc_layers(cfg, rng) -> list:
    """Fully-connected layers at batch 1 for an ``fc_columns`` tile: ``(name, x (K,),
    w (N, K), rt)``. Lengths cover one partial brick, a partial last round, and more
    rounds than one run holds (two K chunks); N one filter group and a partial second; both
    signednesses; a runtime precision below the hardware's (rounds shorter than the
    ``windows`` cycles of their weight reads) where the design has one; a long round
    followed by short ones."""
    per_run = cfg.fc_rounds * cfg.windows * cfg.lanes
    lengths = (cfg.lanes - 1, 3 * cfg.windows * cfg.lanes // 2 + 1, per_run + 2 * cfg.lanes)
    layers = []
    for i, k in enumerate(lengths):
        signed = bool(i % 2)
        p = min(cfg.act_bits, 8) if i < 2 else min(cfg.act_bits, 3)
        pw = min(cfg.wgt_bits, 8) if i != 1 else min(cfg.wgt_bits, 3)
        n = cfg.filters if i == 0 else cfg.filters + cfg.filters // 2
        x = _precision_values(rng, cfg, (k,), p, signed)
        x[rng.random(k) < 0.25] = 0
        w = _weights(rng, cfg, (n, k), pw)
        sign = {"act_signed": signed} if "act_signed" in cfg.runtime else {}
        rt = cfg.runtime_values(p if _act_precision_runtime(cfg) else None,
                                pw if _wgt_precision_runtime(cfg) else None, fc=True, **sign)
        layers.append((f"fc_k{k}_n{n}_{'s' if signed else 'u'}", x, w, rt))
    # A long round, then short ones: an unsigned first round of full-width values (137:
    # the most Booth terms of an unsigned 8-bit value, 5) against weights with the most
    # (-119: 4), so that a term-serial round outlasts the columns' weight reads, then rounds
    # nearly all zero (a design whose array frees its weight registers early starts them
    # sooner).
    k = min(3, cfg.fc_rounds) * cfg.windows * cfg.lanes
    x = np.zeros(k, np.int64)
    first = cfg.windows * cfg.lanes
    x[:first] = _precision_values(rng, cfg, (first,), cfg.act_bits, False)
    if cfg.act_bits == 8 and cfg.wgt_bits == 8:
        x[:first:3] = 137
    x[-1] = 1
    w = _weights(rng, cfg, (cfg.filters, k))
    if cfg.wgt_bits == 8:
        w[:, :first:5] = -119
    sign = {"act_signed": False} if "act_signed" in cfg.runtime else {}
    rt = cfg.runtime_values(fc=True, **sign)
    layers.append((f"fc_k{k}_long_then_short", x, w, rt))
    return layers


def fused_cases(cfg, rng, count: int = 10) -> list[Case]:
    """Runs through the fused output stage: random bias, residual and requantisation
    registers, including saturation both ways, ties for round-half-even and caps."""
    cases = []
    w, f = cfg.windows, cfg.filters
    acc_scale = 1 << (cfg.act_bits + cfg.wgt_bits - 2)
    for i in range(count):
        k = int(rng.integers(1, 4 * cfg.lanes + 1))
        base = random_cases(cfg, rng, 1)[0]
        act = _precision_values(rng, cfg, (w, k), min(cfg.act_bits, 8))
        wgt = _weights(rng, cfg, (f, k), min(cfg.wgt_bits, 8))
        stage = {}
        if cfg.out_bits:
            # Scales from "everything saturates" (i = 0) down to "many values round".
            stage["multiplier"] = int(rng.integers(0 if i == 1 else 1, 1 << 16))
            need = (k * 128 * 128 * stage["multiplier"]).bit_length() - cfg.out_bits + 1
            stage["shift"] = int(min(63, max(0, need - (3 if i == 0 else int(rng.integers(0, 3))))))
        if cfg.activation == "relu6":
            top = (1 << (cfg.out_value_bits - 1)) - 1
            stage["cap"] = int(rng.integers(0, top + 1)) if i % 3 else top
        bias = rng.integers(-acc_scale, acc_scale, f) if cfg.bias else None
        residual = rng.integers(-acc_scale, acc_scale, (w, f)) if cfg.residual else None
        cases.append(Case(f"fused{i}_k{k}", act, wgt, base.precision, True, base.wgt_precision,
                          stage, bias, residual))
    return cases


SUITES = ("random", "corners", "conv", "fused")


def suite(cfg, name: str, seed: int) -> list[Case]:
    rng = np.random.default_rng(seed)
    if name == "random":
        return random_cases(cfg, rng)
    if name == "corners":
        return corner_cases(cfg, rng)
    if name == "fused":
        return fused_cases(cfg, rng)
    raise ValueError(f"suite: unknown suite {name!r} (valid: {', '.join(SUITES)})")
