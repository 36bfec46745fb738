"""cocotb regression of a Diffy tile (run through :func:`termwise.tb.runner.run_regression`
with ``test_module="termwise.tb.diffy_tests"``).

Diffy's command carries a ``restart`` bit per window, and a run's cost (and, when a
window 0 does not restart, its result) depends on the previous run, so the generic
:mod:`.tile_tests` does not fit. Suites:

``random``
    Chains of runs over consecutive windows of one activation matrix (weights loaded once
    per chain, same K): random restart bits, window 0 of a chain's first run restarting,
    the others at random; random-width, sparse and smooth (small-delta) data.
``corners``
    The generic corner cases (:func:`termwise.tb.cases.corner_cases`, each restarting
    window 0, the other windows' bits random), and chains at the delta extremes (+-(2**act_bits
    - 1) for unsigned, +-(2**act_bits - 1) for signed: most negative next to maximum).
``conv``
    A real 3x3 convolution (:func:`termwise.tb.cases.conv_layer`) and a smooth one lowered
    onto the tile with :func:`termwise.golden.arch.diffy.run_runtimes` (restart masks and
    predecessors), output compared exactly with ``conv2d_direct``, measured cycles with the
    model; the record also holds the delta statistics and the Pragmatic (Booth) cycles of
    the same layer on the same geometry.

Every output is compared with :func:`termwise.golden.tile_model.tile_outputs` (the plain dot
products) and every run's cycles with :func:`termwise.golden.cycles.run_cycles` given
``rt["restart"]`` and ``rt["predecessor"]``.
"""

from __future__ import annotations

import os

import cocotb
import numpy as np

from ..golden import cycles as cycle_model
from ..golden.arch import diffy
from ..golden.fixedpoint import value_range
from ..golden.lowering import assemble_conv2d, lower_conv2d
from ..golden.primitives import conv2d_direct
from ..golden.tile_model import tile_outputs
from .cases import conv_layer, corner_cases
from .tile_tests import _check, _start

__all__ = ["diffy_regression", "chain_runs", "smooth_image"]


