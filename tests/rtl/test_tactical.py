"""Bit-Tactical tile regressions under Verilator (rtl/tactical.py, cocotb module
tb/tactical_cases.py): outputs exact against the dense dot product, cycle counts exact
against golden/arch/tactical.py, for both back ends. The host lowers the weights with the
offline schedule (golden/tactical_schedule.py), so these runs use the Bit-Tactical driver,
not the generic tb/tile_tests.py one.

Rerun one with waveforms: ``WAVES=1 .venv/bin/python -m pytest tests/rtl/test_tactical.py
-k <id>``."""

import os

import pytest

from termwise.gen.config import preset
from termwise.tb.runner import run_regression

SEED = int(os.environ.get("TERMWISE_SEED", "1"))

CONFIGS = [
    ("tactical-tclp-4x4", {}),
    ("tactical-tcle-4x4", {}),
    ("tactical-tclp-4x4", {"shape": "L", "lookahead": 3, "lookaside": 2,
                           "act_signed": False}),
    ("tactical-tcle-4x4", {"encoding": "plain", "act_signed": False, "first_stage_bits": 1}),
]


def _id(item):
    name, changes = item
    return name + "".join(f"-{k}={v}" for k, v in changes.items())


@pytest.mark.parametrize("item", CONFIGS, ids=_id)
def test_tactical_tile(item):
    name, changes = item
    cfg = preset(name).replace(**changes) if changes else preset(name)
    suites = ("sparse", "random", "corners", "conv") if not changes else ("sparse", "random")
    result = run_regression(cfg, suites, seed=SEED, test_module="termwise.tb.tactical_cases")
    assert result.passed, f"seed {result.seed}: {result.failures[:3]} (log: {result.log})"
    assert result.runs
    for run in result.runs:
        assert run["outputs_match"] and run["cycles"] == run["model_cycles"], run
    sparse = [r for r in result.runs if r["suite"] == "sparse"]
    assert any(r["kept"] < r["dense_steps"] for r in sparse), "no step was ever skipped"
