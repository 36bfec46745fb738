"""pytest runner for the bfloat16 tile's cocotb regression (:mod:`termwise.tb.bf16_tests`).

The bf16 tile is the baseline arch with ``dtype = "bf16"`` (16-bit bf16 operands, fp32
accumulators). No preset names it, so configurations are built here from ``baseline-4x4``.
A failure prints the seed and the command that reruns it with waveforms:
``WAVES=1 TERMWISE_SEED=<seed> .venv/bin/python -m pytest tb/test_bf16.py -k <id>``.
"""

import os

import pytest

from termwise.gen.config import preset
from termwise.tb.runner import run_regression

SEED = int(os.environ.get("TERMWISE_SEED", "1"))
MODULE = "termwise.tb.bf16_tests"


def bf16_config(**changes):
    """``baseline-4x4`` (4 filters x 4 lanes, depth 64) as a bf16 tile."""
    return preset("baseline-bf16-4x4").replace(**changes) if changes else preset("baseline-bf16-4x4")


CONFIGS = {
    "baseline-4x4-bf16": {},
    # An odd lane count (the tree passes a value up a level) and several windows.
    "bf16-f3w2l3-d16": {"filters": 3, "windows": 2, "lanes": 3, "depth": 16},
}


def _check(cfg, suites, request, seed=SEED):
    result = run_regression(cfg, suites, seed=seed, test_module=MODULE)
    if not result.passed:
        hint = (f"rerun with waveforms: WAVES=1 TERMWISE_SEED={result.seed} .venv/bin/python "
                f"-m pytest tb/test_bf16.py -k '{request.node.callspec.id}'")
        waves = f"; waveform: {result.waves_file}" if result.waves_file else ""
        pytest.fail(f"seed {result.seed}: {'; '.join(result.failures)[:2000]}\n{hint}{waves}\n"
                    f"log: {result.log}", pytrace=False)
    assert result.runs, "the regression recorded no runs"
    for run in result.runs:
        assert run["outputs_match"] and run["cycles"] == run["model_cycles"], run
    return result


@pytest.mark.parametrize("name", list(CONFIGS))
def test_bf16_tile_regression(name, request):
    result = _check(bf16_config(**CONFIGS[name]), ("random", "specials", "conv"), request)
    conv = [r for r in result.runs if r["suite"] == "conv"]
    assert conv and conv[0]["nrms_vs_conv2d_bf16"] < conv[0]["threshold_vs_conv2d_bf16"]
    print(f"{name}: build {result.build.seconds:.1f} s, regression {result.seconds:.1f} s, "
          f"{len(result.runs)} records; conv: {conv[0]['runs']} runs, nRMS vs conv2d_bf16 "
          f"{conv[0]['nrms_vs_conv2d_bf16']:.2e}, vs float64 {conv[0]['nrms_vs_float64']:.2e}")


def test_bf16_regression_detects_a_wrong_model():
    """The regression must fail when the golden side believes in another design: here it
    sums each brick's lanes sequentially while the hardware uses a tree (same values,
    another rounding order), so the comparison is bit-exact, not approximate."""
    result = run_regression(bf16_config(), ("specials",), seed=SEED, test_module=MODULE,
                            extra_env={"TERMWISE_BF16_ORDER": "sequential"})
    assert not result.passed
    assert any("golden" in f for f in result.failures), result.failures
