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
