"""Tests of Bit-Tactical's greedy offline schedule (golden/tactical_schedule.py; Delmas
Lascorz et al., ASPLOS 2019): exactness, step skipping, window bounds, determinism."""

import numpy as np
import pytest

from termwise.golden.tactical_schedule import (T_SOURCES, apply_schedule, candidate_index,
                                               efficiency, metadata_bits, schedule, sources,
                                               window_candidates)

CONNECTIVITIES = [sources("T"), sources("L", 1, 0), sources("L", 2, 1), sources("L", 4, 3),
                  sources("L", 3, 7)]


def _sparse(rng, shape, zero):
    w = rng.integers(-128, 128, shape)
    w[rng.random(shape) < zero] = 0
    return w


def test_sources_by_hand():
    assert sources("T") == T_SOURCES and len(T_SOURCES) == 7
    assert sources("L", 2, 1) == ((1, 0), (2, 0), (1, -1))
    assert sources("L", 1, 0) == ((1, 0),)
    assert metadata_bits(sources("T")) == 3
    assert metadata_bits(sources("L", 1, 0)) == 1
    assert metadata_bits(sources("L", 4, 7)) == 4
    assert window_candidates(sources("T")) == 3
    with pytest.raises(ValueError):
        sources("T", 3, 5)


@pytest.mark.parametrize("srcs", CONNECTIVITIES)
@pytest.mark.parametrize("zero", [0.0, 0.5, 0.7, 0.9, 1.0])
def test_schedule_is_exact(srcs, zero):
    """The scheduled computation equals the dense dot product, every weight is used once."""
    rng = np.random.default_rng(int(zero * 10) + len(srcs))
    for _ in range(4):
        filters, n, lanes = 3, int(rng.integers(1, 12)), 4
        w = _sparse(rng, (filters, n, lanes), zero)
        a = rng.integers(0, 256, (2, n, lanes))
        s = schedule(w, srcs)
        dense = np.einsum("wtl,ftl->wf", a, w)
        assert np.array_equal(apply_schedule(s, a), dense)
        assert np.count_nonzero(s.weights) == np.count_nonzero(w)
        assert sorted(s.weights[s.weights != 0].tolist()) == sorted(w[w != 0].tolist())
        assert s.kept <= n and np.all(np.diff(s.steps) > 0)


def test_dense_weights_keep_every_step():
    rng = np.random.default_rng(1)
    w = rng.integers(1, 100, (4, 9, 4))
    s = schedule(w, T_SOURCES)
    assert s.kept == 9 and s.steps.tolist() == list(range(9))
    assert not s.selects.any() and np.array_equal(s.weights, w)


def test_all_zero_weights_keep_no_step():
    s = schedule(np.zeros((2, 5, 4), np.int64), T_SOURCES)
    assert s.kept == 0 and s.weights.shape == (2, 0, 4)
    assert schedule(np.zeros((2, 0, 4), np.int64), T_SOURCES).kept == 0


def test_emptied_steps_are_skipped():
    # Step 0 of a run whose first step is zero is skipped; the next kept step is step 1.
    w = np.zeros((1, 4, 4), np.int64)
    w[0, 1] = [1, 2, 3, 4]
    w[0, 2, 0] = 5                 # step 1 is full: step 2 is kept
    w[0, 3, 2] = 6
    s = schedule(w, T_SOURCES)
    assert s.steps.tolist() == [1, 2]
    w[0, 1, 3] = 0                 # a free slot at step 1 lane 3: (1,1) takes step 2 lane 0,
    s = schedule(w, T_SOURCES)     # step 2 is then empty (skipped); step 3 keeps its 6
    assert s.steps.tolist() == [1, 3]
    assert s.selects[0, 0].tolist() == [0, 0, 0, 3]


def test_max_skip_bounds_consecutive_skips():
    s = schedule(np.zeros((1, 7, 4), np.int64), T_SOURCES, max_skip=2)
    assert s.steps.tolist() == [2, 5]


def test_promotion_by_hand():
    # One filter, 3 steps, 4 lanes: step 0 holds 9 at lane 3, step 1 holds 5 at lane 1 and
    # 7 at lane 0; step 2 is empty.
    w = np.zeros((1, 3, 4), np.int64)
    w[0, 0, 3] = 9
    w[0, 1, 1] = 5
    w[0, 1, 0] = 7
    s = schedule(w, T_SOURCES)
    # Slot (0, lane 0): (1,-1) -> lane 3 empty, (1,0) -> lane 0 holds 7.
    # Slot (0, lane 1): (1,-1) -> lane 0 already taken, (1,0) -> lane 1 holds 5.
    assert s.kept == 1 and s.steps.tolist() == [0]
    assert s.weights[0, 0].tolist() == [7, 5, 0, 9]
    assert s.selects[0, 0].tolist() == [2, 2, 0, 0]


@pytest.mark.parametrize("srcs", CONNECTIVITIES)
def test_promotion_stays_in_window(srcs):
    rng = np.random.default_rng(7)
    w = _sparse(rng, (4, 20, 4), 0.8)
    s = schedule(w, srcs)
    h = window_candidates(srcs) - 1
    for j, t in enumerate(s.steps):
        for f in range(4):
            for lane in range(4):
                sel = int(s.selects[f, j, lane])
                c = candidate_index(srcs, sel, lane, 4)
                dt, src_lane = divmod(c, 4)
                assert 0 <= dt <= h and t + dt < 20
                if sel:
                    assert w[f, t + dt, src_lane] == s.weights[f, j, lane] != 0


def test_deterministic_and_pure():
    rng = np.random.default_rng(3)
    w = _sparse(rng, (4, 16, 4), 0.7)
    copy = w.copy()
    a, b = schedule(w, T_SOURCES), schedule(w, T_SOURCES)
    assert np.array_equal(w, copy)
    assert np.array_equal(a.weights, b.weights) and np.array_equal(a.selects, b.selects)


def test_sparser_weights_skip_more():
    rng = np.random.default_rng(5)
    kept = [efficiency(_sparse(rng, (16, 64, 16), z), T_SOURCES)["kept"]
            for z in (0.5, 0.7, 0.9)]
    assert kept[0] > kept[1] > kept[2]
