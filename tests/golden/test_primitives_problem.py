"""Tests for ConvProblem and its MIOpen-style key."""

import numpy as np
import pytest

from termwise.golden.primitives.problem import ConvProblem, dtype_tag, parse_key


def test_alexnet_conv1_key():
    p = ConvProblem(1, 3, 227, 227, 96, 11, 11, stride=4)
    assert (p.oh, p.ow) == (55, 55)
    assert p.key == "3-227-227-11x11-96-55-55-1-0x0-4x4-1x1-0-NCHW-FP32-F"
    assert str(p) == p.key


def test_grouped_key_suffix_and_fields():
    p = ConvProblem(8, 96, 27, 27, 256, 5, 5, padding=2, groups=2, bias=True, dtype="INT8")
    assert p.key == "96-27-27-5x5-256-27-27-8-2x2-1x1-1x1-1-NCHW-INT8-F_g2"
    assert (p.cg, p.kg) == (48, 128)
    assert not p.is_depthwise
    assert ConvProblem(1, 32, 8, 8, 32, 3, 3, padding=1, groups=32).is_depthwise
    assert p.macs == 8 * 256 * 27 * 27 * 48 * 25


def test_asymmetric_params_and_dilation():
    p = ConvProblem(1, 4, 10, 11, 4, 3, 2, stride=(1, 2), padding=(2, 1), dilation=(2, 3))
    # OH = (10 + 4 - 2*2 - 1)//1 + 1 = 10, OW = (11 + 2 - 3*1 - 1)//2 + 1 = 5
    assert (p.oh, p.ow) == (10, 5)
    assert p.key == "4-10-11-3x2-4-10-5-1-2x1-1x2-2x3-0-NCHW-FP32-F"


def test_parse_key_round_trip():
    for p in (
        ConvProblem(1, 3, 227, 227, 96, 11, 11, stride=4),
        ConvProblem(2, 384, 13, 13, 384, 3, 3, padding=1, groups=2, bias=True, dtype="BF16"),
        ConvProblem(1, 4, 10, 11, 4, 3, 2, (1, 2), (2, 1), (2, 3), layout="NHWC", direction="W"),
    ):
        assert parse_key(p.key) == p
    with pytest.raises(ValueError, match="malformed"):
        parse_key("3-227-227-11x11-96")
    with pytest.raises(ValueError, match="disagree"):
        parse_key("3-227-227-11x11-96-54-55-1-0x0-4x4-1x1-0-NCHW-FP32-F")


def test_from_arrays_and_dtype_tags():
    x = np.zeros((2, 6, 9, 9), np.int8)
    w = np.zeros((4, 3, 3, 3), np.int8)
    p = ConvProblem.from_arrays(x, w, np.zeros(4), padding=1, groups=2)
    assert p.key == "6-9-9-3x3-4-9-9-2-1x1-1x1-1x1-1-NCHW-INT8-F_g2"
    assert ConvProblem.from_arrays(x.astype(np.float16), w, groups=2).dtype == "FP16"
    assert dtype_tag(np.float32) == "FP32"
    with pytest.raises(ValueError, match="no problem-key tag"):
        dtype_tag(np.complex64)


def test_frozen():
    p = ConvProblem(1, 1, 3, 3, 1, 3, 3)
    with pytest.raises(AttributeError):
        p.k = 2  # type: ignore[misc]


@pytest.mark.parametrize(
    "kwargs, msg",
    [
        (dict(groups=4), "groups: C=6 is not divisible by groups=4"),
        (dict(groups=3, k=4), "K=4 is not divisible by groups=3"),
        (dict(r=12), "larger than padded input"),
        (dict(stride=0), "stride"),
        (dict(padding=-1), "padding"),
        (dict(n=0), "n: expected a positive int"),
        (dict(dtype="FP8"), "unknown tag"),
        (dict(layout="CHWN"), "layout"),
        (dict(direction="X"), "direction"),
    ],
)
def test_validation(kwargs, msg):
    args = dict(n=1, c=6, h=9, w=9, k=6, r=3, s=3)
    args.update(kwargs)
    with pytest.raises(ValueError, match=msg):
        ConvProblem(**args)
