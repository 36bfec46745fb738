"""Where a tool the flows run is: the virtual environment's own ``bin/`` first (the YoWASP
tools, ``yowasp-sby``, the solvers are PyPI packages installed beside this Python), then
PATH. Shared by :mod:`.tools` and :mod:`.yowasp_cache`, which must not import each other."""

from __future__ import annotations

import os
import shutil
import sys

__all__ = ["venv_executable"]


def venv_executable(name: str) -> str | None:
    """The path of executable ``name``: this Python's ``bin/`` folder, else PATH, else
    None."""
    here = os.path.join(os.path.dirname(sys.executable), name)
    return here if os.path.exists(here) else shutil.which(name)
