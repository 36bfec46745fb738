"""Building the system perf-db (``termwise db build-system``): the cycles of ``termwise
tune``'s default candidates on the workloads that ship with termwise, frozen for reading
from the installed package.

For every workload and width, ``termwise tune``'s find mode (:func:`termwise.gen.flows.tune.
run_tune`: cycles objective, the default candidate space of that width, optionally
narrowed by ``designs``) runs into a fresh working perf-db in a temporary folder (the user
and system dbs are neither read nor written, so every row is evaluated by this build); the
working db is then frozen into ``out`` (:func:`.freeze.freeze`).

Bundled workloads (:data:`BUNDLED`): the ones that need nothing beyond termwise's own
dependencies -- ``digits-cnn`` (trained in NumPy on scikit-learn's digits when first
loaded) and its pruned variants ``digits-cnn-p50|p70|p90`` (fine-tuned in NumPy). Left
out: ``efficientnet-lite0``, ``dncnn``, ``ffdnet`` (they need torch and the ``workloads``
extra, and EfficientNet's find mode alone takes ~12 minutes), and ``alexnet``, ``vgg16``,
``resnet50`` (shape tables with synthetic values: a value-based design's cycles on made-up
values answer no real question, and their layers take hours in the cycle model).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time

from ...spec import ConfigError

__all__ = ["BUNDLED", "check_workloads", "check_precisions", "build_system"]

#: The workloads the system db is built from by default (see the module's docstring).
BUNDLED = ("digits-cnn", "digits-cnn-p50", "digits-cnn-p70", "digits-cnn-p90")


def _names(value) -> list[str]:
    if isinstance(value, str):
        value = value.split(",")
    return list(dict.fromkeys(v.strip() for v in value if v.strip()))


def check_workloads(value) -> list[str]:
    """The workload names of ``value`` (a list or text ``a,b``), each a known workload."""
    from ....golden.workloads import WORKLOADS, check_workload
    names = _names(value)
    if not names:
        raise ConfigError("workloads", f"must name one or more of {', '.join(WORKLOADS)}")
    for n in names:
        check_workload(n, "workloads")
    return names


def check_precisions(value) -> list[int]:
    """The widths of ``value`` (a list or text ``8,16``), each 8 or 16."""
    from ....golden.workloads.base import PRECISIONS
    out = []
    for text in _names(value) if isinstance(value, str) else list(value):
        try:
            bits = int(text)
        except (TypeError, ValueError):
            bits = None
        if bits not in PRECISIONS:
            raise ConfigError("precisions", f"must be one or more of "
                                            f"{', '.join(map(str, PRECISIONS))}, got {text!r}")
        if bits not in out:
            out.append(bits)
    if not out:
        raise ConfigError("precisions", "must name 8, 16 or both")
    return out


def _check_output(out: str) -> str:
    out = os.path.abspath(os.fspath(out))
    if os.path.isdir(out):
        raise ConfigError("output", f"{out} is a directory; give a file name")
    parent = os.path.dirname(out)
    if not os.path.isdir(parent):
        raise ConfigError("output", f"folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise ConfigError("output", f"folder {parent} is not writable")
    return out


def build_system(out: str, workloads=BUNDLED, precisions=(8, 16), designs=None,
                 workers=None, log=None) -> dict:
    """Build the system db into ``out`` (see the module's docstring).

    Parameters
    ----------
    out : str
        The file to write (replaced when complete; nothing is written on an error).
    workloads : list of str or str
        Workload names (default :data:`BUNDLED`).
    precisions : list of int or str
        Widths to evaluate each workload at (default both, 8 and 16).
    designs : list of str or str or None
        Keep the default space's candidates of these ``termwise sim`` designs only.
    workers : int or None
        Processes of the sweep engine's local pool (default one per core).
    log : callable or None
        Progress lines (default: stderr).

    Returns
    -------
    dict
        ``{"output", "runs": [{"workload", "bits", "candidates", "evaluated", "seconds"}],
        "results", "problems", "configs", "bytes", "seconds"}``.

    Raises
    ------
    ConfigError
        A bad workload, width, design or output, before anything runs; ``build`` when a
        candidate's evaluation failed (nothing is written then: a system db is complete).
    """
    from ..tune import run_tune
    from ..tune.space import default_space, select_designs
    from .freeze import freeze
    from .store import PerfDB
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    t0 = time.perf_counter()
    names, widths, out = check_workloads(workloads), check_precisions(precisions), \
        _check_output(out)
    for bits in widths:
        select_designs(default_space(bits), designs)       # an unknown design: refused now
    runs = []
    work_dir = tempfile.mkdtemp(prefix="termwise-system-db-")
    try:
        work = os.path.join(work_dir, "work.sqlite")
        for name in names:
            for bits in widths:
                t = time.perf_counter()
                log(f"build-system: {name} at {bits} bits")
                doc = run_tune(name, bits, "cycles", designs=designs, mode="find", db=work,
                               system_db=False, workers=workers, log=log)
                failed = doc["unranked"]
                if failed:
                    raise ConfigError("build", f"{name} at {bits} bits: {len(failed)} "
                                               f"candidates failed ({failed[0]['top']}: "
                                               f"{failed[0]['reason']}); nothing written")
                runs.append({"workload": name, "bits": bits,
                             "candidates": len(doc["candidates"]),
                             "evaluated": doc["evaluated"]["evaluated"].get("sim", 0),
                             "seconds": round(time.perf_counter() - t, 1)})
        with PerfDB(work) as db:
            done = freeze(db, out)
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
    return {"output": out, "runs": runs, **done,
            "seconds": round(time.perf_counter() - t0, 1)}
