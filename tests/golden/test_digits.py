"""digits-cnn: deterministic NumPy training, float accuracy floor, integer (fixed-point)
inference through the golden primitives, precision vs Stripes cycles, workload registry.

The trained weights are cached under build/workloads/ (the first run trains for ~10 s)."""

import numpy as np
import pytest

from termwise.golden import netsim
from termwise.golden.workloads import WORKLOADS, load_workload
from termwise.golden.workloads import digits as dg

#: Stated floor of the float model's test accuracy (measured 97.78% with seed 0).
FLOAT_ACCURACY_FLOOR = 95.0


@pytest.fixture(scope="module")
def data():
    return dg.dataset()


@pytest.fixture(scope="module")
def model(data):
    params, info = dg.trained()
    amax = dg.calibrate(params, data[0])
    return params, info, amax


def test_split_is_fixed(data):
    xtr, ytr, xte, yte = data
    assert xtr.shape == (1437, 1, 8, 8) and xte.shape == (360, 1, 8, 8)
    assert xtr.dtype == np.float32 and 0 <= xte.min() and xte.max() <= 1
    np.testing.assert_array_equal(yte, dg.dataset()[3])
    assert np.bincount(yte).min() >= 35                  # stratified


def test_training_is_deterministic(data):
    a = dg.train(seed=3, epochs=1, data=data)
    b = dg.train(seed=3, epochs=1, data=data)
    c = dg.train(seed=4, epochs=1, data=data)
    assert set(a) == {"w0", "b0", "w1", "b1", "w2", "b2"}
    for k in a:
        assert a[k].dtype == np.float32
        np.testing.assert_array_equal(a[k], b[k])        # bit for bit
    assert not np.array_equal(a["w0"], c["w0"])
    assert dg.accuracy(a, data[2], data[3]) > 80         # one epoch already learns


def test_gradients_match_finite_differences(data):
    p = {k: v.astype(np.float64) for k, v in dg.init_params(np.random.default_rng(1)).items()}
    x, y = data[0][:4].astype(np.float64), data[1][:4]
    loss, g = dg._grads(p, x, y)
    for k, idx in (("w0", (6, 0, 1, 0)), ("w1", (11, 0, 0, 1)), ("w2", (5, 107))):
        q = dict(p)
        q[k] = p[k].copy()
        q[k][idx] += 1e-6
        up, _ = dg._grads(q, x, y)
        q[k][idx] -= 2e-6
        dn, _ = dg._grads(q, x, y)
        assert (up - dn) / 2e-6 == pytest.approx(g[k][idx], rel=1e-4, abs=1e-9)


def test_float_accuracy_above_floor(model, data):
    params, info, _ = model
    acc = dg.accuracy(params, data[2], data[3])
    assert acc == pytest.approx(info["float_test_accuracy"])
    assert acc >= FLOAT_ACCURACY_FLOOR


@pytest.mark.parametrize("bits", [16, 8])
def test_integer_inference_agrees_with_float(model, data, bits):
    params, _, amax = model
    qm = dg.quant_model(params, amax, bits)
    hi = (1 << (bits - 1)) - 1
    assert all(np.abs(w).max() <= hi and w.dtype == np.int64 for w in qm.wq)
    seen = []
    logits = dg.int_forward(qm, data[2], record=lambda i, a: seen.append(a))
    assert logits.dtype == np.int64
    assert [a.dtype for a in seen] == [np.int64] * 3
    assert all(a.min() >= 0 and a.max() <= hi for a in seen)      # ReLU'd, in range
    fl, _ = dg.float_forward(params, data[2])
    agree = float((logits.argmax(1) == fl.argmax(1)).mean())
    assert agree >= (0.98 if bits == 16 else 0.95)
    if bits == 16:       # integer logits track the float ones at the accumulator scale
        scale = 2.0 ** -(qm.act_frac[-1] + qm.wgt_frac[-1])
        np.testing.assert_allclose(logits * scale, fl, atol=1e-2 * np.abs(fl).max())


def test_lowering_precision_never_increases_stripes_cycles(model, data):
    params, _, amax = model
    cfg = netsim.design_config("stripes")
    prev = None
    for p in (16, 12, 8, 6, 4, 3, 2):
        qm = dg.quant_model(params, amax, 16, [p] * 3)
        layers = dg.trace_layers(qm, data[2][:32])
        res = netsim.simulate_layers(layers, ["baseline", "stripes"])
        cyc = sum(r.designs["stripes"]["cycles"] for r in res)
        # Post-ReLU (and pixel) activations: unsigned runs, the p-bit two's complement
        # codes held in p - 1 unsigned bits.
        assert all(not lay.act_signed for lay in layers)
        assert all(r.designs["stripes"]["rt"]["precision"] == max(1, p - 1) for r in res)
        assert cyc == max(1, p - 1) * sum(r.designs["stripes"]["steps"] for r in res)
        if prev is not None:
            assert cyc <= prev
        prev = cyc
    assert cfg.act_bits == 16


def test_lossless_profile(model, data):
    pr = dg.profiles(16)
    assert pr["lossless_floor"] == pytest.approx(pr["float_test_accuracy"] - 0.5)
    ap, wp = pr["act_profile"]["profile"], pr["wgt_profile"]["profile"]
    assert all(1 <= p <= 16 for p in ap + wp) and sum(ap) < 48
    params, _, amax = model
    acc = dg.int_accuracy(dg.quant_model(params, amax, 16, ap, wp), data[2], data[3])
    assert acc == pytest.approx(pr["wgt_profile"]["accuracy"])
    assert acc >= pr["lossless_floor"]


@pytest.mark.parametrize("bits", [16, 8])
def test_workload_registers_and_loads(bits):
    assert "digits-cnn" in WORKLOADS
    wl = load_workload("digits-cnn", bits, images=16, log=None)
    assert wl.name == "digits-cnn" and wl.bits == bits and not wl.synthetic
    assert [lay.name for lay in wl.layers] == ["conv1", "conv2", "fc"]
    assert [lay.kind for lay in wl.layers] == ["conv", "conv", "fc"]
    assert wl.layers[0].act.shape == (16, 1, 8, 8) and wl.layers[2].act.shape == (16, 256)
    for lay in wl.layers:
        p, pw = lay.act_precision, lay.wgt_precision
        assert 1 <= p <= bits and 1 <= pw <= bits
        # Pixels and post-ReLU activations: unsigned layers, the codes fit p unsigned bits
        # (the profile's two's complement width less the always-0 sign bit).
        assert lay.act_signed is False and lay.act.min() >= 0
        assert lay.act.max() <= (1 << p) - 1                     # codes fit the profile
        assert np.abs(lay.wgt).max() <= (1 << (pw - 1)) - 1
    assert wl.macs == 16 * (64 * 8 * 9 + 16 * 16 * 72 + 10 * 256)
    assert wl.meta["test_accuracy"] >= wl.meta["lossless_floor"]
