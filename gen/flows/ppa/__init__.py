"""The PPA report flow (``termwise report``): every design's synthesis, gate-level power
under a workload and network simulation, as one table at equal peak throughput
(:func:`run_report`), written by :mod:`termwise.gen.flows.reports.ppa`."""

from __future__ import annotations

from .budget import DEFAULT_POWER_CYCLES, budget_for, needed_cycles, power_part
from .run import DEFAULT_FLOW, run_report

__all__ = ["run_report", "DEFAULT_FLOW", "DEFAULT_POWER_CYCLES", "budget_for", "needed_cycles", "power_part"]
