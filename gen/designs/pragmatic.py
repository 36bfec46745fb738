"""Bit-Pragmatic (Albericio et al., MICRO 2017): only the activations' non-zero terms,
two-stage shifting; pallet or column synchronisation."""

from ..spec import (ConfigError, DesignSpec, FormalSpec, Option,
                    PaperClaim, Regression, StuckAt, TuneAxis)
from .common import FC_COLUMNS, booth_digits, tile_testbench


def _check(cfg):
    if cfg.sync == "pallet" and cfg.column_registers:
        raise ConfigError("column_registers", "must be 0 with sync = pallet")
    if cfg.sync == "column" and not cfg.column_registers:
        raise ConfigError("column_registers", "must be in 1..8 with sync = column")


#: The option grid ``termwise tune`` tries around Pragmatic's presets.
_TUNE_AXES = (TuneAxis("first_stage_bits", {str(b): {"first_stage_bits": b} for b in (1, 2, 3)}),
              TuneAxis("sync", {"pallet": {"sync": "pallet", "column_registers": 0},
                                "column (2 registers)": {"sync": "column",
                                                         "column_registers": 2}}))

SPEC = DesignSpec(
    arch="pragmatic",
    description="Bit-Pragmatic (MICRO 2017): only the activations' non-zero terms, "
                "two-stage shifting",
    order=40,
    options=(
        Option("first_stage_bits", 2, (0, 1, 2, 3, 4), "fs",
               "first-stage shifter bits"),
        Option("encoding", "plain", ("plain", "booth"), "",
               "term encoding"),
        Option("sync", "pallet", ("pallet", "column"), "", "column synchronisation"),
        Option("column_registers", 0, tuple(range(0, 9)), "r",
               "column sync: bricks a column may run ahead"),
        FC_COLUMNS,
    ),
    worst_step_cycles=lambda cfg, p: booth_digits(p) if cfg.encoding == "booth" else p,
    check=_check,
    rtl="pragmatic",
    golden="pragmatic",
    testbench=tile_testbench,
    regressions=(
        Regression("pragmatic-4x4"),
        Regression("pragmatic-4x4", suites=("conv_channel",)),  # the other brick order
        Regression("pragmatic-4x4", {"encoding": "booth"}),
        Regression("pragmatic-4x4", {"sync": "column", "column_registers": 2, "pe_stages": 1}),
        Regression("pragmatic-4x4", {"sync": "column", "column_registers": 2}),
        Regression("pragmatic-4x4", {"fc_columns": 1}),   # fc runs on per-column weights
        Regression("pragmatic-4x4", {"sync": "column", "column_registers": 2,
                                     "fc_columns": 1}, ("fc",)),
        Regression("pragmatic-4x4", suites=("real",), slow=True),
        Regression("pragmatic-16x16", slow=True),
        Regression("pragmatic-booth-16x16", slow=True),
    ),
    sim_designs={
        "pragmatic": {16: "pragmatic-16x16", 8: "pragmatic-16x16-8b"},
        "pragmatic-booth": {16: "pragmatic-booth-16x16", 8: "pragmatic-booth-16x16-8b"},
    },
    # termwise tune: first-stage shifters of 1..3 bits, each with pallet and with column
    # synchronisation (2 column registers)
    tune_variants={d: _TUNE_AXES for d in ("pragmatic", "pragmatic-booth")},
    papers={
        "pragmatic": PaperClaim(
            source="Bit-Pragmatic (Albericio et al., MICRO 2017), abstract",
            speedup=2.6, speedup_text="2.6x over the baseline with pallet synchronisation "
                                      "(3.1x column), 1.4x over Stripes",
            energy_efficiency=1.28,
            energy_text="28% more energy efficient than DaDianNao, 10% more than Stripes "
                        "(the same abstract, arXiv 1610.06920)",
            area_text="no area figure in the abstract",
            why_different="the gain is the activations' non-zero terms: the paper's "
                          "networks and profiles against the workload's"),
        "pragmatic-booth": PaperClaim(
            source="Bit-Pragmatic with Booth activations (Diffy's comparison point, "
                   "Mahmoud et al., MICRO 2018)",
            speedup=None, speedup_text="no figure of its own: Diffy's reference for the "
                                       "gain of differential convolution",
            energy_text="no figure of its own", area_text="no figure of its own",
            why_different="no paper figure to compare"),
    },
    formal=FormalSpec(fault=StuckAt(port="neg")),   # lane 0's term sign
)
