"""The fields of a tile configuration and how one is checked: the core fields every
configuration has, the ranges of the integer ones, the ``pe_stages`` defaults, the fields a
``dtype`` implies and the fields that became runtime registers.

:class:`termwise.gen.config.TileConfig` validates with these, and the mapping and TOML
readers there reject unknown fields with them. This module imports only the spec layer
(:mod:`termwise.gen.spec`, :mod:`termwise.gen.designs`); :mod:`termwise.gen.config`
re-exports its names.
"""

from __future__ import annotations

import math
from typing import Any

from . import designs
from .spec import ConfigError

__all__ = ["CORE_FIELDS", "BUFFERS", "MACRO_MIN_WORDS", "MACRO_MAX_WIDTH", "MAX_PORT_BITS", "PE_STAGE_MIN_PES", "PE_STAGE_GROUP", "RANGES", "MOVED_TO_RUNTIME",
           "check_int", "clog2", "with_dtype_fields", "fields_of"]

#: The fields every configuration has; design options (see :mod:`termwise.gen.designs`) come
#: on top, each accepted only by the designs that declare it.
CORE_FIELDS = ("arch", "filters", "windows", "lanes", "act_bits", "wgt_bits", "acc_bits", "depth", "dtype", "bias", "residual", "activation", "out_bits", "pe_stages", "buffers", "clock_gating")

#: What the tile's operand buffers are built from (``buffers``): flip-flops (Amaranth
#: memories, mapped to flops by synthesis), or single-port SRAM macros side by side
#: (:class:`termwise.rtl.buffer.SramMacro`, priced by :mod:`termwise.golden.sram`).
BUFFERS = ("flops", "macros")
#: The fewest words of a macro: OpenRAM's smallest bank (docs/sram.md); a shallower buffer
#: stays in flops.
MACRO_MIN_WORDS = 16
#: The widest macro a buffer row is split into (bits): the widest shape characterised
#: (termwise.golden.sram.DEFAULT_MAX_WIDTH, tested equal), so no macro is extrapolated; a
#: 4096-bit row is 64 macros of 64 bits side by side, one word each per access.
MACRO_MAX_WIDTH = 64
#: The first port width Amaranth 0.5 cannot build (its netlist numbers a cell's output bits
#: below 2**16 and, joining them into a port, looks one past the last): the tile's rows and
#: accumulators must stay below it (TileConfig refuses wider ones before any work).
MAX_PORT_BITS = 1 << 16

#: ``pe_stages`` when a configuration does not choose it: one stage of registered PE inputs
#: (:mod:`termwise.rtl.pe_stage`) in arrays of at least this many PEs (the papers' 16x16
#: tiles and larger), none below.
PE_STAGE_MIN_PES = 256

#: Most PEs one registered copy of a PE input feeds (:mod:`termwise.rtl.pe_stage`).
PE_STAGE_GROUP = 16

#: Valid ranges of the integer fields (inclusive).
RANGES = {
    "filters": (1, 64),
    "windows": (1, 64),
    "lanes": (1, 64),
    "act_bits": (1, 32),
    "wgt_bits": (1, 32),
    "acc_bits": (2, 96),
    "depth": (1, 4096),
    "pe_stages": (0, 4),
}

#: Fields that were configuration fields and are now runtime registers: why, in one line.
MOVED_TO_RUNTIME = {
    "act_signed": "is a runtime register now (each run's command says whether its "
                  "activations are signed, so one tile runs both): remove the field",
}


def check_int(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` checked to be an integer (not a bool) in ``lo..hi`` (inclusive; the
    :data:`RANGES` entry of ``name`` when not given); :class:`ConfigError` naming ``name``
    otherwise."""
    lo, hi = (lo, hi) if lo is not None else RANGES[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(name, f"must be an integer in {lo}..{hi}, got {value!r}")
    if not lo <= value <= hi:
        raise ConfigError(name, f"must be in {lo}..{hi}, got {value}")
    return value


def clog2(n: int) -> int:
    """Bits needed to count ``n`` distinct things (ceil(log2(n)), 0 for n <= 1)."""
    return max(0, math.ceil(math.log2(n))) if n > 1 else 0


def with_dtype_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` plus the values its ``dtype`` implies (a bf16 tile has 16-bit operands and
    fp32 accumulators, so naming the type is enough), where ``fields`` does not give them
    (a value that is given is kept, and validated by
    :class:`~termwise.gen.config.TileConfig`)."""
    implied = next((s.implies for s in designs.SPECS.values()
                    if s.dtype == fields.get("dtype")), {})
    return {**{k: v for k, v in implied.items() if fields.get(k) is None}, **fields}


def fields_of(arch) -> set:
    """The fields a configuration of ``arch`` may have (every option when ``arch`` is not
    known, so the error names the arch, not the option)."""
    specs = [s for s in designs.SPECS.values() if s.arch == arch] or designs.SPECS.values()
    return set(CORE_FIELDS) | {o.name for s in specs for o in s.options}
