"""The designs ``termwise sim`` compares and the tiles they run on: each design's
equal-peak preset per hardware width, the reference every speedup divides by, the
fully-connected mapping's options and the configuration a design is simulated on."""

from __future__ import annotations

from ...gen.designs import sim_designs, sim_presets
from ..arch import model

__all__ = ["PRESETS", "PRESETS_BY_BITS", "REFERENCE", "design_preset", "design_config",
           "FC_MAPPINGS", "DEFAULT_FC", "check_fc_mapping", "sim_config", "design_arch",
           "hardware_bits", "available_designs"]

#: The designs of ``termwise sim`` and their equal-peak-throughput presets on 16-bit
#: hardware (256 16-bit MAC/cycle at 16 bits), from the design registry (each spec's
#: ``sim_designs``). A design is named by its key; its golden model is that of the preset's
#: ``arch`` (``pragmatic-booth`` is Pragmatic with Booth-encoded activations: the same
#: datapath as Diffy without the delta front end, so Diffy's gain over it is the gain of
#: differential convolution alone, at equal peak throughput).
PRESETS = sim_designs(16)

#: Design -> ``{hardware bits: preset}``: every width the designs have equal-peak presets
#: of (16: the ``-16x16`` presets; 8: the ``-16x16-8b`` ones, 256 8-bit MAC/cycle). A
#: workload runs on the presets of its own width (:func:`hardware_bits`), so that a speedup
#: over the baseline of that width is a property of the data, not of the width ratio.
PRESETS_BY_BITS = sim_presets()

#: The design every speedup divides by: the bit-parallel baseline at equal peak throughput
#: (on hardware of the workload's width).
REFERENCE = "baseline"


def design_preset(design: str, bits: int = 16) -> str:
    """The equal-peak preset of ``design`` on ``bits``-bit hardware
    (:data:`PRESETS_BY_BITS`); ``ValueError`` when it has none of that width."""
    widths = PRESETS_BY_BITS.get(design)
    if widths is None:
        raise ValueError(f"unknown termwise sim design {design!r} (valid: "
                         f"{', '.join(PRESETS_BY_BITS)})")
    if bits not in widths:
        raise ValueError(f"design {design!r} has no {bits}-bit preset (widths: "
                         f"{', '.join(map(str, widths))})")
    return widths[bits]


def design_config(design: str, bits: int = 16):
    """The equal-peak 16x16 preset of ``design`` on ``bits``-bit hardware
    (:func:`design_preset`): ``-16x16`` at 16 bits, ``-16x16-8b`` at 8."""
    from ...gen.config import preset
    return preset(design_preset(design, bits))


#: How a fully-connected layer at batch 1 is mapped (``termwise sim --fc``): ``columns``
#: deals its input bricks over the window columns on a design with the ``fc_columns``
#: option (the papers' staggering; per-column weight registers, rtl/column_weights.py);
#: ``window`` runs it as a matrix product whose one window is the image.
FC_MAPPINGS = ("columns", "window")
DEFAULT_FC = "columns"


def check_fc_mapping(value: str) -> str:
    if value not in FC_MAPPINGS:
        raise ValueError(f"fc: must be one of {', '.join(FC_MAPPINGS)}, got {value!r}")
    return value


def sim_config(design: str, bits: int = 16, fc: str = DEFAULT_FC, buffers: str = "flops",
               clock_gating: bool = False):
    """The configuration ``design`` is simulated on: :func:`design_config`, with the
    ``fc_columns`` option set when ``fc`` is ``"columns"`` and the design has it (and the
    buffers at least ``windows`` rows deep, so that they hold one round of weights: Loom's
    64-window presets have 16-row buffers), and its storage as ``buffers`` (macros where
    the design allows them) and ``clock_gating`` (:func:`termwise.gen.config.
    storage_variant`)."""
    from ...gen.config import storage_variant
    cfg = design_config(design, bits)
    if check_fc_mapping(fc) == "columns" and cfg.spec.option("fc_columns"):
        # An fc round takes a weight row per column: the buffer holds at least one round.
        cfg = cfg.replace(fc_columns=1, depth=max(cfg.depth, cfg.windows))
    if buffers != "flops" or clock_gating:
        cfg = storage_variant(cfg, buffers, clock_gating)
    return cfg


def design_arch(design: str) -> str:
    """The architecture (golden model) of a :data:`PRESETS` design."""
    return design_config(design).arch


def hardware_bits(layers) -> int:
    """The hardware width a list of layers runs on: their values' common fixed-point width
    (``Layer.bits``); ``ValueError`` when the layers disagree."""
    widths = {int(layer.bits) for layer in layers}
    if len(widths) != 1:
        raise ValueError(f"layers of different widths {sorted(widths)}: give bits")
    return widths.pop()


def available_designs(archs) -> tuple[list, dict]:
    """Split ``archs`` into those with a golden model and ``{arch: reason}`` for the rest."""
    ok, missing = [], {}
    for design in archs:
        try:
            model(design_arch(design))
        except ValueError as err:
            missing[design] = str(err)
            continue
        ok.append(design)
    return ok, missing
