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

__all__ = ["DEFAULT_LENGTH", "canonical", "sha256_hex", "key"]

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
