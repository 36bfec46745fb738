"""`termwise presets` end to end: every preset of gen/presets.toml, one line each, in order."""

import tomllib

from termwise_e2e import REPO, ok


def test_presets_lists_every_preset(termwise):
    r = ok(termwise("presets"))
    presets = tomllib.loads((REPO / "gen" / "presets.toml").read_text())["preset"]
    lines = r.stdout.splitlines()
    assert len(lines) == len(presets) > 0
    for line, (name, table) in zip(lines, presets.items()):
        assert line.split()[0] == name, line
        assert line.rstrip().endswith(table["description"]), line


def test_presets_bad_input(termwise, tmp_path):
    r = termwise("presets", "--bogus")
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr
    assert r.stderr == "error: unrecognized arguments: --bogus\n"


def test_a_closed_pipe_is_not_a_traceback(tmp_path):
    """``termwise presets | head -1``: the reader closes the pipe after one line; the
    command stops quietly (exit 141, as a filter killed by SIGPIPE) instead of printing a
    BrokenPipeError traceback."""
    import subprocess
    from termwise_e2e import TERMWISE_EXE, e2e_env
    r = subprocess.run(["/bin/sh", "-c", f"'{TERMWISE_EXE}' presets | head -c 1 >/dev/null; "
                        "exit 0"], cwd=tmp_path, env=e2e_env(), capture_output=True, text=True,
                       timeout=120)
    assert "Traceback" not in r.stderr and "BrokenPipe" not in r.stderr, r.stderr
