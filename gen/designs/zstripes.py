"""Zero-skipping Stripes: Stripes (Judd et al., MICRO 2016) whose sequencer spends one cycle
instead of P on a step whose activations are all zero (every window's brick), a
Cnvlutin-style skip at step granularity. The variant docs/adding-a-design.md adds."""

from ..spec import DesignSpec, FormalSpec, PaperClaim, Regression, StuckAt
from .common import FC_COLUMNS, tile_testbench

SPEC = DesignSpec(
    arch="zstripes",
    description="Stripes with zero-step skipping: a step whose activations are all zero "
                "takes 1 cycle instead of P",
    order=15,
    options=(FC_COLUMNS,),
    runtime=("precision",),
    worst_step_cycles=lambda cfg, p: p,
    rtl="zstripes",
    golden="zstripes",
    testbench=tile_testbench,
    regressions=(
        Regression("zstripes-4x4"),
        Regression("zstripes-4x4", {"pe_stages": 1}),
        Regression("zstripes-4x4", {"fc_columns": 1}),   # fc runs on per-column weights
        Regression("zstripes-4x4", suites=("real",)),
        Regression("zstripes-16x16", slow=True),
    ),
    sim_designs={"zstripes": {16: "zstripes-16x16", 8: "zstripes-16x16-8b"}},
    papers={
        "zstripes": PaperClaim(
            source="termwise's own variant (docs/adding-a-design.md): no paper",
            speedup=None, speedup_text="no paper figure: Stripes plus a one-cycle skip of "
                                       "all-zero steps",
            why_different="no paper figure to compare"),
    },
    formal=FormalSpec(fault=StuckAt(port="act_bit"),    # lane 0's activation bit
                      act_precision=True, two_bricks=True),
)
