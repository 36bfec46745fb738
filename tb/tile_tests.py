"""cocotb tests of a generated tile (run through :mod:`termwise.tb.runner`).

Each test runs a suite of cases from :mod:`termwise.tb.cases`; every output is compared
exactly with the golden functional model and every run's measured cycle count with the
golden cycle model. A JSON record of every run (measured vs model) is written to the path
in ``TERMWISE_REPORT`` for the pytest runner and ``termwise demo`` to summarise.

Environment: ``TERMWISE_MANIFEST`` (the generated manifest.json), ``TERMWISE_SUITES``
(comma-separated suite names), ``TERMWISE_SEED``, ``TERMWISE_REPORT``; optionally
``TERMWISE_REAL_LAYERS`` (:data:`REAL_LAYERS_ENV`): the layers the ``real`` suite samples,
as written by :func:`write_real_layers` (default: the digits CNN's trace).
"""

from __future__ import annotations

import json
import os

import cocotb
import numpy as np
from cocotb.clock import Clock

from ..gen.config import from_mapping
from ..golden import cycles as cycle_model
from ..golden.lowering import assemble_conv2d, lower_conv2d
from ..golden.primitives import conv2d_direct
from ..golden.tile_model import tile_outputs
from .cases import conv_layer, suite
from .driver import PERIOD_NS, TileDriver

__all__ = ["tile_regression", "tile_throughput", "REAL_LAYERS_ENV", "write_real_layers",
           "read_real_layers"]

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


def _setup():
    with open(os.environ["TERMWISE_MANIFEST"], encoding="utf-8") as f:
        manifest = json.load(f)
    cfg = from_mapping(manifest["config"])
    seed = int(os.environ.get("TERMWISE_SEED", "1"))
    return cfg, manifest, seed


async def _start(dut, driver_cls=TileDriver):
    """The common start of every cocotb regression: the run's configuration and seed (from
    the environment), the clock, a driver of ``driver_cls`` out of reset, and the record."""
    cfg, manifest, seed = _setup()
    Clock(dut.clk, PERIOD_NS, unit="ns").start()
    drv = driver_cls(dut, cfg, manifest)
    await drv.reset()
    return cfg, seed, drv, _Record(seed)


def _check(seed, failures) -> None:
    """Fail the cocotb test with the first mismatches and the seed to rerun with."""
    assert not failures, f"seed {seed}: " + "; ".join(failures[:5])


class _Record:
    """Collects per-run results; writes them after every run so a failure keeps them."""

    def __init__(self, seed):
        self.path = os.environ.get("TERMWISE_REPORT")
        self.data = {"seed": seed, "runs": []}

    def add(self, **entry):
        self.data["runs"].append(entry)
        if self.path:
            with open(self.path, "w", encoding="utf-8") as f:
                json.dump(self.data, f, indent=1)


async def _run_suite(drv, cfg, suite_name, seed, record) -> list[str]:
    failures = []
    for case in suite(cfg, suite_name, seed):
        rt = case.runtime(cfg)
        got, cycles = await drv.run(case.act, case.wgt, rt, load_weights=case.reload_weights,
                                    bias=case.bias, residual=case.residual)
        expected = tile_outputs(cfg, case.act, case.wgt, rt, bias=case.bias,
                                residual=case.residual)
        model = cycle_model.run_cycles(cfg, case.act, case.wgt, rt)
        ok = bool(np.array_equal(got, expected))
        record.add(suite=suite_name, case=case.name, outputs_match=ok, cycles=cycles,
                   model_cycles=model, runtime=rt, k=int(case.act.shape[1]))
        if not ok:
            bad = tuple(np.argwhere(got != expected)[0])
            failures.append(f"{suite_name}/{case.name}: out[w={bad[0]}][f={bad[1]}] = "
                            f"{got[bad]}, golden {expected[bad]}")
        if cycles != model:
            failures.append(f"{suite_name}/{case.name}: {cycles} cycles measured, "
                            f"model says {model}")
    return failures


