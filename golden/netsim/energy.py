"""Energy per inference: memory accesses counted from the lowering, plus the tile's power.

Every layer runs on a design's tile as :mod:`.simulate` lowers it: per group an ``(M, Kg)``
activation matrix against ``kg`` filters of ``Kg`` (:func:`termwise.golden.lowering.
conv_lowered_shape`; a fully-connected layer is one group, ``M`` = batch, ``kg = N``), the
inner dimension zero padded to whole bricks, ``Kp = ceil(Kg / lanes) * lanes``; runs take
``filters`` filters and ``windows`` rows at a time. A run reads its activation bricks and its
weight bricks from the on-chip buffer, so per group::

    activation read bits = M  * Kp * act_bits * ceil(kg / filters)   # once per filter group
    weight read bits     = kg * Kp * wgt_bits * ceil(M / windows)    # once per window group
    output bits          = traffic.layer_output_traffic's fused (the tile has a fused output
                           stage) or unfused bits (partial sums written and read back by the
                           host, finished outputs written)

A channel-diagonally packed depthwise layer is counted on its packed lowering (``lanes``
channels and ``lanes x m`` filters per tile group, its block-diagonal zeros and its last
group's padding channels and filters included: the tile reads them). A batch-1
fully-connected layer on a tile with per-column weight registers (``fc_columns``,
:func:`termwise.golden.netsim.layer_fc_columns`) runs as ``fc`` runs
(:func:`termwise.golden.lowering.iter_fc_columns`): ``K`` padded to whole rounds,
``Kr = ceil(K / (lanes x windows)) x lanes x windows``, each weight read once
(``N x Kr x wgt_bits``), the input once per filter group (``Kr x act_bits x ceil(N /
filters)``), and every run writes all ``windows`` columns' partial sums of its real filters
(``c = ceil(rounds / fc_rounds)`` K chunks), which the host reads back and sums: ``2 x c x
windows x N x acc_bits + N x out_bits`` (never fused: the columns are reduced by the host).

Storage (:mod:`.storage`): every level is a bank of SRAM macros at its real shape
(:mod:`termwise.golden.sram`: OpenRAM macros characterised by SPICE and scaled to OSU
0.18 um), and each brick is charged once per level it crosses:

* the **tile buffers** (``depth`` rows of ``act_row_bits`` / ``wgt_row_bits``): a run
  writes its rows once and reads each once, ``tile_act_rows`` / ``tile_wgt_rows`` below;
* the **chip memories** above them (weights; activations: inputs and outputs): the tile's
  operand loads (``act_read_bits``, ``wgt_read_bits``) and the host's partial-sum read-backs
  are reads, the DRAM fills and the outputs are writes;
* **DRAM**: each layer's weights, inputs and outputs once (:func:`.storage.refetch` when a
  layer overflows the chip memories), the weights once for every image of the batch.

Compute energy: a power record per design (``{"preset", "tile_w", "buffers_w",
"clock_mhz", "source"}``, the tile's power from ``termwise power`` and the share of it in
its flip-flop operand buffers, and the clock network's estimate, ``clock_without_buffers_w``)
gives ``(tile_w - buffers_w + clock_without_buffers_w) x rtl_cycles / (clock_mhz x 1e6)``:
the macros of the tile-buffer level stand for those flops (and their clock sinks), so the
level is paid once; the clock network is in the total. (Buffers too shallow for a macro stay
in flops: ``tile_w + clock_w``.) A record without the clock estimate adds none, and its
source says so. ``rtl_cycles`` include the per-run overheads. A record with the phase
fields (:data:`PHASE_KEYS`, :mod:`termwise.synth.power.phases`) is charged as the cycles
are spent: ``busy_w`` (the tile's power while it computes, without ``busy_buffers_w``) in
place of the stimulus's average ``tile_w`` for the ``rtl_cycles``, plus ``load_row_pj``
(what a loaded row adds to a cycle, without ``load_row_buffers_pj``) for every row the
tile buffers are written (``tile_act_rows + tile_wgt_rows``): in the papers' tiles the loads
overlap compute. The macros' leakage is not charged (:mod:`.storage`). A design without a power record gets its access energy only;
its ``compute_j`` and ``total_j`` are ``None``.
"""

from __future__ import annotations

import math

