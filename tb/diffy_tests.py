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
    onto the tile in the papers' brick order (one kernel position's channels per brick)
    with :func:`termwise.golden.arch.diffy.run_runtimes` (restart masks and
    predecessors), output compared exactly with ``conv2d_direct``, measured cycles with the
    model; the record also holds the delta statistics and the Pragmatic (Booth) cycles of
    the same layer on the same geometry.
``conv_channel``
    The same two convolutions lowered in the channel-major im2col order.
``edges``
    Every command field at its edge values (:mod:`termwise.tb.edges`, the suite every
    testbench has): the precision fields, which Diffy ignores, and ``restart`` at 0 (window 0
    continues from the previous run, :meth:`DiffyTB.case_runtime`), 1 and every window.
``dncnn``
    A few output rows of every layer of the ``dncnn`` workload's trace (:func:`dncnn_crops`:
    real integer activations of the trained denoiser on the HD frame, their halo included,
    so each crop is convolved with padding 0): :data:`ROWS` output rows of :data:`COLS`
    consecutive windows along x, at a position drawn from the seed, through the ``conv``
    suite's lowering (restart masks at every output row start, and inside a run wherever a
    row starts mid window group). The trace must already be cached (the pytest runner builds
    it before starting the simulator, which must not train a network).

Every output is compared with :func:`termwise.golden.tile_model.tile_outputs` (the plain dot
products) and every run's cycles with :func:`termwise.golden.cycles.run_cycles` given
``rt["restart"]`` and ``rt["predecessor"]`` (:class:`DiffyTB` on the
:mod:`termwise.tb.harness`; :class:`DiffyDriver` bounds each run's cycles).
"""

from __future__ import annotations

import numpy as np

from ..golden import cycles as cycle_model
from ..golden.arch import diffy
from ..golden.twos_complement import value_range
from ..golden.lowering import DEFAULT_ORDER, im2col, lower_conv2d
from .cases import conv_layer, corner_cases
from .driver import TileDriver
from .harness import TB

__all__ = ["DiffyDriver", "DiffyTB", "diffy_regression", "chain_runs", "smooth_image",
           "cycle_bound", "pragmatic_twin", "dncnn_crops", "ROWS", "COLS", "CONV_ORDERS"]

#: Output rows per ``dncnn`` crop: more than one, so that runs cross row starts.
ROWS = 3
#: Output windows per row: not a multiple of the 4x4 tile's 5 windows, so that window
#: groups straddle row starts (restart bits other than bit 0).
COLS = 12


def smooth_image(rng, shape, bits: int, signed: bool, step: int = 3) -> np.ndarray:
    """A smooth feature map (random walks along x and y), clipped to ``bits``: the kind of
    data Diffy's deltas compress (computational-imaging nets)."""
    lo, hi = value_range(bits, signed)
    walk = np.cumsum(rng.integers(-step, step + 1, shape), axis=-1) \
        + np.cumsum(rng.integers(-step, step + 1, shape[:-1] + (1,)), axis=-2)
    x = walk + rng.integers(lo // 2, hi // 2 + 1, shape[:-2] + (1, 1))
    return np.clip(x, lo, hi).astype(np.int64)


def chain_runs(cfg, rng, *, runs: int, k: int, kind: str, signed: bool = True):
    """Consecutive window groups of one (runs * windows, k) matrix and its weights;
    ``signed``: the runs' ``act_signed``."""
    rows = runs * cfg.windows
    lo, hi = value_range(cfg.act_bits, signed)
    if kind == "smooth":
        act = smooth_image(rng, (k, rows), cfg.act_bits, signed).T
    elif kind == "extreme":
        act = np.where((np.arange(rows) % 2)[:, None] == 1, hi, lo) * np.ones((1, k), int)
    else:
        width = int(rng.integers(1, cfg.act_bits + 1))
        wlo, whi = value_range(width, signed)
        act = rng.integers(wlo, whi + 1, (rows, k))
        if kind == "sparse":
            act[rng.random(act.shape) < 0.7] = 0
    wlo, whi = value_range(cfg.wgt_bits, True)
    wgt = rng.integers(wlo, whi + 1, (cfg.filters, k))
    if kind == "extreme":
        wgt[:] = wlo
    return [act[i * cfg.windows:(i + 1) * cfg.windows] for i in range(runs)], wgt


def cycle_bound(cfg, k: int) -> int:
    """A bound on a run's cycles: a brick retires at least one of the
    ``2 * booth_digit_count(act_bits + 1)`` term positions per cycle (with
    ``first_stage_bits = 0`` it can take more cycles than a lane has terms, beyond
    ``cfg.worst_brick_cycles``)."""
    positions = 2 * ((cfg.act_bits + 2) // 2)
    return -(-k // cfg.lanes) * positions + 64


class DiffyDriver(TileDriver):
    """The generic driver, each run bounded by :func:`cycle_bound`."""

    async def run(self, act, wgt, rt=None, *, timeout_cycles=None, **kwargs):
        return await super().run(act, wgt, rt, timeout_cycles=timeout_cycles or cycle_bound(
            self.cfg, np.asarray(act).shape[1]), **kwargs)


class DiffyTB(TB):
    """Diffy's regression: runs record their restart mask instead of the runtime."""

    driver = DiffyDriver

    def describe(self, act, wgt, rt, expected) -> dict:
        return {"restart": int(rt["restart"]), "k": int(np.asarray(act).shape[1])}

    def case_runtime(self, case, previous) -> dict:
        """A case's registers with the predecessor the cycle model needs: none when window 0
        restarts, else the previous run's last window (which must be as long, of the same
        signedness and on the same weights: the predecessor store holds its bricks, and
        window 0's output is rebuilt from its last output)."""
        rt = case.runtime(self.cfg)
        if rt["restart"] & 1:
            return dict(rt, predecessor=None)
        assert previous is not None and previous.act.shape == case.act.shape \
            and previous.act_signed == case.act_signed \
            and np.array_equal(previous.wgt, case.wgt), \
            f"{case.name}: window 0 does not restart, but it does not continue the run before"
        return dict(rt, predecessor=previous.act[-1])


async def _chain(tb, suite, name, runs, k, kind, rng, signed=True):
    """Consecutive runs over one activation matrix (:func:`chain_runs`), weights loaded
    once: random restart masks (window 0 of the first run restarting), the predecessor
    carried from the previous run; ``signed``: the runs' ``act_signed``."""
    acts, wgt = chain_runs(tb.cfg, rng, runs=runs, k=k, kind=kind, signed=signed)
    full = (1 << tb.cfg.windows) - 1
    for i, act in enumerate(acts):
        restart = int(rng.integers(0, full + 1))
        if kind == "extreme":
            restart = 0
        if i == 0:
            restart |= 1
        rt = dict(tb.cfg.runtime_values(act_signed=signed), restart=restart,
                  predecessor=None if restart & 1 else acts[i - 1][-1])
        await tb.run_case(suite, f"{name}_run{i}", act, wgt, rt, load_weights=(i == 0))


@DiffyTB.suite("random")
async def random_suite(tb, suite):
    cfg, rng = tb.cfg, tb.rng()
    kinds = ("dense", "sparse", "smooth")
    for c in range(9):
        k = int(rng.integers(1, cfg.depth * cfg.lanes + 1)) if c % 3 == 2 else \
            int(rng.integers(1, min(6, cfg.depth) * cfg.lanes + 1))
        runs = int(rng.integers(2, 5))
        signed = c % 2 == 0                # signed and unsigned runs alternate
        await _chain(tb, suite, f"chain{c}_{kinds[c % 3]}_k{k}{'' if signed else '_u'}", runs,
                     k, kinds[c % 3], rng, signed)


@DiffyTB.suite("corners")
async def corners_suite(tb, suite):
    cfg, rng = tb.cfg, tb.rng()
    for case in corner_cases(cfg, rng):
        restart = int(rng.integers(0, 1 << cfg.windows)) | 1
        rt = dict(case.runtime(cfg), restart=restart, predecessor=None)
        await tb.run_case(suite, case.name, case.act, case.wgt, rt,
                          load_weights=case.reload_weights)
    # Delta extremes: most negative next to maximum, no restarts after the first window.
    await _chain(tb, suite, "delta_extremes", 3, 2 * cfg.lanes, "extreme", rng)
    await _chain(tb, suite, "delta_extremes_u", 3, 2 * cfg.lanes, "extreme", rng, False)
    # A chain at full depth, then a short one (K just over a brick).
    await _chain(tb, suite, "full_depth", 2, cfg.depth * cfg.lanes, "smooth", rng, False)
    await _chain(tb, suite, "short_chain", 3, cfg.lanes + 1, "dense", rng)


def pragmatic_twin(cfg):
    """Bit-Pragmatic on the same geometry, Booth encoded: the comparison point."""
    from ..gen.config import TileConfig
    return TileConfig(arch="pragmatic", filters=cfg.filters, windows=cfg.windows,
                      lanes=cfg.lanes, act_bits=cfg.act_bits, wgt_bits=cfg.wgt_bits,
                      depth=cfg.depth,
                      first_stage_bits=cfg.first_stage_bits, encoding="booth")


async def _conv_case(tb, name, x, w, geometry, rt, suite="conv", order=DEFAULT_ORDER):
    """A convolution lowered in brick ``order`` with Diffy's restart masks and predecessors
    per run (:func:`termwise.golden.arch.diffy.run_runtimes`), recorded under ``suite``
    with the restarts, the delta statistics and the Pragmatic (Booth) cycles of the same
    layer in the same order."""
    cfg = tb.cfg
    lowering = lower_conv2d(cfg, x, w, order=order, **geometry)
    rts = diffy.run_runtimes(cfg, lowering, rt)
    twin = pragmatic_twin(cfg)
    twin_rt = twin.runtime_values(act_signed=rt["act_signed"])
    prag = sum(cycle_model.run_cycles(twin, r.act, r.wgt, twin_rt) for r in lower_conv2d(
        twin, x, w, order=order, **geometry).runs)
    a = im2col(x, w.shape[2:], geometry["stride"], geometry["padding"], geometry["dilation"])
    await tb.run_conv(suite, name, x, w, geometry, rts, lowering=lowering,
                      restarts=int(sum(bin(r["restart"]).count("1") for r in rts)),
                      pragmatic_booth_cycles=int(prag),
                      **diffy.delta_term_stats(cfg, a, lowering.out_shape[3]))


#: Brick order of each conv suite (:data:`termwise.golden.lowering.ORDERS`).
CONV_ORDERS = {"conv": "position", "conv_channel": "channel"}


@DiffyTB.suite(*CONV_ORDERS)
async def conv_suite(tb, suite):
    cfg, rng = tb.cfg, tb.rng()
    order = CONV_ORDERS[suite]
    x, w, geometry, rt = conv_layer(cfg, rng)
    await _conv_case(tb, "conv3x3_c16_k16_8x8_random", x, w, geometry, rt, suite, order)
    xs = smooth_image(rng, x.shape, min(cfg.act_bits, 8), rt["act_signed"])
    await _conv_case(tb, "conv3x3_c16_k16_8x8_smooth", xs, w, geometry, rt, suite, order)


def dncnn_crops(bits: int, seed: int, rows: int = ROWS, cols: int = COLS) -> list:
    """``(name, x, w)`` per dncnn layer: ``x`` (1, C, rows + 2, cols + 2) cut from one of
    the layer's trace tiles (tile and position from ``default_rng(seed)``), ``w`` its
    weights; convolve with stride 1, padding 0."""
    from ..golden.workloads.dncnn import load
    wl = load(bits, log=None)
    rng = np.random.default_rng(seed)
    out = []
    for layer in wl.layers:
        tiles, _, h, w = layer.act.shape
        t = int(rng.integers(tiles))
        y = int(rng.integers(0, h - (rows + 2) + 1))
        x = int(rng.integers(0, w - (cols + 2) + 1))
        crop = layer.act[t:t + 1, :, y:y + rows + 2, x:x + cols + 2]
        out.append((f"dncnn{bits}/{layer.name}/tile{t}_y{y}_x{x}_{rows}x{cols}", crop,
                    layer.wgt))
    return out


@DiffyTB.suite("dncnn")
async def dncnn_suite(tb, suite):
    geometry = dict(stride=1, padding=0, dilation=1, groups=1)
    for name, x, w in dncnn_crops(8 if tb.cfg.act_bits <= 8 else 16, tb.seed):
        await _conv_case(tb, name, x, w, geometry,
                         tb.cfg.runtime_values(act_signed=bool((x < 0).any())))


diffy_regression = DiffyTB.cocotb_test("diffy_regression")