async def _run_conv(drv, cfg, seed, record) -> list[str]:
    rng = np.random.default_rng(seed)
    x, w, geometry, rt = conv_layer(cfg, rng)
    lowering = lower_conv2d(cfg, x, w, **geometry)
    results, measured, predicted = [], 0, 0
    for run in lowering.runs:
        got, cycles = await drv.run(run.act, run.wgt, rt,
                                    load_weights=not run.same_weights_as_previous)
        results.append(got)
        measured += cycles
        predicted += cycle_model.run_cycles(cfg, run.act, run.wgt, rt)
    out = assemble_conv2d(lowering, results)
    expected = conv2d_direct(x, w, **geometry)
    ok = bool(np.array_equal(out, expected))
    name = f"conv3x3_c{x.shape[1]}_k{w.shape[0]}_{x.shape[2]}x{x.shape[3]}"
    record.add(suite="conv", case=name, outputs_match=ok, cycles=measured,
               model_cycles=predicted, runtime=rt, runs=len(lowering.runs),
               macs=int(np.prod(expected.shape) * np.prod(w.shape[1:])))
    failures = []
    if not ok:
        failures.append(f"conv/{name}: output differs from conv2d_direct at "
                        f"{np.argwhere(out != expected)[0].tolist()}")
    if measured != predicted:
        failures.append(f"conv/{name}: {measured} cycles measured, model says {predicted}")
    return failures


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


async def _fused_conv(drv, cfg, x, w, bias, residual, requant, rt_base):
    """One convolution through the tile's fused stage; returns (output, cycles, model)."""
    from ..golden.lowering import assemble_conv2d, lower_conv2d
    lowering = lower_conv2d(cfg, x, w, stride=1, padding=1)
    assert all(r.chunk == 0 for r in lowering.runs), "the fused stage needs K in one run"
    n, k, oh, ow = lowering.out_shape
    res_mat = residual.transpose(0, 2, 3, 1).reshape(-1, k)
    rt = dict(rt_base, multiplier=requant.multiplier, shift=requant.shift)
    results, measured, predicted = [], 0, 0
    for run in lowering.runs:
        b = _run_operand(run, bias, rows=False)
        res = _run_operand(run, res_mat, rows=True)
        got, cycles = await drv.run(run.act, run.wgt, rt, bias=b, residual=res,
                                    load_weights=not run.same_weights_as_previous)
        results.append(got)
        measured += cycles
        predicted += cycle_model.run_cycles(cfg, run.act, run.wgt, rt)
    return assemble_conv2d(lowering, results), measured, predicted


async def _run_chain(drv, cfg, seed, record) -> list[str]:
    """Two consecutive conv layers through the fused stage: the first layer's requantised
    outputs are the second layer's activations and residual, exactly as in the golden
    model (conv + bias + ReLU + requantise, then conv + bias + residual + ReLU +
    requantise)."""
    from ..golden.primitives import Requant, conv_bias_act, conv_bias_add_act
    assert cfg.bias and cfg.residual and cfg.activation == "relu" and cfg.out_bits
    rng = np.random.default_rng(seed)
    x1 = rng.integers(0, 1 << (min(cfg.act_bits, 8) - 1), (1, 8, 6, 6))
    w1 = rng.integers(-64, 64, (16, 8, 3, 3))
    b1 = rng.integers(-2000, 2000, 16)
    w2 = rng.integers(-64, 64, (16, 16, 3, 3))
    b2 = rng.integers(-2000, 2000, 16)
    r1 = Requant(3 << 12, 24, cfg.out_bits)           # scale 3/4096
    r2 = Requant(5 << 11, 24, cfg.out_bits)           # scale 5/8192
    rt = cfg.runtime_values(min(cfg.act_bits, 8) if "precision" in cfg.runtime else None)
    zeros = np.zeros((1, 16, 6, 6), np.int64)
    y1_hw, m1, p1 = await _fused_conv(drv, cfg, x1, w1, b1, zeros, r1, rt)
    residual = y1_hw << 6                               # rescaled to layer 2's accumulators
    y2_hw, m2, p2 = await _fused_conv(drv, cfg, y1_hw, w2, b2, residual, r2, rt)
    y1 = conv_bias_act(x1, w1, b1, activation="relu", requant=r1, padding=1)
    y2 = conv_bias_add_act(y1, w2, b2, y1 << 6, activation="relu", requant=r2, padding=1)
    ok = bool(np.array_equal(y1_hw, y1) and np.array_equal(y2_hw, y2))
    nonzero = float(np.mean(y2 != 0))
    record.add(suite="chain", case="conv3x3_8-16-16_relu_requant_residual", outputs_match=ok,
               cycles=m1 + m2, model_cycles=p1 + p2, runtime=rt, nonzero_fraction=nonzero)
    failures = []
    if not ok:
        failures.append("chain: layer outputs differ from the golden fused operators")
    if m1 + m2 != p1 + p2:
        failures.append(f"chain: {m1 + m2} cycles measured, model says {p1 + p2}")
    if not 0.1 < nonzero < 0.95:
        failures.append(f"chain: test data is degenerate ({nonzero:.0%} non-zero outputs)")
    return failures


