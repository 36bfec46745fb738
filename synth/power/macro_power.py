"""SRAM macros in the gate-level power run (``buffers = macros``).

The synthesised netlist keeps every macro as a black box (:mod:`termwise.synth.macros`).
The power run then

* simulates each macro's behavioural model (:class:`termwise.rtl.buffer.SramMacro`, taken
  from the tile's own Verilog) inside the gate-level model;
* reads the macros' liberty beside the cells' (:func:`setup`): leakage, pin capacitances,
  one pin per bus bit, so that the nets the macros load and drive are counted like any
  other;
* charges each macro its accesses (:func:`access_power`): from the SAIF, the fraction of
  cycles its ``ce`` was high (an access each) and its ``we`` (a write each; ``we`` is high
  only with ``ce``), at the assumed clock, times the macro model's read and write energy
  (:func:`termwise.golden.sram.macro`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

__all__ = ["MacroPower", "setup", "behavioural_models", "access_power", "access_counts",
           "ACCESSES_HOW"]

_MODULE = re.compile(r"^module\s+(termwise_sram_(\d+)x(\d+))\b.*?^endmodule\s*$", re.M | re.S)


@dataclass
class MacroPower:
    """What the power run needs of a tile's macros: the liberty with the macros' cells
    (``lib``), their behavioural Verilog (``models``), ``{cell: (read J, write J)}`` and
    the macros' liberty path (for OpenSTA); ``energies`` empty for a tile of flops."""
    lib: object
    models: str = ""
    energies: dict | None = None
    liberty: str | None = None


def behavioural_models(verilog: str) -> str:
    """The macro modules' text of a tile's emitted Verilog."""
    return "\n".join(m.group(0) for m in _MODULE.finditer(verilog))


def setup(asic_dir: str, verilog: str, lib) -> MacroPower:
    """The macros of the synthesis in ``asic_dir`` (its ``macros.lib``), or a
    :class:`MacroPower` of ``lib`` alone when it has none."""
    from ...golden.sram import macro
    from ..macros import LIBERTY_FILE, macro_shapes
    from .cells import Pin, parse_library
    path = os.path.join(asic_dir, LIBERTY_FILE)
    if not os.path.exists(path):
        return MacroPower(lib)
    with open(path, encoding="utf-8") as f:
        mlib = parse_library(f.read())
    cells = dict(lib.cells)
    energies = {}
    for name, words, width in macro_shapes(verilog):
        cell = mlib.cells[name]
        d_cap = cell.pins["ce"].capacitance
        abits = max(1, (words - 1).bit_length())
        for bus, bits, direction in (("addr", abits, "input"), ("din", width, "input"),
                                     ("dout", width, "output")):
            for i in range(bits):
                cell.pins[f"{bus}[{i}]"] = Pin(f"{bus}[{i}]", direction,
                                               d_cap if direction == "input" else 0.0)
        cells[name] = cell
        m = macro(words, width)
        energies[name] = (m.read_pj * 1e-12, m.write_pj * 1e-12)
    merged = type(lib)(lib.name, lib.units, lib.voltage, cells, lib.wire_loads,
                       lib.default_wire_load)
    return MacroPower(merged, behavioural_models(verilog), energies, path)


def access_power(saif, top: str, f_hz: float, energies: dict):
    """The ``access`` hook of :func:`.compute.netlist_power`: a macro leaf's reads and
    writes per second (its ``ce`` and ``we`` duty in the SAIF x ``f_hz``) times their
    energy, in W; 0 for any other leaf. A macro whose ``ce`` net is not in the SAIF is an
    error (its accesses would silently count as none)."""
    prefix = f"TOP/{top}/"

    def duty(names: list[str]) -> float:
        for n in names:
            if prefix + n in saif.nets:
                return saif.duty(prefix + n)
        raise KeyError(f"no SAIF activity for any of {names[:3]}")

    def access(leaf, names) -> float:
        e = energies.get(leaf.cell)
        if e is None:
            return 0.0
        d_ce, d_we = duty(names("ce")), duty(names("we"))
        access.duties[leaf.path] = (d_ce - d_we, d_we)
        return f_hz * ((d_ce - d_we) * e[0] + d_we * e[1])

    access.duties = {}      # macro instance path -> (read duty, write duty), as charged
    return access


#: How a power report's ``macro_accesses`` were counted.
ACCESSES_HOW = ("per SRAM macro of each buffer, the simulated cycles its ce was high (an "
                "access each) less those its we was (a write each), from the workload "
                "run's SAIF: the counts its access energy is charged for")


def access_counts(duties: dict, cycles: float) -> dict:
    """Reads and writes of each buffer's macros over a run of ``cycles`` simulated cycles
    (``access.duties`` of :func:`access_power`: duty x cycles, an access per cycle ``ce``
    is high): ``{buffer: {"macros": n, "reads": [...], "writes": [...]}}``, the buffer
    being the instance path above the macro (``act_buffer``), ``reads`` and ``writes``
    the distinct counts among its macros (one value when they are accessed together)."""
    out = {}
    for path, (d_read, d_write) in sorted(duties.items()):
        buffer = path.rsplit("/", 1)[0] if "/" in path else ""
        b = out.setdefault(buffer, {"macros": 0, "reads": set(), "writes": set()})
        b["macros"] += 1
        b["reads"].add(int(round(d_read * cycles)))
        b["writes"].add(int(round(d_write * cycles)))
    return {k: {"macros": v["macros"], "reads": sorted(v["reads"]),
                "writes": sorted(v["writes"])} for k, v in out.items()}
