"""A run's cycle bound (:meth:`termwise.tb.driver.TileDriver.run`): a result later than its
bound fails the regression, and a run still computing past it is caught by the driver's
watchdog before its result comes (the way a tile that never answers is caught). The
suites are ``over_bound`` and ``hang`` of :mod:`termwise.tb.tile_tests`."""

from termwise.gen.config import preset
from termwise.tb.driver import WATCHDOG_ENV
from termwise.tb.regress import SEED
from termwise.tb.runner import run_regression


def test_result_past_its_bound_fails():
    """Bound one cycle short of the golden cycle model's count: the result is one late."""
    result = run_regression(preset("baseline-4x4"), ("over_bound",), seed=SEED)
    assert not result.passed
    assert len(result.failures) == 1 and "it came after" in result.failures[0], \
        result.failures


def test_watchdog_catches_a_run_still_computing():
    """A 2-cycle bound on a run of the tile's full depth (65 cycles): the watchdog, looking
    every 4 cycles, ends the test while the tile computes; looking every 1024 (the
    default), it does not get to look, and the late result is caught instead."""
    watched = run_regression(preset("baseline-4x4"), ("hang",), seed=SEED,
                             extra_env={WATCHDOG_ENV: "4"})
    assert not watched.passed
    assert len(watched.failures) == 1, watched.failures
    assert "no result within 2 cycles: still computing" in watched.failures[0]
    late = run_regression(preset("baseline-4x4"), ("hang",), seed=SEED)
    assert not late.passed and "it came after" in late.failures[0], late.failures


def test_watchdog_period_must_be_a_cycle_count():
    """``TERMWISE_WATCHDOG_CYCLES=0``: the regression fails at the start, naming it."""
    result = run_regression(preset("baseline-4x4"), ("random",), seed=SEED,
                            extra_env={WATCHDOG_ENV: "0"})
    assert not result.passed and not result.runs
    assert f"{WATCHDOG_ENV}='0'" in result.failures[0], result.failures
