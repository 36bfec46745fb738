"""Stripes (Judd et al., MICRO 2016): activations bit-serial at a runtime precision P."""

from ..spec import DesignSpec, Regression
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
        Regression("stripes-4x4", {"bias": True, "residual": True, "activation": "relu",
                                   "out_bits": 8}, ("fused", "chain")),
        Regression("stripes-4x4", suites=("real",), slow=True),
        Regression("stripes-16x16", slow=True),
    ),
    sim_designs={"stripes": {16: "stripes-16x16", 8: "stripes-16x16-8b"}},
)
