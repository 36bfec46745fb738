"""The value checks every flow and command shares: each returns the value checked (as the
flow uses it) or raises :class:`~termwise.gen.errors.ConfigError` naming the field, which
the CLI prints as one line and exit status 2."""

from __future__ import annotations

from .errors import ConfigError

__all__ = ["check_precision", "positive_int", "one_of"]


def check_precision(value) -> int:
    """A workload precision: 8 or 16 bits."""
    try:
        bits = int(value)
    except (TypeError, ValueError):
        bits = None
    if bits not in (8, 16):
        raise ConfigError("precision", f"must be 8 or 16, got {value!r}")
    return bits


def positive_int(field: str, value):
    """``None``, or a positive integer given as text or int (``ConfigError`` otherwise)."""
    if value is None:
        return None
    try:
        n = int(value)
    except (TypeError, ValueError):
        n = 0
    if isinstance(value, bool) or n < 1 or str(n) != str(value).strip():
        raise ConfigError(field, f"must be a positive integer, got {value!r}")
    return n


def one_of(field: str, value, choices, default=None):
    """``value`` (``default`` when it is None) if it is one of ``choices``, else a
    :class:`ConfigError` naming ``field`` and listing them."""
    chosen = default if value is None else value
    if chosen not in choices:
        raise ConfigError(field, f"must be one of {', '.join(choices)}, got {value!r}")
    return chosen