from ...gen.spec import ConfigError
from ..lowering import DEFAULT_DEPTHWISE, DEFAULT_ORDER, check_depthwise, conv_lowered_shape
from .presets import REFERENCE
from .simulate import layer_fc_columns
from .storage import (DADIANNAO, HO_MAI_HOROWITZ, STORAGE, StorageModel, chip_levels,
                      refetch, tile_levels)
from .traffic import layer_lowered_shape, layer_output_traffic

#: The power record's phase fields (:mod:`termwise.synth.power.phases`): all or none.
PHASE_KEYS = ("busy_w", "busy_buffers_w", "load_row_pj", "load_row_buffers_pj")

__all__ = ["PHASE_KEYS", "MODEL", "MODELLED", "NOT_MODELLED", "DRAM_SENSITIVITY", "HOROWITZ",
           "layer_accesses", "check_power_record", "design_energy", "network_energy"]

#: The energy model's name, as sim.json states it.
MODEL = ("the tile's gate-level power without its flip-flop operand buffers x its RTL "
         "cycles, plus every storage level as SRAM macros (OpenRAM, SPICE-characterised, "
         "scaled to 0.18 um) at its real shape, each brick charged once per level it "
         "crosses, plus DRAM")

HOROWITZ = ('M. Horowitz, "Computing\'s energy problem (and what we can do about it)", '
            "IEEE ISSCC 2014, pp. 10-14: a 64-bit DRAM access costs 1.3-2.6 nJ")
SRAM_SOURCE = ("OpenRAM 1.2.48 single-port macros compiled in scn4m_subm and characterised "
               "by ngspice, scaled to OSU 0.18 um at 1.8 V and fitted per shape "
               "(termwise.golden.sram, docs/sram.md); a wide level is macros side by side, "
               "one macro per column active per access")
#: The DRAM energies (x the model's) at which the table's sensitivity is printed: the ends
#: of Horowitz's 1.3-2.6 nJ range and a quarter of it (a modern LPDDR interface).
DRAM_SENSITIVITY = (0.25, 1.0, 2.0)

#: What the energy model counts, as sim.json and sim.md state it.
MODELLED = [
    "tile buffers as SRAM macro banks at each design's shapes (depth x activation row, "
    "depth x weight row; OpenRAM macros side by side): every row a run loads written once "
    "and read once",
    "chip memories above the tile (a 2 MB weight memory and a 4 MB activation memory, "
    "DaDianNao's sizes) as macro banks plus the wire across the bank: operand loads into "
    "the tile and partial-sum read-backs read them, DRAM fills and outputs write them",
    "off-chip DRAM traffic: each layer's weights, input activations and outputs at the "
    "hardware width, refetched when a layer overflows the chip memories; the weights once "
    "for the whole batch simulated, so their share per inference is 1/images",
    "compute: the tile's gate-level power from `termwise power` without its flip-flop "
    "operand buffers (kind `buffers`, which the tile-buffer macros stand for), plus the "
    "clock network of its other sinks (the report's clock_network estimate: clock pins "
    "and a buffer tree), x rtl_cycles / clock, for the designs given a power record; "
    "where the report measured busy, load and idle cycles apart, the power while busy "
    "for the rtl_cycles and each loaded row's energy over an idle cycle for the rows "
    "loaded (else the stimulus's average power, loads and gaps included)",
]

#: What it does not count.
NOT_MODELLED = [
    "compute energy of the designs without a power record (no number is assumed)",
    "activity differences between the power report's operands and this workload's: the "
    "tile power is the report's, whatever workload and layers it was measured on",
    "power of a design's simulation configuration where it differs from its preset's "
    "(fc_columns and a deeper buffer set for the fc mapping): the preset's report is used",
    "design-specific stores priced as the generic tile buffers: Cnvlutin's offset fields, "
    "Bit-Tactical's h + 1 activation read ports and select metadata, Diffy's predecessor "
    "store (their flip-flop power is removed with the kind `buffers`)",
    "the per-column fc weight registers stay flip-flops in the tile's power (filed as "
    "storage, kind fc_weight_registers, not priced as macros)",
    "the macros' leakage: the characterised static current is an artefact of OpenRAM's "
    "scn4m_subm netlist (10^4-10^5 x a published 180 nm macro's, docs/sram.md); a real "
    "0.18 um macro's tens of nW are negligible against its accesses",
    "inter-layer reuse of outputs kept on chip, storage at reduced precision or "
    "compressed (every value at the hardware width)",
    "address generation, the wires between the tile buffers and the PEs, the host that "
    "reduces partial sums, DRAM refresh and standby",
]


