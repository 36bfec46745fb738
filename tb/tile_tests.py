"""The generic tile regression (cocotb module, run through :mod:`termwise.tb.runner`):
:class:`TileTB` on the :mod:`termwise.tb.harness` and its suites.

``random``, ``corners``, ``fused``
    The cases of :func:`termwise.tb.cases.suite`.
``edges``
    Every field of the command at its edge values: 0, 1, its maximum and above it where
    the field is wider (:mod:`termwise.tb.edges`; registered on the harness, so every
    testbench has it).
``conv``
    A 3x3 convolution lowered onto the tile in the papers' brick order (each brick one
    kernel position's channels: :data:`termwise.golden.lowering.DEFAULT_ORDER`), compared
    with ``conv2d_direct`` (on a tile with a fused output stage: with the golden fused
    operator at zero bias and residual).
``conv_channel``
    The same convolution lowered in the channel-major im2col order (``order="channel"``).
``depthwise``
    A depthwise 3x3 convolution of :data:`DEPTHWISE_CHANNELS` channels (not a multiple of
    the lanes: the last tile group is partial), channel multipliers
    :data:`DEPTHWISE_MULTIPLIERS`, lowered with the default channel-diagonal packing
    (:func:`termwise.golden.lowering.pack_depthwise`).
``chain``
    Two conv layers through the fused output stage, the first feeding the second.
``fc``
    (``fc_columns`` tiles) Fully-connected layers at batch 1 with the input bricks dealt
    over the window columns (:func:`termwise.golden.lowering.lower_fc_columns`), each run's
    columns against the golden model, the summed layer against ``w @ x``, then a
    convolution run on the same tile (the ``fc`` register back to 0).
``real``
    Sampled runs of every layer of a real network (``TERMWISE_REAL_LAYERS``
    (:data:`REAL_LAYERS_ENV`): the layers as written by :func:`write_real_layers`; default:
    the digits CNN's trace).
``stream``
    The ``random`` suite's cases loaded through the real ``wgt``/``act`` streams while the
    other suites take the backdoor (:attr:`~termwise.tb.harness.TB.stream_suites`;
    ``corners`` keeps the stream path too; ``TERMWISE_LOAD=backdoor`` moves every suite).
``bench``
    Full-depth runs timed for ``make bench`` (:mod:`termwise.tb.bench`), loaded through the
    backdoor unless ``TERMWISE_LOAD=stream``.
``over_bound``, ``hang``
    Meant to fail (``tb/test_run_bound.py``): one full-depth run held to a bound one cycle
    short of its model cycles, caught when its result comes; the same run with a 2-cycle
    bound, caught by the driver's watchdog while it still computes (the way a tile that
    never answers is caught) when the watchdog looks often enough
    (``TERMWISE_WATCHDOG_CYCLES``).

Every suite but ``corners`` and ``stream`` loads the operand buffers through the driver's
backdoor where it fits (:mod:`termwise.tb.harness`, :mod:`termwise.tb.driver`).

Every output is compared exactly with the golden functional model and every run's
measured cycle count with the golden cycle model; environment and record as in
:mod:`termwise.tb.harness`.
"""

from __future__ import annotations

import json
import os

import numpy as np

from ..golden.lowering import DEFAULT_DEPTHWISE, assemble_conv2d, is_depthwise, lower_conv2d
from ..golden.primitives import conv2d_direct, conv_bias_act
from ..golden.tile_model import stage_arguments
from . import cases
from .harness import TB, differs

__all__ = ["TileTB", "tile_regression", "REAL_LAYERS_ENV", "write_real_layers",
           "read_real_layers", "CONV_ORDERS", "DEPTHWISE_CHANNELS", "DEPTHWISE_MULTIPLIERS"]

#: Environment variable naming an ``.npz`` of real layers for the ``real`` suite (the
#: pytest side prepares them, so the simulator process never builds a workload trace).
REAL_LAYERS_ENV = "TERMWISE_REAL_LAYERS"

_LAYER_FIELDS = ("name", "kind", "bits", "stride", "padding", "dilation", "groups",
                 "act_precision", "wgt_precision", "act_signed")


def write_real_layers(path, label: str, layers) -> None:
    """Save ``layers`` (:class:`~termwise.golden.workloads.Layer`) for the ``real`` suite;
    ``label`` prefixes the case names in the run records (e.g. the workload's name)."""
    info = [{f: getattr(layer, f) for f in _LAYER_FIELDS} for layer in layers]
    arrays = {}
    for i, layer in enumerate(layers):
        arrays[f"act{i}"] = np.asarray(layer.act, dtype=np.int64)
        arrays[f"wgt{i}"] = np.asarray(layer.wgt, dtype=np.int64)
    np.savez(path, meta=np.array(json.dumps({"label": label, "layers": info})), **arrays)


