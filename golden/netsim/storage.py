"""Storage as levels of SRAM macros, each brick charged once per level it crosses.

The energy model of :mod:`.energy` prices every access from the SRAM macro model
(:mod:`termwise.golden.sram`: OpenRAM macros characterised by SPICE, scaled to OSU 0.18 um),
at each level's real shape:

* **tile buffers** -- the tile's activation and weight buffers, ``depth`` rows of
  ``act_row_bits`` / ``wgt_row_bits`` (:class:`termwise.gen.config.TileConfig`), each a bank
  of macros side by side. A run loads its rows once (a write per row) and reads each row
  once (the PEs hold or serialise the brick they read). In the gate-level power these
  buffers are flip-flops (kind ``buffers``): the energy model takes the tile's power
  *without* them and charges the macros instead, so the level is paid once.
* **chip buffers** -- the level above that refills the tile: a weight memory and an
  activation memory (inputs and outputs), sized as DaDianNao's per-tile eDRAM synapse
  buffer and its central neuron memory (:data:`DADIANNAO`), built of
  :data:`CHIP_MACRO` macros (256 words x 128 bits, a compiler's usual bank; the fit
  extrapolates it from the characterised 16-64 x 16-32 shapes, and the level's ``source``
  says so: a memory of the tiny characterised macros would be mostly periphery), plus the
  wire that brings a word from the addressed macro to the memory's port
  (:data:`WIRE_PF_PER_MM`; half the wires toggle on random data).
  The tile's operand loads are its reads (the bits of :func:`.energy.layer_accesses`); the
  DRAM fills and the tile's outputs are its writes; the host's partial-sum read-backs are
  reads.
* **DRAM** -- each layer's weights, inputs and outputs once, unless the layer's weights
  exceed the weight memory and its activations the activation memory (:func:`refetch`).

Leakage is not charged: the characterised macros' static current is an artefact of the
scn4m_subm netlist (10^4-10^5 x a published 180 nm macro's, docs/sram.md), and a real
0.18 um macro's leakage (tens of nW) is negligible against its accesses. The DRAM energy
per bit is the one constant no compiler gives: :func:`.energy.network_energy` prints the
table's sensitivity to it.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from ...gen.errors import ConfigError

__all__ = ["DADIANNAO", "WIRE_PF_PER_MM", "HO_MAI_HOROWITZ", "CHIP_MACRO", "StorageModel",
           "STORAGE", "Level", "tile_levels", "chip_levels", "refetch"]

DADIANNAO = ('Y. Chen et al., "DaDianNao: A Machine-Learning Supercomputer", MICRO 2014: '
             "each tile keeps a 2 MB eDRAM synapse buffer (weights); the chip's central "
             "eDRAM holds 4 MB of neurons (activations)")
#: On-chip wire capacitance per mm: about 0.2 pF/mm for a minimum-pitch intermediate-layer
#: wire, nearly constant across nodes (R. Ho, K. Mai, M. Horowitz, "The future of wires",
#: Proc. IEEE 89(4), 2001, fig. 2).
WIRE_PF_PER_MM = 0.2
HO_MAI_HOROWITZ = ('R. Ho, K. W. Mai, M. A. Horowitz, "The future of wires", Proc. IEEE '
                   "89(4):490-504, 2001: about 0.2 pF/mm for intermediate-layer wires")
#: OSU 0.18 um nominal supply (the liberty's ``nom_voltage``).
VDD = 1.8
#: The chip memories' macro (words, bits): a 4 KB bank.
CHIP_MACRO = (256, 128)


@dataclass(frozen=True)
class Level:
    """One storage level at its shape: ``banks`` macros side by side of ``words`` x
    ``macro_width``; energies per access of the level's whole word (pJ)."""
    name: str
    words: int
    width: int
    read_pj: float
    write_pj: float
    area_um2: float
    macros: int
    wire_pj: float = 0.0
    source: str = ""

    @property
    def read_pj_per_bit(self) -> float:
        return (self.read_pj + self.wire_pj) / self.width

    @property
    def write_pj_per_bit(self) -> float:
        return (self.write_pj + self.wire_pj) / self.width

    def record(self) -> dict:
        return dict(asdict(self), read_pj_per_bit=self.read_pj_per_bit,
                    write_pj_per_bit=self.write_pj_per_bit)


