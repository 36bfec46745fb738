"""The bit-parallel baseline with bfloat16 operands and fp32 accumulation (MIOpen's bf16
convolutions: bf16 multiplies, fp32 sums)."""

from ..spec import ConfigError, DesignSpec, Regression
from .common import own_testbench


def _check(cfg):
    if (cfg.act_bits, cfg.wgt_bits, cfg.acc_bits) != (16, 16, 32):
        raise ConfigError("dtype", "bf16 needs act_bits = wgt_bits = 16 and acc_bits = 32 "
                          "(fp32 accumulation)")



SPEC = DesignSpec(
    arch="baseline",
    dtype="bf16",
    description="bit-parallel tile with bf16 multipliers and fp32 accumulators",
    order=1,
    implies={"act_bits": 16, "wgt_bits": 16, "acc_bits": 32},
    worst_step_cycles=lambda cfg, p: 1,
    check=_check,
    rtl="baseline_bf16",
    # The cycle model is the integer baseline's; golden/arch/baseline_bf16.py holds the
    # bit-exact bf16 functional model the bf16 testbench checks against.
    golden="baseline",
    testbench=own_testbench("termwise.tb.bf16_tests", ("random", "specials", "conv")),
    regressions=(
        Regression("baseline-bf16-4x4"),
        # An odd lane count (the tree passes a value up a level) and several windows.
        Regression("baseline-bf16-4x4", {"filters": 3, "windows": 2, "lanes": 3, "depth": 16}),
    ),
    area_kinds=((r"^__(bf16_mul|fp32_add)$", "pe_lanes",
                 "bf16 multipliers and fp32 adders of the bf16 PE"),),
)
