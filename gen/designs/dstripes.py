"""Dynamic Stripes (Delmas et al., arXiv 1706.00504): bit-serial at the precision detected
per step."""

from ..spec import DesignSpec, FormalSpec, PaperClaim, Regression, StuckAt
from .common import FC_COLUMNS, tile_testbench

SPEC = DesignSpec(
    arch="dstripes",
    description="Dynamic Stripes (arXiv 1706.00504): bit-serial at the precision detected "
                "per step",
    order=20,
    options=(FC_COLUMNS,),
    worst_step_cycles=lambda cfg, p: p,
    rtl="dstripes",
    golden="dstripes",
    testbench=tile_testbench,
    regressions=(
        Regression("dstripes-4x4"),
        Regression("dstripes-4x4", {"pe_stages": 1}),
        Regression("dstripes-4x4", {"fc_columns": 1}),   # fc runs on per-column weights
        Regression("dstripes-4x4", suites=("conv_channel",)),   # the other brick order
        Regression("dstripes-4x4", suites=("real",), slow=True),
        Regression("dstripes-16x16", slow=True),
    ),
    sim_designs={"dstripes": {16: "dstripes-16x16", 8: "dstripes-16x16-8b"}},
    papers={
        "dstripes": PaperClaim(
            source="Dynamic Stripes (Delmas et al., arXiv 1706.00504), abstract",
            speedup=None, speedup_text="41% faster than Stripes",
            energy_text="no energy figure in the abstract",
            area_text="no area figure in the abstract",
            why_different="the figure is relative to Stripes, not the baseline"),
    },
    formal=FormalSpec(fault=StuckAt(port="negate"),         # the sign bit's negative weight
                      two_bricks=True),
)