async def _run_real(drv, cfg, seed, record, sample: int = 10) -> list[str]:
    """Sampled runs of every layer of a real network (by default the digits CNN's quantised
    trace: trained weights, test-set activations; or the layers in ``$TERMWISE_REAL_LAYERS``)
    at the layer's own runtime precisions, as the network simulator sets them; outputs and
    cycles against the golden models."""
    from ..golden.lowering import lower_matmul
    from ..golden.netsim import layer_runtime
    from ..golden.workloads import load_workload
    if os.environ.get(REAL_LAYERS_ENV):
        label, layers = read_real_layers(os.environ[REAL_LAYERS_ENV])
    else:
        label = "digits-cnn"
        layers = load_workload(label, 8 if cfg.act_bits <= 8 else 16, images=2,
                               log=None).layers
    rng = np.random.default_rng(seed)
    failures = []
    for layer in layers:
        rt = layer_runtime(cfg, layer)
        if layer.kind == "conv":
            runs = lower_conv2d(cfg, layer.act, layer.wgt, stride=layer.stride,
                                padding=layer.padding, dilation=layer.dilation,
                                groups=layer.groups).runs
        else:
            runs = lower_matmul(cfg, layer.act, layer.wgt)
        picks = np.sort(rng.choice(len(runs), min(sample, len(runs)), replace=False))
        measured = predicted = matched = 0
        for i in picks:
            run = runs[int(i)]
            got, cycles = await drv.run(run.act, run.wgt, rt, load_weights=True)
            ok = bool(np.array_equal(got, tile_outputs(cfg, run.act, run.wgt, rt)))
            matched += ok
            measured += cycles
            predicted += cycle_model.run_cycles(cfg, run.act, run.wgt, rt)
        record.add(suite="real", case=f"{label}/{layer.name}", outputs_match=matched == len(picks),
                   cycles=measured, model_cycles=predicted, runtime=rt, runs=len(picks))
        if matched != len(picks):
            failures.append(f"real/{layer.name}: {len(picks) - matched} runs differ from golden")
        if measured != predicted:
            failures.append(f"real/{layer.name}: {measured} cycles measured, model {predicted}")
    return failures


@cocotb.test()
async def tile_regression(dut):
    """Run every suite named in TERMWISE_SUITES; fail with every mismatch listed."""
    cfg, seed, drv, record = await _start(dut)
    failures = []
    if os.environ.get("TERMWISE_SUITES") == "bench":
        return
    for name in os.environ.get("TERMWISE_SUITES", "random").split(","):
        if name == "conv":
            failures += await _run_conv(drv, cfg, seed, record)
        elif name == "chain":
            failures += await _run_chain(drv, cfg, seed, record)
        elif name == "real":
            failures += await _run_real(drv, cfg, seed, record)
        else:
            failures += await _run_suite(drv, cfg, name, seed, record)
    _check(seed, failures)


@cocotb.test()
async def tile_throughput(dut):
    """Benchmark (TERMWISE_SUITES=bench): full-depth runs with weights kept, timed."""
    import time
    if os.environ.get("TERMWISE_SUITES") != "bench":
        return
    cfg, seed, drv, record = await _start(dut)
    rng = np.random.default_rng(seed)
    k = cfg.depth * cfg.lanes
    rt = cfg.runtime_values()
    act = rng.integers(0, 1 << (cfg.act_bits - 1), (cfg.windows, k))
    wgt = rng.integers(-(1 << (cfg.wgt_bits - 1)), 1 << (cfg.wgt_bits - 1), (cfg.filters, k))
    runs = int(os.environ.get("TERMWISE_BENCH_RUNS", "20"))
    expected = tile_outputs(cfg, act, wgt, rt)
    t0 = time.perf_counter()
    total = 0
    for i in range(runs):
        got, cycles = await drv.run(act, wgt, rt, load_weights=(i == 0))
        total += cycles
    wall = time.perf_counter() - t0
    assert np.array_equal(got, expected)
    start_ns = cocotb.utils.get_sim_time("ns")
    record.add(suite="bench", case="throughput", runs=runs, compute_cycles=total,
               wall_seconds=wall, compute_wall_seconds=drv.compute_wall, sim_ns=start_ns, outputs_match=True, cycles=total,
               model_cycles=runs * cycle_model.run_cycles(cfg, act, wgt, rt))
