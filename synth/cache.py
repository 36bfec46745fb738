"""Synthesis result cache: ``<root>/<key>/result.json`` plus that run's files and logs.

The key (:func:`cache_key`, :func:`termwise.gen.results.keys.key` of the settings, 24 hex
digits) hashes explicit inputs only: the Verilog's sha256, the flow settings (target, clock,
the liberty's content), the tools' versions and the flow's version
(:mod:`termwise.gen.results.versions`, bumped by hand), never source text
(:func:`termwise.synth.api.asic_cache_key`). The root is
:func:`termwise.gen.results.locations.synth_cache_root`'s. A run happens in
``<root>/.run-*`` and is renamed into place only when it succeeded, so the cache never holds
a half-written entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile

from ..gen.results import keys, locations

__all__ = ["DEFAULT_ROOT", "cache_key", "lookup", "lookup_measured", "new_run_dir", "commit",
           "discard", "keep_failed", "file_sha256"]

#: The synthesis cache's default root (relative to the working directory).
DEFAULT_ROOT = locations.SYNTH_CACHE_DEFAULT


def file_sha256(path: str) -> str:
    """sha256 of a file's bytes, in hex."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def cache_key(settings: dict) -> str:
    """The synthesis cache's key of ``settings`` (:func:`termwise.gen.results.keys.key`,
    24 hex digits)."""
    return keys.key(settings)


def lookup(root: str, key: str) -> dict | None:
    path = os.path.join(root, key, "result.json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def lookup_measured(key: str) -> dict | None:
    """The result of the project's shipped synthesis under ``key``
    (:mod:`termwise.synth.measured_store`), or None."""
    from . import measured_store
    d = measured_store.synthesis_dir(key)
    return None if d is None else lookup(os.path.dirname(d), key)


def new_run_dir(root: str) -> str:
    os.makedirs(root, exist_ok=True)
    return tempfile.mkdtemp(prefix=".run-", dir=root)


def commit(root: str, key: str, run_dir: str, result: dict, settings: dict) -> str:
    """Write ``result.json`` in ``run_dir`` and move it to ``<root>/<key>``."""
    with open(os.path.join(run_dir, "settings.json"), "w", encoding="utf-8") as f:
        json.dump(settings, f, indent=1, sort_keys=True)
    with open(os.path.join(run_dir, "result.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
    final = os.path.join(root, key)
    if os.path.isdir(final):   # a concurrent run got there first: keep theirs
        shutil.rmtree(run_dir, ignore_errors=True)
    else:
        os.replace(run_dir, final)
    return final


def keep_failed(root: str, key: str, run_dir: str) -> str:
    """Move a failed run to ``<root>/failed-<key>`` (replacing an older one) for its logs."""
    final = os.path.join(root, f"failed-{key}")
    shutil.rmtree(final, ignore_errors=True)
    os.replace(run_dir, final)
    return final


def discard(run_dir: str) -> None:
    shutil.rmtree(run_dir, ignore_errors=True)
