"""The workloads' quantisation formats (golden/workloads/quantisation.py): expected scales
and codes written out by hand or computed independently here."""

import numpy as np
import pytest

from termwise.golden.workloads import quantisation as qz


def test_frac_bits_and_codes_by_hand():
    # 8 bits: 127 codes above zero; amax 1.0 -> floor(log2(127)) = 6 fraction bits
    assert qz.frac_bits_for(1.0, 8) == 6
    assert qz.frac_bits_for(100.0, 8) == 0 and qz.frac_bits_for(300.0, 8) == -2
    assert qz.frac_bits_for(0.0, 8) == 7
    # round half to even, symmetric saturation
    assert qz.quantise([0.5 / 64, 1.5 / 64, -3.0], 8, 6).tolist() == [0, 2, -127]
    assert qz.fake_quant(np.float32(0.3), 8, 6) == np.float32(19 / 64)


def test_pow2_formats_drop_fraction_bits():
    w = [np.array([[0.5, -0.25]], np.float32), np.array([[3.0]], np.float32)]
    afrac, wfrac, wq, hook, aprec, wprec = qz.pow2_formats(w, [1.0, 6.0], 8, [8, 5], [6, 8])
    # ranges: amax 1.0 -> 6, 6.0 -> 4 fraction bits; 5 bits drop 3 of them
    assert afrac == [6, 1] and aprec == [8, 5]
    # widest weights 0.5 -> 7 (two fraction bits dropped at 6 bits), 3.0 -> 5
    assert wfrac == [5, 5] and wprec == [6, 8]
    assert hook(1, np.float32(2.3)) == np.float32(2.5)      # steps of 1/2
    assert np.array_equal(wq[0], np.array([[0.5, -0.25]], np.float32))


def test_channel_scales_and_codes():
    w = np.array([[[0.5, -1.0]], [[0.0, 0.0]], [[127.0, 63.5]], [[-127.0, 62.5]]])
    s = qz.channel_scales(w, 8)
    np.testing.assert_allclose(s, [1.0 / 127, 1.0, 1.0, 1.0])
    codes = qz.quantise_scaled(w, 8, s)
    assert codes[0, 0].tolist() == [64, -127] and codes[1].max() == 0
    assert codes[2, 0].tolist() == [127, 64]       # halves round to even
    assert codes[3, 0].tolist() == [-127, 62]


def test_quant_format_schemes_and_precisions():
    rng = np.random.default_rng(0)
    w = [rng.standard_normal((4, 3, 3, 3)), rng.standard_normal((2, 4))]
    amax = [2.0, 0.7]
    ch = qz.quant_format(w, amax, 8, "channel", act_prec=[8, 6], wgt_prec=[7, 8])
    assert ch.act_scale == pytest.approx([2.0 / 127, 0.7 / 127 * 4])
    np.testing.assert_allclose(ch.wgt_scale[0], np.abs(w[0]).reshape(4, -1).max(1) / 127 * 2)
    p2 = qz.quant_format(w, amax, 8, "pow2")
    assert p2.act_scale == [2.0 ** -5, 2.0 ** -7]
    # power-of-two scales give exactly the fraction-bit codes
    x = rng.standard_normal(50) * 0.5
    assert np.array_equal(p2.act_codes(1, x), qz.quantise(x, 8, 7))
    with pytest.raises(ValueError, match="scales"):
        qz.quant_format(w, amax, 8, "affine")


def test_fake_quant_model_is_codes_times_scales():
    rng = np.random.default_rng(1)
    w = [rng.standard_normal((3, 2, 1, 1)).astype(np.float32)]
    fmt = qz.quant_format(w, [1.5], 16)
    wq, hook = qz.fake_quant_model(w, fmt)
    ref = np.rint(w[0] / fmt.wgt_scale[0][:, None, None, None]) * fmt.wgt_scale[0][:, None, None, None]
    np.testing.assert_allclose(wq[0], ref.astype(np.float32))
    v = np.float32([0.1, -1.4])
    np.testing.assert_allclose(hook(0, v), np.rint(v / fmt.act_scale[0]) * fmt.act_scale[0],
                               rtol=1e-6)


def test_dequantise_accumulators():
    acc = np.array([[10, -20]]).reshape(1, 2)
    y = qz.dequantise_accumulators(acc, 0.5, [0.1, 0.2], bias=[1.0, 0.0], act="relu6")
    assert y.tolist() == [[1.5, 0.0]]


def test_drop_low_bits():
    codes = np.array([7, 6, 10, -10, 127, -127])
    # 8 -> 6 bits: divide by 4, round half to even, clip to +-31
    assert qz.drop_low_bits(codes, 8, 6).tolist() == [2, 2, 2, -2, 31, -31]
    assert qz.drop_low_bits(codes, 8, 8).tolist() == codes.tolist()
    assert qz.drop_low_bits(codes, 8, 1).tolist() == [0] * 6
