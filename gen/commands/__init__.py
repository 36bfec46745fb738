"""The subcommands of ``termwise``: one module each, found by :func:`modules`.

A command module defines ``register(subparsers)`` (add its parser and set ``func``, which
returns the exit status) and ``ORDER`` (its place in ``termwise --help``). Shared argument
handling is in :mod:`.args`; nothing here imports :mod:`termwise.gen.cli`.
"""

from __future__ import annotations

import importlib
import pkgutil

__all__ = ["modules"]


def modules() -> list:
    """Every command module, in ``ORDER``."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "register") and hasattr(module, "ORDER"):
            found.append(module)
    return sorted(found, key=lambda m: (m.ORDER, m.__name__))
