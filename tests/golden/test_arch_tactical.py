"""Tests of the Bit-Tactical golden model (golden/arch/tactical.py; Delmas Lascorz et al.,
ASPLOS 2019): hand-computed cycle counts for both back ends, the host weight rows, and the
netsim / cycles interfaces."""

import numpy as np
import pytest

from termwise.gen.config import TileConfig, preset
from termwise.golden import cycles
from termwise.golden.arch import tactical as tac
from termwise.golden.tactical_schedule import T_SOURCES, schedule
from termwise.golden.tile_model import tile_outputs


def _cfg(**kw):
    base = dict(arch="tactical", filters=2, windows=2, lanes=4, act_bits=8, wgt_bits=8,
                depth=16)
    base.update(kw)
    return TileConfig(**base)


def _rt(cfg, signed=False):
    """The run's registers: unsigned (post-ReLU, up to 255) activations unless ``signed``."""
    return cfg.runtime_values(act_signed=signed)


def test_model_interface():
    assert tac.RUN_OVERHEAD == 2 and tac.STEPS_INDEPENDENT is False


@pytest.mark.parametrize("backend", ["tclp", "tcle"])
def test_all_zero_weights_cost_two_cycles(backend):
    cfg = _cfg(backend=backend)
    act = np.full((2, 16), 255)
    assert cycles.run_cycles(cfg, act, np.zeros((2, 16), np.int64), _rt(cfg)) == 2
    assert cycles.run_cycles(cfg, np.zeros((2, 0), np.int64), np.zeros((2, 0), np.int64),
                             _rt(cfg)) == 2


def test_tclp_dense_weights_is_dynamic_stripes():
    """Dense weights: no promotion, every step kept, precision = the step's widest
    activation (Dynamic Stripes)."""
    cfg = _cfg(backend="tclp")
    rng = np.random.default_rng(1)
    act = rng.integers(0, 256, (2, 20))
    wgt = rng.integers(1, 100, (2, 20))
    ds_cfg = cfg.replace(arch="dstripes", backend=None, shape=None, lookahead=None,
                         lookaside=None, first_stage_bits=None, encoding=None)
    ds = cycles.run_cycles(ds_cfg, act, wgt, _rt(ds_cfg))
    assert cycles.run_cycles(cfg, act, wgt, _rt(cfg)) == ds
    # A signed run of the same (small enough) values: each step a sign bit wider.
    act = rng.integers(-128, 128, (2, 20))
    assert cycles.run_cycles(cfg, act, wgt, _rt(cfg, True)) == \
        cycles.run_cycles(ds_cfg, act, wgt, _rt(ds_cfg, True))


def test_tclp_by_hand():
    # 3 steps, lane 0 of filter 0 only at step 2: T source (2,0) -> promoted into step 0
    # lane 0 (step 0 is kept: filter 1 has a weight there). Steps 1, 2 are then empty.
    cfg = _cfg(backend="tclp", filters=2, windows=1)
    wgt = np.zeros((2, 12), np.int64)
    wgt[1, 1] = 1                     # step 0, lane 1, filter 1
    wgt[0, 8] = 5                     # step 2, lane 0, filter 0
    act = np.zeros((1, 12), np.int64)
    act[0, 1] = 3                     # 2 bits, involved (filter 1's own weight)
    act[0, 8] = 17                    # 5 bits, involved via promotion
    act[0, 4] = 255                   # step 1: never involved
    assert cycles.run_cycles(cfg, act, wgt, _rt(cfg)) == 5 + 2
    assert tile_outputs(cfg, act, wgt, _rt(cfg)).tolist() == [[85, 3]]
    # Read as a signed run, 17 needs a sign bit: 6 bits (255 is not involved, and -1 fits).
    act[0, 4] = -1
    assert cycles.run_cycles(cfg, act, wgt, _rt(cfg, True)) == 6 + 2


def test_tcle_by_hand():
    # Same schedule; plain oneffsets, first_stage_bits 0: terms {0,1} of 3 and {0,4} of 17
    # -> base 0 retires both bit 0s, then 1, then 4: 3 cycles.
    cfg = _cfg(backend="tcle", filters=2, windows=1, encoding="plain", first_stage_bits=0)
    wgt = np.zeros((2, 12), np.int64)
    wgt[1, 1] = 1
    wgt[0, 8] = 5
    act = np.zeros((1, 12), np.int64)
    act[0, 1] = 3
    act[0, 8] = 17
    act[0, 4] = 255
    assert cycles.run_cycles(cfg, act, wgt, _rt(cfg)) == 3 + 2


def test_host_rows_layout():
    cfg = _cfg(backend="tclp", filters=1, lanes=4, wgt_bits=8, depth=16)
    wgt = np.zeros((1, 12), np.int64)
    wgt[0, 3] = -1                    # step 0 lane 3
    wgt[0, 4] = 7                     # step 1 lane 0 -> promoted to step 0 lane 0 via (1,0)
    rows, kept = tac.host_weight_rows(cfg, wgt)
    assert kept == 1 and len(rows) == 2
    assert rows[0] == 7 | (0xFF << 24)
    lay = tac.meta_layout(cfg)
    assert lay == {"select_bits": 3, "index_offset": 12, "index_bits": 4, "fits": True}
    assert rows[1] == 2 | (0 << 12)   # lane 0 select 2 = source (1,0); step index 0


@pytest.mark.parametrize("name", ["tactical-tclp-4x4", "tactical-tcle-4x4",
                                  "tactical-tclp-16x16", "tactical-tcle-16x16"])
def test_presets_metadata_fits(name):
    assert tac.meta_layout(preset(name))["fits"]


def test_sparser_runs_are_faster():
    cfg = _cfg(backend="tclp", filters=4, windows=2, depth=64)
    rng = np.random.default_rng(2)
    act = rng.integers(0, 256, (2, 256))
    costs = []
    for zero in (0.0, 0.5, 0.9):
        w = rng.integers(-128, 128, (4, 256))
        w[rng.random(w.shape) < zero] = 0
        w[w == 0] = 0
        costs.append(cycles.run_cycles(cfg, act, w, _rt(cfg)))
    assert costs[0] > costs[1] > costs[2]
    dense_steps = schedule(np.ones((4, 64, 4)), T_SOURCES).kept
    assert dense_steps == 64
