"""dncnn's 16-bit per-layer precision profile (PSNR criterion) and the profiled trace.

The expected values come from an independent integer model written here: integer codes
(:func:`quantise`), exact int64 convolutions (:func:`conv2d_direct` on the codes), the bias
added at the accumulator scale, ReLU, and the PSNR of ``noisy - output``. The profile search
in :mod:`termwise.golden.workloads.dncnn` runs on float32 fake-quantised values instead, so
the two only agree if the search evaluates what it claims to.
"""

import json
import os

import numpy as np
import pytest

from termwise.golden.potential import layer_precision
from termwise.golden.primitives import conv2d_direct
from termwise.golden.workloads import dncnn
from termwise.golden.workloads.denoising import psnr
from termwise.golden.workloads.quantisation import frac_bits_for, quantise

BITS = 16
MARGIN = 0.1


def _params(rng, features=4):
    """A tiny 3-layer denoiser of DnCNN's shape that does denoise, so that precision
    matters: channel 0 carries the input, channel 1 its 3x3 box blur (both offset by 0.5
    to pass the ReLUs), the last layer outputs their difference (the noise estimate, so
    ``noisy - output`` is the blur); small random weights everywhere else, and random
    gains, keep the weights off exact powers of two."""
    w0 = rng.standard_normal((features, 1, 3, 3)) * 0.3
    w0[:2] = 0
    w0[0, 0, 1, 1] = 1.0
    w0[1, 0] = 1.0 / 9
    b0 = np.r_[0.5, 0.5, rng.standard_normal(features - 2) * 0.05]
    g = 0.9 + rng.random(2) * 0.2
    w1 = rng.standard_normal((features, features, 3, 3)) * 0.01
    w1[0, 0, 1, 1] += g[0]
    w1[1, 1, 1, 1] += g[1]
    b1 = rng.standard_normal(features) * 0.01
    w2 = rng.standard_normal((1, features, 3, 3)) * 0.003
    w2[0, 0, 1, 1] += 1 / g[0]
    w2[0, 1, 1, 1] -= 1 / g[1]
    p = {"w0": w0, "b0": b0, "w1": w1, "b1": b1, "w2": w2, "b2": rng.standard_normal(1) * 0.01}
    return {k: np.asarray(v, np.float32) for k, v in p.items()}


def _pairs(rng):
    """Two 40x56 images and one 36x48 one (two batches by size): smooth (sinusoidal) clean images plus
    Gaussian noise."""
    out = {}
    for name, shape in (("a", (40, 56)), ("b", (40, 56)), ("c", (36, 48))):
        yy, xx = np.mgrid[:shape[0], :shape[1]]
        ph = rng.random(2) * 6.3
        clean = 0.5 + 0.3 * np.sin(xx / 6 + ph[0]) * np.cos(yy / 8 + ph[1])
        noisy = clean + rng.standard_normal(shape) * dncnn.SIGMA
        out[name] = (clean.astype(np.float32), noisy.astype(np.float32))
    return out


def _amax(params, pairs):
    """Calibrated ranges, written out independently: max |input| of each layer (float)."""
    n = len(params) // 2
    amax = [0.0] * n
    for _, noisy in pairs.values():
        x = noisy[None, None].astype(np.float64)
        for i in range(n):
            amax[i] = max(amax[i], float(np.abs(x).max()))
            x = conv2d_direct(x, params[f"w{i}"].astype(np.float64),
                              params[f"b{i}"].astype(np.float64), padding=1)
            if i < n - 1:
                x = np.maximum(x, 0)
    return amax


def _int_psnr(params, amax, pairs, aprec, wprec, bits=BITS):
    """Mean PSNR of the integer model with per-layer precisions (fraction bits dropped from
    the ``bits``-bit format calibrated on ``amax`` / the widest weight)."""
    n = len(params) // 2
    vals = []
    for clean, noisy in pairs.values():
        x = noisy[None, None].astype(np.float64)
        for i in range(n):
            fa = frac_bits_for(amax[i], bits) - (bits - aprec[i])
            w = params[f"w{i}"]
            fw = frac_bits_for(float(np.abs(w).max()), bits) - (bits - wprec[i])
            a = quantise(x, aprec[i], fa)
            assert np.abs(a).max() < 1 << (aprec[i] - 1)
            acc = conv2d_direct(a, quantise(w, wprec[i], fw), padding=1)
            x = acc * 2.0 ** -(fa + fw) + params[f"b{i}"].astype(np.float64)[:, None, None]
            if i < n - 1:
                x = np.maximum(x, 0)
        vals.append(psnr(clean, noisy - x[0, 0]))
    return float(np.mean(vals))


@pytest.fixture(scope="module")
def tiny():
    rng = np.random.default_rng(7)
    params, pairs = _params(rng), _pairs(rng)
    amax = _amax(params, pairs)
    prof = dncnn.precision_profile(params, amax, pairs, BITS, MARGIN)
    return params, pairs, amax, prof


def test_profile_reference_and_criterion(tiny):
    params, pairs, amax, prof = tiny
    full = [BITS] * 3
    ref = _int_psnr(params, amax, pairs, full, full)
    assert prof["reference_psnr"] == pytest.approx(ref, abs=1e-4)
    assert prof["floor"] == pytest.approx(ref - MARGIN, abs=1e-4)
    assert "0.1 dB" in prof["criterion"]
    got = _int_psnr(params, amax, pairs, prof["act_profile"], prof["wgt_profile"])
    assert prof["psnr"] == pytest.approx(got, abs=1e-4)
    assert got >= ref - MARGIN
    # the profile does lower precisions (a 16-bit denoiser does not need 16 bits)
    assert max(prof["act_profile"]) < BITS and max(prof["wgt_profile"]) < BITS


