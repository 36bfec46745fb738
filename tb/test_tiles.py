"""pytest runners for the cocotb tile regressions (one simulator start per configuration).

A failure prints the seed and the command that reruns it with waveforms:
``WAVES=1 TERMWISE_SEED=<seed> .venv/bin/python -m pytest tb/test_tiles.py -k <id>``.
The seed defaults to 1; set TERMWISE_SEED to explore others.
"""

import os

import pytest

from termwise.gen.config import preset
from termwise.tb.runner import run_regression

SEED = int(os.environ.get("TERMWISE_SEED", "1"))

FAST = [
    ("baseline-4x4", {}),
    ("stripes-4x4", {}),
    ("baseline-4x4", {"act_signed": False}),
    ("stripes-4x4", {"act_signed": False}),
    ("dstripes-4x4", {}),
    ("dstripes-4x4", {"act_signed": False}),
    ("loom-4x4", {}),
    ("loom-4x4", {"act_signed": False}),
    ("pragmatic-4x4", {}),
    ("pragmatic-4x4", {"act_signed": False}),
    ("pragmatic-4x4", {"encoding": "booth"}),
    ("pragmatic-4x4", {"sync": "column", "column_registers": 2}),
    ("laconic-4x4", {}),
    ("laconic-4x4", {"act_signed": False}),
    ("cnvlutin-4x4", {}),
    ("cnvlutin-4x4", {"act_signed": False}),
    ("cnvlutin-4x4", {"windows": 2}),
]
# loom-16x16 and laconic-16x16 have 1024 PEs (equal peak at 16 bits needs 64 windows):
# their Verilog takes minutes to emit and Verilator does not finish in reasonable time, so
# their RTL is exercised at 4x4 and their 16x16 presets by the golden models (termwise sim).
SLOW = [(f"{arch}-16x16", {}) for arch in
        ("baseline", "stripes", "dstripes", "pragmatic", "cnvlutin")]


def _id(item):
    name, changes = item
    return name + "".join(f"-{k}={v}" for k, v in changes.items())


def _check(cfg, suites, request):
    result = run_regression(cfg, suites, seed=SEED)
    if not result.passed:
        hint = (f"rerun with waveforms: WAVES=1 TERMWISE_SEED={result.seed} .venv/bin/python "
                f"-m pytest tb/test_tiles.py -k '{request.node.callspec.id}'")
        waves = f"; waveform: {result.waves_file}" if result.waves_file else ""
        pytest.fail(f"seed {result.seed}: {'; '.join(result.failures)[:2000]}\n{hint}{waves}\n"
                    f"log: {result.log}", pytrace=False)
    if result.waves_file:
        print(f"waveform written to {result.waves_file}")
    assert result.runs, "the regression recorded no runs"
    for run in result.runs:
        assert run["outputs_match"] and run["cycles"] == run["model_cycles"], run
    return result


@pytest.mark.parametrize("item", FAST, ids=_id)
def test_tile_regression(item, request):
    name, changes = item
    _check(preset(name).replace(**changes), ("random", "corners", "conv"), request)


@pytest.mark.slow
@pytest.mark.parametrize("item", SLOW, ids=_id)
def test_tile_regression_16x16(item, request):
    name, changes = item
    _check(preset(name).replace(**changes), ("random", "corners", "conv"), request)


@pytest.mark.slow
@pytest.mark.parametrize("name", [f"{arch}-4x4" for arch in (
    "baseline", "stripes", "dstripes", "loom", "pragmatic", "laconic", "cnvlutin")])
def test_real_network_runs(name, request):
    """Sampled runs of every layer of the trained digits CNN (real weights and activations)
    through each tile: exact outputs and cycles against the cycle model on the same data."""
    _check(preset(name), ("real",), request)


FUSED = dict(bias=True, residual=True, activation="relu", out_bits=8)


@pytest.mark.parametrize("name", ["baseline-4x4", "stripes-4x4"])
def test_fused_output_stage_and_layer_chain(name, request):
    """The fused output stage (bias, residual, requantise, ReLU) on random runs and on two
    consecutive conv layers, the first feeding the second."""
    _check(preset(name).replace(**FUSED), ("fused", "chain"), request)


@pytest.mark.parametrize("changes", [dict(activation="relu6", out_bits=8),
                                     dict(bias=True, activation="relu6"),
                                     dict(out_bits=12)], ids=["relu6-q8", "bias-relu6", "q12"])
def test_fused_output_stage_variants(changes, request):
    _check(preset("baseline-4x4").replace(**changes), ("fused",), request)


@pytest.mark.parametrize("name", ["stripes-4x4", "baseline-4x4"])
def test_regression_detects_a_wrong_model(name):
    """The regression must fail when the golden side believes in another design: here the
    testbench thinks activations are unsigned while the hardware treats them as signed."""
    cfg = preset(name)
    result = run_regression(cfg, ("random",), seed=SEED,
                            testbench_config=cfg.replace(act_signed=False))
    assert not result.passed
    assert any("golden" in f for f in result.failures), result.failures


@pytest.mark.slow
def test_waves_written_on_request():
    result = run_regression(preset("baseline-4x4"), ("corners",), seed=SEED, waves=True)
    assert result.passed
    assert result.waves_file is not None and result.waves_file.stat().st_size > 1000
    assert result.waves_file.read_bytes()[:1] == b"\x00"   # FST header block
