"""dncnn workload: deterministic training (tiny config), PSNR, Diffy's delta statistics."""

import math

import numpy as np
import pytest

from termwise.golden.terms import booth_term_count
from termwise.golden.workloads import Layer, WORKLOADS, Workload
from termwise.golden.workloads import dncnn


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
    np.testing.assert_allclose(dncnn.float_forward(params, x), ref, rtol=1e-4, atol=1e-5)


def test_psnr():
    ref = np.zeros((4, 4))
    assert dncnn.psnr(ref, np.full((4, 4), 0.1)) == pytest.approx(20.0)
    assert dncnn.psnr(ref, ref) == math.inf
    assert dncnn.psnr(ref, np.full((4, 4), -1.0)) == math.inf     # clipped to [0, 1]


def test_hd_frame_shape_and_tiles():
    clean, noisy = dncnn.hd_frame()
    assert clean.shape == noisy.shape == dncnn.HD
    assert 0 <= clean.min() and clean.max() <= 1
    o1 = dncnn._tile_origins("conv2", 720, 1280)
    assert o1 == dncnn._tile_origins("conv2", 720, 1280) and len(o1) == dncnn.TILES


def test_deltas_by_hand_1x1():
    act = np.array([1, 3, 3, 0]).reshape(1, 1, 1, 4)
    layer = Layer("l", "conv", act, np.ones((1, 1, 1, 1), np.int64), 8)
    a, d = dncnn.layer_deltas(layer)
    assert d.ravel().tolist() == [1, 2, 0, -3]
    s = dncnn.delta_term_stats(layer)
    # radix-4 Booth: 1 -> 1, 3 -> 2 (4 - 1), 0 -> 0; deltas (9 bits): 1 -> 1,
    # 2 -> 2 (4 - 2), 0 -> 0, -3 -> 2 (-4 + 1)
    assert s["act_terms"] == pytest.approx((1 + 2 + 2 + 0) / 4)
    assert s["delta_terms"] == pytest.approx((1 + 2 + 0 + 2) / 4)
    assert s["delta_zero"] == 0.25


def test_deltas_stride_and_row_start():
    act = np.arange(10).reshape(1, 1, 2, 5) ** 2
    layer = Layer("l", "conv", act, np.ones((1, 1, 1, 3), np.int64), 8, stride=2)
    a, d = dncnn.layer_deltas(layer)
    assert a.shape == (1, 1, 1, 2, 3)        # rows: (2 - 1)//2 + 1 = 1, OW = 2
    row = act[0, 0, 0]
    assert d[0, 0, 0, 0].tolist() == row[0:3].tolist()           # predecessor 0
    assert d[0, 0, 0, 1].tolist() == (row[2:5] - row[0:3]).tolist()
    # two output rows with stride 1: each row starts over
    layer2 = Layer("l", "conv", act, np.ones((1, 1, 1, 1), np.int64), 8)
    _, d2 = dncnn.layer_deltas(layer2)
    assert d2[0, 0, 1, 0, 0] == act[0, 0, 1, 0]
    s = dncnn.delta_term_stats(layer)
    assert s["delta_terms"] == pytest.approx(
        booth_term_count(d.ravel(), 9).mean())


def test_delta_table_weighted_total_and_fc():
    conv = Layer("c", "conv", np.array([1, 3, 3, 0]).reshape(1, 1, 1, 4),
                 np.ones((1, 1, 1, 1), np.int64), 8)
    fc = Layer("f", "fc", np.array([[5, 6]]), np.ones((2, 2), np.int64), 8)
    tab = dncnn.delta_table(Workload("w", 8, [conv, fc]))
    assert tab["layers"][1]["delta_terms"] is None
    assert tab["total"]["act_terms"] == pytest.approx(1.25)
    assert tab["total"]["ratio"] == pytest.approx(1.0)
    assert tab["total_macs"]["act_terms"] == pytest.approx(1.25)
