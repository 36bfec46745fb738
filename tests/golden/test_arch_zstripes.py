"""Zero-skipping Stripes' cycle model, from hand counts."""

import numpy as np

from termwise.gen.config import preset
from termwise.golden.cycles import run_cycles, step_cycles


def test_all_zero_steps_take_one_cycle():
    cfg = preset("zstripes-4x4")                  # 8 windows x 4 lanes
    rt = cfg.runtime_values(precision=6)
    act = np.zeros((8, 12), np.int64)             # 3 steps of 4 lanes
    act[3, 1] = 5                                 # step 0 has one non-zero value
    act[0, 11] = -1                               # step 2 too; step 1 is all zero
    wgt = np.ones((4, 12), np.int64)
    assert step_cycles(cfg, act, wgt, rt).tolist() == [6, 1, 6]
    assert run_cycles(cfg, act, wgt, rt) == 6 + 1 + 6 + 2          # Stripes' run overhead


def test_a_value_that_wraps_to_zero_is_not_skipped():
    """The skip looks at the stored activations: 16 at P = 4 keeps 0 in its low bits but is
    not zero, so its step costs P (as the RTL's zero test on the row does)."""
    cfg = preset("zstripes-4x4")
    rt = cfg.runtime_values(precision=4)
    act = np.zeros((8, 4), np.int64)
    act[2, 0] = 16
    assert step_cycles(cfg, act, np.ones((4, 4), np.int64), rt).tolist() == [4]
