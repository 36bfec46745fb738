"""pytest runner for the Diffy cocotb regressions (:mod:`termwise.tb.diffy_tests`, and
:mod:`termwise.tb.diffy_real_tests` for real dncnn data).

A failure prints the seed and the rerun command:
``WAVES=1 TERMWISE_SEED=<seed> .venv/bin/python -m pytest tb/test_diffy.py -k <id>``.

Slow tests (``make test-all``): sampled rows of every dncnn layer through diffy-4x4, and the
diffy-16x16 build with a short random regression.
"""

import importlib.util
import json
import os

import pytest

from termwise.gen.config import preset
from termwise.tb.runner import run_regression

SEED = int(os.environ.get("TERMWISE_SEED", "1"))
DIFFY_TB = "termwise.tb.diffy_tests"
REAL_TB = "termwise.tb.diffy_real_tests"

FAST = [
    ("diffy-4x4", {}),
    ("diffy-4x4", {"act_signed": False}),
    ("diffy-4x4", {"first_stage_bits": 0, "windows": 2}),
]


def _id(item):
    name, changes = item
    return name + "".join(f"-{k}={v}" for k, v in changes.items())


def _check(cfg, suites, request, test_module=DIFFY_TB):
    result = run_regression(cfg, suites, seed=SEED, test_module=test_module)
    if not result.passed:
        spec = getattr(request.node, "callspec", None)
        hint = (f"rerun with waveforms: WAVES=1 TERMWISE_SEED={result.seed} .venv/bin/python "
                f"-m pytest tb/test_diffy.py -k '{spec.id if spec else request.node.name}'")
        pytest.fail(f"seed {result.seed}: {'; '.join(result.failures)[:2000]}\n{hint}\n"
                    f"log: {result.log}", pytrace=False)
    assert result.runs, "the regression recorded no runs"
    for run in result.runs:
        assert run["outputs_match"] and run["cycles"] == run["model_cycles"], run
    return result


@pytest.mark.parametrize("item", FAST, ids=_id)
def test_diffy_regression(item, request):
    name, changes = item
    result = _check(preset(name).replace(**changes), ("random", "corners", "conv"), request)
    suites = {run["suite"] for run in result.runs}
    assert suites == {"random", "corners", "conv"}
    assert any(run["restart"] != (1 << preset(name).replace(**changes).windows) - 1
               for run in result.runs if "restart" in run)
    for run in result.runs:
        if run["suite"] == "conv":
            print(json.dumps(run))


@pytest.mark.slow
def test_diffy_dncnn_rows(request):
    """A few output rows of every dncnn layer (real 8-bit activations and weights of the
    trained denoiser on the HD frame) through diffy-4x4: output equal to ``conv2d_direct``
    on the crop, cycles equal to the golden model's (both checked in the simulator, per
    layer), with restarts at row starts inside and across runs."""
    from termwise.golden.workloads import dncnn
    if dncnn.needs_torch(8) and importlib.util.find_spec("torch") is None:
        pytest.skip("the dncnn trace is not cached and building it trains the network with "
                    "torch, which is not installed (pip install 'termwise[workloads]')")
    wl = dncnn.load(8, log=None)            # build the trace here, not in the simulator
    result = _check(preset("diffy-4x4"), ("dncnn",), request, test_module=REAL_TB)
    runs = {run["case"].split("/")[1]: run for run in result.runs}
    assert sorted(runs) == sorted(layer.name for layer in wl.layers)
    for name, run in runs.items():
        assert run["suite"] == "conv" and run["outputs_match"], run
        assert run["cycles"] == run["model_cycles"] and run["runs"] > 1, run
        # every run after the first of a row group starts some window over
        assert run["restarts"] >= 3, run
        print(json.dumps(run))
    # the delta statistics of the simulated rows, for the record (-s)
    total_act = sum(r["act_terms"] * r["macs"] for r in runs.values())
    total_delta = sum(r["delta_terms"] * r["macs"] for r in runs.values())
    print(f"dncnn rows: MAC-weighted Booth terms per activation "
          f"{total_act / sum(r['macs'] for r in runs.values()):.3f}, per delta "
          f"{total_delta / sum(r['macs'] for r in runs.values()):.3f}")


@pytest.mark.slow
def test_diffy_16x16_regression(request):
    """diffy-16x16 (16 filters x 9 windows x 16 lanes, 16-bit) built with Verilator and a
    short random regression: chains of runs with random restart masks on dense, sparse
    and smooth data, exact outputs and cycles."""
    result = _check(preset("diffy-16x16"), ("random",), request)
    assert {run["suite"] for run in result.runs} == {"random"}
    assert len(result.runs) >= 18
    full = (1 << preset("diffy-16x16").windows) - 1
    assert any(run["restart"] != full for run in result.runs)
    print(f"diffy-16x16: build {result.build.seconds:.0f} s (0: cached), "
          f"regression {result.seconds:.0f} s, {len(result.runs)} runs")
