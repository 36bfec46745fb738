"""Verilator lint (``--lint-only -Wall``) of generated Verilog, with the named waivers of
:data:`termwise.tb.runner.LINT_WAIVERS` and nothing else.

``python -m termwise.tb.lint [PRESET ...]`` lints the given presets (default: all) and exits
non-zero on any warning.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from ..gen.config import load_presets, preset
from .runner import LINT_WAIVERS, control_file, generated
from ..synth.verilator import verilator_env

__all__ = ["lint"]


def lint(cfg) -> tuple[bool, str]:
    """Lint one configuration's Verilog; returns (clean, Verilator's messages)."""
    gen = generated(cfg)
    with tempfile.TemporaryDirectory() as tmp:
        vlt = Path(tmp) / "waivers.vlt"
        vlt.write_text(control_file(gen.manifest, lint=True))
        proc = subprocess.run(
            ["verilator", "--lint-only", "-Wall", "--top-module", gen.manifest["top"],
             str(vlt), str(gen.verilog)],
            capture_output=True, text=True, env=verilator_env())
    messages = (proc.stdout + proc.stderr).strip()
    return proc.returncode == 0 and "%Warning" not in messages, messages


def main(argv=None) -> int:
    names = (argv if argv is not None else sys.argv[1:]) or list(load_presets())
    print(f"waived: {', '.join(LINT_WAIVERS)}")
    failed = 0
    for name in names:
        ok, messages = lint(preset(name))
        print(f"{name:18s} {'clean' if ok else 'WARNINGS'}")
        if not ok:
            failed += 1
            print(messages[:4000])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
