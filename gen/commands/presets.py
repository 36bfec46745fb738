"""``termwise presets``: the named configurations."""

from __future__ import annotations

from ..config import load_presets

__all__ = ["register"]

#: Position in ``termwise --help``.
ORDER = 20


def _cmd(args) -> int:
    for name, table in load_presets().items():
        print(f"{name:22s} {table.get('description', '')}")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("presets", help="list the named presets")
    p.set_defaults(func=_cmd)