def _lowering(layer, cfg, order: str, depthwise: str) -> tuple[int, int, int, int]:
    """``(G, M, kg, Kg)`` of ``layer`` lowered on ``cfg``'s lanes
    (:func:`termwise.golden.netsim.traffic.layer_lowered_shape`,
    :func:`termwise.golden.lowering.conv_lowered_shape`)."""
    _, m, kin = layer_lowered_shape(layer, cfg.lanes, order, depthwise)
    if layer.kind == "fc":
        return 1, m, layer.wgt.shape[0], kin
    kout, cg, r, s = layer.wgt.shape
    g, kg, _ = conv_lowered_shape(kout, cg, r, s, layer.groups, cfg.lanes, order, depthwise)
    return g, m, kg, kin


def layer_accesses(layer, cfg, out_bits: int, order: str = DEFAULT_ORDER,
                   depthwise: str = DEFAULT_DEPTHWISE,
                   storage: StorageModel = STORAGE) -> dict:
    """Bits and rows moved for ``layer`` on tile ``cfg`` (see the module docstring).

    Parameters
    ----------
    layer : termwise.golden.workloads.Layer
    cfg : termwise.gen.config.TileConfig
        The tile as simulated (:func:`termwise.golden.netsim.sim_config`): ``filters``,
        ``windows``, ``lanes``, ``depth``, ``act_bits``, ``wgt_bits``, ``acc_bits``,
        ``fc_columns``, ``output_stage``.
    out_bits : int
        Width of the finished outputs and of the off-chip values (the hardware width).
    order, depthwise : str
        The brick order and depthwise mapping of the lowering.
    storage : StorageModel
        The chip memories' sizes (for the refetches).

    Returns
    -------
    dict
        ``mapping`` (``"lowered"`` or ``"fc_columns"``), ``groups``, ``rows`` (M),
        ``filters`` (per group), ``k``, ``k_padded``, ``act_read_bits``, ``wgt_read_bits``
        (the tile's operand loads), ``output_bits`` (of which ``output_read_bits`` are
        partial sums read back), ``output_fused``, ``onchip_bits`` (their sum),
        ``tile_act_rows`` and ``tile_wgt_rows`` (rows each tile buffer writes, and reads,
        once), ``dram_fill_wgt_bits`` / ``dram_fill_act_bits`` (written into the chip
        memories from DRAM), ``refetch`` (:func:`.storage.refetch`) and ``offchip_bits``.
    """
    depthwise = check_depthwise(depthwise)
    if layer_fc_columns(cfg, layer):
        n, k = layer.wgt.shape
        span = cfg.lanes * cfg.windows
        rounds = max(1, math.ceil(k / span))
        kr = rounds * span
        chunks = math.ceil(rounds / cfg.fc_rounds)
        rec = {"mapping": "fc_columns", "groups": 1, "rows": 1, "filters": n, "k": k,
               "k_padded": kr,
               "act_read_bits": kr * cfg.act_bits * math.ceil(n / cfg.filters),
               "wgt_read_bits": n * kr * cfg.wgt_bits,
               "output_bits": 2 * chunks * cfg.windows * n * cfg.acc_bits + n * out_bits,
               "output_read_bits": chunks * cfg.windows * n * cfg.acc_bits,
               "output_fused": False}
        rec["tile_act_rows"] = math.ceil(rec["act_read_bits"] / cfg.act_row_bits)
        rec["tile_wgt_rows"] = math.ceil(rec["wgt_read_bits"] / cfg.wgt_row_bits)
        outputs = n
    else:
        g, m, kg, k = _lowering(layer, cfg, order, depthwise)
        kp = math.ceil(k / cfg.lanes) * cfg.lanes
        tr = layer_output_traffic(layer, cfg, out_bits, order, depthwise)
        fused = bool(cfg.output_stage)
        done = fused and tr["fusable"]
        rec = {"mapping": "lowered", "groups": g, "rows": m, "filters": kg, "k": k,
               "k_padded": kp,
               "act_read_bits": g * m * kp * cfg.act_bits * math.ceil(kg / cfg.filters),
               "wgt_read_bits": g * kg * kp * cfg.wgt_bits * math.ceil(m / cfg.windows),
               "output_bits": tr["fused_bits"] if fused else tr["unfused_bits"],
               "output_read_bits": 0 if done else
               tr["outputs"] * tr["chunks"] * cfg.acc_bits,
               "output_fused": done}
        # every run (a window group x a filter group) loads and reads one row per brick
        runs = g * math.ceil(m / cfg.windows) * math.ceil(kg / cfg.filters)
        rec["tile_act_rows"] = rec["tile_wgt_rows"] = runs * (kp // cfg.lanes)
        outputs = tr["outputs"]
    rec["onchip_bits"] = rec["act_read_bits"] + rec["wgt_read_bits"] + rec["output_bits"]
    ref = refetch(layer.wgt.size * out_bits, layer.act.size * out_bits, outputs * out_bits,
                  storage)
    rec["dram_fill_wgt_bits"] = layer.wgt.size * out_bits * ref["weight_passes"]
    rec["dram_fill_act_bits"] = layer.act.size * out_bits * ref["input_passes"]
    rec["refetch"] = ref
    rec["offchip_bits"] = ref["offchip_bits"]
    return rec


def _positive(value) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value > 0)


