"""Every test process imports termwise before NumPy, so that the traces a test builds use
the pinned OpenBLAS kernel as the `termwise` command does (termwise/__init__.py)."""

import termwise  # noqa: F401

import sys
from pathlib import Path

# Helpers shared by test folders (``from layer_kinds import ...``): pytest runs with
# --import-mode=importlib, which puts no test folder on sys.path.
sys.path.insert(0, str(Path(__file__).resolve().parent))
