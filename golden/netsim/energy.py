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

Off-chip traffic: each layer's weights, input activations and outputs move once between
DRAM and the on-chip buffers, at the hardware width (``bits``), i.e. the on-chip buffers
are assumed to hold a layer's working set (weights, inputs, partial sums). The layers hold
every image simulated (their batch), so the weights are fetched once for all of them.

Energies (:class:`AccessEnergy`): M. Horowitz, "Computing's energy problem (and what we can
do about it)", ISSCC 2014, 45 nm at 0.9 V: a 64-bit SRAM access costs 10 pJ (8 KB), 20 pJ
(32 KB), 100 pJ (1 MB); a 64-bit DRAM access 1.3-2.6 nJ. termwise's tiles are synthesised in
OSU 0.18 um at 1.8 V, so the SRAM figure is brought to that node with E ~ C V^2 and C ~
feature size: (180 / 45) x (1.8 / 0.9)^2 = 4 x 4 = 16. DRAM energy is dominated by the
off-chip interface (I/O drivers, termination, the DRAM die's own process), not by the
accelerator's node, and is not scaled. The 32 KB figure stands for a buffer bank that feeds
one tile a layer's operands (the 8 KB one is smaller than the working sets of the networks'
middle layers, the 1 MB one a whole chip's store); reads and writes cost the same (Horowitz
gives one figure per access). The DRAM figure is the low end of the range: off-chip bits are
the same for every design of a run, so the choice shifts every total alike.

