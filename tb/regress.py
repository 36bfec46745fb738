"""What every pytest runner of a cocotb regression shares: the seed, the registered
regressions of a testbench module as pytest parameters, and :func:`regress`, which runs one
and fails with the seed, the failures and the command that reruns it with waveforms.

The seed defaults to 1; set ``TERMWISE_SEED`` to explore others.
"""

from __future__ import annotations

import os

import pytest

from .runner import RegressionResult, run_regression
from .testbenches import regressions, testbench_for

__all__ = ["SEED", "params", "regress", "rerun_command"]

SEED = int(os.environ.get("TERMWISE_SEED", "1"))


def params(module: str) -> list:
    """``pytest.param(cfg, suites)`` of every registered regression whose testbench is
    ``module`` (dotted name), fast ones first, slow ones marked ``slow``. The id is the
    regression's, with its suites appended when they are not the testbench's default."""
    out = []
    for slow in (False, True):
        for cfg, suites, rid in regressions(module, slow=slow):
            if tuple(suites) != tuple(testbench_for(cfg).default):
                rid += "-" + "-".join(suites)
            out.append(pytest.param(cfg, tuple(suites), id=rid,
                                    marks=(pytest.mark.slow,) if slow else ()))
    return out


def rerun_command(request, seed: int) -> str:
    """The command that reruns the requesting test with waveforms and ``seed``."""
    return (f"WAVES=1 TERMWISE_SEED={seed} .venv/bin/python -m pytest "
            f"'{request.node.nodeid}'")


def regress(cfg, suites, request, **kwargs) -> RegressionResult:
    """:func:`~termwise.tb.runner.run_regression` of ``cfg`` with :data:`SEED` through its
    testbench (``test_module`` and other keywords passed on); fails the test with the seed,
    the failures and the rerun command, then checks that every recorded run matched the
    golden outputs and cycles."""
    kwargs.setdefault("test_module", testbench_for(cfg).module)
    result = run_regression(cfg, suites, seed=SEED, **kwargs)
    if not result.passed:
        waves = f"; waveform: {result.waves_file}" if result.waves_file else ""
        pytest.fail(f"seed {result.seed}: {'; '.join(result.failures)[:2000]}\n"
                    f"rerun with waveforms: {rerun_command(request, result.seed)}{waves}\n"
                    f"log: {result.log}", pytrace=False)
    if result.waves_file:
        print(f"waveform written to {result.waves_file}")
    assert result.runs, "the regression recorded no runs"
    for run in result.runs:
        assert run["outputs_match"] and run["cycles"] == run["model_cycles"], run
    return result