@dataclass(frozen=True)
class StorageModel:
    """The chip level's sizes and word width, and DRAM's energy per bit.

    Parameters
    ----------
    weight_kib, activation_kib : int
        Capacities of the chip's weight and activation memories (DaDianNao: 2 MB and 4 MB).
    chip_word_bits : int
        Word width of one chip-memory access (one macro's word, :data:`CHIP_MACRO`).
    dram_pj_per_bit : float
        Horowitz, ISSCC 2014: 1.3 nJ per 64-bit DRAM access (the low end of 1.3-2.6 nJ),
        not scaled: the off-chip interface dominates it, not the accelerator's node.
    """

    weight_kib: int = 2048
    activation_kib: int = 4096
    chip_word_bits: int = 128
    dram_pj_per_bit: float = 1300.0 / 64

    def __post_init__(self):
        for name in ("weight_kib", "activation_kib", "chip_word_bits"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ConfigError(name, f"must be a positive integer, got {v!r}")
        v = self.dram_pj_per_bit
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
            raise ConfigError("dram_pj_per_bit", f"must be a positive number, got {v!r}")


#: The sizes ``termwise sim`` uses.
STORAGE = StorageModel()


def _level(name: str, words: int, width: int, *, wire: bool = False, **shape) -> Level:
    """A level of ``words`` x ``width`` bits from the macro model (:func:`termwise.golden.
    sram.bank`, its macros at most ``shape``'s ``max_width`` x ``max_words``); with
    ``wire``, the word also crosses the bank: one side of its square footprint (an H-tree
    from the macro addressed to the port at the centre runs half the side across and half
    along), half its wires toggling."""
    from ..sram import bank
    b = bank(words, width, **shape)
    wire_pj = 0.0
    if wire:
        side_mm = math.sqrt(b.area_um2) / 1000.0
        wire_pj = 0.5 * 0.5 * width * WIRE_PF_PER_MM * side_mm * VDD ** 2
    return Level(name, words, width, b.read_pj, b.write_pj, b.area_um2, b.macros, wire_pj,
                 b.source)


def tile_levels(cfg) -> dict[str, Level] | None:
    """The tile's activation and weight buffers as macro banks at ``cfg``'s shapes; None
    when ``depth`` is below the smallest macro (:data:`termwise.golden.sram.MIN_WORDS`
    words): such buffers stay in flip-flops, in the tile's gate-level power."""
    from ..sram import MIN_WORDS
    if cfg.depth < MIN_WORDS:
        return None
    return {"act_buffer": _level("act_buffer", cfg.depth, cfg.act_row_bits),
            "wgt_buffer": _level("wgt_buffer", cfg.depth, cfg.wgt_row_bits)}


def chip_levels(model: StorageModel = STORAGE) -> dict[str, Level]:
    """The chip's weight and activation memories: ``capacity / chip_word_bits`` words."""
    out = {}
    for name, kib in (("weight_memory", model.weight_kib),
                      ("activation_memory", model.activation_kib)):
        words = kib * 1024 * 8 // model.chip_word_bits
        out[name] = _level(name, words, model.chip_word_bits, wire=True,
                           max_words=CHIP_MACRO[0], max_width=CHIP_MACRO[1])
    return out


def refetch(wgt_bits: int, act_bits: int, out_bits: int,
            model: StorageModel = STORAGE) -> dict:
    """Off-chip passes of a layer whose working set overflows the chip memories.

    Weights stream in ``wc = ceil(wgt_bits / weight capacity)`` chunks and activations
    (inputs and outputs) in ``ac = ceil((act_bits + out_bits) / activation capacity)``
    chunks. When both overflow, every weight chunk meets every activation chunk: the
    operand with fewer bits is fetched again for each chunk of the other. Outputs leave
    once.

    Returns
    -------
    dict
        ``weight_chunks``, ``activation_chunks``, ``weight_passes``, ``input_passes`` and
        ``offchip_bits`` (weights x passes + inputs x passes + outputs).
    """
    wc = max(1, math.ceil(wgt_bits / (model.weight_kib * 8192)))
    ac = max(1, math.ceil((act_bits + out_bits) / (model.activation_kib * 8192)))
    wp = ip = 1
    if wc > 1 and ac > 1:
        if wgt_bits <= act_bits:
            wp = ac
        else:
            ip = wc
    return {"weight_chunks": wc, "activation_chunks": ac, "weight_passes": wp,
            "input_passes": ip, "offchip_bits": wgt_bits * wp + act_bits * ip + out_bits}