def test_profile_single_layer_minima_are_minimal(tiny):
    params, pairs, amax, prof = tiny
    full = [BITS] * 3
    floor = _int_psnr(params, amax, pairs, full, full) - MARGIN
    for which, res in (("act", prof["act"]), ("wgt", prof["wgt"])):
        for i, p in enumerate(res["per_layer_single"]):
            def ok(q):
                prec = list(full)
                prec[i] = q
                if which == "act":
                    return _int_psnr(params, amax, pairs, prec, full) >= floor
                return _int_psnr(params, amax, pairs, prof["act_profile"], prec) >= floor
            assert ok(p), (which, i, p)
            if p > 1:
                assert not ok(p - 1), (which, i, p)
        # the combined profile never goes below a layer's single minimum
        assert all(c >= s for c, s in zip(res["profile"], res["per_layer_single"]))


def test_profile_trim_gives_back_extra_bits(tiny):
    """After the combined search (minima + extra bits each), every layer gave back the
    extra bits it could, in layer order: with the layers before it as returned and the
    ones after it still at minimum + extra, one bit less breaks the criterion (or the
    layer is at its single minimum). On this network the weight search needs the trim."""
    params, pairs, amax, prof = tiny
    full = [BITS] * 3
    floor = _int_psnr(params, amax, pairs, full, full) - MARGIN
    trimmed = 0
    for which, res in (("act", prof["act"]), ("wgt", prof["wgt"])):
        extra = res["extra_bits_combined"]
        for i, p in enumerate(res["profile"]):
            if p == res["per_layer_single"][i]:
                trimmed += extra > 0
                continue
            trial = res["profile"][:i] + [p - 1] + [
                min(BITS, q + extra) for q in res["per_layer_single"][i + 1:]]
            score = (_int_psnr(params, amax, pairs, trial, full) if which == "act" else
                     _int_psnr(params, amax, pairs, prof["act_profile"], trial))
            assert score < floor, (which, i)
    assert trimmed, "the trim was not exercised"


def test_profiled_trace_and_load(tiny, tmp_path, monkeypatch):
    """build_trace/load at 16 bits on a tiny network and frame: the profile lands in the
    per-layer codes, precisions, notes and cache names."""
    params, pairs, _, _ = tiny
    rng = np.random.default_rng(3)
    clean = np.clip(np.cumsum(rng.normal(0, 0.05, (12, 20)), axis=1) + 0.5, 0, 1)
    noisy = (clean + rng.standard_normal(clean.shape) * dncnn.SIGMA).astype(np.float32)
    monkeypatch.setenv("TERMWISE_WORKLOADS", str(tmp_path))
    monkeypatch.setattr(dncnn, "HD", clean.shape)
    monkeypatch.setattr(dncnn, "TILE_H", 4)
    monkeypatch.setattr(dncnn, "TILE_W", 6)
    monkeypatch.setattr(dncnn, "trained", lambda seed=0, steps=0, log=None: (
        params, {"heldout_psnr": {"mean": {"noisy": 1.0, "denoised": 2.0}}}))
    monkeypatch.setattr(dncnn, "hd_frame", lambda seed=0: (clean.astype(np.float32), noisy))
    monkeypatch.setattr(dncnn, "heldout_pairs", lambda seed=0: pairs)
    wl = dncnn.load(16, log=None)
    npz, js = dncnn.trace_paths(16)
    assert os.path.exists(npz) and f"_v{dncnn.TRACE_VERSION}_psnr0.1dB" in js
    meta = json.load(open(js))
    prof = meta["profile"]
    # the calibration is the frame's: independent float pass over it
    amax = _amax(params, {"f": (clean, noisy)})
    assert [info["act_amax"] for info in meta["layers"]] == pytest.approx(amax, rel=1e-5)
    assert any(f"activations {prof['act_profile']} bits" in n for n in wl.notes)
    assert any(f"weights {prof['wgt_profile']} bits" in n for n in wl.notes)
    for i, (layer, info) in enumerate(zip(wl.layers, meta["layers"])):
        p, pw = prof["act_profile"][i], prof["wgt_profile"][i]
        assert np.abs(layer.act).max() < 1 << (p - 1)
        # Signedness from the data (post-ReLU layers are unsigned): the lossless width of
        # the codes in that reading, a bit less than the profile's two's complement p.
        assert layer.act_signed == bool(layer.act.min() < 0)
        unsigned_p = p if layer.act_signed else max(1, p - 1)
        assert layer.act_precision == layer_precision(layer.act, 16, layer.act_signed) \
            <= unsigned_p
        w = params[f"w{i}"]
        fw = frac_bits_for(float(np.abs(w).max()), 16) - (16 - pw)
        assert np.array_equal(layer.wgt, quantise(w, pw, fw))
        assert layer.wgt_precision == layer_precision(layer.wgt, 16, True) <= pw
    # layer 1's tiles are the frame's codes at its profiled format (halo zero padded)
    fa = frac_bits_for(amax[0], 16) - (16 - prof["act_profile"][0])
    q = np.pad(quantise(noisy, prof["act_profile"][0], fa), 1)
    for t, (y, x) in enumerate(meta["layers"][0]["tiles"]):
        assert np.array_equal(wl.layers[0].act[t, 0], q[y:y + 6, x:x + 8])
    # the 8-bit trace has no profile and its own file
    wl8 = dncnn.load(8, log=None)
    assert "profile" not in wl8.meta and len(wl8.notes) == len(wl.notes) - 1
    assert all(l.act_precision <= 8 for l in wl8.layers)
