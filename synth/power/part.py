"""The power of a whole tile from a representative part of it (``termwise power --part``).

A 16x16 tile's gate-level model is too big to compile in reasonable time (the model's C++
grows with the cell count: ~4 min for baseline-4x4's 71k cells on 2 cores, see
:data:`ROW_ABOVE_CELLS`), so its activity comes from a part of it:

The part
    The same configuration with ``filters=1`` (:func:`part_config`): one PE row, i.e. every
    window column and lane of one filter, plus all the logic the filters share (controller,
    activation front end and serialisers, activation buffer, output mux, IO wrapper). The
    full tile's ``pe_stages`` is given explicitly, since a configuration that does not choose
    it derives it from its PE count (:data:`termwise.gen.config.PE_STAGE_MIN_PES`), and the
    part must keep the whole tile's pipeline.

The slice (``--part slice``)
    One PE row of a quarter of the window columns: ``filters=1`` and ``windows`` divided
    by :data:`SLICE_WINDOW_DIVISOR` (:func:`part_config`), the rest as for the row. For
    the tiles whose row is itself too big to build: the activation buffer holds a brick
    for every window column, so a 64-window row of 16-bit activations (laconic-16x16,
    loom-16x16: 262,144 buffer bits, 91% of the row's 2.2 million netlist statements) kept
    Verilator above 24 GB of memory and 16 GB of swap, thrashing, when stopped after 16
    minutes; the largest rows built hold 65,536 bits (loom-16x16-8b's, 15.5 GB; the 16-bit
    16-window rows of the Stripes family, Bit-Pragmatic and TCLp). The slice's
    runs also synchronise fewer windows (a design whose windows wait for the slowest lane
    idles less in the slice): checked at 4x4 against the whole tile (docs/energy.md).

The whole tile's figures
    Module by module (each module definition of the hierarchy, matched by its name after the
    tile's top name): the part's dynamic power (internal + switching) of that module, all its
    instances, times the whole tile's synthesised area of that module (all instances) over
    the part's (:func:`module_scales`). A module the filters replicate (PE, adder tree,
    accumulator, weight-buffer columns) scales by about ``filters``; a shared one (controller,
    activation buffer) by about 1; the output mux and the IO wrapper by their own area
    ratio. The per-kind factors of the report are the resulting ratios of dynamic power and
    of area per kind. Leakage and cell counts need no activity: they are exact, from the
    whole tile's synthesised cell counts (:func:`static_by_module`).

Assumed: every filter's PE row has the activity of the simulated one (true on average for
random operands; with a workload, each filter computes a different output channel of the
same activations, so per-filter weights differ but the statistics are alike), and a module's
dynamic power per unit area is the same in the whole tile as in the part (the shared logic's
and the IO wrapper's extra area, e.g. a wider output mux, is assumed to toggle like the
part's). Not captured: long broadcast nets across the whole array (the part's nets drive one
row's loads; the buffering yosys adds for 16 rows is scaled by area, not simulated).
"""

from __future__ import annotations

__all__ = ["MODES", "ROW_ABOVE_CELLS", "SLICE_WINDOW_DIVISOR", "ROW_MAX_BUFFER_BITS",
           "TABLE_PART", "table_part",
           "row_buffer_bits", "mac_scale", "PartError", "part_config", "choose_mode",
           "module_areas", "static_by_module", "module_scales", "scale_by_kind",
           "whole_real_macs"]

#: ``--part`` choices: ``auto`` picks ``row`` above :data:`ROW_ABOVE_CELLS` cells, else
#: ``whole``; ``slice`` and ``sampled`` (the whole tile, its replicated modules on sampled
#: instances: :mod:`.sampled`) are only chosen explicitly.
MODES = ("auto", "whole", "row", "slice", "sampled")

#: The slice keeps ``windows // SLICE_WINDOW_DIVISOR`` window columns of one PE row: 16 of
#: laconic-16x16's and loom-16x16's 64, whose activation buffer (65,536 bits at 16 bits)
#: is then that of the 16-window rows that built: dstripes-16x16's at 11.0 GB, its report
#: 40 minutes alone (synth/README.md).
SLICE_WINDOW_DIVISOR = 4

#: The largest activation buffer (bits: rows x windows x lanes x activation bits) of the PE
#: rows that built on the 23 GB, 2-core machine: that of loom-16x16-8b as ``termwise
#: report`` measures it (per-column fc weights: 32 rows deep for its 32 windows of 8-bit
#: bricks, 131,072 bits; 15.5 GB at the peak, its report 1 h 32 min alone). A tile whose
#: row holds more is measured by its slice in ``termwise report``: laconic-16x16's and
#: loom-16x16's (262,144 bits; 24 GB and 16 GB of swap, thrashing).
ROW_MAX_BUFFER_BITS = 131_072

