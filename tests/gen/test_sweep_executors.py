"""The sweep's executors and jobs (gen/flows/sweep/executors.py, jobs.py): a worker's own failure
becomes a failed point, the option checks, and a job's failure as data."""

from concurrent.futures import Future

import pytest

from termwise.gen.config import preset
from termwise.gen.spec import ConfigError
from termwise.gen.flows.sweep.executors import LocalPool, connect
from termwise.gen.flows.sweep.executors import result_or_failure as future_result
from termwise.gen.flows.sweep.jobs import run_job


def test_a_crashed_worker_is_a_failed_point():
    f = Future()
    f.set_exception(RuntimeError("process died\nmore"))
    assert future_result(f, {"index": 3, "kind": "cycles"}) == {
        "index": 3, "kind": "cycles", "status": "failed",
        "value": {"error": "worker failed: RuntimeError: process died"}, "seconds": 0.0}


def test_a_failing_job_returns_its_error():
    spec = {"index": 0, "kind": "cycles", "config": preset("stripes-4x4").to_dict(),
            "workload": "digits-cnn", "precision": 16,
            "method": {"order": "position", "depthwise": "diagonal", "sample_pairs": 1}}
    (res,) = LocalPool(1).run([spec])
    assert (res["status"], res["value"]) == (
        "failed", {"error": "ValueError: act_bits = 8 is narrower than the workload's 16-bit "
                            "values"})


@pytest.mark.parametrize("scheduler, workers, field, words", [
    (None, 0, "workers", "must be an integer in 1..256"),
    ("tcp://h:8786", 2, "workers", "applies to the local pool only"),
    ("h:8786", None, "scheduler", "must be tcp://HOST:PORT"),
    ("tcp://h:99999", None, "scheduler", "must be tcp://HOST:PORT"),
])
def test_connect_refusals(scheduler, workers, field, words):
    with pytest.raises(ConfigError, match=words) as err:
        connect(scheduler, workers)
    assert err.value.field == field


def test_local_pool_defaults_to_the_cores():
    import os
    assert connect(None, None).workers == os.cpu_count()
