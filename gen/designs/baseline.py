"""Bit-parallel baseline (DaDianNao, MICRO 2014): one brick per filter per window per cycle."""

from ..spec import DesignSpec, FormalSpec, PaperClaim, Regression, StuckAt
from .common import tile_testbench

SPEC = DesignSpec(
    arch="baseline",
    description="bit-parallel DaDianNao-like tile: one brick per filter per window per cycle",
    order=0,
    worst_step_cycles=lambda cfg, p: 1,
    rtl="baseline",
    golden="baseline",
    testbench=tile_testbench,
    regressions=(
        Regression("baseline-4x4"),
        Regression("baseline-4x4", {"pe_stages": 1}),   # registered PE inputs (pe_stage.py)
        Regression("baseline-4x4", {"bias": True, "residual": True, "activation": "relu",
                                    "out_bits": 8}, ("fused", "chain")),
        # edges: the output stage's registers (multiplier, shift, cap) at their edge values.
        Regression("baseline-4x4", {"activation": "relu6", "out_bits": 8}, ("fused", "edges")),
        Regression("baseline-4x4", {"bias": True, "activation": "relu6"}, ("fused", "edges")),
        Regression("baseline-4x4", {"out_bits": 12}, ("fused",)),
        Regression("baseline-4x4", suites=("real",), slow=True),
        # A paper-scale tile in `make test`: the random suite of baseline-16x16 (one window
        # of 16 PEs of 16 lanes: a flat build); the whole regression is slow.
        Regression("baseline-16x16", suites=("random",)),
        Regression("baseline-16x16", slow=True),
    ),
    sim_designs={"baseline": {16: "baseline-16x16", 8: "baseline-16x16-8b"}},
    papers={
        "baseline": PaperClaim(
            source="DaDianNao (Chen et al., MICRO 2014)",
            speedup=1.0, speedup_text="the reference of every ratio (a DaDianNao-like tile)",
            energy_efficiency=1.0, energy_text="the reference of every ratio"),
    },
    formal=FormalSpec(fault=StuckAt(port="wgt"),            # lane 0's weight LSB
                      two_bricks=True),
)