#: ``--part auto`` simulates one PE row when the whole tile's synthesised netlist has more
#: cells than this, the whole tile otherwise. The model's build time grows with the cell
#: count (measured on 2 cores, -O0: baseline-4x4, 71k cells, ~4 min; stripes-4x4, 165k
#: cells, ~7 min); the 4x4 presets have at most ~572k cells (loom-4x4: 518k), the 16x16
#: presets over 1.2 million (baseline-16x16 1.30 M, stripes-16x16 1.65 M, an hour or more
#: of compilation by the same trend, and more memory than a 2-core machine has to spare).
#: The PE count alone does not separate them (baseline-16x16 has 16 PEs, loom-4x4 128):
#: the size of the model is the cell count, mostly the operand buffers.
ROW_ABOVE_CELLS = 800_000


class PartError(RuntimeError):
    """The part does not represent the whole tile (a module of the whole tile has no
    counterpart in the part, or no area in it): the estimate would be silently wrong."""


def row_buffer_bits(cfg) -> int:
    """The activation buffer bits of ``cfg``'s PE row (the row shares the whole tile's)."""
    return cfg.depth * cfg.act_row_bits


def part_config(cfg, mode: str = "row"):
    """The representative part of ``cfg``: one filter (one PE row), the full tile's
    resolved ``pe_stages``, every other field unchanged; for ``mode`` ``slice`` also
    ``windows // SLICE_WINDOW_DIVISOR`` window columns (:class:`PartError` if the windows
    do not divide)."""
    if mode not in ("row", "slice"):
        raise ValueError(f"part mode {mode!r}: row or slice")
    changes = {"filters": 1, "pe_stages": cfg.pe_stages}
    if mode == "slice":
        if cfg.windows % SLICE_WINDOW_DIVISOR:
            raise PartError(f"the slice keeps windows/{SLICE_WINDOW_DIVISOR} window columns: "
                            f"{cfg.windows} windows do not divide")
        changes["windows"] = cfg.windows // SLICE_WINDOW_DIVISOR
    name = f"{cfg.name}-{mode}" if cfg.name else None
    return cfg.replace(name=name, **changes)


def mac_scale(cfg, pcfg) -> int:
    """How many times the part's MAC slots per cycle the whole tile has: ``filters`` for a
    row, ``filters x SLICE_WINDOW_DIVISOR`` for a slice."""
    whole, part = cfg.filters * cfg.windows, pcfg.filters * pcfg.windows
    if whole % part:
        raise PartError(f"the part's {part} PE columns do not divide the tile's {whole}")
    return whole // part


def choose_mode(mode: str, cell_count: int | None) -> str:
    """``whole`` or ``row`` for the ``--part`` choice ``mode`` and the whole tile's
    synthesised ``cell_count``."""
    if mode != "auto":
        return mode
    return "row" if cell_count is not None and cell_count > ROW_ABOVE_CELLS else "whole"


def _suffix(name: str, top: str) -> str | None:
    name = name.lstrip("\\")
    return name[len(top):] if name.startswith(top) else None


def module_areas(asic: dict, top: str) -> dict[str, dict]:
    """Per module definition of a synthesis's ``asic`` section, by its name after ``top``:
    ``{"kind", "instances", "area_um2"}`` with the area of all its instances (own cells,
    not submodules)."""
    from ..kinds import kind_of
    out = {}
    for name, m in asic["modules"].items():
        s = _suffix(name, top)
        if s is None:
            raise PartError(f"module {name} is not under the tile {top}")
        out[s] = {"kind": kind_of(name, top) or "control_glue", "instances": m["instances"],
                  "area_um2": m["instances"] * m["area_um2"]}
    return out


def static_by_module(stat: dict, asic: dict, top: str, lib) -> dict[str, dict]:
    """Exact leakage (W) and cell count per module (all its instances) of a synthesised
    netlist from its yosys ``stat`` cell counts (``stat.json``) and the liberty's
    ``cell_leakage_power``: no activity needed, so the whole tile's are computed, not
    scaled. Keyed by the module's name after ``top``."""
    out = {}
    inst = {k.lstrip("\\"): v["instances"] for k, v in asic["modules"].items()}
    for name, m in stat["modules"].items():
        bare = name.lstrip("\\")
        s = _suffix(bare, top)
        if s is None or bare not in inst:
            continue
        n = inst[bare]
        leak = cells = 0
        for cell, count in m.get("num_cells_by_type", {}).items():
            c = lib.cells.get(cell.lstrip("\\"))
            if c is None:       # a submodule instance, not a liberty cell
                continue
            leak += count * c.leakage
            cells += count
        out[s] = {"leakage_w": n * leak * lib.units.leakage_w, "cells": n * cells}
    return out


def module_scales(whole: dict[str, dict], part: dict[str, dict]) -> dict[str, dict]:
    """Per module of the whole tile (:func:`module_areas`): the factor its part counterpart's
    dynamic power is multiplied by (whole area / part area). A module with no area in the
    whole tile gets 0 (nothing to scale); a module with area in the whole tile and none in
    the part, or missing from the part, raises :class:`PartError`, as does a module of the
    part that the whole tile lacks."""
    extra = sorted(set(part) - set(whole))
    if extra:
        raise PartError(f"modules of the part missing from the whole tile: {extra}")
    out = {}
    missing = []
    for s, w in whole.items():
        p = part.get(s)
        if w["area_um2"] == 0:
            out[s] = dict(w, part_area_um2=p["area_um2"] if p else 0.0, scale=0.0)
        elif p is None or p["area_um2"] == 0:
            missing.append(s or "<top>")
        else:
            out[s] = dict(w, part_area_um2=p["area_um2"], scale=w["area_um2"] / p["area_um2"])
    if missing:
        raise PartError("the part has no area for the whole tile's modules "
                        f"{missing}: their power cannot be scaled from it")
    return out


