"""Stripes (Judd et al., MICRO 2016): activations bit-serial at a runtime precision P."""

from ..spec import DesignSpec, FormalSpec, PaperClaim, Regression, StuckAt
from .common import FC_COLUMNS, tile_testbench

SPEC = DesignSpec(
    arch="stripes",
    description="Stripes (MICRO 2016): activations bit-serial at a runtime precision P",
    order=10,
    options=(FC_COLUMNS,),
    runtime=("precision",),
    worst_step_cycles=lambda cfg, p: p,
    rtl="stripes",
    golden="stripes",
    testbench=tile_testbench,
    regressions=(
        Regression("stripes-4x4"),
        Regression("stripes-4x4", {"fc_columns": 1}),   # fc runs on per-column weights
        Regression("stripes-4x4", {"fc_columns": 1, "pe_stages": 2}),   # and registered PE inputs
        # edges: the precision's edges seen through the requantising stage.
        Regression("stripes-4x4", {"bias": True, "residual": True, "activation": "relu",
                                   "out_bits": 8}, ("fused", "chain", "edges")),
        Regression("stripes-4x4", suites=("real",), slow=True),
        Regression("stripes-16x16", slow=True),
    ),
    sim_designs={"stripes": {16: "stripes-16x16", 8: "stripes-16x16-8b"}},
    papers={
        "stripes": PaperClaim(
            source="Stripes (Judd et al., MICRO 2016), abstract",
            speedup=1.92, speedup_text="1.92x on average (1.30x-4.51x) over DaDianNao",
            energy_efficiency=1.57, energy_text="57% more energy efficient",
            area_text="+32% area",
            why_different="the speedup is the hardware width over each layer's "
                          "activation precision (16/P on 16-bit hardware), so it follows "
                          "the precision profile: the paper's profiles of its ImageNet "
                          "networks against the workload's"),
    },
    formal=FormalSpec(fault=StuckAt(port="act_bit"),        # lane 0's activation bit
                      act_precision=True, two_bricks=True),
)