Compute energy: a power record per design (``{"preset", "tile_w", "clock_mhz",
"source"}``, the tile's power from ``termwise power`` under some activity) gives
``tile_w x rtl_cycles / (clock_mhz x 1e6)``; ``rtl_cycles`` include the per-run overheads.
The tile's power includes its own operand buffers (flops, ``depth`` rows): the on-chip SRAM
term is the level above them. A design without a power record gets memory energy only, its
``compute_j`` and ``total_j`` ``None``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from ...gen.spec import ConfigError
from ..lowering import DEFAULT_DEPTHWISE, DEFAULT_ORDER, check_depthwise, conv_lowered_shape
from .presets import REFERENCE
from .simulate import layer_fc_columns
from .traffic import layer_lowered_shape, layer_output_traffic

__all__ = ["AccessEnergy", "ACCESS_ENERGY", "MODEL", "MODELLED", "NOT_MODELLED",
           "layer_accesses", "check_power_record", "design_energy", "network_energy"]

#: The energy model's name, as sim.json states it.
MODEL = ("the tile's gate-level power x its RTL cycles, plus on-chip buffer and off-chip "
         "accesses counted on each design's lowering at per-bit energies (Horowitz, ISSCC 2014; "
         "SRAM scaled to 0.18 um)")

#: Horowitz, ISSCC 2014: 64-bit SRAM access energy at 45 nm, 0.9 V, per buffer size (pJ).
HOROWITZ_SRAM_64B_PJ = {"8 KB": 10.0, "32 KB": 20.0, "1 MB": 100.0}
#: Horowitz, ISSCC 2014: 64-bit DRAM access energy range (pJ).
HOROWITZ_DRAM_64B_PJ = (1300.0, 2600.0)
HOROWITZ = ('M. Horowitz, "Computing\'s energy problem (and what we can do about it)", '
            "IEEE ISSCC 2014, pp. 10-14 (45 nm, 0.9 V)")


@dataclass(frozen=True)
class AccessEnergy:
    """Energy per bit of the on-chip buffer and of DRAM.

    Parameters
    ----------
    sram_size : str
        Which of Horowitz's SRAM sizes (:data:`HOROWITZ_SRAM_64B_PJ`) stands for the
        on-chip buffer: ``"32 KB"``, a bank feeding one tile a layer's operands.
    sram_pj_per_64b_45nm : float
        Horowitz, ISSCC 2014: 20 pJ per 64-bit access of a 32 KB SRAM at 45 nm, 0.9 V.
    feature_factor : float
        Capacitance ~ feature size: 180 nm / 45 nm = 4.
    voltage_factor : float
        Energy ~ V^2: (1.8 V / 0.9 V)^2 = 4 (OSU 0.18 um's nominal 1.8 V).
    dram_pj_per_64b : float
        Horowitz, ISSCC 2014: 1.3 nJ per 64-bit DRAM access (the low end of 1.3-2.6 nJ),
        not scaled: the off-chip interface dominates it, not the accelerator's node.
    """

    sram_size: str = "32 KB"
    sram_pj_per_64b_45nm: float = HOROWITZ_SRAM_64B_PJ["32 KB"]
    feature_factor: float = 180 / 45
    voltage_factor: float = (1.8 / 0.9) ** 2
    dram_pj_per_64b: float = HOROWITZ_DRAM_64B_PJ[0]

    @property
    def node_factor(self) -> float:
        """45 nm, 0.9 V -> 0.18 um, 1.8 V: ``feature_factor x voltage_factor`` (16)."""
        return self.feature_factor * self.voltage_factor

    @property
    def sram_pj_per_bit(self) -> float:
        """On-chip read or write energy per bit at 0.18 um, 1.8 V (5 pJ)."""
        return self.sram_pj_per_64b_45nm / 64 * self.node_factor

    @property
    def dram_pj_per_bit(self) -> float:
        """Off-chip energy per bit (20.3 pJ)."""
        return self.dram_pj_per_64b / 64

    def record(self) -> dict:
        """The constants, the derived per-bit figures and their sources (for sim.json)."""
        return dict(asdict(self), node_factor=self.node_factor,
                    sram_pj_per_bit=self.sram_pj_per_bit,
                    dram_pj_per_bit=self.dram_pj_per_bit,
                    sources={
                        "citation": HOROWITZ,
                        "sram": "64-bit SRAM access 10 pJ (8 KB), 20 pJ (32 KB), 100 pJ "
                                f"(1 MB) at 45 nm, 0.9 V; the {self.sram_size} figure is used "
                                "(a buffer bank feeding one tile a layer's operands); reads "
                                "and writes at the same energy",
                        "sram_scaling": "to OSU 0.18 um at 1.8 V (termwise's synthesis "
                                        "library): E ~ C V^2 with C ~ feature size, x "
                                        f"{self.feature_factor:g} (180/45 nm) x "
                                        f"{self.voltage_factor:g} ((1.8/0.9 V)^2) = x "
                                        f"{self.node_factor:g}",
                        "dram": "64-bit DRAM access 1.3-2.6 nJ; "
                                f"{self.dram_pj_per_64b / 1000:g} nJ used, not scaled to "
                                "0.18 um (the off-chip interface dominates it)",
                        "sram_64b_pj_45nm_by_size": dict(HOROWITZ_SRAM_64B_PJ),
                        "dram_64b_pj_range": list(HOROWITZ_DRAM_64B_PJ),
                    })


#: The constants ``termwise sim`` uses.
ACCESS_ENERGY = AccessEnergy()

#: What the energy model counts, as sim.json and sim.md state it.
MODELLED = [
    "on-chip buffer reads of activation bricks (once per group of `filters` filters) and "
    "weight bricks (once per group of `windows` windows), on the design's own lowering "
    "(brick padding, channel-diagonal packing, fc rounds included), at the hardware width",
    "on-chip output traffic: partial sums written and read back at the accumulator width "
    "and finished outputs written (golden/netsim/traffic.py; fused when the tile has an "
    "output stage and one run holds the dot product)",
    "off-chip DRAM traffic: each layer's weights, input activations and outputs once at the "
    "hardware width (the on-chip buffers hold a layer's working set); the weights once for "
    "the whole batch simulated, so their share per inference is 1/images",
    "compute: the tile's gate-level power from `termwise power` x rtl_cycles / clock, for "
    "the designs given a power record",
]

#: What it does not count.
NOT_MODELLED = [
    "compute energy of the designs without a power record (no number is assumed)",
    "activity differences between the power report's operands and this workload's: the "
    "tile power is the report's, whatever workload and layers it was measured on",
    "power of a design's simulation configuration where it differs from its preset's "
    "(fc_columns and a deeper buffer set for the fc mapping): the preset's report is used",
    "buffers smaller than a layer's working set (re-fetches from DRAM), inter-layer reuse "
    "of outputs kept on chip",
    "storage at reduced precision or compressed (every value at the hardware width, also "
    "for the bit-serial designs whose profiled precision would allow fewer bits)",
    "buffer leakage, address generation, interconnect between buffer and tile, the host "
    "that reduces partial sums, DRAM refresh and standby",
    "SRAM energy per access by the buffer's real size and port width (one 32 KB figure)",
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
                   depthwise: str = DEFAULT_DEPTHWISE) -> dict:
    """Bits moved for ``layer`` on tile ``cfg`` (see the module docstring).

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

    Returns
    -------
    dict
        ``mapping`` (``"lowered"`` or ``"fc_columns"``), ``groups``, ``rows`` (M),
        ``filters`` (per group), ``k``, ``k_padded``, ``act_read_bits``, ``wgt_read_bits``,
        ``output_bits``, ``output_fused``, ``onchip_bits`` (their sum) and ``offchip_bits``.
    """
    depthwise = check_depthwise(depthwise)
    offchip = (layer.wgt.size + layer.act.size) * out_bits
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
               "output_fused": False}
        outputs = n
    else:
        g, m, kg, k = _lowering(layer, cfg, order, depthwise)
        kp = math.ceil(k / cfg.lanes) * cfg.lanes
        tr = layer_output_traffic(layer, cfg, out_bits, order, depthwise)
        fused = bool(cfg.output_stage)
        rec = {"mapping": "lowered", "groups": g, "rows": m, "filters": kg, "k": k,
               "k_padded": kp,
               "act_read_bits": g * m * kp * cfg.act_bits * math.ceil(kg / cfg.filters),
               "wgt_read_bits": g * kg * kp * cfg.wgt_bits * math.ceil(m / cfg.windows),
               "output_bits": tr["fused_bits"] if fused else tr["unfused_bits"],
               "output_fused": fused and tr["fusable"]}
        outputs = tr["outputs"]
    rec["onchip_bits"] = rec["act_read_bits"] + rec["wgt_read_bits"] + rec["output_bits"]
    rec["offchip_bits"] = offchip + outputs * out_bits
    return rec