_POWER = ("internal_w", "switching_w", "leakage_w", "total_w")


def scale_by_kind(part_dynamic: dict[str, dict], scales: dict[str, dict],
                  whole_static: dict[str, dict]) -> tuple[dict, dict]:
    """The whole tile's power by kind from the part's.

    Parameters
    ----------
    part_dynamic : dict
        The part's power per module (name after the part's top): ``internal_w`` and
        ``switching_w`` of all the module's instances (leakage and cells are not used).
    scales : dict
        :func:`module_scales` of the whole tile against the part.
    whole_static : dict
        :func:`static_by_module` of the whole tile: exact leakage and cell counts.

    Returns
    -------
    by_kind : dict
        ``{kind: {internal_w, switching_w, leakage_w, total_w, cells}}`` of the whole tile,
        kinds with cells only, in the order of ``scales``.
    factors : dict
        Per kind: ``dynamic_scale`` (whole / part dynamic power), ``area_ratio`` (whole /
        part area), the part's and the whole tile's area and dynamic power.
    """
    by_kind: dict[str, dict] = {}
    factors: dict[str, dict] = {}
    for s, m in scales.items():
        k = m["kind"]
        p = part_dynamic.get(s, {"internal_w": 0.0, "switching_w": 0.0})
        st = whole_static.get(s, {"leakage_w": 0.0, "cells": 0})
        d = by_kind.setdefault(k, {f: 0.0 for f in _POWER} | {"cells": 0})
        d["internal_w"] += p["internal_w"] * m["scale"]
        d["switching_w"] += p["switching_w"] * m["scale"]
        d["leakage_w"] += st["leakage_w"]
        d["cells"] += st["cells"]
        f = factors.setdefault(k, {"part_area_um2": 0.0, "whole_area_um2": 0.0,
                                   "part_dynamic_w": 0.0, "whole_dynamic_w": 0.0})
        f["part_area_um2"] += m["part_area_um2"]
        f["whole_area_um2"] += m["area_um2"]
        f["part_dynamic_w"] += p["internal_w"] + p["switching_w"]
        f["whole_dynamic_w"] += (p["internal_w"] + p["switching_w"]) * m["scale"]
    for k, d in by_kind.items():
        d["total_w"] = d["internal_w"] + d["switching_w"] + d["leakage_w"]
    for k, f in factors.items():
        f["area_ratio"] = (f["whole_area_um2"] / f["part_area_um2"]
                           if f["part_area_um2"] else None)
        f["dynamic_scale"] = (f["whole_dynamic_w"] / f["part_dynamic_w"]
                              if f["part_dynamic_w"] else None)
    return ({k: v for k, v in by_kind.items() if v["cells"]},
            {k: v for k, v in factors.items() if v["whole_area_um2"]})


def whole_real_macs(part_real: int, scale: int, part_slots: int, whole_slots: int) -> float:
    """Real MACs the whole tile does in the cycles the part simulated, for one layer.

    In those cycles the whole tile runs with ``scale`` (:func:`mac_scale`) times the part's
    MAC slots: ``filters`` filters instead of one (and, for a slice, all the window columns
    instead of some). Of a layer's slots, the share that is the layer's own MACs differs
    only by padding (filter padding; for a slice, window padding too): the layer's own MACs
    are the same in both lowerings, so the whole tile's share is the part's times
    ``part_slots / whole_slots``, the MAC slots (bricks x lanes x filters x windows, summed
    over every run) of the layer's whole lowering onto the part and onto the whole tile.
    Hence ``part_real * scale * part_slots / whole_slots``.
    """
    return part_real * scale * part_slots / whole_slots


#: How ``termwise report`` measures a 16x16 design's power (``--part``) when its buffers
#: are flip-flops: one PE row and the shared logic (:mod:`termwise.gen.commands.report`),
#: or its slice (:func:`table_part`).
TABLE_PART = "row"


def table_part(cfg) -> str:
    """``sampled`` for a tile whose buffers are SRAM macros (the whole tile, its PEs
    sampled: :mod:`.sampled`; its shared logic is small at gate level); for flip-flop
    buffers (which the shared logic then holds at gate level), ``slice`` for a tile whose
    PE row holds more activation-buffer bits than :data:`ROW_MAX_BUFFER_BITS` (its row's
    gate-level model does not build on this machine), else :data:`TABLE_PART`."""
    if cfg.buffers == "macros":
        return "sampled"
    return "slice" if row_buffer_bits(cfg) > ROW_MAX_BUFFER_BITS else TABLE_PART
