"""Diffy (Mahmoud et al., MICRO 2018): differential convolution along x, Booth-encoded
deltas on the Bit-Pragmatic datapath, with a reconstruction unit."""

from ..spec import (ConfigError, DesignSpec, FormalSpec, Option,
                    PaperClaim, Regression, StuckAt, TuneAxis)
from .common import own_testbench


def _check(cfg):
    # The datapath sums bricks of act_bits + 1 bit deltas: one bit more than a brick sum.
    inner_sum = cfg.brick_sum_bits + 1
    if cfg.acc_bits < inner_sum:
        raise ConfigError("acc_bits", f"must be at least {inner_sum} for diffy (a brick of "
                          f"{cfg.act_bits + 1}-bit deltas), got {cfg.acc_bits}")



SPEC = DesignSpec(
    arch="diffy",
    description="Diffy (MICRO 2018): differential convolution along x, Booth-encoded deltas "
                "on the Bit-Pragmatic datapath, with a reconstruction unit",
    order=80,
    options=(
        Option("first_stage_bits", 2, (0, 1, 2, 3, 4), "fs", "first-stage shifter bits"),
        # Deltas computed from the activation rows as they stream in. Storing precomputed
        # deltas (the paper's alternative) is not built, so it is not accepted.
        Option("delta_source", "on_the_fly", ("on_the_fly",), "",
               "where deltas come from (stored deltas are not built)"),
    ),
    runtime=("restart",),
    # Deltas are one bit wider than activations, Booth encoded.
    worst_step_cycles=lambda cfg, p: (p + 2) // 2,
    check=_check,
    rtl="diffy",
    golden="diffy",
    # dncnn: rows of every layer of the 8-bit dncnn trace (builds the trace when not cached).
    # conv_channel: the conv suite in the channel-major brick order. edges: every command
    # field at its edge values (termwise.tb.edges).
    testbench=own_testbench("termwise.tb.diffy_tests",
                            ("random", "corners", "conv", "conv_channel", "dncnn", "edges"),
                            ("random", "corners", "conv", "edges")),
    regressions=(
        Regression("diffy-4x4"),
        Regression("diffy-4x4", {"pe_stages": 1}),   # registered PE inputs, inner datapath
        Regression("diffy-4x4", suites=("conv_channel",)),
        Regression("diffy-4x4", {"first_stage_bits": 0, "windows": 2}),
        Regression("diffy-16x16", slow=True),
    ),
    area_kinds=(
        (r"^\.array\.front_end\.predecessor_store$", "buffers",
         "Diffy predecessor store: the previous run's last-window bricks"),
        (r"^\.array\.reconstruction$", "reconstruction",
         "Diffy reconstruction unit: out_w = p_w + out_(w-1) prefix chain and previous-row "
         "registers"),
        (r"^\.array\.datapath$", "encoders",
         "Diffy's Bit-Pragmatic datapath, array level (as Pragmatic's array level)"),
    ),
    sim_designs={"diffy": {16: "diffy-16x16", 8: "diffy-16x16-8b"}},
    tune_variants={"diffy": (TuneAxis("first_stage_bits", {str(b): {"first_stage_bits": b}
                                                            for b in (1, 2, 3)}),)},
    papers={
        "diffy": PaperClaim(
            source="Diffy (Mahmoud et al., MICRO 2018), abstract",
            speedup=7.1, speedup_text="7.1x over a value-agnostic accelerator, 1.41x over "
                                      "Bit-Pragmatic, on HD computational-imaging networks",
            energy_efficiency=1.83, energy_text="1.83x over value-agnostic, 1.36x over "
                                                "Bit-Pragmatic, counting on-chip energy only",
            area_text="no area figure in the abstract (55% less on-chip storage and 2.5x "
                      "less off-chip bandwidth than raw values at profiled precisions)",
            why_different="the paper's gain is on HD computational-imaging networks, whose "
                          "smooth feature maps give small deltas; a classification "
                          "workload's do not"),
    },
    formal=FormalSpec(fault=StuckAt(port="neg"), module="termwise.tb.diffy_formal"),
)
