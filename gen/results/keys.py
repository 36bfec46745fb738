"""The canonical key function of every result store.

A key is the sha256 of the canonical JSON of its inputs (sorted keys, no spaces, no NaN),
in hex, truncated to the store's length. The lengths are the stores' own, kept so that
every shipped key stays valid:

* the synthesis cache and the power reports: 24 hex digits (:data:`DEFAULT_LENGTH`);
* the perf-db's workload-key cache fingerprint: 16 (:mod:`termwise.gen.flows.perfdb.
  workload_keys`).

The perf-db compares its ``method`` and ``versions`` as :func:`canonical` text
(:mod:`termwise.gen.flows.perfdb.store`), not as a hash.
"""

from __future__ import annotations

import hashlib
import json

__all__ = ["DEFAULT_LENGTH", "canonical", "sha256_hex", "key", "RENDER_PACKAGES", "tree_sha"]

#: The hex digits of a synthesis or power report key (96 bits: no collision in practice).
DEFAULT_LENGTH = 24


def canonical(value) -> str:
    """``value`` as canonical JSON: sorted keys, no spaces, NaN and infinities refused.

    Parameters
    ----------
    value : JSON-able
        The key's inputs (dicts, lists, str, int, finite float, bool, None).

    Returns
    -------
    str
        The text: equal values give equal text.

    Raises
    ------
    ValueError
        A NaN or an infinity (they have no JSON spelling, so no stable key).
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def sha256_hex(data: str | bytes) -> str:
    """sha256 of ``data`` (UTF-8 if a str), in hex (64 digits)."""
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def key(value, length: int = DEFAULT_LENGTH) -> str:
    """The key of ``value``: :func:`sha256_hex` of :func:`canonical`, ``length`` digits.

    Parameters
    ----------
    value : JSON-able
        The key's inputs.
    length : int
        Hex digits kept, 1 to 64 (default :data:`DEFAULT_LENGTH`).

    Returns
    -------
    str
        The key.

    Raises
    ------
    ValueError
        ``length`` out of range, or a NaN or infinity in ``value``.
    """
    if isinstance(length, bool) or not isinstance(length, int) or not 1 <= length <= 64:
        raise ValueError(f"a key's length is 1 to 64 hex digits, got {length!r}")
    return sha256_hex(canonical(value))[:length]


#: The packages whose text the Verilog is rendered from: the emission cache
#: (:func:`termwise.gen.emit.rendered`) and the power flow's memo of a configuration's
#: Verilog sha256 are keyed by all of them, so any edit there renders again.
RENDER_PACKAGES = ("rtl", "gen", "golden", "tb", "synth")


def tree_sha(packages) -> str:
    """sha256 over every source file of ``packages`` (names and text).

    Parameters
    ----------
    packages : iterable of str
        Top-level folders of the project (:data:`RENDER_PACKAGES`).

    Returns
    -------
    str
        The hex digest; compiled files and hidden folders are left out.
    """
    import os
    from .locations import PACKAGE_ROOT
    h = hashlib.sha256()
    for pkg in packages:
        for d, dirs, files in os.walk(os.path.join(PACKAGE_ROOT, pkg)):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__" and not x.startswith("."))
            for name in sorted(files):
                if name.endswith((".pyc", ".pyo")):
                    continue
                path = os.path.join(d, name)
                h.update(os.path.relpath(path, PACKAGE_ROOT).encode())
                with open(path, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()
