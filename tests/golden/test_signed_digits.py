"""The model-only signed-digit encoding (``rt["signed_digits"] = "csd"``, issue 14): the
Booth-coded designs costed in the non-adjacent-form digits of |x| instead of Booth's.

Expected counts come from :func:`termwise.golden.terms.csd_digits` (the NAF by its
recurrence) and hand-worked examples, not from the masks the models use."""

import numpy as np
import pytest

from termwise.gen.config import preset
from termwise.golden import cycles
from termwise.golden.arch import laconic, pragmatic
from termwise.golden.terms import csd_digits
from termwise.golden.work import MODEL_ENCODING, signed_digits

# 119 = 0b0111_0111: radix-4 Booth -1 + 2*4 - 16 + 2*64 (4 terms); NAF 128 - 8 - 1 (3 terms).
VALUE = 119


def _rt(cfg, digits=None, signed=False):
    rt = cfg.runtime_values(act_signed=signed)
    if digits:
        rt[MODEL_ENCODING] = digits
    return rt


def test_csd_masks_are_the_naf_positions_of_the_magnitude():
    x = np.arange(-2048, 2048)
    digits = csd_digits(np.abs(x), 13, False)
    want = ((digits != 0) * (1 << np.arange(digits.shape[-1]))).sum(axis=-1)
    assert np.array_equal(pragmatic.term_masks(x, 12, True, "csd"), want)


@pytest.mark.parametrize("signed", [True, False])
def test_pragmatic_booth_step_costs_csd_terms_on_request(signed):
    cfg = preset("pragmatic-4x4").replace(encoding="booth")
    act = np.full((cfg.windows, cfg.lanes), VALUE)
    wgt = np.ones((cfg.filters, cfg.lanes), np.int64)
    assert cycles.step_cycles(cfg, act, wgt, _rt(cfg, signed=signed)).tolist() == [4]
    assert cycles.step_cycles(cfg, act, wgt, _rt(cfg, "csd", signed)).tolist() == [3]


def test_plain_encoding_is_never_replaced():
    cfg = preset("pragmatic-4x4")            # plain: the one bits of |x|, 6 for 119
    assert cfg.encoding == "plain"
    act = np.full((cfg.windows, cfg.lanes), VALUE)
    wgt = np.ones((cfg.filters, cfg.lanes), np.int64)
    assert cycles.step_cycles(cfg, act, wgt, _rt(cfg, "csd")).tolist() == \
        cycles.step_cycles(cfg, act, wgt, _rt(cfg)).tolist() == [6]
    assert signed_digits("plain", {MODEL_ENCODING: "csd"}) == "plain"


def test_laconic_pairs_in_csd_terms_of_both_operands():
    cfg = preset("laconic-4x4")
    act = np.full((cfg.windows, 1, cfg.lanes), VALUE)
    wgt = np.full((cfg.filters, 1, cfg.lanes), VALUE)
    assert laconic.pair_counts(cfg, act, wgt, False).max() == 4 * 4
    assert laconic.pair_counts(cfg, act, wgt, False, "csd").max() == 3 * 3


def test_unknown_signed_digits_is_refused():
    with pytest.raises(ValueError, match="signed_digits"):
        signed_digits("booth", {MODEL_ENCODING: "naf"})