def _positive(value) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value > 0)


def check_power_record(design: str, rec, preset: str | None = None,
                       field: str = "power") -> dict:
    """``rec`` as a power record of ``design`` (``{"preset": str, "tile_w": W > 0,
    "clock_mhz": MHz > 0, "source": str}``), checked; a :class:`ConfigError` naming
    ``field`` otherwise, also when ``preset`` is given and the record's differs."""
    if not isinstance(rec, dict):
        raise ConfigError(field, f"{design}: a power record must be a dict with preset, "
                                 f"tile_w, clock_mhz and source, got {rec!r}")
    missing = [k for k in ("preset", "tile_w", "clock_mhz", "source") if k not in rec]
    if missing:
        raise ConfigError(field, f"{design}: the power record lacks {', '.join(missing)}")
    if not isinstance(rec["preset"], str) or not isinstance(rec["source"], str):
        raise ConfigError(field, f"{design}: preset and source must be text")
    for key in ("tile_w", "clock_mhz"):
        if not _positive(rec[key]):
            raise ConfigError(field, f"{design}: {key} must be a positive number, got "
                                     f"{rec[key]!r}")
    if preset is not None and rec["preset"] != preset:
        raise ConfigError(field, f"{design}: the power record is of preset "
                                 f"{rec['preset']!r}, the design runs on {preset!r}")
    return {"preset": rec["preset"], "tile_w": float(rec["tile_w"]),
            "clock_mhz": float(rec["clock_mhz"]), "source": rec["source"]}


