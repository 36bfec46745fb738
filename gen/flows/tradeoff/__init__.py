"""The precision trade-off flow (``termwise tradeoff``): the digits CNN's accuracy and the
cycles of the baseline, Stripes and Loom at every precision setting (:mod:`.settings`),
written by :mod:`termwise.gen.flows.reports.tradeoff`."""

from __future__ import annotations

from .run import run_tradeoff
from .settings import settings

__all__ = ["run_tradeoff", "settings"]
