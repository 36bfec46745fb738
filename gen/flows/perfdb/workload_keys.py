"""A workload's layer problem keys, cached in the perf-db so that a lookup need not load the
workload (``termwise tune --mode immediate``: loading and hashing a workload's values takes
seconds, the lookups milliseconds).

The cache is a problem row of kind ``workload`` (no results) whose key names the workload,
its width and a fingerprint of what its values are made from::

    workload-digits-cnn-b16-<fingerprint>

The fingerprint (:func:`fingerprint`) is the canonical key
(:func:`termwise.gen.results.keys.key`, 16 hex digits) of the workload's name, the cache's
version (:data:`termwise.gen.results.versions.WORKLOAD_KEYS_VERSION`, bumped by hand when
the loaders would give other layers from the same files), the trace cache's folder
(:func:`termwise.gen.results.locations.workload_cache_dir`: ``$TERMWISE_WORKLOADS``, else
build/workloads) and the name, size and modification time of the cached weight/trace
files of its family there (e.g. ``digits-cnn*`` for ``digits-cnn-p50``): data, never the
loaders' source text. A retrained or re-traced workload, another trace cache or a bumped
version gives another key, so a stale list is never read (the workload is loaded again and
the new list recorded). The detail lists per layer its name and problem key (``layers``)
and the batch (``images``).
"""

from __future__ import annotations

import os

from ...results import keys, locations
from ...results.versions import WORKLOAD_KEYS_VERSION
from .problem import layer_detail, layer_key

__all__ = ["trace_files", "fingerprint", "workload_problem_key", "cached_layers",
           "layer_entries", "record_layers"]

#: Workload names whose files in the trace cache carry another family name.
_FAMILY = {"effnet": "efficientnet"}


def _family(name: str) -> str:
    head = name.split("-")[0]
    return _FAMILY.get(head, head)


def trace_files(name: str) -> list[list]:
    """``[[file name, size, mtime_ns], ...]`` of the trace cache's files of workload
    ``name``'s family, sorted by name (a vanished file is left out)."""
    root = locations.workload_cache_dir()
    family = _family(name)
    try:
        names = sorted(n for n in os.listdir(root) if n.startswith(family))
    except OSError:
        names = []
    out = []
    for n in names:
        try:
            st = os.stat(os.path.join(root, n))
        except OSError:
            continue
        out.append([n, st.st_size, st.st_mtime_ns])
    return out


def fingerprint(name: str) -> str:
    """The fingerprint of workload ``name`` (see the module's docstring), 16 hex digits."""
    return keys.key({"workload": name, "version": WORKLOAD_KEYS_VERSION,
                     "trace_cache": locations.workload_cache_dir(),
                     "files": trace_files(name)}, 16)


def workload_problem_key(name: str, bits: int) -> str:
    """The cache's problem key of workload ``name`` at ``bits`` bits."""
    return f"workload-{name}-b{bits}-{fingerprint(name)}"


def layer_entries(layers) -> list[dict]:
    """Per layer ``{"name", "key", "detail"}`` (:func:`.problem.layer_key`)."""
    return [{"name": layer.name, "key": layer_key(layer), "detail": layer_detail(layer)}
            for layer in layers]


def cached_layers(chain, name: str, bits: int) -> dict | None:
    """The cached ``{"workload", "bits", "images", "layers": [{"name", "key", "detail"}]}``
    of the workload from ``chain`` (a :class:`~.store.PerfDBChain`), or None."""
    return chain.problem(workload_problem_key(name, bits))


def record_layers(chain, name: str, bits: int, layers) -> dict:
    """Compute the workload's layer keys from its ``layers``, record them in the user db and
    return the detail :func:`cached_layers` reads."""
    detail = {"workload": name, "bits": int(bits),
              "images": int(layers[0].act.shape[0]) if layers else 0,
              "layers": layer_entries(layers)}
    chain.dbs[0].put_problem(workload_problem_key(name, bits), "workload", detail)
    return detail