def check_power_record(design: str, rec, preset: str | None = None,
                       field: str = "power") -> dict:
    """``rec`` as a power record of ``design`` (``{"preset": str, "tile_w": W > 0,
    "buffers_w": 0 <= W < tile_w, "clock_mhz": MHz > 0, "source": str}``; ``buffers_w`` is
    the tile power's share in its flip-flop operand buffers; optionally the clock network's
    power, ``clock_w`` and ``clock_without_buffers_w``, both W >= 0), checked; a
    :class:`ConfigError` naming ``field`` otherwise, also when ``preset`` is given and the
    record's differs."""
    keys = ("preset", "tile_w", "buffers_w", "clock_mhz", "source")
    if not isinstance(rec, dict):
        raise ConfigError(field, f"{design}: a power record must be a dict with "
                                 f"{', '.join(keys)}, got {rec!r}")
    missing = [k for k in keys if k not in rec]
    if missing:
        raise ConfigError(field, f"{design}: the power record lacks {', '.join(missing)}")
    if not isinstance(rec["preset"], str) or not isinstance(rec["source"], str):
        raise ConfigError(field, f"{design}: preset and source must be text")
    for key in ("tile_w", "clock_mhz"):
        if not _positive(rec[key]):
            raise ConfigError(field, f"{design}: {key} must be a positive number, got "
                                     f"{rec[key]!r}")
    b = rec["buffers_w"]
    if not (b == 0 or _positive(b)) or isinstance(b, bool) or b >= rec["tile_w"]:
        raise ConfigError(field, f"{design}: buffers_w must be a number from 0 to below "
                                 f"tile_w ({rec['tile_w']!r}), got {b!r}")
    clock = {k: rec[k] for k in ("clock_w", "clock_without_buffers_w") if k in rec}
    if clock and len(clock) != 2:
        raise ConfigError(field, f"{design}: clock_w and clock_without_buffers_w go "
                                 "together")
    for key, v in clock.items():
        if not (v == 0 or _positive(v)) or isinstance(v, bool):
            raise ConfigError(field, f"{design}: {key} must be a number >= 0, got {v!r}")
    phases = {k: rec[k] for k in PHASE_KEYS if k in rec}
    if phases and len(phases) != len(PHASE_KEYS):
        raise ConfigError(field, f"{design}: {', '.join(PHASE_KEYS)} go together")
    for key, v in phases.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ConfigError(field, f"{design}: {key} must be a number, got {v!r}")
    if phases and not (_positive(phases["busy_w"])
                       and 0 <= phases["busy_buffers_w"] < phases["busy_w"]):
        raise ConfigError(field, f"{design}: busy_w must be positive and busy_buffers_w from "
                                 f"0 to below it, got {phases['busy_w']!r} and "
                                 f"{phases['busy_buffers_w']!r}")
    if preset is not None and rec["preset"] != preset:
        raise ConfigError(field, f"{design}: the power record is of preset "
                                 f"{rec['preset']!r}, the design runs on {preset!r}")
    return {"preset": rec["preset"], "tile_w": float(rec["tile_w"]),
            "buffers_w": float(b), "clock_mhz": float(rec["clock_mhz"]),
            "source": rec["source"], **{k: float(v) for k, v in clock.items()},
            **{k: float(v) for k, v in phases.items()}}