def read_real_layers(path):
    """``(label, layers)`` as saved by :func:`write_real_layers`."""
    from ..golden.workloads import Layer
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        layers = [Layer(act=data[f"act{i}"], wgt=data[f"wgt{i}"], **info)
                  for i, info in enumerate(meta["layers"])]
    return meta["label"], layers


class TileTB(TB):
    """The generic tile regression: any design whose runs are independent and whose
    operands :class:`~termwise.tb.driver.TileDriver` loads as they are."""


@TileTB.suite("random", "corners", "fused")
async def case_suite(tb, suite):
    """The named suite of :func:`termwise.tb.cases.suite`."""
    await tb.run_cases(suite, cases.suite(tb.cfg, suite, tb.seed))


@TileTB.suite("stream")
async def stream_suite(tb, suite):
    """The ``random`` suite's cases on the stream path (a suite of
    :attr:`~termwise.tb.harness.TB.stream_suites`): the same runs as ``random``, so their
    records can be compared run by run with a backdoor-loaded ``random``."""
    await tb.run_cases(suite, cases.suite(tb.cfg, "random", tb.seed))


#: Brick order of each conv suite (:data:`termwise.golden.lowering.ORDERS`); the
#: ``depthwise`` suite lowers in the default (the papers') order.
CONV_ORDERS = {"conv": "position", "conv_channel": "channel", "depthwise": "position"}
#: Channels of the ``depthwise`` suite's layer: not a multiple of 4 or 16 lanes, so the
#: last tile group of the channel-diagonal packing is partial.
DEPTHWISE_CHANNELS = 20
#: Channel multipliers (filters per channel) of the ``depthwise`` suite's layers.
DEPTHWISE_MULTIPLIERS = (1, 2)


def _conv_layers(cfg, rng, suite):
    """``(name, x, w, geometry, rt)`` of every convolution of a conv suite: the 3x3 layer of
    :func:`termwise.tb.cases.conv_layer`, or (``depthwise``) depthwise 3x3 layers of its
    values, 6x6, padding 1, one per channel multiplier."""
    if suite != "depthwise":
        x, w, geometry, rt = cases.conv_layer(cfg, rng)
        return [(f"conv3x3_c{x.shape[1]}_k{w.shape[0]}_{x.shape[2]}x{x.shape[3]}",
                 x, w, geometry, rt)]
    c, layers = DEPTHWISE_CHANNELS, []
    for m in DEPTHWISE_MULTIPLIERS:
        x, w, geometry, rt = cases.conv_layer(cfg, rng, channels=c, filters=c * m, size=6)
        layers.append((f"dw3x3_c{c}_m{m}_{x.shape[2]}x{x.shape[3]}", x,
                       np.ascontiguousarray(w[:, :1]), dict(geometry, groups=c), rt))
    return layers


@TileTB.suite(*CONV_ORDERS)
async def conv_suite(tb, suite, depthwise: str = DEFAULT_DEPTHWISE):
    """Convolutions (:func:`_conv_layers`) lowered in the suite's brick order
    (:data:`CONV_ORDERS`), a depthwise one in mapping ``depthwise``: every run's outputs
    against the golden functional model and its cycles against the golden cycle model
    (:meth:`~termwise.tb.harness.TB.run_lowered`), the assembled layer against
    ``conv2d_direct``."""
    for name, x, w, geometry, rt in _conv_layers(tb.cfg, tb.rng(), suite):
        lowering = lower_conv2d(tb.cfg, x, w, order=CONV_ORDERS[suite], depthwise=depthwise,
                                **geometry)
        done = await tb.run_lowered(lowering.runs, rt, compare=True)
        expected = conv2d_direct(x, w, **geometry)
        if tb.cfg.output_stage:     # zero bias and residual: the stage's own operator
            expected = conv_bias_act(x, w, None, **stage_arguments(tb.cfg, rt), **geometry)
        bad = ", ".join(f"run {i}: {why}" for i, why in done.mismatches[:3])
        tb.check(suite, name,
                 mismatch=bad or differs(assemble_conv2d(lowering, done.outputs), expected,
                                         "conv2d_direct"),
                 cycles=done.cycles, model_cycles=done.model_cycles, runtime=rt,
                 runs=len(lowering.runs), brick_order=lowering.order,
                 depthwise=lowering.depthwise if is_depthwise(w.shape[1], geometry["groups"])
                 else None,
                 macs=int(np.prod(expected.shape) * np.prod(w.shape[1:])))


