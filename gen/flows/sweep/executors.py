"""Where a sweep's jobs run: this machine's process pool, or a Dask distributed cluster.

Both take job specs (plain data, :mod:`.jobs`) and yield the results of
:func:`.jobs.run_job` as they finish (any order; each carries its ``index``). The local pool
forks, so the workload the sweep loaded before starting it is shared with the workers; a
Dask worker loads it once itself (``TERMWISE_WORKLOADS`` tells it where the traces are
cached). Each Dask job's key is the sha256 of its spec, so resubmitting an identical job
while the cluster still holds its result reuses it.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing as mp
import os
from concurrent.futures import ProcessPoolExecutor, as_completed

from ...spec import ConfigError
from .jobs import run_job

__all__ = ["LocalPool", "DaskCluster", "default_workers", "connect", "result_or_failure"]


def default_workers() -> int:
    """As many workers as the machine has cores."""
    return max(1, os.cpu_count() or 1)


class LocalPool:
    """``workers`` forked processes on this machine (1: in this process)."""

    def __init__(self, workers: int | None = None):
        self.workers = default_workers() if workers is None else workers
        self.name = f"local pool, {self.workers} worker{'s' * (self.workers != 1)}"

    def run(self, specs):
        specs = list(specs)
        if self.workers == 1 or len(specs) < 2:
            for spec in specs:
                yield run_job(spec)
            return
        pool = ProcessPoolExecutor(min(self.workers, len(specs)),
                                   mp_context=mp.get_context("fork"))
        try:
            futures = {pool.submit(run_job, spec): spec for spec in specs}
            for f in as_completed(futures):
                yield result_or_failure(f, futures[f])
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        pass


def result_or_failure(future, spec: dict) -> dict:
    """The future's :func:`run_job` result, or a failed one when the worker itself failed
    (a crashed process, a lost Dask worker): the point is recorded as failed, not fatal."""
    try:
        return future.result()
    except Exception as err:                       # noqa: BLE001 - the worker's failure
        text = str(err).splitlines()[0] if str(err) else ""
        return {"index": spec["index"], "kind": spec["kind"], "status": "failed",
                "value": {"error": f"worker failed: {type(err).__name__}: {text}"},
                "seconds": 0.0}


def _key(spec: dict) -> str:
    text = json.dumps({k: v for k, v in spec.items() if k != "index"}, sort_keys=True)
    return f"termwise-{spec['kind']}-{hashlib.sha256(text.encode()).hexdigest()[:20]}"


class DaskCluster:
    """The Dask distributed scheduler at ``address`` (``tcp://HOST:PORT``)."""

    def __init__(self, client, address: str):
        self.client = client
        self.name = f"Dask scheduler {address}"

    def run(self, specs):
        from distributed import as_completed as dask_completed
        specs = list(specs)
        futures = {self.client.submit(run_job, spec, key=_key(spec), pure=True): spec
                   for spec in specs}
        try:
            for f in dask_completed(list(futures)):
                yield result_or_failure(f, futures[f])
        finally:
            for f in futures:
                f.release()

    def close(self) -> None:
        self.client.close()


def connect(scheduler: str | None, workers: int | None, *, timeout_s: float = 10.0):
    """The executor: :class:`LocalPool` without ``scheduler``, else a :class:`DaskCluster`
    connected to it. An address that is not ``tcp://HOST:PORT``, a missing ``dask[distributed]``
    or an unreachable scheduler is a :class:`ConfigError` (``scheduler``)."""
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or not 1 <= workers <= 256):
        raise ConfigError("workers", f"must be an integer in 1..256, got {workers!r}")
    if scheduler is None:
        return LocalPool(workers)
    if workers is not None:
        raise ConfigError("workers", "applies to the local pool only; a Dask cluster has its "
                                     "own workers")
    host = scheduler[len("tcp://"):] if scheduler.startswith("tcp://") else ""
    name, _, port = host.rpartition(":")
    if not name or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError("scheduler", f"must be tcp://HOST:PORT, got {scheduler!r}")
    try:
        from distributed import Client
    except ImportError:
        raise ConfigError("scheduler", "needs dask[distributed]: pip install "
                                       "'termwise[scale]'") from None
    try:
        client = Client(scheduler, timeout=f"{timeout_s:g}s")
    except (OSError, TimeoutError) as err:
        raise ConfigError("scheduler", f"cannot reach {scheduler} within {timeout_s:g} s "
                                       f"({type(err).__name__})") from None
    return DaskCluster(client, scheduler)
