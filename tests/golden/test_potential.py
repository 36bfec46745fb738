"""golden/potential.py: hand-computed small cases and consistency between the designs."""

import math

import numpy as np
import pytest

from termwise.golden import potential as pot
from termwise.golden import terms as t


def work(act, wgt, design, **kw):
    return pot.mac_work(act, wgt, design, **kw).tolist()


# ------------------------------------------------------------------------- hand cases

def test_all_zero_activations():
    act = np.zeros((2, 32), dtype=np.int64)
    wgt = np.ones((2, 32), dtype=np.int64)           # signed: 1 needs 2 bits
    rep = pot.potential_report(act, wgt)
    d = rep["designs"]
    assert rep["macs"] == 64 and rep["encoding"] == "booth"
    assert d["baseline"]["work"] == 64 * 256
    assert d["stripes"]["work_per_mac"] == 16 and d["stripes"]["speedup"] == 16
    assert d["dstripes"]["speedup"] == 16            # at least one bit per group
    assert d["loom"]["work_per_mac"] == 1 * 2 and d["loom"]["speedup"] == 128
    assert d["pragmatic"]["work"] == 0 and math.isinf(d["pragmatic"]["speedup"])
    assert d["laconic"]["work"] == 0 and math.isinf(d["laconic"]["speedup"])
    assert math.isinf(pot.potential_speedup(act, wgt, "laconic"))


def test_powers_of_two():
    act = 1 << np.arange(8)                          # 1, 2, ..., 128 (unsigned 8-bit)
    wgt = np.ones(8, dtype=np.int64)
    kw = dict(act_bits=8, wgt_bits=8)
    assert work(act, wgt, "baseline", **kw) == [64] * 8
    assert work(act, wgt, "stripes", **kw) == [64] * 8          # lossless p = 8
    assert work(act, wgt, "stripes", act_precision=5, **kw) == [40] * 8
    assert work(act, wgt, "dstripes", group=1, **kw) == [8 * (j + 1) for j in range(8)]
    assert work(act, wgt, "dstripes", group=4, **kw) == [32] * 4 + [64] * 4
    assert work(act, wgt, "dstripes", group=3, **kw) == [24] * 3 + [48] * 3 + [64] * 2
    assert work(act, wgt, "loom", group=4, **kw) == [4 * 2] * 4 + [8 * 2] * 4  # Pw = 2
    assert work(act, wgt, "pragmatic", encoding="plain", **kw) == [8] * 8
    assert work(act, wgt, "pragmatic", encoding="csd", **kw) == [8] * 8
    # Booth: 2**j for odd j is 2**(j+1) - 2**j, two terms.
    assert work(act, wgt, "pragmatic", encoding="booth", **kw) == [8, 16] * 4
    assert work(act, wgt, "laconic", encoding="booth", **kw) == [1, 2] * 4
    assert pot.potential_speedup(act, wgt, "pragmatic", encoding="booth", **kw) == 512 / 96
    assert pot.potential_speedup(act, wgt, "pragmatic", encoding="csd", **kw) == 8
    assert pot.potential_speedup(act, wgt, "dstripes", group=1, **kw) == 512 / 288


def test_0x55_and_0xaa_patterns():
    kw = dict(act_bits=8, wgt_bits=8)
    a55, aaa = np.array([0x55]), np.array([0xAA])
    w55 = np.array([0x55])                           # 85, signed 8-bit: 4 Booth/CSD terms
    for enc in ("plain", "booth", "csd"):
        assert work(a55, w55, "pragmatic", encoding=enc, **kw) == [32]
        assert work(a55, w55, "laconic", encoding=enc, **kw) == [16]
    assert pot.potential_speedup(a55, w55, "laconic", **kw) == 4
    assert work(a55, w55, "stripes", **kw) == [7 * 8]
    # 0xAA: Booth needs 5 terms (-2 -4 -16 -64 +256), NAF and plain 4.
    assert work(aaa, w55, "pragmatic", encoding="booth", **kw) == [40]
    assert work(aaa, w55, "pragmatic", encoding="csd", **kw) == [32]
    assert work(aaa, w55, "laconic", encoding="booth", **kw) == [20]
    assert work(aaa, w55, "laconic", encoding="csd", **kw) == [16]
    # 0xFF = 256 - 1: 8 oneffsets, 2 signed-digit terms.
    aff = np.array([0xFF])
    assert work(aff, w55, "pragmatic", encoding="plain", **kw) == [64]
    assert work(aff, w55, "pragmatic", encoding="booth", **kw) == [16]
    assert work(aff, w55, "pragmatic", encoding="csd", **kw) == [16]


def test_signed_activations_and_weights():
    act = np.array([-1, -2, 3, -128])
    wgt = np.array([-4, 3, 0, -1])                   # layer Pw = 3
    kw = dict(act_bits=8, wgt_bits=8, act_signed=True)
    assert work(act, wgt, "dstripes", group=1, **kw) == [8, 16, 24, 64]
    assert work(act, wgt, "dstripes", group=2, **kw) == [16, 16, 64, 64]
    assert work(act, wgt, "loom", group=1, **kw) == [3, 6, 9, 24]
    assert work(act, wgt, "loom", group=1, wgt_precision=8, **kw) == [8, 16, 24, 64]
    # Booth: -1 = -1; -2 = -2 (digit -2); 3 = 4 - 1; -128 = -128. Weights: -4 = -4,
    # 3 = 4 - 1, 0, -1 = -1.
    assert work(act, wgt, "pragmatic", encoding="booth", **kw) == [8, 8, 16, 8]
    assert work(act, wgt, "laconic", encoding="booth", **kw) == [1, 2, 0, 1]
    assert work(act, wgt, "pragmatic", encoding="plain", **kw) == [8, 8, 16, 8]