def _run_operand(run, table, *, rows):
    """Pick a run's slice of a per-output table (bias per filter, residual per output),
    zeros where the run is padded."""
    cols = run.cols
    if not rows:
        return np.where(cols >= 0, table[np.maximum(cols, 0)], 0)
    r, c = np.maximum(run.rows, 0), np.maximum(cols, 0)
    out = table[np.ix_(r, c)]
    out[run.rows < 0] = 0
    out[:, cols < 0] = 0
    return out


async def _fused_conv(tb, x, w, bias, residual, requant, rt_base):
    """One convolution through the tile's fused stage; returns (output, cycles, model)."""
    lowering = lower_conv2d(tb.cfg, x, w, stride=1, padding=1)
    assert all(r.chunk == 0 for r in lowering.runs), "the fused stage needs K in one run"
    k = lowering.out_shape[1]
    res_mat = residual.transpose(0, 2, 3, 1).reshape(-1, k)
    rt = dict(rt_base, multiplier=requant.multiplier, shift=requant.shift)
    done = await tb.run_lowered(lowering.runs, rt, operands=lambda run: dict(
        bias=_run_operand(run, bias, rows=False), residual=_run_operand(run, res_mat, rows=True)))
    return assemble_conv2d(lowering, done.outputs), done.cycles, done.model_cycles


@TileTB.suite("chain")
async def chain_suite(tb, suite):
    """Two consecutive conv layers through the fused stage: the first layer's requantised
    outputs are the second layer's activations and residual, exactly as in the golden
    model (conv + bias + ReLU + requantise, then conv + bias + residual + ReLU +
    requantise)."""
    from ..golden.primitives import Requant, conv_bias_act, conv_bias_add_act
    cfg = tb.cfg
    assert cfg.bias and cfg.residual and cfg.activation == "relu" and cfg.out_bits
    rng = tb.rng()
    x1 = rng.integers(0, 1 << (min(cfg.act_bits, 8) - 1), (1, 8, 6, 6))
    w1 = rng.integers(-64, 64, (16, 8, 3, 3))
    b1 = rng.integers(-2000, 2000, 16)
    w2 = rng.integers(-64, 64, (16, 16, 3, 3))
    b2 = rng.integers(-2000, 2000, 16)
    r1 = Requant(3 << 12, 24, cfg.out_bits)           # scale 3/4096
    r2 = Requant(5 << 11, 24, cfg.out_bits)           # scale 5/8192
    rt = cfg.runtime_values(min(cfg.act_bits, 8) if "precision" in cfg.runtime else None)
    zeros = np.zeros((1, 16, 6, 6), np.int64)
    y1_hw, m1, p1 = await _fused_conv(tb, x1, w1, b1, zeros, r1, rt)
    residual = y1_hw << 6                               # rescaled to layer 2's accumulators
    y2_hw, m2, p2 = await _fused_conv(tb, y1_hw, w2, b2, residual, r2, rt)
    y1 = conv_bias_act(x1, w1, b1, activation="relu", requant=r1, padding=1)
    y2 = conv_bias_add_act(y1, w2, b2, y1 << 6, activation="relu", requant=r2, padding=1)
    ok = bool(np.array_equal(y1_hw, y1) and np.array_equal(y2_hw, y2))
    nonzero = float(np.mean(y2 != 0))
    name = "conv3x3_8-16-16_relu_requant_residual"
    tb.check(suite, name, mismatch=None if ok else
             "layer outputs differ from the golden fused operators",
             cycles=m1 + m2, model_cycles=p1 + p2, runtime=rt, nonzero_fraction=nonzero)
    if not 0.1 < nonzero < 0.95:
        tb.fail(suite, name, f"test data is degenerate ({nonzero:.0%} non-zero outputs)")


