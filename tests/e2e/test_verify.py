"""`termwise verify` end to end through the installed entry point: the regression of odd
custom shapes for every design that has RTL, a broken tile caught with the rerun command,
and bad input refused."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from termwise.gen.designs import archs

TERMWISE = Path(sys.executable).parent / "termwise"
REPO_BUILD = Path(__file__).resolve().parents[2] / "build"

# The odd shape: nothing a power of two, operands narrower than a byte.
ODD = ["--filters", "3", "--windows", "5", "--lanes", "7", "--act-bits", "6", "--wgt-bits", "5"]
# Every registered integer design (a design added later is covered with no edit here), plus
# the variants whose datapath differs: Booth Pragmatic, the TCLe back end, and bf16.
DESIGNS = {arch: ["--arch", arch, *ODD] for arch in archs()}
DESIGNS.update({
    "pragmatic-booth": ["--arch", "pragmatic", "--encoding", "booth", *ODD],
    "tactical-tcle": ["--arch", "tactical", "--backend", "tcle", *ODD],
    "bf16": ["--arch", "baseline", "--dtype", "bf16", "--filters", "3", "--windows", "5",
             "--lanes", "7"],
})


def _termwise(*args, build=REPO_BUILD, cwd):
    assert TERMWISE.exists(), f"the entry point {TERMWISE} is not installed"
    env = dict(os.environ, TERMWISE_BUILD=str(build))
    return subprocess.run([str(TERMWISE), *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=1200)


def _regression_line(stdout):
    return next(line for line in stdout.splitlines() if line.strip().startswith("regression"))


@pytest.mark.parametrize("design", list(DESIGNS))
def test_verify_odd_shapes(design, tmp_path):
    out = tmp_path / "out"
    r = _termwise("verify", *DESIGNS[design], "-o", str(out), cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASSED" in _regression_line(r.stdout)
    record = json.loads((out / "verify.json").read_text())
    assert record["passed"] and record["runs"]
    cfg = record["config"]
    assert (cfg["filters"], cfg["windows"], cfg["lanes"]) == (3, 5, 7)
    for run in record["runs"]:
        assert run["outputs_match"] and run["cycles"] == run["model_cycles"], run
    assert {run["suite"] for run in record["runs"]} == set(record["suites"])
    # config.toml reproduces the configuration that was verified.
    g = _termwise("gen", "--config", str(out / "config.toml"), "-o", str(tmp_path / "g"),
                  cwd=tmp_path)
    assert g.returncode == 0, g.stderr
    assert json.loads((tmp_path / "g" / "manifest.json").read_text())["config"] == cfg


def test_verify_catches_a_broken_tile_and_prints_the_rerun(tmp_path):
    """A tile whose golden side believes in signed activations while the Verilog treats
    them as unsigned (the generator's cached manifest is edited so the testbench no longer
    sends the command's act_signed bit, and the hardware reads every run as unsigned; the
    hardware is not touched): the regression must fail, exit 1 and print a rerun command
    that works."""
    build = tmp_path / "build"
    args = ["--preset", "baseline-4x4", "--suites", "random"]
    first = _termwise("verify", *args, "-o", str(tmp_path / "ok"), build=build, cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    (manifest,) = (build / "gen").glob("*/manifest.json")
    data = json.loads(manifest.read_text())
    assert "act_signed" not in data["config"]       # a runtime register, not configuration
    assert data["command_layout"].pop("act_signed")["width"] == 1
    manifest.write_text(json.dumps(data))
    bad = _termwise("verify", *args, "-o", str(tmp_path / "bad"), build=build, cwd=tmp_path)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "FAILED" in _regression_line(bad.stdout)
    assert "golden" in bad.stdout
    rerun = next(line for line in bad.stdout.splitlines() if line.strip().startswith("rerun"))
    assert "--seed 1" in rerun and "--waves" in rerun and "--suites random" in rerun
    assert not json.loads((tmp_path / "bad" / "verify.json").read_text())["passed"]


@pytest.mark.parametrize("args,fragment", [
    (["--preset", "stripes-4x4", "--suites", "bogus"], "suites: unknown suite 'bogus'"),
    (["--preset", "stripes-4x4", "--seed", "-1"], "seed: must be an integer"),
    (["--arch", "stripes", "--filters", "3"], "is required with --arch"),
    (["--preset", "diffy-4x4", "--suites", "fused"],
     "valid: random, corners, conv, conv_channel, dncnn"),
])
def test_verify_bad_input(args, fragment, tmp_path):
    out = tmp_path / "out"
    r = _termwise("verify", *args, "-o", str(out), cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
    assert fragment in r.stderr and "Traceback" not in r.stderr
    assert not out.exists()


def test_verify_refuses_act_signed_in_a_config_file(tmp_path):
    """``act_signed`` is each run's runtime register, no configuration field: a config file
    that still sets it is refused before anything is built."""
    (tmp_path / "tile.toml").write_text(
        'arch = "baseline"\nfilters = 2\nwindows = 1\nlanes = 2\nact_bits = 4\n'
        'wgt_bits = 4\ndepth = 4\nact_signed = true\n')
    out = tmp_path / "out"
    r = _termwise("verify", "--config", "tile.toml", "-o", str(out), cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
    assert "act_signed: is a runtime register" in r.stderr and "Traceback" not in r.stderr
    assert not out.exists()


def test_verify_with_sram_macro_buffers(tmp_path):
    """``--buffers macros``: the operand buffers are single-port SRAM macros side by side
    (read only when the row shown changes, loaded through their write port); outputs and
    cycles stay exact against the golden models."""
    out = tmp_path / "out"
    r = _termwise("verify", "--preset", "loom-4x4", "--buffers", "macros", "-o", str(out),
                  cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASSED" in _regression_line(r.stdout)
    record = json.loads((out / "verify.json").read_text())
    assert record["config"]["buffers"] == "macros"
    for run in record["runs"]:
        assert run["outputs_match"] and run["cycles"] == run["model_cycles"], run
    g = _termwise("gen", "--config", str(out / "config.toml"), "-o", str(tmp_path / "g"),
                  cwd=tmp_path)
    manifest = json.loads((tmp_path / "g" / "manifest.json").read_text())
    assert manifest["top"].endswith("_sram")
    # loom-4x4: 128-bit weight rows (2 macros of 64 bits), 1024-bit activation rows (16)
    assert {"termwise_sram_64x64"} <= set(manifest["library_modules"])
    verilog = (tmp_path / "g" / manifest["verilog"]["file"]).read_text()
    assert verilog.count("termwise_sram_64x64 macro_") == 2 + 16