def _layer_energy(acc: dict, levels: dict, dram_pj: float) -> dict:
    """Access energies (J) of one layer's :func:`layer_accesses` on ``levels``."""
    am, wm = levels["activation_memory"], levels["weight_memory"]
    tile = 0.0
    if "act_buffer" in levels:      # else the buffers are flip-flops, in the tile's power
        a, w = levels["act_buffer"], levels["wgt_buffer"]
        tile = (acc["tile_act_rows"] * (a.read_pj + a.write_pj)
                + acc["tile_wgt_rows"] * (w.read_pj + w.write_pj))
    out_write = acc["output_bits"] - acc["output_read_bits"]
    chip = (acc["wgt_read_bits"] * wm.read_pj_per_bit
            + acc["dram_fill_wgt_bits"] * wm.write_pj_per_bit
            + (acc["act_read_bits"] + acc["output_read_bits"]) * am.read_pj_per_bit
            + (acc["dram_fill_act_bits"] + out_write) * am.write_pj_per_bit)
    return {"tile_buffer_j": tile * 1e-12, "chip_memory_j": chip * 1e-12,
            "offchip_j": acc["offchip_bits"] * dram_pj * 1e-12}


def _logic_rates(power: dict | None, macros: bool) -> tuple[float | None, float]:
    """The tile's logic power per compute cycle (W) and energy per loaded row (J) of a
    power record: with its phases (:mod:`termwise.synth.power.phases`), the power while
    busy and a loaded row's energy over an idle cycle; else the stimulus's average power
    and no row energy (in the average). When the tile-buffer level is macros
    (``macros``), the tile's own operand buffers (kind ``buffers``) leave it, with their
    share of the clock network: the level's macros stand for them, paid once."""
    if power is None:
        return None, 0.0
    clock = power.get("clock_without_buffers_w" if macros else "clock_w", 0.0)
    if "busy_w" in power:
        return (power["busy_w"] - (power["busy_buffers_w"] if macros else 0.0) + clock,
                (power["load_row_pj"] - (power["load_row_buffers_pj"] if macros else 0.0))
                * 1e-12)
    return power["tile_w"] - (power["buffers_w"] if macros else 0.0) + clock, 0.0


def design_energy(layers, cfg, rtl_cycles, *, out_bits: int, images: int,
                  order: str = DEFAULT_ORDER, depthwise: str = DEFAULT_DEPTHWISE,
                  power: dict | None = None, storage: StorageModel = STORAGE) -> dict:
    """Energy of one design over ``layers`` (joules).

    Parameters
    ----------
    layers : list of termwise.golden.workloads.Layer
    cfg : termwise.gen.config.TileConfig
        The design's tile as simulated.
    rtl_cycles : list of int
        Per layer, the cycles the RTL takes (per-run overheads included).
    out_bits : int
        The hardware width (finished outputs, off-chip values).
    images : int
        Inputs the layers hold (their batch): the divisor of ``per_inference``.
    order, depthwise : str
        The lowering's brick order and depthwise mapping.
    power : dict or None
        The tile's power record (:func:`check_power_record`); ``None``: storage only.
    storage : StorageModel

    Returns
    -------
    dict
        ``compute_j`` and ``total_j`` (``None`` without ``power``), ``tile_buffer_j``,
        ``chip_memory_j``, ``onchip_j`` (the two), ``offchip_j``, ``memory_j`` (on- and off-chip), ``per_inference`` (each
        over ``images``), ``per_inference_j``, ``time_s`` (``None`` without a clock),
        ``rtl_cycles``, ``levels`` (each storage level's shape and energies), ``power``
        and ``layers`` (per layer the accesses and energies).
    """
    if len(rtl_cycles) != len(layers):
        raise ValueError(f"rtl_cycles: {len(rtl_cycles)} values for {len(layers)} layers")
    tile = tile_levels(cfg)
    levels = {**(tile or {}), **chip_levels(storage)}
    hz = power["clock_mhz"] * 1e6 if power else None
    logic_w, row_j = _logic_rates(power, bool(tile))
    rows = []
    for layer, cyc in zip(layers, rtl_cycles):
        acc = layer_accesses(layer, cfg, out_bits, order, depthwise, storage)
        e = _layer_energy(acc, levels, storage.dram_pj_per_bit)
        loaded = acc["tile_act_rows"] + acc["tile_wgt_rows"]
        rows.append(dict(name=layer.name, rtl_cycles=int(cyc), **acc, **e,
                         onchip_j=e["tile_buffer_j"] + e["chip_memory_j"],
                         compute_j=(logic_w * cyc / hz + row_j * loaded) if power else None))
    cycles = sum(r["rtl_cycles"] for r in rows)

    def total(key):
        return None if power is None and key == "compute_j" else \
            sum(r[key] for r in rows)

    parts = {k: total(k) for k in ("compute_j", "tile_buffer_j",
                                   "chip_memory_j", "onchip_j", "offchip_j")}
    parts["memory_j"] = parts["onchip_j"] + parts["offchip_j"]
    parts["total_j"] = None if power is None else parts["compute_j"] + parts["memory_j"]
    return dict(parts, per_inference={k: None if v is None else v / images
                                      for k, v in parts.items()},
                per_inference_j=None if power is None else parts["total_j"] / images,
                time_s=cycles / hz if hz else None, rtl_cycles=cycles,
                onchip_bits=sum(r["onchip_bits"] for r in rows),
                offchip_bits=sum(r["offchip_bits"] for r in rows),
                levels={k: lv.record() for k, lv in levels.items()},
                tile_buffers="macros" if tile else "flip-flops (depth below the smallest "
                                                   "macro): in the tile's power",
                power=power, layers=rows)


