"""Cnvlutin (Albericio et al., ISCA 2016): zero activations skipped, zero-free bricks with
offsets, decoupled lanes."""

from ..spec import DesignSpec, FormalSpec, PaperClaim, Regression, StuckAt
from .common import tile_testbench

SPEC = DesignSpec(
    arch="cnvlutin",
    description="Cnvlutin (ISCA 2016): zero activations skipped, zero-free bricks with "
                "offsets, decoupled lanes",
    order=60,
    own_stores="zero-free activation stores per window with offsets, weight banks per lane",
    worst_step_cycles=lambda cfg, p: 1,
    rtl="cnvlutin",
    golden="cnvlutin",
    testbench=tile_testbench,
    regressions=(
        Regression("cnvlutin-4x4"),
        Regression("cnvlutin-4x4", {"pe_stages": 1}),   # registered PE inputs, owning array
        Regression("cnvlutin-4x4", {"windows": 2}),
        Regression("cnvlutin-4x4", suites=("real",), slow=True),
        Regression("cnvlutin-16x16", slow=True),
    ),
    sim_designs={"cnvlutin": {16: "cnvlutin-16x16", 8: "cnvlutin-16x16-8b"}},
    papers={
        "cnvlutin": PaperClaim(
            source="Cnvlutin (Albericio et al., ISCA 2016), abstract",
            speedup=1.37, speedup_text="1.37x on average (1.24x-1.55x) over DaDianNao; 1.52x "
                                       "with near-zero activations also dropped",
            energy_text="EDP 1.47x and ED2P 2.01x better than DaDianNao; energy alone about "
                        "1.07x (1.47 / 1.37: derived here, not stated)",
            area_text="+4.49% area",
            why_different="the gain is the zero activations' share of the work: it depends "
                          "on the ReLU sparsity of the paper's ImageNet networks against the "
                          "workload's"),
    },
    formal=FormalSpec(fault=StuckAt(port="wgt"), module="termwise.tb.cnvlutin_formal"),
)
