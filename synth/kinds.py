"""One table: Amaranth/Verilog module name -> kind of hardware, for area breakdowns.

Names are matched after the tile's top name (``<top>`` below). Order matters: the first
pattern that matches wins. A module no pattern matches is counted as ``control_glue`` and
listed in the report's ``unmapped_modules`` so the table can be extended.
"""

from __future__ import annotations

import re

from ..gen import designs

__all__ = ["KINDS", "FRONT_END_KINDS", "STORAGE_KINDS", "COMMON_KINDS", "KIND_TABLE", "kind_of"]

#: Kinds in report order. ``io_wrapper`` is the flow's own register wrapper, not the tile.
KINDS = ("pe_lanes", "adder_tree", "accumulators", "encoders", "front_end", "reconstruction",
         "buffers", "fc_weight_registers", "output_stage", "control_glue", "io_wrapper")

#: Kinds that exist only because of a value-based front end placed before an otherwise
#: unchanged back end (Bit-Tactical's multiplexers before Dynamic Stripes / Pragmatic,
#: Diffy's deltas and reconstruction around Pragmatic): ``compare`` reports their sum as
#: the front-end area, next to the design without that front end.
FRONT_END_KINDS = ("front_end", "reconstruction")

#: Kinds that store operands: the operand buffers (SRAM macros or flops, a design's own
#: stores) and the per-column fc weight registers (``termwise report``'s storage share).
STORAGE_KINDS = ("buffers", "fc_weight_registers")

#: Patterns every design shares, after each design's own (its spec's ``area_kinds``).
COMMON_KINDS: list[tuple[str, str, str]] = [
    # (regex on the part of the name after <top>, kind, what it is)
    (r"^__wrap$", "io_wrapper", "synthesis wrapper registering every tile IO (not tile area)"),
    (r"^__pe\.tree$", "adder_tree", "PE adder tree summing the lanes"),
    (r"^__pe\.accumulator$", "accumulators", "PE output accumulator"),
    (r"^__pe\.serial$", "accumulators", "bit-serial PE shift accumulator (brick, MSB first)"),
    (r"^__pe$", "pe_lanes", "PE lanes: multipliers (bit-parallel) or AND gates (bit-serial)"),
    (r"^\.(act|wgt)_buffer$", "buffers", "operand buffers (memories mapped to flops)"),
    (r"^\.array\.(act_store_w\d+|wgt_store)$", "buffers",
     "operand stores an array keeps in a layout of its own (Cnvlutin zero-free activation "
     "stores and per-lane weight banks; Bit-Tactical packed weight store)"),
    (r"^__fc_column(_last)?$", "fc_weight_registers",
     "one window column's fc weight registers (`fc_columns`: a module instantiated per "
     "column, in the array of a staggered design, in the tile beside a double-buffered "
     "loader with its shadow row; gated with `clock_gating`)"),
    (r"^__wgt_bits$", "encoders",
     "Loom's per-PE weight-bit serialisers (`fc_columns`: a module instantiated per PE)"),
    (r"^\.column_weights$", "fc_weight_registers",
     "the fc weight loader (`fc_columns`): the control of the per-column registers, and "
     "before RTL version 7 the registers themselves (storage the tile keeps in flip-flops, "
     "not the operand buffers the energy model prices as macros; gated with "
     "`clock_gating`)"),
    (r"^\.array\.(act_store|meta_store)$", "buffers",
     "Bit-Tactical dense activation store (h + 1 read ports) and select metadata store"),
    (r"^\.array\.(front_end|lane_mux)$", "front_end",
     "value-based front ends: Bit-Tactical activation multiplexers (per filter, window and "
     "lane), select decoding and candidate masking; Diffy delta front end (delta "
     "subtractors, predecessor selection)"),
    (r"^__window_encoder", "encoders",
     "Bit-Pragmatic window encoders (one module, an instance per window): term serialisers "
     "and the base detector"),
    (r"^__term_mux$", "front_end",
     "Bit-Tactical TCLe term multiplexers (one module, an instance per window)"),
    (r"^\.array\..*(encoder|serializer|detector)", "encoders",
     "term encoders, serialisers and precision/term detectors (shared per window or filter)"),
    (r"^\.array\.(wgt_)?sequencer$", "control_glue", "bit-position sequencers"),
    (r"^\.array\.column_delays$", "control_glue",
     "staggered fc columns (`fc_columns`): each column's serialised bits and control, a "
     "register per column of delay"),
    (r"^\.array(\.datapath)?\.pe_stage$", "control_glue",
     "registered PE inputs (`pe_stages`): control and operands, one copy per PE group"),
    (r"^\.output_stage", "output_stage",
     "fused output stage: bias, residual, requantisation, activation"),
    (r"^\.array$", "encoders", "array level: per-window activation serialisers (Stripes; "
                               "empty for the baseline)"),
    (r"^$", "control_glue", "tile controller: command, FSM, output mux"),
]

#: The whole table, first match wins: every design's own patterns, then the shared ones.
KIND_TABLE: list[tuple[str, str, str]] = \
    [k for s in designs.SPECS.values() for k in s.area_kinds] + COMMON_KINDS


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
