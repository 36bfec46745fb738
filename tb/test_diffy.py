"""pytest runner for the Diffy cocotb regression (:mod:`termwise.tb.diffy_tests`).

A failure prints the seed and the rerun command:
``WAVES=1 TERMWISE_SEED=<seed> .venv/bin/python -m pytest tb/test_diffy.py -k <id>``.
"""

import json
import os

import pytest

from termwise.gen.config import preset
from termwise.tb.runner import run_regression

SEED = int(os.environ.get("TERMWISE_SEED", "1"))

FAST = [
    ("diffy-4x4", {}),
    ("diffy-4x4", {"act_signed": False}),
    ("diffy-4x4", {"first_stage_bits": 0, "windows": 2}),
]


def _id(item):
    name, changes = item
    return name + "".join(f"-{k}={v}" for k, v in changes.items())


def _check(cfg, suites, request):
    result = run_regression(cfg, suites, seed=SEED, test_module="termwise.tb.diffy_tests")
    if not result.passed:
        hint = (f"rerun with waveforms: WAVES=1 TERMWISE_SEED={result.seed} .venv/bin/python "
                f"-m pytest tb/test_diffy.py -k '{request.node.callspec.id}'")
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
