"""The shipped characterised macros: ``openram_scn4m_subm.json`` beside this file, written
by ``make sram`` (``python -m termwise.synth.sram``, docs/sram.md).

Each shape holds ``words``, ``width``, ``raw`` (OpenRAM's figures in scn4m_subm at 5.0 V:
``area_um2`` from the LEF outline, ``read_pj`` / ``write_pj`` per access of the whole word,
``leakage_w``, ``access_ns``, ``min_period_ns``, and the ``liberty`` figures they come
from), ``scaled`` (the same at 0.18 um / 1.8 V) and ``run`` (provenance: OpenRAM, numpy,
ngspice and Python versions, the options, the date, CPU and wall seconds).
"""

from __future__ import annotations

import functools
import json
import os

__all__ = ["DATA_FILE", "load", "shapes"]

#: The data file (package data, see pyproject.toml).
DATA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "openram_scn4m_subm.json")


@functools.lru_cache(maxsize=None)
def load(path: str = DATA_FILE) -> dict:
    """The data file's document (cached: it is read once per process)."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def shapes(path: str = DATA_FILE) -> list[dict]:
    """The characterised shapes, in the file's order."""
    return list(load(path)["shapes"])
