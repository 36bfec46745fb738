"""golden/terms.py: every encoding reproduces its value (exhaustive at 8 bits, sampled at
16), counts agree with term lists, and hand-computed cases."""

import numpy as np
import pytest

from termwise.golden import terms as t

CASES = [(8, True), (8, False), (5, True), (5, False)]


def _values(bits, signed):
    lo, hi = t.value_range(bits, signed)
    return np.arange(lo, hi + 1)


def _sampled16(signed, n=3000, seed=0):
    rng = np.random.default_rng(seed)
    lo, hi = t.value_range(16, signed)
    vals = rng.integers(lo, hi + 1, size=n)
    return np.concatenate([[lo, hi, 0, 1, 2, 3], vals])


def _check_terms(values, bits, signed, encoding):
    counts = t.term_count(values, bits, encoding, signed=signed)
    for v, c in zip(values.tolist(), counts.tolist()):
        tl = t.terms(v, bits, encoding, signed=signed)
        assert t.terms_value(tl) == v, (encoding, v, tl)
        assert len(tl) == c, (encoding, v, tl, c)
        exps = [e for _, e in tl]
        assert exps == sorted(set(exps)), "terms are not strictly lowest first"
        assert all(s in (1, -1) for s, _ in tl)
        if encoding == "csd":
            assert all(b - a >= 2 for a, b in zip(exps, exps[1:])), "NAF digits adjacent"
            assert max(exps, default=0) < bits + (0 if signed else 1)
        if encoding == "booth":
            digit = [e // 2 for e in exps]
            assert len(set(digit)) == len(digit), "two terms from one Booth digit"
            assert max(digit, default=0) < t.booth_digit_count(bits, signed)


@pytest.mark.parametrize("encoding", t.ENCODINGS)
@pytest.mark.parametrize("bits,signed", CASES)
def test_terms_reproduce_value_exhaustive(bits, signed, encoding):
    _check_terms(_values(bits, signed), bits, signed, encoding)


@pytest.mark.parametrize("encoding", t.ENCODINGS)
@pytest.mark.parametrize("signed", [True, False])
def test_terms_reproduce_value_16bit_sampled(signed, encoding):
    _check_terms(_sampled16(signed), 16, signed, encoding)


@pytest.mark.parametrize("bits,signed", CASES + [(16, True), (16, False)])
def test_digit_arrays_reproduce_values(bits, signed):
    v = _values(bits, signed) if bits <= 8 else _sampled16(signed)
    bd = t.booth_digits(v, bits, signed).astype(np.int64)
    assert set(np.unique(bd)) <= {-2, -1, 0, 1, 2}
    assert np.array_equal((bd * 4 ** np.arange(bd.shape[-1])).sum(-1), v)
    cd = t.csd_digits(v, bits, signed).astype(np.int64)
    assert np.array_equal((cd * 2 ** np.arange(cd.shape[-1])).sum(-1), v)
    assert not np.any(cd[..., 1:] * cd[..., :-1])


def test_csd_is_minimal_and_booth_not():
    """NAF never has more terms than Booth or plain binary; Booth sometimes has more than
    NAF (e.g. 2 = 4 - 2), never more than plain for the same value's magnitude + 1."""
    for bits, signed in CASES:
        v = _values(bits, signed)
        csd = t.csd_term_count(v, bits, signed)
        booth = t.booth_term_count(v, bits, signed)
        plain = t.essential_bits(v, bits)
        assert np.all(csd <= booth) and np.all(csd <= plain)
        assert np.any(csd < booth)
    # Brute force minimality at 5 bits: every signed-binary form with digits in {-1,0,1}
    # over 7 positions; the minimum weight per value equals the NAF weight.
    import itertools
    best = {}
    for digits in itertools.product((-1, 0, 1), repeat=7):
        val = sum(d << i for i, d in enumerate(digits))
        w = sum(d != 0 for d in digits)
        best[val] = min(best.get(val, 99), w)
    v = _values(5, True)
    assert t.csd_term_count(v, 5, True).tolist() == [best[x] for x in v.tolist()]


def test_hand_cases():
    assert t.booth_terms(0, 8) == [] and t.csd_terms(0, 8) == [] and t.oneffsets(0, 8) == []
    assert t.booth_terms(1, 8) == [(1, 0)]
    assert t.booth_terms(2, 8) == [(-1, 1), (1, 2)]               # 2 = 4 - 2
    assert t.csd_terms(2, 8) == [(1, 1)]
    assert t.booth_terms(-1, 8) == [(-1, 0)]
    assert t.booth_terms(-128, 8) == [(-1, 7)]                    # digit -2 at i = 3
    assert t.booth_terms(127, 8) == [(-1, 0), (1, 7)]             # 128 - 1
    assert t.booth_terms(255, 8, signed=False) == [(-1, 0), (1, 8)]
    assert t.csd_terms(255, 8, signed=False) == [(-1, 0), (1, 8)]
    assert t.oneffsets(0x55, 8) == [0, 2, 4, 6]
    assert t.oneffsets(-5, 8) == [0, 2]
    assert t.terms(-5, 8, "plain") == [(-1, 0), (-1, 2)]
    assert t.booth_terms(0x55, 8, signed=False) == [(1, 0), (1, 2), (1, 4), (1, 6)]
    # 0xAA = 01010101 << 1: Booth -2 -4 -16 -64 + 256 (5 terms), NAF keeps the 4 ones.
    assert t.booth_terms(0xAA, 8, signed=False) == [(-1, 1), (-1, 2), (-1, 4), (-1, 6),
                                                   (1, 8)]
    assert t.csd_terms(0xAA, 8, signed=False) == [(1, 1), (1, 3), (1, 5), (1, 7)]
    assert t.essential_bits([0, 1, 0xFF, -0xFF, 0x55], 8).tolist() == [0, 1, 8, 8, 4]
    assert t.booth_digit_count(8, True) == 4 and t.booth_digit_count(8, False) == 5
    assert t.booth_digit_count(7, True) == 4 and t.booth_digit_count(7, False) == 4


def test_average_term_counts_uniform_8bit():
    """Uniform signed 8-bit values: each of the 4 Booth digits is non-zero with probability
    3/4 (3.0 terms); NAF averages 711/256; plain popcount of |x| averages 897/256."""
    v = _values(8, True)
    assert t.booth_term_count(v, 8).sum() == 3 * 256
    assert t.csd_term_count(v, 8).sum() == 711
    assert t.essential_bits(v, 8).sum() == 897


def test_precision_needed():
    assert t.precision_needed([0, -1, 1, -2, 3, -3, -4, -5, 127, -128], 8, True).tolist() \
        == [1, 1, 2, 2, 3, 3, 3, 4, 8, 8]
    assert t.precision_needed([0, 1, 2, 3, 4, 255], 8, False).tolist() == [1, 1, 2, 2, 3, 8]
    for bits, signed in CASES:
        v = _values(bits, signed)
        got = t.precision_needed(v, bits, signed)
        for x, p in zip(v.tolist(), got.tolist()):     # minimal width that holds x
            want = next(w for w in range(1, bits + 1)
                        if t.value_range(w, signed)[0] <= x <= t.value_range(w, signed)[1])
            assert p == want, (x, p, want)


def test_group_precision():
    g = np.array([[0, 0, 0, 0], [1, 0, 0, 0], [0, 3, 1, 0], [-1, 0, 0, 0], [-128, 1, 2, 3]])
    assert t.group_precision(g, axis=-1, bits=8, signed=True).tolist() == [1, 2, 3, 1, 8]
    assert t.group_precision(g[:3], axis=-1, bits=8).tolist() == [1, 1, 2]
    assert int(t.group_precision(g, axis=None, bits=8, signed=True)) == 8
    assert t.group_precision(g, axis=0, bits=8, signed=True).tolist() == [8, 3, 3, 3]


def test_errors():
    with pytest.raises(ValueError):
        t.precision_needed([128], 8, True)
    with pytest.raises(ValueError):
        t.precision_needed([-1], 8, False)
    with pytest.raises(ValueError):
        t.booth_term_count([256], 8, False)
    with pytest.raises(ValueError):
        t.term_count([1], 8, "radix8")
    with pytest.raises(ValueError):
        t.terms(1, 8, "nope")
    with pytest.raises(ValueError):
        t.oneffsets(256, 8)
    with pytest.raises(ValueError):
        t.precision_needed([1.5], 8, False)
