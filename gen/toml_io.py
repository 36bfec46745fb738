"""Configurations as TOML: reading a configuration file's table, the named presets of
``gen/presets.toml``, and writing a configuration back as a file.

These give and take plain tables; :mod:`termwise.gen.config` turns a table into a
:class:`~termwise.gen.config.TileConfig` (``from_toml``, ``preset``) and re-exports
:func:`to_toml` and :func:`load_presets`. This module imports only
:mod:`termwise.gen.spec`.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any

from .spec import ConfigError

__all__ = ["parse_toml", "read_config_table", "to_toml", "load_presets", "preset_table"]


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """``text`` parsed; :class:`ConfigError` naming ``source`` when it is not TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError("toml", f"{source} is not valid TOML ({err})") from None


def read_config_table(path: str) -> dict[str, Any]:
    """The table of configuration file ``path``: its top level, or its only table
    ``[tile]``."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as err:
        raise ConfigError("config", f"cannot read {path}: {err.strerror}") from None
    data = parse_toml(text, path)
    if "tile" in data and isinstance(data["tile"], dict) and len(data) == 1:
        data = data["tile"]
    return data


def to_toml(cfg) -> str:
    """``cfg`` as a configuration file that :func:`termwise.gen.config.from_toml` reads back
    to an equal configuration (``termwise gen --config`` accepts it)."""
    lines = [f"# {cfg.name}" if cfg.name else "# termwise tile configuration"]
    for key, value in cfg.to_dict().items():
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, int):
            text = str(value)
        else:
            text = '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
        lines.append(f"{key} = {text}")
    return "\n".join(lines) + "\n"


def load_presets() -> dict[str, dict[str, Any]]:
    """The named presets from ``gen/presets.toml``: name -> table (with ``description``)."""
    text = resources.files(__package__).joinpath("presets.toml").read_text(encoding="utf-8")
    return parse_toml(text, "presets.toml")["preset"]


def preset_table(name: str) -> dict[str, Any]:
    """Preset ``name``'s table without its ``description``; :class:`ConfigError` listing
    the presets when there is no such one."""
    presets = load_presets()
    if name not in presets:
        raise ConfigError("preset", f"unknown preset {name!r} (valid: {', '.join(presets)})")
    table = dict(presets[name])
    table.pop("description", None)
    return table
