"""pytest runner for the bfloat16 tile's cocotb regression (:mod:`termwise.tb.bf16_tests`):
every regression the bf16 design registers (the baseline arch with ``dtype = "bf16"``:
16-bit bf16 operands, fp32 accumulators), and the check that a wrong golden order is caught.
Failures name the seed and the rerun command (:func:`termwise.tb.regress.regress`).
"""

import pytest

from termwise.gen.config import preset
from termwise.tb import testbenches
from termwise.tb.regress import SEED, params, regress
from termwise.tb.runner import run_regression


@pytest.mark.parametrize("cfg, suites", params("termwise.tb.bf16_tests"))
def test_bf16_tile_regression(cfg, suites, request):
    result = regress(cfg, suites, request)
    conv = [r for r in result.runs if r["suite"] == "conv"]
    assert conv and conv[0]["nrms_vs_conv2d_bf16"] < conv[0]["threshold_vs_conv2d_bf16"]
    print(f"{request.node.callspec.id}: build {result.build.seconds:.1f} s, regression "
          f"{result.seconds:.1f} s, {len(result.runs)} records; conv: {conv[0]['runs']} runs, "
          f"nRMS vs conv2d_bf16 {conv[0]['nrms_vs_conv2d_bf16']:.2e}, vs float64 "
          f"{conv[0]['nrms_vs_float64']:.2e}")


def test_bf16_regression_detects_a_wrong_model():
    """The regression must fail when the golden side believes in another design: here it
    sums each brick's lanes sequentially while the hardware uses a tree (same values,
    another rounding order), so the comparison is bit-exact, not approximate."""
    cfg = preset("baseline-bf16-4x4")
    result = run_regression(cfg, ("specials",), seed=SEED,
                            test_module=testbenches.testbench_for(cfg).module,
                            extra_env={"TERMWISE_BF16_ORDER": "sequential"})
    assert not result.passed
    assert any("golden" in f for f in result.failures), result.failures
