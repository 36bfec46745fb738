"""A real-network workload on a machine without the optional ``workloads`` extra (torch
and the trained weights' packages): each command that loads the workload stops with one line
saying how to install it, exit 2, no traceback, nothing written (``termwise report`` before
any synthesis). The progress line of the trace's build comes before it: what was tried.

torch is hidden by a package of that name first on ``PYTHONPATH`` that fails to import as a
missing torch does; the trace cache is an empty folder, so the workload must be built."""

from __future__ import annotations

import pytest
from termwise_e2e import e2e_env, run_termwise

#: (subcommand and its arguments) that load EfficientNet-Lite0 before writing anything.
COMMANDS = {
    "sim": ("sim", "--workload", "efficientnet-lite0", "--designs", "stripes"),
    "report": ("report", "--workload", "efficientnet-lite0", "--designs", "stripes",
               "--no-plots"),
}


@pytest.fixture
def without_torch(tmp_path):
    fake = tmp_path / "hide" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(
        'raise ModuleNotFoundError("No module named \'torch\'", name="torch")\n')
    env = e2e_env()
    env["PYTHONPATH"] = str(tmp_path / "hide")
    env["TERMWISE_WORKLOADS"] = str(tmp_path / "empty-trace-cache")
    return env


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_missing_workloads_extra_is_one_line(command, without_torch, tmp_path):
    r = run_termwise(*COMMANDS[command], "-o", "out", cwd=tmp_path, env=without_torch)
    assert r.returncode == 2, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    assert "Traceback" not in r.stderr and r.stdout == "", r.stderr
    *progress, last = r.stderr.splitlines()
    assert last == ("error: workload: needs the optional workloads extra (torch is not "
                    "installed): run `make workloads`, or pip install -e '.[workloads]'"), last
    assert [line.split(" (")[0] for line in progress] == \
        ["building the EfficientNet-Lite0 16-bit trace"], progress
    assert not (tmp_path / "out").exists(), "a refused command wrote its output folder"
