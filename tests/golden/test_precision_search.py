"""The precision-profile search (golden/workloads/precision_search.py) on a model whose
PSNR is a closed form, against a brute-force scan of every precision written here."""

import numpy as np
import pytest

from termwise.golden.workloads.precision_search import (bisect_precision, combined_extra,
                                                        search_profile)

BITS = 12


class ToyModel:
    """PSNR = 40 dB minus a penalty per layer and operand that halves with every bit:
    ``2**(c - p)`` dB (monotone in each precision, as the search assumes). Stateless, so
    ``xs`` (the resumed prefix) carries nothing."""

    def __init__(self, ca, cw):
        self.ca, self.cw = ca, cw
        self.n, self.bits, self.evaluations = len(ca), BITS, 0

    def value(self, aprec, wprec):
        return 40.0 - sum(2.0 ** (c - p) for c, p in zip(self.ca, aprec)) \
            - sum(2.0 ** (c - p) for c, p in zip(self.cw, wprec))

    def start(self):
        return None

    def advance(self, aprec, wprec, xs, i):
        return None

    def psnr(self, aprec, wprec, xs=None, i=0):
        self.evaluations += 1
        return self.value(aprec, wprec)


def _brute(model, which, act_base, floor):
    """Single minima by a full scan, then the combined extra bits, then the give-back,
    each written as plain loops over every candidate."""
    full = [BITS] * model.n

    def val(prec):
        return model.value(prec, full) if which == "act" else model.value(act_base, prec)
    single = []
    for i in range(model.n):
        ok = [p for p in range(1, BITS + 1)
              if val([p if j == i else BITS for j in range(model.n)]) >= floor]
        single.append(min(ok))
    extra = next(e for e in range(BITS + 1)
                 if val([min(BITS, p + e) for p in single]) >= floor)
    prec = [min(BITS, p + extra) for p in single]
    if extra:
        for i in range(model.n):
            while prec[i] > single[i] and val(prec[:i] + [prec[i] - 1] + prec[i + 1:]) >= floor:
                prec[i] -= 1
    return single, extra, prec


def test_bisect_and_combined_extra():
    assert bisect_precision(lambda p: p >= 5, 16) == 5
    assert bisect_precision(lambda p: False, 16) == 16     # bits itself is never tested
    seen = []
    extra, prec = combined_extra(lambda pr: seen.append(pr) or sum(pr) >= 9, [2, 3], 8)
    assert (extra, prec) == (2, [4, 5]) and seen == [[2, 3], [3, 4], [4, 5]]
    assert combined_extra(lambda pr: False, [7, 1], 8) == (8, [8, 8])


@pytest.mark.parametrize("ca,cw", [([1.0, -2.0, 0.5], [-1.0, 0.0, -3.0]),
                                   ([2.0, 2.0], [1.0, -4.0])])
def test_search_profile_matches_brute_force(ca, cw):
    model = ToyModel(ca, cw)
    margin = 0.1
    prof = search_profile(model, BITS, margin, "toy criterion", "toy")
    full = [BITS] * model.n
    ref = model.value(full, full)
    assert prof["reference_psnr"] == ref and prof["floor"] == ref - margin
    single, extra, act = _brute(model, "act", None, ref - margin)
    assert prof["act"]["per_layer_single"] == single
    assert prof["act"]["extra_bits_combined"] == extra
    assert prof["act_profile"] == act
    single, extra, wgt = _brute(model, "wgt", act, ref - margin)
    assert prof["wgt"]["per_layer_single"] == single and prof["wgt_profile"] == wgt
    assert prof["psnr"] == model.value(act, wgt) >= ref - margin
    assert prof["evaluations"] == model.evaluations > 0
    assert max(act) < BITS               # the margin does buy lower precisions
