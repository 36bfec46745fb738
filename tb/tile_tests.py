"""cocotb tests of a generated tile (run through :mod:`termwise.tb.runner`).

Each test runs a suite of cases from :mod:`termwise.tb.cases`; every output is compared
exactly with the golden functional model and every run's measured cycle count with the
golden cycle model. A JSON record of every run (measured vs model) is written to the path
in ``TERMWISE_REPORT`` for the pytest runner and ``termwise demo`` to summarise.

Environment: ``TERMWISE_MANIFEST`` (the generated manifest.json), ``TERMWISE_SUITES``
(comma-separated suite names), ``TERMWISE_SEED``, ``TERMWISE_REPORT``.
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


def _setup():
    with open(os.environ["TERMWISE_MANIFEST"], encoding="utf-8") as f:
        manifest = json.load(f)
    cfg = from_mapping(manifest["config"])
    seed = int(os.environ.get("TERMWISE_SEED", "1"))
    return cfg, manifest, seed


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
        got, cycles = await drv.run(case.act, case.wgt, rt, load_weights=case.reload_weights)
        expected = tile_outputs(cfg, case.act, case.wgt, rt)
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


@cocotb.test()
async def tile_regression(dut):
    """Run every suite named in TERMWISE_SUITES; fail with every mismatch listed."""
    cfg, manifest, seed = _setup()
    Clock(dut.clk, PERIOD_NS, unit="ns").start()
    drv = TileDriver(dut, cfg, manifest)
    await drv.reset()
    record = _Record(seed)
    failures = []
    if os.environ.get("TERMWISE_SUITES") == "bench":
        return
    for name in os.environ.get("TERMWISE_SUITES", "random").split(","):
        if name == "conv":
            failures += await _run_conv(drv, cfg, seed, record)
        else:
            failures += await _run_suite(drv, cfg, name, seed, record)
    assert not failures, f"seed {seed}: " + "; ".join(failures[:5])


@cocotb.test()
async def tile_throughput(dut):
    """Benchmark (TERMWISE_SUITES=bench): full-depth runs with weights kept, timed."""
    import time
    if os.environ.get("TERMWISE_SUITES") != "bench":
        return
    cfg, manifest, seed = _setup()
    Clock(dut.clk, PERIOD_NS, unit="ns").start()
    drv = TileDriver(dut, cfg, manifest)
    await drv.reset()
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
    record = _Record(seed)
    record.add(suite="bench", case="throughput", runs=runs, compute_cycles=total,
               wall_seconds=wall, compute_wall_seconds=drv.compute_wall, sim_ns=start_ns, outputs_match=True, cycles=total,
               model_cycles=runs * cycle_model.run_cycles(cfg, act, wgt, rt))
