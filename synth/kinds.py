"""One table: Amaranth/Verilog module name -> kind of hardware, for area breakdowns.

Names are matched after the tile's top name (``<top>`` below). Order matters: the first
pattern that matches wins. A module no pattern matches is counted as ``control_glue`` and
listed in the report's ``unmapped_modules`` so the table can be extended.
"""

from __future__ import annotations

import re

__all__ = ["KINDS", "FRONT_END_KINDS", "KIND_TABLE", "kind_of"]

#: Kinds in report order. ``io_wrapper`` is the flow's own register wrapper, not the tile.
KINDS = ("pe_lanes", "adder_tree", "accumulators", "encoders", "front_end", "reconstruction",
         "buffers", "output_stage", "control_glue", "io_wrapper")

#: Kinds that exist only because of a value-based front end placed before an otherwise
#: unchanged back end (Bit-Tactical's multiplexers before Dynamic Stripes / Pragmatic,
#: Diffy's deltas and reconstruction around Pragmatic): ``compare`` reports their sum as
#: the front-end area, next to the design without that front end.
FRONT_END_KINDS = ("front_end", "reconstruction")

KIND_TABLE: list[tuple[str, str, str]] = [
    # (regex on the part of the name after <top>, kind, what it is)
    (r"^__wrap$", "io_wrapper", "synthesis wrapper registering every tile IO (not tile area)"),
    (r"^__pe\.tree$", "adder_tree", "PE adder tree summing the lanes"),
    (r"^__pe\.accumulator$", "accumulators", "PE output accumulator"),
    (r"^__pe\.serial$", "accumulators", "Stripes PE shift accumulator (brick, MSB first)"),
    (r"^__pe\.serial_wgt$", "accumulators", "Loom PE weight-bit shift accumulator"),
    (r"^__(bf16_mul|fp32_add)$", "pe_lanes", "bf16 multipliers and fp32 adders of the bf16 PE"),
    (r"^__pe$", "pe_lanes", "PE lanes: multipliers (bit-parallel) or AND gates (bit-serial)"),
    (r"^\.(act|wgt)_buffer$", "buffers", "operand buffers (memories mapped to flops)"),
    (r"^\.array\.(act_store_w\d+|wgt_store)$", "buffers",
     "Cnvlutin zero-free activation stores and per-lane weight banks; Bit-Tactical packed "
     "weight store"),
    (r"^\.array\.(act_store|meta_store)$", "buffers",
     "Bit-Tactical dense activation store (h + 1 read ports) and select metadata store"),
    (r"^\.array\.front_end\.predecessor_store$", "buffers",
     "Diffy predecessor store: the previous run's last-window bricks"),
    (r"^\.array\.(front_end|lane_mux)$", "front_end",
     "Bit-Tactical activation multiplexers (per filter, window and lane), select decoding and "
     "candidate masking; Diffy delta front end (delta subtractors, predecessor selection)"),
    (r"^\.array\.reconstruction$", "reconstruction",
     "Diffy reconstruction unit: out_w = p_w + out_(w-1) prefix chain and previous-row "
     "registers"),
    (r"^\.array\.datapath$", "encoders",
     "Diffy's Bit-Pragmatic datapath, array level (as Pragmatic's array level)"),
    (r"^\.array\..*(encoder|serializer|detector)", "encoders",
     "term encoders, serialisers and precision/term detectors (shared per window or filter)"),
    (r"^\.array\.(wgt_)?sequencer$", "control_glue", "bit-position sequencers"),
    (r"^\.output_stage", "output_stage",
     "fused output stage: bias, residual, requantisation, activation"),
    (r"^\.array$", "encoders", "array level: per-window activation serialisers (Stripes; "
                               "empty for the baseline)"),
    (r"^$", "control_glue", "tile controller: command, FSM, output mux"),
]


def kind_of(module: str, top: str) -> str | None:
    """Kind of ``module`` (leading backslash ignored) in the tile ``top``; None if unmapped."""
    name = module.lstrip("\\")
    if not name.startswith(top):
        return None
    rest = name[len(top):]
    for pattern, kind, _ in KIND_TABLE:
        if re.search(pattern, rest):
            return kind
    return None
