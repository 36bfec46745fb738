"""How ``termwise report`` measures each design's power: which part of the tile is
simulated, and the cycle budget of its gate-level run."""

from __future__ import annotations

import re

from ...errors import ConfigError
from ....synth.power.part import TABLE_PART, table_part

__all__ = ["DEFAULT_POWER_CYCLES", "POWER_PART", "power_part", "needed_cycles", "budget_for"]

#: Cycle budget of each design's gate-level power run (a bound: the workload's sampled
#: runs that fit, :mod:`termwise.synth.power.workload`).
DEFAULT_POWER_CYCLES = 20000

#: How every design's power is measured (``termwise power --part``), and the rule for a
#: tile whose row does not build: :func:`termwise.synth.power.part.table_part`.
POWER_PART = TABLE_PART
power_part = table_part


def needed_cycles(err: ConfigError) -> int | None:
    """The cycles one run of each layer needs, from the power flow's refusal of too small a
    budget (:func:`termwise.synth.power.workload.plan_workload`: field ``cycles``, "about N
    cycles by the cycle model"), else None. Read from the message, whose wording
    tests/synth/test_power_workload.py pins."""
    found = re.search(r"\(about (\d+) cycles by the cycle model\)", str(err))
    return int(found.group(1)) if err.field == "cycles" and found else None


def budget_for(need: int) -> int:
    """The power budget given a design whose one run of each layer needs ``need`` cycles:
    ``need`` rounded up to a thousand (:class:`~termwise.synth.power.workload.
    CycleBudgetError`); :class:`ConfigError` past the power flow's ``MAX_CYCLES``."""
    from ....synth.power.flow import MAX_CYCLES
    budget = -(-int(need) // 1000) * 1000
    if budget > MAX_CYCLES:
        raise ConfigError("power_cycles", f"one run of each layer needs about {need} "
                          f"cycles, more than the power flow's {MAX_CYCLES}")
    return budget
