"""dncnn workload: deterministic training (tiny config), the NumPy forward pass against
torch, the HD frame and its tiles."""

import numpy as np
import pytest

from termwise.golden.workloads import WORKLOADS
from termwise.golden.workloads import dncnn
from termwise.golden.workloads.denoising import float_forward


def test_registered():
    assert "dncnn" in WORKLOADS


def test_tiny_training_is_deterministic():
    pytest.importorskip("torch")
    kw = dict(depth=3, features=4, batch=2, n_images=1)
    p1 = dncnn.train(3, 2, **kw)
    p2 = dncnn.train(3, 2, **kw)
    assert sorted(p1) == ["b0", "b1", "b2", "w0", "w1", "w2"]
    assert p1["w0"].shape == (4, 1, 3, 3) and p1["w2"].shape == (1, 4, 3, 3)
    for k in p1:
        assert np.array_equal(p1[k], p2[k]), k
    p3 = dncnn.train(4, 2, **kw)
    assert not np.array_equal(p1["w1"], p3["w1"])


def test_numpy_forward_matches_torch():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    m = dncnn.make_model(3, 4)
    params = {}
    for i, c in enumerate([c for c in m if hasattr(c, "weight")]):
        params[f"w{i}"] = c.weight.detach().numpy().copy()
        params[f"b{i}"] = c.bias.detach().numpy().copy()
    x = np.random.default_rng(0).random((1, 1, 9, 11)).astype(np.float32)
    ref = m(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(float_forward(params, x), ref, rtol=1e-4, atol=1e-5)


def test_hd_frame_shape_and_tiles():
    clean, noisy = dncnn.hd_frame()
    assert clean.shape == noisy.shape == dncnn.HD
    assert 0 <= clean.min() and clean.max() <= 1
    o1 = dncnn.tile_sampler().origins("conv2", 720, 1280)
    assert o1 == dncnn.tile_sampler().origins("conv2", 720, 1280) and len(o1) == dncnn.TILES