def design_energy(layers, cfg, rtl_cycles, *, out_bits: int, images: int,
                  order: str = DEFAULT_ORDER, depthwise: str = DEFAULT_DEPTHWISE,
                  power: dict | None = None, energy: AccessEnergy = ACCESS_ENERGY) -> dict:
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
        The tile's power record (:func:`check_power_record`); ``None``: memory only.
    energy : AccessEnergy

    Returns
    -------
    dict
        ``compute_j`` (``None`` without ``power``), ``onchip_j``, ``offchip_j``,
        ``memory_j``, ``total_j`` (``None`` without ``power``), ``per_inference`` (each of
        them over ``images``), ``per_inference_j`` (the total's, or ``None``), ``time_s``
        (``None`` without a clock), ``rtl_cycles``, ``power`` and ``layers`` (per layer the
        access bits and energies).
    """
    if len(rtl_cycles) != len(layers):
        raise ValueError(f"rtl_cycles: {len(rtl_cycles)} values for {len(layers)} layers")
    hz = power["clock_mhz"] * 1e6 if power else None
    rows = []
    for layer, cyc in zip(layers, rtl_cycles):
        acc = layer_accesses(layer, cfg, out_bits, order, depthwise)
        rows.append(dict(name=layer.name, rtl_cycles=int(cyc), **acc,
                         onchip_j=acc["onchip_bits"] * energy.sram_pj_per_bit * 1e-12,
                         offchip_j=acc["offchip_bits"] * energy.dram_pj_per_bit * 1e-12,
                         compute_j=power["tile_w"] * cyc / hz if power else None))
    cycles = sum(r["rtl_cycles"] for r in rows)
    onchip = sum(r["onchip_j"] for r in rows)
    offchip = sum(r["offchip_j"] for r in rows)
    compute = sum(r["compute_j"] for r in rows) if power else None
    total = None if compute is None else compute + onchip + offchip
    parts = {"compute_j": compute, "onchip_j": onchip, "offchip_j": offchip,
             "memory_j": onchip + offchip, "total_j": total}
    return dict(parts, per_inference={k: None if v is None else v / images
                                      for k, v in parts.items()},
                per_inference_j=None if total is None else total / images,
                time_s=cycles / hz if hz else None, rtl_cycles=cycles,
                onchip_bits=sum(r["onchip_bits"] for r in rows),
                offchip_bits=sum(r["offchip_bits"] for r in rows),
                power=power, layers=rows)


def network_energy(layers, cfgs, rtl_cycles, *, out_bits: int, images: int,
                   order: str = DEFAULT_ORDER, depthwise: str = DEFAULT_DEPTHWISE,
                   power: dict | None = None, energy: AccessEnergy = ACCESS_ENERGY) -> dict:
    """The energy section of sim.json: :func:`design_energy` of every design of ``cfgs``
    (``{design: TileConfig}``) with ``rtl_cycles`` ``{design: per-layer cycles}`` and
    ``power`` ``{design: power record}`` (designs absent: memory only), each design's
    ``efficiency_over_baseline`` (the baseline's ``total_j`` over its own, when both have
    compute energy, else ``None``), the model's name, constants, sources and what is and
    is not modelled."""
    power = power or {}
    designs = {d: design_energy(layers, cfg, rtl_cycles[d], out_bits=out_bits, images=images,
                                order=order, depthwise=depthwise, power=power.get(d),
                                energy=energy)
               for d, cfg in cfgs.items()}
    base = designs.get(REFERENCE, {}).get("total_j")
    for rec in designs.values():
        rec["efficiency_over_baseline"] = (base / rec["total_j"]
                                           if base and rec["total_j"] else None)
    return {"model": MODEL, "images": images, "out_bits": out_bits,
            "constants": energy.record(), "modelled": MODELLED,
            "not_modelled": NOT_MODELLED, "designs": designs}