def smooth_image(rng, shape, bits: int, signed: bool, step: int = 3) -> np.ndarray:
    """A smooth feature map (random walks along x and y), clipped to ``bits``: the kind of
    data Diffy's deltas compress (computational-imaging nets)."""
    lo, hi = value_range(bits, signed)
    walk = np.cumsum(rng.integers(-step, step + 1, shape), axis=-1) \
        + np.cumsum(rng.integers(-step, step + 1, shape[:-1] + (1,)), axis=-2)
    x = walk + rng.integers(lo // 2, hi // 2 + 1, shape[:-2] + (1, 1))
    return np.clip(x, lo, hi).astype(np.int64)


def chain_runs(cfg, rng, *, runs: int, k: int, kind: str):
    """Consecutive window groups of one (runs * windows, k) matrix and its weights."""
    rows = runs * cfg.windows
    lo, hi = value_range(cfg.act_bits, cfg.act_signed)
    if kind == "smooth":
        act = smooth_image(rng, (k, rows), cfg.act_bits, cfg.act_signed).T
    elif kind == "extreme":
        act = np.where((np.arange(rows) % 2)[:, None] == 1, hi, lo) * np.ones((1, k), int)
    else:
        width = int(rng.integers(2 if cfg.act_signed else 1, cfg.act_bits + 1))
        wlo, whi = value_range(width, cfg.act_signed)
        act = rng.integers(wlo, whi + 1, (rows, k))
        if kind == "sparse":
            act[rng.random(act.shape) < 0.7] = 0
    wlo, whi = value_range(cfg.wgt_bits, True)
    wgt = rng.integers(wlo, whi + 1, (cfg.filters, k))
    if kind == "extreme":
        wgt[:] = wlo
    return [act[i * cfg.windows:(i + 1) * cfg.windows] for i in range(runs)], wgt


def timeout_cycles(cfg, k: int) -> int:
    """A bound on a run's cycles: a brick retires at least one of the
    ``2 * booth_digit_count(act_bits + 1)`` term positions per cycle (with
    ``first_stage_bits = 0`` it can take more cycles than a lane has terms, beyond
    ``cfg.worst_brick_cycles``)."""
    positions = 2 * ((cfg.act_bits + 2) // 2)
    return -(-k // cfg.lanes) * positions + 64


async def _run(drv, cfg, record, suite, name, act, wgt, rt, load_weights) -> list[str]:
    got, cycles = await drv.run(act, wgt, rt, load_weights=load_weights,
                                timeout_cycles=timeout_cycles(cfg, act.shape[1]))
    expected = tile_outputs(cfg, act, wgt)
    model = cycle_model.run_cycles(cfg, act, wgt, rt)
    ok = bool(np.array_equal(got, expected))
    record.add(suite=suite, case=name, outputs_match=ok, cycles=cycles, model_cycles=model,
               restart=int(rt["restart"]), k=int(act.shape[1]))
    failures = []
    if not ok:
        bad = tuple(np.argwhere(got != expected)[0])
        failures.append(f"{suite}/{name}: out[w={bad[0]}][f={bad[1]}] = {got[bad]}, "
                        f"golden {expected[bad]}")
    if cycles != model:
        failures.append(f"{suite}/{name}: {cycles} cycles measured, model says {model}")
    return failures


async def _chain(drv, cfg, rng, record, suite, name, runs, k, kind) -> list[str]:
    acts, wgt = chain_runs(cfg, rng, runs=runs, k=k, kind=kind)
    failures = []
    full = (1 << cfg.windows) - 1
    for i, act in enumerate(acts):
        restart = int(rng.integers(0, full + 1))
        if kind == "extreme":
            restart = 0
        if i == 0:
            restart |= 1
        rt = dict(cfg.runtime_values(), restart=restart,
                  predecessor=None if restart & 1 else acts[i - 1][-1])
        failures += await _run(drv, cfg, record, suite, f"{name}_run{i}", act, wgt, rt,
                               load_weights=(i == 0))
    return failures


async def _random(drv, cfg, seed, record) -> list[str]:
    rng = np.random.default_rng(seed)
    failures = []
    kinds = ("dense", "sparse", "smooth")
    for c in range(9):
        k = int(rng.integers(1, cfg.depth * cfg.lanes + 1)) if c % 3 == 2 else \
            int(rng.integers(1, min(6, cfg.depth) * cfg.lanes + 1))
        runs = int(rng.integers(2, 5))
        failures += await _chain(drv, cfg, rng, record, "random",
                                 f"chain{c}_{kinds[c % 3]}_k{k}", runs, k, kinds[c % 3])
    return failures


async def _corners(drv, cfg, seed, record) -> list[str]:
    rng = np.random.default_rng(seed)
    failures = []
    for case in corner_cases(cfg, rng):
        restart = int(rng.integers(0, 1 << cfg.windows)) | 1
        rt = dict(cfg.runtime_values(), restart=restart, predecessor=None)
        failures += await _run(drv, cfg, record, "corners", case.name, case.act, case.wgt, rt,
                               load_weights=case.reload_weights)
    # Delta extremes: most negative next to maximum, no restarts after the first window.
    failures += await _chain(drv, cfg, rng, record, "corners", "delta_extremes", 3,
                             2 * cfg.lanes, "extreme")
    # A chain at full depth, then a short one (K just over a brick).
    failures += await _chain(drv, cfg, rng, record, "corners", "full_depth", 2,
                             cfg.depth * cfg.lanes, "smooth")
    failures += await _chain(drv, cfg, rng, record, "corners", "short_chain", 3,
                             cfg.lanes + 1, "dense")
    return failures


def pragmatic_twin(cfg):
    """Bit-Pragmatic on the same geometry, Booth encoded: the comparison point."""
    from ..gen.config import TileConfig
    return TileConfig(arch="pragmatic", filters=cfg.filters, windows=cfg.windows,
                      lanes=cfg.lanes, act_bits=cfg.act_bits, wgt_bits=cfg.wgt_bits,
                      act_signed=cfg.act_signed, depth=cfg.depth,
                      first_stage_bits=cfg.first_stage_bits, encoding="booth")


async def _conv_case(drv, cfg, record, name, x, w, geometry, rt) -> list[str]:
    lowering = lower_conv2d(cfg, x, w, **geometry)
    rts = diffy.run_runtimes(cfg, lowering, rt)
    results, measured, predicted = [], 0, 0
    for run, run_rt in zip(lowering.runs, rts):
        got, cycles = await drv.run(run.act, run.wgt, run_rt,
                                    load_weights=not run.same_weights_as_previous,
                                    timeout_cycles=timeout_cycles(cfg, run.k))
        results.append(got)
        measured += cycles
        predicted += cycle_model.run_cycles(cfg, run.act, run.wgt, run_rt)
    out = assemble_conv2d(lowering, results)
    expected = conv2d_direct(x, w, **geometry)
    ok = bool(np.array_equal(out, expected))
    twin = pragmatic_twin(cfg)
    prag = sum(cycle_model.run_cycles(twin, r.act, r.wgt) for r in lower_conv2d(
        twin, x, w, **geometry).runs)
    from ..golden.lowering import im2col
    a = im2col(x, w.shape[2:], geometry["stride"], geometry["padding"], geometry["dilation"])
    stats = diffy.delta_term_stats(cfg, a, lowering.out_shape[3])
    record.add(suite="conv", case=name, outputs_match=ok, cycles=measured,
               model_cycles=predicted, runs=len(lowering.runs),
               restarts=int(sum(bin(r["restart"]).count("1") for r in rts)),
               pragmatic_booth_cycles=int(prag), **stats,
               macs=int(np.prod(expected.shape) * np.prod(w.shape[1:])))
    failures = []
    if not ok:
        failures.append(f"conv/{name}: output differs from conv2d_direct at "
                        f"{np.argwhere(out != expected)[0].tolist()}")
    if measured != predicted:
        failures.append(f"conv/{name}: {measured} cycles measured, model says {predicted}")
    return failures


async def _conv(drv, cfg, seed, record) -> list[str]:
    rng = np.random.default_rng(seed)
    x, w, geometry, rt = conv_layer(cfg, rng)
    failures = await _conv_case(drv, cfg, record, "conv3x3_c16_k16_8x8_random", x, w,
                                geometry, rt)
    xs = np.maximum(smooth_image(rng, x.shape, min(cfg.act_bits, 8), cfg.act_signed), 0)
    failures += await _conv_case(drv, cfg, record, "conv3x3_c16_k16_8x8_smooth", xs, w,
                                 geometry, rt)
    return failures


@cocotb.test()
async def diffy_regression(dut):
    """Run every suite named in TERMWISE_SUITES; fail with every mismatch listed."""
    cfg, seed, drv, record = await _start(dut)
    failures = []
    suites = {"random": _random, "corners": _corners, "conv": _conv}
    for name in os.environ.get("TERMWISE_SUITES", "random").split(","):
        failures += await suites[name](drv, cfg, seed, record)
    _check(seed, failures)
