"""Which cocotb testbench module regresses a configuration, and its suites.

Each design's spec (:mod:`termwise.gen.designs`) names its testbench: most designs run the
generic tile regression (:mod:`termwise.tb.tile_tests`); Diffy, the Bit-Tactical tiles and
bfloat16 tiles need their own host-side lowering and golden models. ``termwise demo``,
``termwise verify`` and the pytest runners all choose through :func:`testbench_for`, so a
configuration is always regressed by the same module with the same default suites.
"""

from __future__ import annotations

from ..gen.spec import Testbench

__all__ = ["Testbench", "testbench_for", "regressions"]


def testbench_for(cfg) -> Testbench:
    """The testbench that regresses ``cfg`` (a :class:`~termwise.gen.config.TileConfig`)."""
    return cfg.spec.testbench(cfg)


def regressions(module: str, *, slow: bool | None = None) -> list:
    """``(config, suites, id)`` of every registered regression whose testbench is
    ``module`` (``slow``: only the slow ones, only the fast ones, or all with ``None``)."""
    from ..gen import designs
    from ..gen.config import preset
    out = []
    for spec in designs.SPECS.values():
        for reg in spec.regressions:
            if slow is not None and reg.slow != slow:
                continue
            cfg = preset(reg.preset).replace(**reg.changes) if reg.changes else \
                preset(reg.preset)
            bench = testbench_for(cfg)
            if bench.module == module:
                out.append((cfg, reg.suites or bench.default, reg.id))
    return out