def test_broadcast_lowered_pairs():
    """im2col (windows, 1, K) against filters (1, F, K) == the explicitly tiled pairs."""
    rng = np.random.default_rng(7)
    act = rng.integers(0, 256, size=(5, 1, 24))
    wgt = rng.integers(-128, 128, size=(1, 3, 24))
    kw = dict(act_bits=8, wgt_bits=8, group=8)
    for design in pot.DESIGNS:
        w = pot.mac_work(act, wgt, design, **kw)
        assert w.shape == (5, 3, 24)
        tiled = pot.mac_work(np.broadcast_to(act, (5, 3, 24)),
                             np.broadcast_to(wgt, (5, 3, 24)), design, **kw)
        assert np.array_equal(w, tiled), design


def test_grouped_precision_matches_loop():
    rng = np.random.default_rng(3)
    vals = rng.integers(-2000, 2000, size=(4, 37)) >> rng.integers(0, 11, size=(4, 37))
    for group in (1, 5, 16, 37, 64):
        got = pot.grouped_precision(vals, 16, True, group)
        prec = t.precision_needed(vals, 16, True)
        want = np.empty_like(prec)
        for r in range(4):
            for s in range(0, 37, group):
                want[r, s:s + group] = prec[r, s:s + group].max()
        assert np.array_equal(got, want), group


# ----------------------------------------------------------------- consistency checks

def _realistic(seed, shape=(64, 256), act_bits=16):
    """ReLU-like activations (about half zero, mostly small) and small signed weights."""
    rng = np.random.default_rng(seed)
    act = np.maximum(rng.normal(0, 300, size=shape), 0).astype(np.int64)
    act = np.minimum(act, (1 << act_bits) - 1)
    wgt = np.clip(rng.normal(0, 40, size=shape), -32768, 32767).astype(np.int64)
    return act, wgt


@pytest.mark.parametrize("encoding", ["booth", "csd", "plain"])
def test_work_ordering(encoding):
    """baseline >= stripes >= dstripes(16) >= dstripes(1) >= pragmatic >= laconic, and
    loom <= dstripes, per MAC (terms never exceed the precision; Pw <= Ww)."""
    act, wgt = _realistic(1)
    kw = dict(encoding=encoding)
    base = pot.mac_work(act, wgt, "baseline", **kw)
    stripes = pot.mac_work(act, wgt, "stripes", **kw)
    ds16 = pot.mac_work(act, wgt, "dstripes", group=16, **kw)
    ds1 = pot.mac_work(act, wgt, "dstripes", group=1, **kw)
    prag = pot.mac_work(act, wgt, "pragmatic", **kw)
    lac = pot.mac_work(act, wgt, "laconic", **kw)
    loom = pot.mac_work(act, wgt, "loom", group=16, **kw)
    assert np.all(base >= stripes) and np.all(stripes >= ds16) and np.all(ds16 >= ds1)
    assert np.all(ds1 >= prag) and np.all(prag >= lac) and np.all(loom <= ds16)
    # and strictly better in total on this data
    totals = [int(x.sum()) for x in (base, stripes, ds16, ds1, prag, lac)]
    assert totals == sorted(totals, reverse=True) and len(set(totals)) == len(totals)


def test_csd_never_worse_than_booth():
    act, wgt = _realistic(2)
    for design in ("pragmatic", "laconic"):
        booth = pot.mac_work(act, wgt, design, encoding="booth")
        csd = pot.mac_work(act, wgt, design, encoding="csd")
        assert np.all(csd <= booth)
        assert csd.sum() < booth.sum()


def test_speedup_is_ratio_of_totals_and_scale_free():
    act, wgt = _realistic(3, shape=(8, 64))
    for design in pot.DESIGNS:
        s = pot.potential_speedup(act, wgt, design)
        assert s == pot.total_work(act, wgt, "baseline") / pot.total_work(act, wgt, design)
        # Repeating the layer (whole groups) does not change the ratio.
        s2 = pot.potential_speedup(np.tile(act, (3, 1)), np.tile(wgt, (3, 1)), design)
        assert s2 == pytest.approx(s)
    rep = pot.potential_report(act, wgt, encoding="csd")
    assert rep["encoding"] == "csd" and rep["macs"] == 8 * 64
    assert rep["designs"]["baseline"]["speedup"] == 1.0


def test_errors():
    with pytest.raises(ValueError):
        pot.mac_work([1], [1], "tactical")
    with pytest.raises(ValueError):
        pot.mac_work([1 << 16], [1], "baseline")
    with pytest.raises(ValueError):
        pot.mac_work([-1], [1], "baseline")                     # act unsigned by default
    with pytest.raises(ValueError):
        pot.mac_work([1], [1], "stripes", act_precision=17)
    with pytest.raises(ValueError):
        pot.mac_work([1], [1], "pragmatic", encoding="radix8")
    with pytest.raises(ValueError):
        pot.mac_work([1], [1], "dstripes", group=0)
