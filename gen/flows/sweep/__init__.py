"""``termwise sweep``'s engine: a grid of tile configurations (:mod:`.grid`) through the
cycle model and/or synthesis as independent, idempotent jobs (:mod:`.jobs`) on this
machine's process pool or a Dask cluster (:mod:`.executors`), answered from and recorded in
the perf-db (:mod:`.engine`), reported as sweep.json/.md (:mod:`.report`)."""

from __future__ import annotations

from .engine import run_sweep
from .executors import connect
from .grid import Grid, load_grid, parse_grid

__all__ = ["Grid", "load_grid", "parse_grid", "connect", "run_sweep"]
