"""ShapeShifter footprint model: hand-computed groups."""

import numpy as np
import pytest

from termwise.golden.shapeshifter import (footprint_bits, group_widths, header_bits,
                                          layer_traffic, tensor_footprint)


def test_header_names_every_width():
    assert header_bits(8) == 3 and header_bits(16) == 4


def test_group_widths_signed_and_unsigned():
    v = np.zeros(32, np.int64)
    v[3] = 5            # signed: 4 bits (0101 + sign); unsigned: 3 bits
    v[20] = -1          # signed: 1 bit
    assert group_widths(v, 8, True, 16).tolist() == [4, 1]
    assert group_widths(np.abs(v), 8, False, 16).tolist() == [3, 1]


def test_footprint_counts_payload_and_headers():
    v = np.zeros(40, np.int64)
    v[0] = 100          # signed 8 bits
    # groups of 16: [8 bits x 16] + [1 x 16] + [1 x 8 stored, 8 padding not stored]
    assert footprint_bits(v, 8, True, 16) == 8 * 16 + 16 + 8 + 3 * header_bits(8)
    t = tensor_footprint(v, 8, True, 16)
    assert t.baseline_bits == 320 and t.ratio == pytest.approx(t.shapeshifter_bits / 320)


def test_all_zero_tensor_shrinks_to_one_bit_per_value_plus_headers():
    v = np.zeros((4, 64), np.int64)
    t = tensor_footprint(v, 16, True, 64)
    assert t.shapeshifter_bits == 256 + 4 * 4
    assert t.ratio < 0.07


def test_layer_traffic_ratio_between_parts():
    rng = np.random.default_rng(0)
    act = rng.integers(0, 16, 1000)          # 4-bit values in an 8-bit container
    wgt = rng.integers(-128, 128, 500)       # full width
    out = np.zeros(200, np.int64)
    t = layer_traffic(act, wgt, out, bits=8, act_signed=False, group=16)
    assert t["wgt_ratio"] > 1.0 > t["act_ratio"] > t["out_ratio"]
    assert 0 < t["ratio"] < 1


def test_group_range_checked():
    with pytest.raises(ValueError, match="group: must be an integer in 16..256"):
        group_widths(np.zeros(4, np.int64), 8, True, 8)
