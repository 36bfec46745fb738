"""The README's commands, run as a newcomer runs them (through the installed entry point, in
order, in one folder), and the output it shows printed by them: every ``termwise`` command
of its ``sh`` blocks, each output block (the ``` block after it) line by line, durations
aside. The report command needs the workloads extra and the shipped results: `make
test-all`."""

import re
import shlex
from pathlib import Path

import pytest

from termwise_e2e import REPO, run_termwise

README = REPO / "README.md"

#: A duration in an output line (``(6.4 s)``, ``in 2.5 s``): it differs from run to run.
_SECONDS = re.compile(r"\d+(\.\d+)? s\b")


def _blocks():
    """``[(command argv, [expected output lines])]`` of the README, in order: each
    ``termwise`` line of a ``sh`` block, with the plain block after it if it follows."""
    text = README.read_text()
    blocks = re.findall(r"```(\w*)\n(.*?)```", text, re.S)
    out = []
    for i, (lang, body) in enumerate(blocks):
        if lang != "sh":
            continue
        cmds = [shlex.split(line.split("#")[0]) for line in body.splitlines()
                if line.startswith(".venv/bin/termwise ")]
        expected = blocks[i + 1][1].splitlines() if i + 1 < len(blocks) and \
            blocks[i + 1][0] == "" else []
        for n, argv in enumerate(cmds):
            out.append((argv[1:], expected if n == len(cmds) - 1 else []))
    return out


def _normal(line: str) -> str:
    """Durations out, and whether a synthesis ran or was a cache hit (the README shows a
    cold run, a test machine may hold it cached)."""
    return _SECONDS.sub("N s", line.strip()).replace("(asic cached,", "(asic run,")


def test_the_readme_has_its_tour_and_is_short():
    commands = [argv[0] for argv, _ in _blocks()]
    assert commands == ["presets", "gen", "verify", "synth", "sim", "report"]
    assert len(README.read_text().splitlines()) <= 150


@pytest.mark.parametrize("slow", [False, pytest.param(True, marks=pytest.mark.slow)],
                         ids=["tour", "report"])
def test_readme_commands_print_what_it_shows(tmp_path, slow):
    for argv, expected in _blocks():
        if (argv[0] == "report") != slow:
            continue
        r = run_termwise(*argv, cwd=tmp_path, timeout=1800)
        assert r.returncode == 0, (argv, r.stderr[-3000:])
        printed = {_normal(line) for line in (r.stdout + r.stderr).splitlines()}
        for line in expected:
            assert _normal(line) in printed, (argv, line, r.stdout[-3000:])
    if slow:
        assert (tmp_path / "out" / "report" / "report.html").is_file()
