"""Pieces several design specs share: the generic tile testbench and Booth digit counts."""

from __future__ import annotations

from ..spec import Option, Testbench

__all__ = ["tile_testbench", "own_testbench", "booth_digits",
           "GENERIC_TB", "FC_COLUMNS"]

#: Per-column weight registers for fully-connected layers at batch 1
#: (``rtl/column_weights.py``): a design whose array takes ``wgt_cols`` declares it. With
#: it, a run whose ``fc`` register is set deals successive input bricks over the window
#: columns (the papers' staggering), each column with its own weight brick per filter.
FC_COLUMNS = Option("fc_columns", 0, (0, 1), "fc",
                    "per-column weight registers: fc layers at batch 1 use every window "
                    "column (1) or one (0)", named_at_default=False)

#: The generic cocotb tile regression (random, corner, conv and depthwise suites; fused
#: output stage).
GENERIC_TB = "termwise.tb.tile_tests"


def tile_testbench(cfg) -> Testbench:
    """The generic regression: every design whose runs are independent and whose operands
    the generic driver loads; the fused output stage adds its suites. ``conv`` lowers in the
    papers' brick order, ``conv_channel`` (registered regressions only) in the channel-major
    im2col order, ``depthwise`` a depthwise convolution with the channel-diagonal packing, ``fc``
    (``fc_columns`` tiles) fully-connected layers at batch 1 on the per-column weights;
    ``edges`` (last) every command field at its edge values (``termwise.tb.edges``)."""
    suites = ["random", "corners", "conv", "conv_channel", "depthwise", "real"]
    default = ["random", "corners", "conv", "depthwise"]
    if cfg.has_fc_columns:
        suites.append("fc")
        default.append("fc")
    if cfg.output_stage:
        suites.append("fused")
        default.append("fused")
        if cfg.bias and cfg.residual and cfg.activation == "relu" and cfg.out_bits:
            suites.append("chain")
            default.append("chain")
    suites.append("edges")
    default.append("edges")
    return Testbench(GENERIC_TB, tuple(suites), tuple(default))


def own_testbench(module: str, suites: tuple, default: tuple | None = None):
    """A design's own testbench module, its ``suites`` and the regression's ``default``
    ones (all of ``suites`` when not given)."""
    bench = Testbench(module, tuple(suites), tuple(default or suites))
    return lambda cfg: bench


def booth_digits(bits: int) -> int:
    """Radix-4 Booth digits of a signed ``bits``-bit value."""
    return (bits + 1) // 2
