"""Which cocotb testbench module regresses a configuration, and its suites.

Most designs run the generic tile regression (:mod:`termwise.tb.tile_tests`); Diffy, the
Bit-Tactical tiles and bfloat16 tiles need their own host-side lowering and golden models,
so they have testbench modules of their own. ``termwise demo``, ``termwise verify`` and the
pytest runners all choose through :func:`testbench_for`, so a configuration is always
regressed by the same module with the same default suites.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Testbench", "testbench_for"]


@dataclass(frozen=True)
class Testbench:
    """A cocotb test module and the suites it understands.

    Attributes
    ----------
    module : str
        Dotted name of the cocotb test module.
    suites : tuple of str
        Every suite the module runs for this configuration.
    default : tuple of str
        The suites of a normal regression (``termwise demo``, ``termwise verify``).
    """

    module: str
    suites: tuple
    default: tuple

    def check_suites(self, names) -> tuple:
        """``names`` validated against :attr:`suites` (``ValueError`` naming the valid ones)."""
        names = tuple(dict.fromkeys(names))
        if not names:
            raise ValueError(f"give one or more of {', '.join(self.suites)}")
        for name in names:
            if name not in self.suites:
                raise ValueError(f"unknown suite {name!r} for this configuration (valid: "
                                 f"{', '.join(self.suites)})")
        return names


def testbench_for(cfg) -> Testbench:
    """The testbench that regresses ``cfg`` (a :class:`~termwise.gen.config.TileConfig`)."""
    if cfg.dtype == "bf16":
        return Testbench("termwise.tb.bf16_tests", ("random", "specials", "conv"),
                         ("random", "specials", "conv"))
    if cfg.arch == "diffy":
        return Testbench("termwise.tb.diffy_tests", ("random", "corners", "conv"),
                         ("random", "corners", "conv"))
    if cfg.arch == "tactical":
        return Testbench("termwise.tb.tactical_cases", ("sparse", "random", "corners", "conv"),
                         ("sparse", "random", "corners", "conv"))
    suites = ["random", "corners", "conv", "real"]
    default = ["random", "corners", "conv"]
    if cfg.output_stage:
        suites.append("fused")
        default.append("fused")
        if cfg.bias and cfg.residual and cfg.activation == "relu" and cfg.out_bits:
            suites.append("chain")
            default.append("chain")
    return Testbench("termwise.tb.tile_tests", tuple(suites), tuple(default))
