"""Bad synthesis options: one line naming the field, exit 2, nothing written."""

import os

import pytest

from termwise.gen.cli import main
from termwise.gen.config import ConfigError
from termwise.synth.api import check_options, synthesise
from termwise.gen.config import preset


@pytest.mark.parametrize("argv, field", [
    (["--target", "gpu"], "target"),
    (["--clock-ns", "0"], "clock_ns"),
    (["--clock-ns", "-3"], "clock_ns"),
    (["--clock-ns", "nan"], "clock_ns"),
    (["--liberty", "/nonexistent/cells.lib"], "liberty"),
])
def test_bad_synth_options(tmp_path, capsys, argv, field):
    out = tmp_path / "out"
    rc = main(["synth", "--preset", "baseline-4x4", "-o", str(out),
               "--cache-dir", str(tmp_path / "cache")] + argv)
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith(f"error: {field}: ") and err.count("\n") == 1
    assert not out.exists() and not (tmp_path / "cache").exists()


def test_missing_sta(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))   # no `sta` here
    rc = main(["synth", "--preset", "baseline-4x4", "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error: sta: ") and "opensta" in err
    assert not (tmp_path / "out").exists()


def test_fpga_target_needs_neither_liberty_nor_sta(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert check_options(5, "fpga", "/nonexistent.lib") == (5.0, "fpga", None)


def test_bad_compare_item(tmp_path, capsys):
    rc = main(["compare", "no-such-preset", "-o", str(tmp_path / "cmp")])
    assert rc == 2 and capsys.readouterr().err.startswith("error: preset: ")
    assert not (tmp_path / "cmp").exists()


def test_api_rejects_bad_precision(tmp_path):
    with pytest.raises(ConfigError, match="precision"):
        synthesise(preset("baseline-4x4"), str(tmp_path / "o"), target="fpga", precision=0,
                   cache_root=str(tmp_path / "c"))
    assert not (tmp_path / "o").exists()
