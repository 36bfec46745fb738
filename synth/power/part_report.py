"""The whole tile's power report from a part's measurement (``termwise power --part row`` or
``slice``; the part and the scaling rules: :mod:`.part`).

The part's report (:func:`.measure.measure` of :func:`.part.part_config`) becomes the whole
tile's: dynamic power module by module scaled by synthesised area, leakage and cell counts
the whole tile's own, the clock net from the whole tile's flops, the MACs scaled to every
filter (and window column, for a slice), and a ``method`` record saying how and under
which assumptions. The part's own figures are kept under ``part``.
"""

from __future__ import annotations

import json
import os
import time

__all__ = ["clock_pin_cap", "layer_slots", "report_from_part"]


def clock_pin_cap(stat: dict, asic: dict, top: str, lib) -> float:
    """Capacitance (library unit) of every flop's clock pin of the whole netlist.

    Parameters
    ----------
    stat : dict
        The synthesis's ``stat.json`` (cells by type, per module definition).
    asic : dict
        The synthesis report's ``asic`` (instances per module).
    top : str
        The tile's top name.
    lib : Library
        The liberty.

    Returns
    -------
    float
        The sum over every cell instance with a ``CLK`` pin.
    """
    inst = {k.lstrip("\\"): v["instances"] for k, v in asic["modules"].items()}
    cap = 0.0
    for name, m in stat["modules"].items():
        n = inst.get(name.lstrip("\\"), 0)
        for cell, count in m.get("num_cells_by_type", {}).items():
            c = lib.cells.get(cell.lstrip("\\"))
            if c is not None and "CLK" in c.pins:
                cap += n * count * c.pins["CLK"].capacitance
    return cap


def lowered_slots(cfg, layer) -> int:
    """MAC slots (every run's ``k`` x filters x windows) of ``layer`` lowered onto ``cfg``
    (:func:`termwise.golden.lowering.lower_layer`), from the lowered shape: ``G`` groups of
    ``ceil(M / windows) x ceil(kg / filters)`` runs of ``K`` padded to whole bricks (a run
    split into depth-sized chunks keeps its ``K`` in all). Listing the runs took 108 s for
    baseline-16x16's row (one filter, one window: every output position of every filter a
    run of its own); tests/synth/test_power_part.py checks the arithmetic against the runs
    of the lowering."""
    import math
    from ...golden.lowering import conv_lowered_shape
    if layer.kind == "fc":                      # lower_matmul: the batch rows as windows
        g, m, kg, k = 1, layer.act.shape[0], layer.wgt.shape[0], layer.wgt.shape[1]
    else:
        kout, cg, r, s = layer.wgt.shape
        g, kg, k = conv_lowered_shape(kout, cg, r, s, layer.groups, cfg.lanes)
        m = layer.act.shape[0] * layer.out_hw[0] * layer.out_hw[1]
    runs = g * math.ceil(m / cfg.windows) * math.ceil(kg / cfg.filters)
    return runs * math.ceil(k / cfg.lanes) * cfg.lanes * cfg.filters * cfg.windows


def layer_slots(cfg, workload: str, names: list[str]) -> dict[str, int]:
    """:func:`lowered_slots` of each layer of ``workload`` in ``names``."""
    from .workload import load_layers
    _, chosen = load_layers(cfg, workload, names)
    return {layer.name: lowered_slots(cfg, layer) for layer in chosen}


def _scaled_power(cfg, pcfg, syn: dict, prep: dict, facts: dict) -> dict:
    """The whole tile's power from the part's: by kind, totals, the clock net, the module
    scales and per-kind factors."""
    from .part import module_areas, module_scales, scale_by_kind, static_by_module
    lib, psyn = facts["lib"], facts["syn"]
    top, ptop = cfg.top_name, pcfg.top_name
    asic = syn["asic"]
    with open(os.path.join(syn["cache"]["asic"]["dir"], "stat.json"), encoding="utf-8") as f:
        stat = json.load(f)
    scales = module_scales(module_areas(asic, top), module_areas(psyn["asic"], ptop))
    static = static_by_module(stat, asic, top, lib)
    dyn = {}
    for module, m in facts["by_module"].items():
        name = module.lstrip("\\")
        if not name.startswith(ptop):
            raise RuntimeError(f"power of a module outside the part's tile: {name}")
        dyn[name[len(ptop):]] = m
    by_kind, factors = scale_by_kind(dyn, scales, static)
    internal = sum(v["internal_w"] for v in by_kind.values())
    switching = sum(v["switching_w"] for v in by_kind.values())
    leakage = sum(v["leakage_w"] for v in by_kind.values())
    total = internal + switching + leakage
    f_hz = prep["clock"]["mhz"] * 1e6
    u = lib.units
    v2 = (lib.voltage * u.voltage_v) ** 2
    clk_cap = clock_pin_cap(stat, asic, top, lib)
    return {"by_kind": by_kind, "factors": factors, "scales": scales,
            "internal": internal, "switching": switching, "leakage": leakage,
            "total": total,
            "tile_w": total - by_kind.get("io_wrapper", {}).get("total_w", 0.0),
            "f_hz": f_hz,
            "clock_net_w": 0.5 * clk_cap * u.capacitance_f * v2 * 2 * f_hz,
            "wrap_scale": scales.get("__wrap", {}).get("scale", 1.0)}


