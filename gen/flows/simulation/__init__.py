"""The simulation flow (``termwise sim``): every design's network-level cycles and energy on
a workload (:func:`run_sim`; :func:`simulate` without writing), its options checked first
(:mod:`.options`), its document (:mod:`.document`) written by
:mod:`termwise.gen.flows.reports.sim`."""

from __future__ import annotations

from .options import DEFAULT_SAMPLE_PAIRS, parse_archs
from .power_records import read_power_reports
from .run import run_sim, simulate

__all__ = ["run_sim", "simulate", "parse_archs", "read_power_reports", "DEFAULT_SAMPLE_PAIRS"]
