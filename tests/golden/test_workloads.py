"""Workloads: fixed-point round trips, synthetic values, shape tables, EfficientNet's SAME
padding, and the sim CLI's errors (no torch needed)."""

import numpy as np
import pytest

from termwise.gen.config import ConfigError
from termwise.gen.flows.simulation import parse_archs, run_sim
from termwise.gen.cli import main as _cli_main
from termwise.golden.workloads import load_workload, synthetic_values
from termwise.golden.workloads.quantisation import (dequantise, fake_quant, frac_bits_for,
                                                    quantise)
from termwise.golden.workloads.shapes import load as load_shapes, shape_table


@pytest.mark.parametrize("bits", [8, 16])
def test_quantise_round_trip(bits):
    rng = np.random.default_rng(0)
    x = rng.normal(0, 3, size=1000).astype(np.float32)
    f = frac_bits_for(float(np.abs(x).max()), bits)
    q = quantise(x, bits, f)
    hi = (1 << (bits - 1)) - 1
    assert q.min() >= -hi and q.max() <= hi
    assert np.abs(q).max() > hi // 2                     # the range is used
    np.testing.assert_allclose(dequantise(q, f), x, atol=2.0 ** -f / 2 + 1e-6)
    np.testing.assert_array_equal(quantise(dequantise(q, f), bits, f), q)   # idempotent
    np.testing.assert_array_equal(fake_quant(x, bits, f), dequantise(q, f))


def test_frac_bits_holds_the_range():
    for amax in (0.01, 0.7, 1.0, 6.0, 1000.0):
        for bits in (8, 16):
            f = frac_bits_for(amax, bits)
            assert amax * 2 ** f <= (1 << (bits - 1)) - 1 < amax * 2 ** (f + 1)


def test_synthetic_values_are_deterministic_and_in_range():
    a = synthetic_values((4, 5), 8, "act", "x")
    np.testing.assert_array_equal(a, synthetic_values((4, 5), 8, "act", "x"))
    assert a.min() >= 0 and a.max() <= 127
    w = synthetic_values((100,), 16, "wgt", "y")
    assert w.min() >= -32767 and w.max() <= 32767


def test_layer_signedness_from_the_data():
    """``Layer.act_signed`` (the runs' act_signed register) defaults to what the data says:
    unsigned when no input activation is negative, and then a given ``act_precision`` (a
    two's complement width) loses its always-0 sign bit; an explicit value is kept."""
    from termwise.golden.workloads import Layer
    wgt = np.ones((2, 3), np.int64)
    relu = Layer("fc", "fc", np.array([[0, 5, 7]]), wgt, 8, act_precision=4)
    assert relu.act_signed is False and relu.act_precision == 3
    signed = Layer("fc", "fc", np.array([[0, -5, 7]]), wgt, 8, act_precision=4)
    assert signed.act_signed is True and signed.act_precision == 4
    kept = Layer("fc", "fc", np.array([[0, 5, 7]]), wgt, 8, act_precision=4, act_signed=True)
    assert kept.act_signed is True and kept.act_precision == 4
    forced = Layer("fc", "fc", np.array([[0, 5, 7]]), wgt, 8, act_precision=4,
                   act_signed=False)
    assert forced.act_signed is False and forced.act_precision == 4
    lossless = Layer("fc", "fc", np.array([[0, 5, 7]]), wgt, 8)
    assert lossless.act_signed is False and lossless.act_precision is None
    one = Layer("fc", "fc", np.zeros((1, 3), np.int64), wgt, 8, act_precision=1)
    assert one.act_signed is False and one.act_precision == 1


def test_shape_tables():
    alex = shape_table("alexnet")
    assert [r[0] for r in alex][:5] == ["conv1", "conv2", "conv3", "conv4", "conv5"]
    assert alex[1][7] == 2 and alex[3][7] == 2 and alex[4][7] == 2     # groups 2
    assert len([r for r in shape_table("vgg16") if r[0].startswith("conv")]) == 13
    r50 = shape_table("resnet50")
    assert len([r for r in r50 if r[0] != "fc"]) == 53 and r50[-1][1] == 2048
    wl = load_shapes("alexnet", 8)
    assert wl.synthetic and all(layer.synthetic for layer in wl.layers)
    assert "SYNTHETIC" in wl.notes[0]
    conv_macs = sum(layer.macs for layer in wl.layers if layer.kind == "conv")
    assert conv_macs == 665_784_864                       # Caffe AlexNet convolutions


def test_same_padding():
    from termwise.golden.workloads.efficientnet import same_padding
    assert same_padding(224, 3, 2) == (0, 1)
    assert same_padding(56, 5, 2) == (1, 2)
    assert same_padding(28, 5, 1) == (2, 2)


def test_errors():
    with pytest.raises(ConfigError, match="workload"):
        load_workload("lenet", 16)
    with pytest.raises(ConfigError, match="precision"):
        load_workload("alexnet", 12)
    with pytest.raises(ConfigError, match="designs"):
        parse_archs("stripes,warp")
    assert parse_archs("all")[0] == "baseline"
    with pytest.raises(ConfigError, match="precision"):
        run_sim("alexnet", "stripes", "9", "/nonexistent")
    with pytest.raises(ConfigError, match="workload"):
        run_sim("nope", "stripes", 8, "/nonexistent")


@pytest.mark.parametrize("argv, field", [
    (["--workload", "nope", "--arch", "all"], "workload"),
    (["--workload", "alexnet", "--arch", "foo"], "designs"),
    (["--workload", "alexnet", "--designs", "foo"], "designs"),
    (["--workload", "alexnet", "--arch", "all", "--precision", "4"], "precision"),
])
def test_cli_errors_exit_2(argv, field, tmp_path, capsys):
    assert _cli_main(["sim", *argv, "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {field}:")
    assert not any(tmp_path.iterdir())
