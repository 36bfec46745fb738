"""A row's drill-down: what ``termwise report`` keeps of a design's synthesis and power
reports beside its row (report.json's ``detail``), so that the table's page
(:mod:`.html`) shows where the area, the time and the power go without the per-design
report files.

Every figure is copied or unit-converted from the reports, none computed anew: area by kind
(the synthesis's ``area_by_module`` kinds), the critical path (its delay by kind, ends and
the bound on Fmax), power by kind (the power report's ``by_kind_w``, the stimulus's
average, and the clock network estimated apart), the SRAM macros and their accesses, and
what the power computation models and does not.
"""

from __future__ import annotations

import math

__all__ = ["IO_WRAPPER", "row_detail", "figure"]

#: The power report's kind of the IO register wrapper, which tile power excludes.
IO_WRAPPER = "io_wrapper"


def figure(value, fmt: str = "{:.3g}", none: str = "-") -> str:
    """``value`` formatted for a report's table, ``none`` when missing or not finite."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return none
    return fmt.format(value)


def row_detail(synth: dict, power: dict | None, area_by_kind: dict) -> dict:
    """The drill-down of one design's row.

    Parameters
    ----------
    synth : dict
        Its ``termwise synth`` report.
    power : dict or None
        Its ``termwise power`` report (None: the row has no power).
    area_by_kind : dict
        Area (um2) per kind (:func:`termwise.synth.report.area_by_kind`).

    Returns
    -------
    dict
        ``area_by_kind_mm2``, ``critical_path``, ``macros``, ``cells``, ``flops`` and, with
        a power report, ``power_by_kind_mw`` (the tile's kinds), ``io_wrapper_mw``, ``clock_network_mw``, ``macro_accesses``,
        ``modelled`` and ``not_modelled``.
    """
    asic = synth["asic"]
    cp = asic.get("critical_path") or {}
    macros = asic.get("macros") or {}
    out = {
        "area_by_kind_mm2": {k: v / 1e6 for k, v in area_by_kind.items()},
        "cells": asic.get("cell_count"),
        "flops": asic.get("flops"),
        "critical_path": {
            "delay_ns": cp.get("delay_ns"),
            "logic_depth": cp.get("logic_depth"),
            "startpoint": cp.get("startpoint"),
            "endpoint": cp.get("endpoint"),
            "delay_by_kind_ns": cp.get("delay_by_kind_ns") or {},
            "slowest_kind": cp.get("slowest_kind"),
            "fmax_logic_mhz": macros.get("fmax_logic_mhz"),
            "fmax_macro_mhz": macros.get("fmax_macro_mhz"),
            "bound_by": macros.get("bound_by", "logic"),
        },
        "macros": {name: dict(m) for name, m in (macros.get("modules") or {}).items()},
    }
    if power is None:
        return out
    kinds = power.get("by_kind_w") or {}
    # the IO wrapper (the synthesis's timing registers) is simulated but not the tile's
    out["power_by_kind_mw"] = {k: (v or {}).get("total_w", 0.0) * 1e3
                               for k, v in kinds.items() if k != IO_WRAPPER}
    io = kinds.get(IO_WRAPPER)
    out["io_wrapper_mw"] = None if io is None else io.get("total_w", 0.0) * 1e3
    clock = (power.get("power_w") or {}).get("clock_network")
    out["clock_network_mw"] = None if clock is None else clock * 1e3
    accesses = (power.get("macro_accesses") or {}).get("buffers") or {}
    out["macro_accesses"] = {
        name: {"macros": a.get("macros"), "reads": sum(a.get("reads") or []),
               "writes": sum(a.get("writes") or [])}
        for name, a in accesses.items()}
    out["modelled"] = list(power.get("modelled") or [])
    out["not_modelled"] = list(power.get("not_modelled") or [])
    return out