def _efficiency(designs: dict, dram_scale: float = 1.0) -> dict:
    """Each design's baseline energy over its own, with the DRAM energy scaled by
    ``dram_scale`` (``None`` where a total is missing)."""
    def tot(rec):
        if rec.get("total_j") is None:
            return None
        return rec["total_j"] + (dram_scale - 1.0) * rec["offchip_j"]
    base = tot(designs[REFERENCE]) if REFERENCE in designs else None
    return {d: (base / tot(r) if base and tot(r) else None) for d, r in designs.items()}


def network_energy(layers, cfgs, rtl_cycles, *, out_bits: int, images: int,
                   order: str = DEFAULT_ORDER, depthwise: str = DEFAULT_DEPTHWISE,
                   power: dict | None = None, storage: StorageModel = STORAGE) -> dict:
    """The energy section of sim.json: :func:`design_energy` of every design of ``cfgs``
    (``{design: TileConfig}``) with ``rtl_cycles`` ``{design: per-layer cycles}`` and
    ``power`` ``{design: power record}`` (designs absent: storage only), each design's
    ``efficiency_over_baseline`` (the baseline's ``total_j`` over its own, when both have
    compute energy, else ``None``), the same at other DRAM energies
    (``dram_sensitivity``: the one constant no compiler gives), the model's name,
    constants, sources and what is and is not modelled."""
    power = power or {}
    designs = {d: design_energy(layers, cfg, rtl_cycles[d], out_bits=out_bits, images=images,
                                order=order, depthwise=depthwise, power=power.get(d),
                                storage=storage)
               for d, cfg in cfgs.items()}
    for d, eff in _efficiency(designs).items():
        designs[d]["efficiency_over_baseline"] = eff
    sensitivity = {f"{s:g}": _efficiency(designs, s) for s in DRAM_SENSITIVITY}
    return {"model": MODEL, "images": images, "out_bits": out_bits,
            "constants": _constants(storage), "modelled": MODELLED,
            "not_modelled": NOT_MODELLED, "dram_sensitivity": sensitivity,
            "designs": designs}


def _constants(storage: StorageModel) -> dict:
    """The storage model's sizes, DRAM energy and sources (for sim.json)."""
    from ..sram import FIT_ERROR
    return {"weight_memory_kib": storage.weight_kib,
            "activation_memory_kib": storage.activation_kib,
            "chip_word_bits": storage.chip_word_bits,
            "dram_pj_per_bit": storage.dram_pj_per_bit,
            "dram_sensitivity_scales": list(DRAM_SENSITIVITY),
            "sram_fit_error": FIT_ERROR,
            "sources": {"sram": SRAM_SOURCE, "chip_memory_sizes": DADIANNAO,
                        "wire": HO_MAI_HOROWITZ,
                        "dram": f"{HOROWITZ}; 1.3 nJ per 64 bits used, not scaled to 0.18 um "
                                "(the off-chip interface dominates it)"}}
