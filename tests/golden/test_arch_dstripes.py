"""Hand-computed checks of the Dynamic Stripes golden model (golden/arch/dstripes.py;
Delmas et al., arXiv 1706.00504): a step takes the precision of its widest activation (top
one's position + 1, plus a sign bit only when the run's ``act_signed`` register says the
activations are two's complement), at least 1 cycle; a run adds RUN_OVERHEAD = 2."""

import numpy as np
import pytest

from termwise.gen.config import preset
from termwise.golden import cycles
from termwise.golden.arch import dstripes


def _rt(cfg, signed):
    """The run's registers with its act_signed set (written as a plain dict update, so the
    check reads the golden model, not the configuration's validation)."""
    return dict(cfg.runtime_values(), act_signed=signed)


def test_issue_repro_value_8_costs_4_cycles_unsigned_5_signed():
    """The issue's repro: one dstripes-16x16 step whose 16 windows x 16 lanes all hold 8.
    8 = 0b1000 needs 4 bits unsigned (the paper's post-ReLU detector): 4 cycles; read as
    two's complement it needs a sign bit on top, 0b01000: 5 cycles."""
    cfg = preset("dstripes-16x16")
    assert (cfg.windows, cfg.lanes) == (16, 16)
    act = np.full((cfg.windows, cfg.lanes), 8)          # (windows, K): one step
    wgt = np.ones((cfg.filters, cfg.lanes), np.int64)
    assert cycles.step_cycles(cfg, act, wgt, _rt(cfg, False)).tolist() == [4]
    assert cycles.step_cycles(cfg, act, wgt, _rt(cfg, True)).tolist() == [5]
    # A run adds the design's overhead and the 16x16 tile's registered PE inputs.
    assert cfg.pe_stages == 1
    assert cycles.run_cycles(cfg, act, wgt, _rt(cfg, False)) == 4 + dstripes.RUN_OVERHEAD + 1
    assert cycles.run_cycles(cfg, act, wgt, _rt(cfg, True)) == 5 + dstripes.RUN_OVERHEAD + 1


@pytest.mark.parametrize("value,unsigned,signed", [
    (0, 1, 1),            # an all-zero step still takes a cycle
    (1, 1, 2),
    (8, 4, 5),
    (255, 8, 9),
    (1 << 14, 15, 16),
    ((1 << 15) - 1, 15, 16),
    ((1 << 16) - 1, 16, None),   # only an unsigned run holds it
])
def test_step_is_the_widest_value_in_the_runs_signedness(value, unsigned, signed):
    """One non-zero lane decides the step: its bit length unsigned, one more signed."""
    cfg = preset("dstripes-16x16")
    act = np.zeros((cfg.windows, 2 * cfg.lanes), np.int64)
    act[cfg.windows - 1, cfg.lanes + 3] = value          # step 1, last window
    act[0, 0] = 1                                        # step 0: value 1
    wgt = np.ones((cfg.filters, 2 * cfg.lanes), np.int64)
    assert cycles.step_cycles(cfg, act, wgt, _rt(cfg, False)).tolist() == [1, unsigned]
    if signed is not None:
        assert cycles.step_cycles(cfg, act, wgt, _rt(cfg, True)).tolist() == [2, signed]


def test_negative_values_in_a_signed_run():
    """-1 needs 1 bit, -2 2 bits, -9 5 bits (two's complement, sign included)."""
    cfg = preset("dstripes-16x16")
    wgt = np.ones((cfg.filters, cfg.lanes), np.int64)
    for value, bits in ((-1, 1), (-2, 2), (-8, 4), (-9, 5), (-(1 << 15), 16)):
        act = np.zeros((cfg.windows, cfg.lanes), np.int64)
        act[5, 7] = value
        assert cycles.step_cycles(cfg, act, wgt, _rt(cfg, True)).tolist() == [bits], value


def test_operand_range_follows_the_runs_signedness():
    """The golden tile refuses activations outside the run's range: 0..65535 unsigned,
    -32768..32767 signed (the field named, the kind of run said)."""
    from termwise.golden.tile_model import check_operands, tile_outputs
    cfg = preset("dstripes-16x16")
    wgt = np.ones((cfg.filters, cfg.lanes), np.int64)
    big = np.full((cfg.windows, cfg.lanes), 40000)
    out = tile_outputs(cfg, big, wgt, _rt(cfg, False))
    assert (out == 40000 * cfg.lanes).all()
    with pytest.raises(ValueError, match=r"act: values must be in -32768\.\.32767 .*signed run"):
        check_operands(cfg, big, wgt, _rt(cfg, True))
    with pytest.raises(ValueError, match=r"act: values must be in 0\.\.65535 .*unsigned run"):
        check_operands(cfg, -big, wgt, _rt(cfg, False))
    check_operands(cfg, -big + 10000, wgt, _rt(cfg, True))