def _whole_macs(cfg, pcfg, act: dict, plan, workload: str | None) -> dict:
    """The whole tile's MACs in the part's cycles: ``scale`` (:func:`.part.mac_scale`),
    ``macs`` issued, ``real`` and, for a workload, ``per_layer``."""
    from .part import mac_scale, whole_real_macs
    F = mac_scale(cfg, pcfg)            # cfg.filters for a row
    macs = act["macs_issued"] * F
    if plan is None:
        return {"scale": F, "macs": macs, "real": macs, "per_layer": []}
    names = [d["name"] for d in act["layers"]]
    slots_w = layer_slots(cfg, workload, names)
    slots_p = layer_slots(pcfg, workload, names)
    per_layer = []
    real = 0.0
    for d in act["layers"]:
        r = whole_real_macs(d["real_macs"], F, slots_p[d["name"]], slots_w[d["name"]])
        real += r
        per_layer.append({"name": d["name"], "part_real_macs": d["real_macs"],
                          "part_mac_slots": slots_p[d["name"]],
                          "whole_mac_slots": slots_w[d["name"]],
                          "whole_real_macs": r})
    return {"scale": F, "macs": macs, "real": real, "per_layer": per_layer}


def _method(cfg, pcfg, requested: str, syn: dict, psyn: dict, act: dict, plan,
            power: dict, macs: dict) -> dict:
    """The report's ``method`` record of a part scaled to the whole tile."""
    from .part import ROW_ABOVE_CELLS, SLICE_WINDOW_DIVISOR
    F = macs["scale"]
    sliced = pcfg.windows != cfg.windows
    shape = (f"filters=1 and windows={pcfg.windows} of {cfg.windows} (a slice: one PE row "
             f"of 1/{SLICE_WINDOW_DIVISOR} of the window columns, every lane, with the "
             f"activation front end and buffers of those windows and the shared controller; "
             if sliced else
             "filters=1 (one PE row: every window column and lane of one filter, plus the "
             "shared controller, activation front end and buffers; ")
    sentence = (
        f"The whole tile's figures are estimated from a representative part: the same "
        f"configuration with {shape}"
        f"pe_stages={pcfg.pe_stages} as in the whole tile), synthesised and simulated on "
        f"the same activity; each module's dynamic power (internal + switching) is the "
        f"part's times the whole tile's synthesised area of that module over the part's; "
        f"leakage and cell counts are the whole tile's own, from its synthesised cell "
        f"counts; the clock is the whole tile's; the MACs are {F} times the part's "
        + ("" if plan is None else
           "(real MACs corrected for the whole tile's " +
           ("filter and window" if sliced else "filter") + " padding, layer by layer) ")
        + "in the same cycles.")
    return {
        "mode": "slice" if sliced else "row", "requested": requested,
        "why": (f"--part {requested}" if requested in ("row", "slice") else
                f"--part auto: {syn['asic']['cell_count']} synthesised cells, over "
                f"{ROW_ABOVE_CELLS} (the whole tile's gate-level model would take too long "
                "to build)"),
        "how": sentence,
        "part_config": pcfg.to_dict(), "part_top": pcfg.top_name,
        "synthesis_key": syn["cache"]["asic"]["key"],
        "part_synthesis_key": psyn["cache"]["asic"]["key"],
        "kind_factors": power["factors"],
        "module_scales": {(s or "<top>"): {"kind": m["kind"], "scale": m["scale"],
                                           "whole_area_um2": m["area_um2"],
                                           "part_area_um2": m["part_area_um2"]}
                          for s, m in power["scales"].items()},
        "leakage": "exact: the whole tile's synthesised cell counts x cell_leakage_power",
        "assumed": (["every window column toggles like the simulated ones (the slice's runs "
                     "synchronise fewer windows than the whole tile's)"] if sliced else [])
                   + ["every filter's PE row toggles like the simulated one",
                    "a module's dynamic power per unit area is the same in the whole tile as "
                    "in the part (the shared logic's extra area in the whole tile, e.g. the "
                    "wider output mux and IO wrapper, toggles like the part's)",
                    "broadcast nets across the whole array: the part's drive one row; the "
                    "whole tile's buffering is scaled by area, not simulated"],
        "macs": {"filters": cfg.filters,
                 **({"scale": F, "windows": [pcfg.windows, cfg.windows]} if sliced else {}),
                 "part_macs_issued": act["macs_issued"],
                 "macs_issued": macs["macs"], "part_real_macs": act["real_macs"],
                 "real_macs": macs["real"], "layers": macs["per_layer"],
                 "how": f"issued: {F} x the part's; real: " +
                        ("as issued (random operands)" if plan is None else
                         "per layer part real MACs x " + (f"{F} (filters x window columns "
                         "over the part's)" if sliced else "filters") + " x (the layer's MAC "
                         "slots on "
                         "the part / on the whole tile), the layer's own MACs being the "
                         "same in both lowerings")},
        "check": ("laconic-4x4, whole tile against a slice: docs/energy.md" if sliced else
                  "baseline-4x4 and stripes-4x4, whole tile against one PE row: README, "
                  "Gate-level power"),
    }


