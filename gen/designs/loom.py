"""Loom (Sharify et al., DAC 2018): weights bit-serial at a runtime precision Pw, activations
``serial_bits`` at a time at the detected precision."""

from ..spec import DesignSpec, FormalSpec, Option, PaperClaim, Regression, StuckAt, TuneAxis
from .common import FC_COLUMNS, tile_testbench

SPEC = DesignSpec(
    arch="loom",
    description="Loom (DAC 2018): weights bit-serial at a runtime precision Pw, activations "
                "serial_bits at a time at the detected precision",
    order=30,
    options=(Option("serial_bits", 1, (1, 2, 4), "s", "activation bits per cycle"),
             FC_COLUMNS),
    runtime=("wgt_precision",),
    worst_step_cycles=lambda cfg, p: -(-p // cfg.serial_bits) * p,
    rtl="loom",
    golden="loom",
    testbench=tile_testbench,
    regressions=(
        Regression("loom-4x4"),
        Regression("loom-4x4", {"pe_stages": 1}),
        Regression("loom-4x4", {"fc_columns": 1}),   # fc runs on per-column weights
        # the 1-bit design (loom-s1-128mac's), and twice the lanes (the s1-128mac and
        # s2-256mac presets' 32), small
        Regression("loom-4x4", {"serial_bits": 1}),
        Regression("loom-4x4", {"serial_bits": 1, "lanes": 8}),
        Regression("loom-4x4", suites=("real",), slow=True),
        Regression("loom-16x16", slow=True),
        # the paper's footing (128 16-bit MAC/cycle) and equal peak at 1 and 2 bits a cycle
        # (gen/presets.toml; 1024 PEs each)
        Regression("loom-s1-128mac", slow=True),
        Regression("loom-s2-128mac", slow=True),
        Regression("loom-s2-256mac", slow=True),
    ),
    area_kinds=((r"^__pe\.serial_wgt$", "accumulators", "Loom PE weight-bit shift accumulator"),),
    sim_designs={"loom": {16: "loom-16x16", 8: "loom-16x16-8b"}},
    # termwise tune: 1, 2 or 4 activation bits a cycle (the windows scale with the cycles a
    # dense brick takes; a point past 64 windows is left out)
    tune_variants={"loom": (TuneAxis("serial_bits", {str(s): {"serial_bits": s}
                                                     for s in (1, 2, 4)}),)},
    papers={
        "loom": PaperClaim(
            source="Loom (Sharify et al., DAC 2018), abstract",
            speedup=4.38, speedup_text="4.38x over a bit-parallel design of equal peak "
                                       "(128 16-bit MAC/cycle)",
            energy_efficiency=3.54, energy_text="3.54x more energy efficient (the 1-bit "
                                                "design; the 2-bit variant is the most "
                                                "energy efficient, the abstract says)",
            area_text="no area figure in the abstract",
            why_different="the paper's peak is 128 16-bit MAC/cycle (termwise's: 256) and "
                          "its gain multiplies activation and weight precision reductions "
                          "of its own profiles"),
    },
    formal=FormalSpec(fault=StuckAt(port="wgt_bit"),    # lane 0's weight bit
                      wgt_precision=True),
)
