"""pytest runner for the Diffy cocotb regression (:mod:`termwise.tb.diffy_tests`): every
regression the design registers, plus two slow ones (``make test-all``): sampled rows of
every dncnn layer through diffy-4x4 (the ``dncnn`` suite), and the diffy-16x16 build with a
short random regression.
"""

import importlib.util
import json

import pytest

from termwise.gen.config import preset
from termwise.tb.regress import params, regress


@pytest.mark.parametrize("cfg, suites", params("termwise.tb.diffy_tests"))
def test_diffy_regression(cfg, suites, request):
    result = regress(cfg, suites, request)
    assert {run["suite"] for run in result.runs} == set(suites)
    if "random" in suites:
        assert any(run["restart"] != (1 << cfg.windows) - 1
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
    result = regress(preset("diffy-4x4"), ("dncnn",), request)
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
