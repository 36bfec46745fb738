"""Progress on the long commands (gen/progress.py): bars on a terminal, none otherwise.

The commands run through the installed entry point with standard error on a pseudo-terminal
(a terminal as the user's shell gives it) or on a pipe (a log file, CI)."""

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

from termwise.gen.progress import ENV

TERMWISE = Path(sys.executable).parent / "termwise"
SIM = ["sim", "--workload", "digits-cnn", "--designs", "stripes", "--images", "2"]


def _run(args, cwd, *, terminal: bool):
    env = {k: v for k, v in os.environ.items() if k != ENV}
    env["COLUMNS"] = "160"
    if not terminal:
        p = subprocess.run([str(TERMWISE), *args], cwd=cwd, env=env, capture_output=True,
                           text=True, timeout=600)
        return p.returncode, p.stderr
    master, slave = pty.openpty()
    # a terminal of 30 x 160 (a new pseudo-terminal has 0 columns: tqdm draws nothing)
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 160, 0, 0))
    p = subprocess.Popen([str(TERMWISE), *args], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                         stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:          # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return p.wait(timeout=600), b"".join(chunks).decode(errors="replace")


def test_sim_draws_a_bar_on_a_terminal_only(tmp_path):
    code, err = _run(SIM + ["-o", "tty"], tmp_path, terminal=True)
    assert code == 0, err
    # tqdm's bar: the stage, the layers done of all, the unit
    assert "sim digits-cnn:" in err and "| 2/3 [" in err and "layer/s, conv2" in err, err[-2000:]
    code, err = _run(SIM + ["-o", "pipe"], tmp_path, terminal=False)
    assert code == 0, err
    assert "sim digits-cnn:" not in err and "\r" not in err, err[-2000:]
    assert "[  1/" in err              # the log lines, a line per layer, remain


def test_bar_off_and_forced(monkeypatch, capsys):
    from termwise.gen import progress
    monkeypatch.setenv(ENV, "never")
    with progress.Bar(3, "stage x", "step") as bar:
        bar.step("a")
    assert "stage x" not in capsys.readouterr().err
    monkeypatch.setenv(ENV, "always")
    with progress.Bar(3, "stage y", "step") as bar:
        bar.step("b")
    assert "stage y" in capsys.readouterr().err
