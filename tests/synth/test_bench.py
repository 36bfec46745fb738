"""synth/bench.py's measurement of a process: its wall time and the peak memory of the
process and the children it waits for (what ``make bench`` reports per tile)."""

import sys

from termwise.synth.bench import measure_process

# A child that holds ~200 MB in a grandchild (as termwise's Verilator and OpenSTA runs are).
GRANDCHILD = ("import subprocess, sys; subprocess.run([sys.executable, '-c', "
              "'b = bytearray(200 * 1024 * 1024); b[::4096] = b\"x\" * len(b[::4096])'], "
              "check=True); sys.exit(3)")


def test_peak_memory_includes_the_tools_a_command_runs():
    r = measure_process([sys.executable, "-c", GRANDCHILD])
    assert r["returncode"] == 3 and r["wall_s"] >= 0
    assert 200 <= r["peak_rss_mb"] < 400


def test_a_small_process_is_small_beside_a_big_caller():
    """The caller holds 300 MB (a pytest worker is about 1 GB): a child forked from it
    counts those pages until its exec, so the measurement must not come from the caller."""
    held = bytearray(300 * 1024 * 1024)
    held[::4096] = b"x" * len(held[::4096])
    assert measure_process([sys.executable, "-c", "pass"])["peak_rss_mb"] < 100
    del held
