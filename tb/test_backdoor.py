"""The backdoor load of the operand buffers (issue 17, "fast stimulus";
:mod:`termwise.tb.driver`): a regression loaded through it passes with exact outputs and
cycles, it gives the same cycles as the stream path run by run, a deliberately wrong
backdoor fails the regression, and tiles whose array owns its operands keep the streams.
"""

import pytest

from termwise.gen.config import preset
from termwise.tb.driver import BACKDOOR_FAULT_ENV
from termwise.tb.harness import LOAD_ENV
from termwise.tb.regress import SEED, regress
from termwise.tb.runner import run_regression

PRESETS = ("baseline-4x4", "stripes-4x4")


def _by_case(result, suite):
    return [(r["case"], r["cycles"], r["model_cycles"], r["outputs_match"])
            for r in result.runs if r["suite"] == suite]


@pytest.mark.parametrize("name", PRESETS)
def test_backdoor_regression_matches_the_stream_path(name, request):
    """``random`` and ``conv`` through the backdoor, ``stream`` (the same cases as
    ``random``) and ``corners`` through the streams, in one simulator start: every run
    exact, and the backdoor's runs measure the stream path's cycles case by case."""
    result = regress(preset(name), ("random", "conv", "stream", "corners"), request)
    loads = {(r["suite"], r["load"]) for r in result.runs}
    assert loads == {("random", "backdoor"), ("conv", "backdoor"), ("stream", "stream"),
                     ("corners", "stream")}, loads
    vlt = (result.build.directory / "public.vlt").read_text()
    top = result.build.generated.manifest["top"]
    for buffer in ("wgt_buffer", "act_buffer"):
        assert f'public_flat_rw -module "{top}.{buffer}" -var "mem"' in vlt
    backdoor, stream = _by_case(result, "random"), _by_case(result, "stream")
    assert backdoor == stream and len(backdoor) == 8
    # Forced onto the streams, the conv suite measures the same cycles as through the
    # backdoor.
    streamed = run_regression(preset(name), ("conv",), seed=SEED,
                              extra_env={LOAD_ENV: "stream"})
    assert streamed.passed and {r["load"] for r in streamed.runs} == {"stream"}
    assert _by_case(streamed, "conv") == _by_case(result, "conv")


@pytest.mark.parametrize("fault", ["shift", "drop"])
@pytest.mark.parametrize("name", PRESETS)
def test_wrong_backdoor_fails_the_regression(name, fault):
    """Rows written one address too high, or a load's last row missing: the outputs
    differ from the golden model and the regression fails; the stream suites are not
    touched by the fault."""
    result = run_regression(preset(name), ("random", "corners"), seed=SEED,
                            extra_env={BACKDOOR_FAULT_ENV: fault})
    assert not result.passed
    assert any("golden" in f for f in result.failures), result.failures
    random = [r for r in result.runs if r["suite"] == "random"]
    corners = [r for r in result.runs if r["suite"] == "corners"]
    assert random and sum(not r["outputs_match"] for r in random) >= len(random) // 2
    assert corners and all(r["outputs_match"] and r["cycles"] == r["model_cycles"]
                           for r in corners)


def test_owning_array_keeps_the_stream_path(request):
    """Cnvlutin's array owns its operands (``OWNS_OPERANDS``): no operand buffers, no
    public memories, every suite on the streams, even with the backdoor forced."""
    result = regress(preset("cnvlutin-4x4"), ("random",), request,
                     extra_env={LOAD_ENV: "backdoor"})
    assert {r["load"] for r in result.runs} == {"stream"}
    assert "_buffer" not in (result.build.directory / "public.vlt").read_text()