def report_from_part(cfg, pcfg, requested: str, syn: dict, prep: dict, facts: dict,
                     workload: str | None, clock_ns: float) -> dict:
    """The whole tile's report from its part's.

    Parameters
    ----------
    cfg, pcfg : TileConfig
        The whole tile and its part (:func:`.part.part_config`).
    requested : str
        The ``--part`` asked for (``auto``, ``row`` or ``slice``).
    syn : dict
        The whole tile's synthesis report.
    prep, facts : dict
        The part's report and facts (:func:`.measure.measure`).
    workload : str or None
        The workload whose activity was simulated (for its layers' MAC slots).
    clock_ns : float
        The synthesis clock target.

    Returns
    -------
    dict
        The whole tile's report; the part's figures under ``part``.
    """
    from .records import NOT_MODELLED, energy_record
    t0 = time.monotonic()
    asic = syn["asic"]
    power = _scaled_power(cfg, pcfg, syn, prep, facts)
    act = prep["activity"]
    macs = _whole_macs(cfg, pcfg, act, facts["plan"], workload)
    method = _method(cfg, pcfg, requested, syn, facts["syn"], act, facts["plan"], power,
                     macs)
    sliced = pcfg.windows != cfg.windows
    total, tile_w = power["total"], power["tile_w"]
    rep = dict(prep)
    rep.update({
        "top": cfg.top_name, "preset": cfg.name, "config": cfg.to_dict(),
        "synthesis": {"cache_key": syn["cache"]["asic"]["key"],
                      "cached": syn["cache"]["asic"]["hit"],
                      "area_um2": asic["area_um2"], "fmax_mhz": asic["fmax_mhz"],
                      "clock_ns": clock_ns, "cell_count": asic["cell_count"],
                      "liberty": prep["synthesis"]["liberty"]},
        "power_w": {"total": total, "dynamic": power["internal"] + power["switching"],
                    "internal": power["internal"], "switching": power["switching"],
                    "leakage": power["leakage"], "tile": tile_w,
                    "clock_net_switching_apart": power["clock_net_w"],
                    "input_port_nets_apart": facts["port_switching_w"] * power["wrap_scale"]},
        "by_kind_w": power["by_kind"],
        "energy": energy_record(total, tile_w, power["f_hz"], syn["throughput"],
                                facts["sim_s"], macs["macs"], macs["real"], facts["plan"]),
        "opensta": dict(prep["opensta"], of="the part's netlist (the whole tile's "
                        "vectorless figure is not computed)"),
        "part": {"top": pcfg.top_name, "config": pcfg.to_dict(),
                 "synthesis": prep["synthesis"], "power_w": prep["power_w"],
                 "by_kind_w": prep["by_kind_w"], "energy": prep["energy"]},
        "method": method,
        "not_modelled": NOT_MODELLED + [
            "the whole tile is not simulated: its dynamic power is one PE row's"
            + (" (a slice of its window columns)" if sliced else "") + ", scaled "
            "module by module by synthesised area (method)"],
    })
    act = dict(act)
    act["whole_tile"] = {"macs_issued": macs["macs"], "real_macs": macs["real"],
                         "note": "the activity record is the part's (one filter); the whole "
                                 "tile's MACs in the same cycles are method.macs"}
    rep["activity"] = act
    rep["activity_source"] = dict(prep["activity_source"],
                                  macs_issued=macs["macs"],
                                  simulated=f"the part {pcfg.top_name} (one PE row"
                                            + (f", {pcfg.windows} of {cfg.windows} windows)"
                                               if sliced else ")"))
    if facts.get("phase_runs"):
        from .phases import phase_record
        rep["phases"] = dict(phase_record(
            [(st, _scaled_power(cfg, pcfg, syn, prep, dict(facts, by_module=bm))["by_kind"])
             for st, bm in facts["phase_runs"]], power["f_hz"]),
            scaled="each run's power scaled to the whole tile as the report's (method)")
    rep["wall_s"] = dict(prep["wall_s"], scaling=round(time.monotonic() - t0, 1))
    return rep