@TileTB.suite("real")
async def real_suite(tb, suite, sample: int = 10):
    """Sampled runs of every layer of a real network (by default the digits CNN's quantised
    trace: trained weights, test-set activations; or the layers in ``$TERMWISE_REAL_LAYERS``)
    at the layer's own runtime precisions, as the network simulator sets them, lowered in
    its default (the papers') brick order; outputs and cycles against the golden models."""
    from ..golden.lowering import lower_layer
    from ..golden.netsim import layer_runtime
    from ..golden.workloads import load_workload
    cfg = tb.cfg
    if os.environ.get(REAL_LAYERS_ENV):
        label, layers = read_real_layers(os.environ[REAL_LAYERS_ENV])
    else:
        label = "digits-cnn"
        layers = load_workload(label, 8 if cfg.act_bits <= 8 else 16, images=2,
                               log=None).layers
    rng = tb.rng()
    for layer in layers:
        rt = layer_runtime(cfg, layer)
        runs, _ = lower_layer(cfg, layer)
        picks = np.sort(rng.choice(len(runs), min(sample, len(runs)), replace=False))
        done = await tb.run_lowered([runs[int(i)] for i in picks], rt, reload=True,
                                    compare=True)
        bad = len(done.mismatches)
        tb.check(suite, f"{label}/{layer.name}",
                 mismatch=f"{bad} runs differ from golden" if bad else None,
                 cycles=done.cycles, model_cycles=done.model_cycles, runtime=rt,
                 runs=len(picks))


@TileTB.suite("fc")
async def fc_suite(tb, suite):
    """Fully-connected layers at batch 1 on per-column weights (:func:`cases.fc_layers`):
    every run's outputs and cycles against the golden models (``fc_column_outputs``,
    ``fc_run_cycles``), the assembled layer against the plain product ``w @ x``."""
    from ..golden.lowering import assemble_fc_columns, lower_fc_columns
    rng = tb.rng()
    for name, x, w, rt in cases.fc_layers(tb.cfg, rng):
        runs = lower_fc_columns(tb.cfg, x, w)
        done = await tb.run_lowered(runs, rt, compare=True)
        bad = ", ".join(f"run {i}: {why}" for i, why in done.mismatches[:3])
        tb.check(suite, name, mismatch=bad or differs(
            assemble_fc_columns(runs, done.outputs, w.shape[0]), w @ x, "w @ x"),
            cycles=done.cycles, model_cycles=done.model_cycles, runtime=rt, runs=len(runs),
            macs=int(w.size))
    # A convolution run right after: the columns share the broadcast weights again.
    x, w, geometry, rt = cases.conv_layer(tb.cfg, rng, channels=8, filters=tb.cfg.filters,
                                          size=4)
    await tb.run_conv(suite, "conv_after_fc", x, w, geometry, rt)


def _full_depth_run(tb):
    """``(act, wgt, rt)`` of one run at the tile's full depth and precision: random
    non-negative activations and signed weights."""
    cfg = tb.cfg
    rng = tb.rng()
    k = cfg.depth * cfg.lanes
    act = rng.integers(0, 1 << (cfg.act_bits - 1), (cfg.windows, k))
    wgt = rng.integers(-(1 << (cfg.wgt_bits - 1)), 1 << (cfg.wgt_bits - 1), (cfg.filters, k))
    return act, wgt, cfg.runtime_values()


@TileTB.suite("bench")
async def throughput_suite(tb, suite):
    """Benchmark (``make bench``): full-depth runs with weights kept, timed."""
    import time
    from cocotb.utils import get_sim_time
    act, wgt, rt = _full_depth_run(tb)
    runs = int(os.environ.get("TERMWISE_BENCH_RUNS", "20"))
    t0 = time.perf_counter()
    total = 0
    for i in range(runs):
        got, cycles = await tb.drv.run(act, wgt, rt, load_weights=(i == 0))
        total += cycles
    wall = time.perf_counter() - t0
    tb.check(suite, "throughput", mismatch=tb.mismatch(got, tb.golden(act, wgt, rt)),
             cycles=total, model_cycles=runs * tb.model_cycles(act, wgt, rt), runs=runs,
             compute_cycles=total, wall_seconds=wall, compute_wall_seconds=tb.drv.compute_wall,
             load_wall_seconds=tb.drv.load_wall, sim_ns=get_sim_time("ns"))


@TileTB.suite("over_bound", "hang")
async def bound_suite(tb, suite):
    """Expected to fail (module docstring): a run past its cycle bound."""
    act, wgt, rt = _full_depth_run(tb)
    bound = tb.model_cycles(act, wgt, rt) - 1 if suite == "over_bound" else 2
    await tb.drive(act, wgt, rt, timeout_cycles=bound)
    tb.fail(suite, "bound", f"the run passed its bound of {bound} cycles unnoticed")


tile_regression = TileTB.cocotb_test("tile_regression")
