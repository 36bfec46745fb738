"""Laconic (Sharify et al., ISCA 2019): Booth terms of weights and activations, one term pair
per lane per cycle."""

from ..spec import DesignSpec, FormalSpec, Option, PaperClaim, Regression, StuckAt
from .common import FC_COLUMNS, booth_digits, tile_testbench

SPEC = DesignSpec(
    arch="laconic",
    description="Laconic (ISCA 2019): Booth terms of weights and activations, one term "
                "pair per lane per cycle",
    order=50,
    options=(Option("encoding", "booth", ("booth",), "",
                    "term encoding"),
             # The paper's PE counts the term pairs per exponent and shifts-and-adds the
             # counts; "onehot" is termwise's first PE (one-hot words in an adder tree),
             # kept for comparison (rtl/laconic_pe.py).
             Option("reduction", "histogram", ("histogram", "onehot"), "",
                    "PE reduction: the paper's exponent histogram, or one-hot words in an "
                    "adder tree", named_at_default=False),
             FC_COLUMNS),
    worst_step_cycles=lambda cfg, p: booth_digits(p) * booth_digits(p),
    area_kinds=((r"^__(act|wgt)_term_brick", "encoders",
                 "Laconic term bricks: a Booth encoder and a term serializer per window or "
                 "filter lane"),
                (r"^__pair_column$", "encoders",
                 "Laconic step-length detector with per-column weights (`fc_columns`): one "
                 "column's longest lane, a module instantiated per column"),
                (r"^__pe\.histogram$", "adder_tree",
                 "Laconic PE reduction: per-exponent counts of the term pairs and their "
                 "grouped shift-and-add"),),
    rtl="laconic",
    golden="laconic",
    testbench=tile_testbench,
    regressions=(
        Regression("laconic-4x4"),
        Regression("laconic-4x4", {"fc_columns": 1}),   # fc runs on per-column weights
        Regression("laconic-4x4", {"fc_columns": 1, "pe_stages": 1}),   # and registered PE inputs
        Regression("laconic-4x4", suites=("real",), slow=True),
        Regression("laconic-16x16", slow=True),
    ),
    sim_designs={"laconic": {16: "laconic-16x16", 8: "laconic-16x16-8b"}},
    papers={
        "laconic": PaperClaim(
            source="Laconic (Sharify et al., ISCA 2019; arXiv 1805.04513), abstract",
            speedup=None, speedup_text="2.3x (128-wire) to 15.4x (1K-wire) over a 2K-wire "
                                       "bit-parallel design; >= 40x potential",
            energy_text="2.13x (128-wire) and 1.95x (1K-wire) more energy efficient than "
                        "the 2K-wire bit-parallel design: a footing of memory wires, not "
                        "equal peak, so not a ratio to termwise's baseline",
            area_text="its PE 5x smaller than an 8-bit bit-parallel PE",
            why_different="the paper compares at equal memory wires, not equal peak "
                          "throughput"),
    },
    formal=FormalSpec(fault=StuckAt(port="act", bit=1)),   # lane 0's activation term sign
)
