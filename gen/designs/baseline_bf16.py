"""The bit-parallel baseline with bfloat16 operands and fp32 accumulation (MIOpen's bf16
convolutions: bf16 multiplies, fp32 sums).

The PE is pipelined (:class:`termwise.rtl.baseline_bf16.BF16PE`); its depth is derived here,
once, from the configuration (:func:`pipeline`), because the RTL, the golden cycle model and
the reports all need it (``rtl/`` and ``golden/`` may import the spec modules, not each
other).
"""

from typing import NamedTuple

from ..spec import ConfigError, DesignSpec, Regression
from .common import own_testbench

__all__ = ["SPEC", "Pipeline", "pipeline", "tree_levels", "run_overhead_for"]


def _check(cfg):
    if (cfg.act_bits, cfg.wgt_bits, cfg.acc_bits) != (16, 16, 32):
        raise ConfigError("dtype", "bf16 needs act_bits = wgt_bits = 16 and acc_bits = 32 "
                          "(fp32 accumulation)")


def tree_levels(lanes: int) -> int:
    """Levels of the pairwise fp32 adder tree over ``lanes`` products: ``ceil(log2 lanes)``."""
    return max(lanes - 1, 0).bit_length()


class Pipeline(NamedTuple):
    """Pipeline registers of the bf16 PE, from its inputs to the accumulator's adder.

    ``multiplier_stages``: registers in and after the multipliers (2: one between the
    significand product and the normalisation/rounding, inside
    :class:`termwise.rtl.fp.BF16Multiplier`, and one on the products: a whole bf16 multiply
    is about 1.7 fp32 adds on OSU018). ``tree_register_levels``: the adder-tree levels
    followed by a register (every level: one fp32 add per stage, the same as the
    accumulator's loop). ``latency``: cycles from a brick on the PE's
    inputs to its brick sum on the accumulator's adder (the sum of the two). The accumulator
    itself is one fp32 add per cycle (a true recurrence; not pipelined), so the PE still
    takes one brick per cycle and only the drain is longer.
    """

    multiplier_stages: int
    tree_register_levels: tuple
    latency: int

    def as_dict(self) -> dict:
        """The values the manifest / reports show (``bf16_pipeline``)."""
        return {"multiplier_stages": self.multiplier_stages,
                "tree_register_levels": list(self.tree_register_levels),
                "latency": self.latency,
                "run_overhead": run_overhead_for(self.latency)}


def run_overhead_for(latency: int) -> int:
    """Cycles a run of at least one brick costs beyond one per brick: the tile's controller
    sees the last brick leave its buffers one cycle after presenting it, so a latency of 0
    or 1 costs the integer baseline's 1; every further register one more."""
    return max(latency, 1)


def pipeline(cfg) -> Pipeline:
    """The bf16 PE's pipeline for ``cfg`` (a function of ``lanes`` only)."""
    levels = tuple(range(tree_levels(cfg.lanes)))
    return Pipeline(multiplier_stages=2, tree_register_levels=levels,
                    latency=2 + len(levels))


SPEC = DesignSpec(
    arch="baseline",
    dtype="bf16",
    description="bit-parallel tile with bf16 multipliers and fp32 accumulators",
    order=1,
    implies={"act_bits": 16, "wgt_bits": 16, "acc_bits": 32},
    worst_step_cycles=lambda cfg, p: 1,
    check=_check,
    rtl="baseline_bf16",
    # The bit-exact bf16 functional model and the pipelined cycle model (one cycle per brick
    # plus the pipeline's drain, pipeline(cfg)).
    golden="baseline_bf16",
    testbench=own_testbench("termwise.tb.bf16_tests", ("random", "specials", "conv", "edges")),
    regressions=(
        Regression("baseline-bf16-4x4"),
        Regression("baseline-bf16-4x4", {"pe_stages": 2}),
        # An odd lane count (the tree passes a value up a level) and several windows.
        Regression("baseline-bf16-4x4", {"filters": 3, "windows": 2, "lanes": 3, "depth": 16}),
        Regression("baseline-bf16-16x16", slow=True),
    ),
    area_kinds=((r"^__(bf16_mul|fp32_add)$", "pe_lanes",
                 "bf16 multipliers and fp32 adders of the bf16 PE"),),
    derived=lambda cfg: {"bf16_pipeline": pipeline(cfg).as_dict()},
)
