"""The power flow's runs on the levelised simulation (``termwise power --simulator
levelsim``): the same runs as the Verilated model's (the tile-run harness,
:mod:`.tile_driver`), the activity handed on in the SAIF's form, so that everything after
the simulation (rates, macro accesses, power, phases) is the Verilator path's.

Why: the gate-level model's build is most of a 16x16 tile's power run and all of its
memory peak (loom-16x16-8b: 16 minutes, 10.6 GB); the levelised simulation has no build,
and on baseline-4x4 with macros and gating its counts equal the model's SAIF net by net
(tests/synth/test_power_tile_driver.py). It simulates the whole tile at gate level: the
sampled method's mixed model (RTL instances) is Verilator's alone.
"""

from __future__ import annotations

import time

__all__ = ["SIMULATORS", "LEVELSIM_VERSION", "HOW", "record", "name_in", "LevelSimRunner"]

#: The levelised simulation's version, in its reports' keys (bump when the same inputs
#: would simulate, or their power compute, differently). 2: the replicated modules
#: flattened once and their power computed from the counts (group_power.py); the power
#: computed on the simulation's own flattening, which joins nets through escaped port
#: names (baseline-4x4 with macros and gating: 0.07 mW of port switching charged to the
#: drivers, synth/netlist.py).
LEVELSIM_VERSION = 2

#: The report's words for the simulator.
HOW = ("the gate-level netlist simulated by termwise's levelised NumPy simulation "
       "(synth/power/levelsim.py: zero-delay, two-state, two phases a cycle, as the "
       "Verilated model; equal to its SAIF net by net on baseline-4x4; the instances of a "
       "replicated module bit-sliced from one flattening of the module, each net still "
       "counted per instance: levelsim_groups.py; their power computed from those counts "
       "for every instance at once, equal to the flat computation's: group_power.py), "
       "driven by the tile-run harness in Python (synth/power/tile_driver.py)")

#: ``--simulator`` choices: the Verilated gate-level model (default) or the levelised
#: NumPy simulation.
SIMULATORS = ("verilator", "levelsim")


def record() -> dict:
    """The power report's ``simulator`` record."""
    return {"name": "levelsim", "version": LEVELSIM_VERSION, "how": HOW}


def name_in(report: dict) -> None:
    """Mark a power report as the levelised simulation's: its ``simulator`` record and its
    ``activity_source.simulator`` words."""
    report["simulator"] = record()
    report["activity_source"]["simulator"] = HOW


class LevelSimRunner:
    """Runs of a tile's wrapper netlist on one :class:`.levelsim.LevelSim` (reset before
    each run), returning ``(stats, saif)`` as the model's run and SAIF read would.

    Parameters
    ----------
    cfg, man
        The tile and its manifest (ports, command layout).
    netlist, top : str
        The gate-level netlist and its top (the wrapper).
    lib : Library
        The liberty with the macros' cells (:func:`.macro_power.setup`'s ``lib``).
    verilog : str
        The tile's emitted Verilog (the macros' shapes).
    half_ps : int
        Half a simulated clock period in the SAIF's timescale (1 ps).
    """

    def __init__(self, cfg, man: dict, netlist: str, top: str, lib, verilog: str,
                 half_ps: int):
        from ..macros import macro_shapes
        from ..netlist import parse_netlist
        from .compute import Flat
        from .levelsim import LevelSim
        from .levelsim_groups import flatten_grouped
        from .tile_driver import WATCHED, input_keys
        t0 = time.monotonic()
        self.cfg, self.man, self.top, self.half, self.lib = cfg, man, top, half_ps, lib
        mods = {m.name: m for m in parse_netlist(netlist, escaped_pins=True)}
        present = {p["name"] for p in man["ports"]}
        shapes = {name: (words, width) for name, words, width in macro_shapes(verilog)}
        leaves, uf, self.names, stubs, sources = flatten_grouped(mods, top, lib, shapes)
        del mods
        self.groups = [(s.name, s.paths) for s in sources]
        self.sim = LevelSim(leaves, uf, lib, input_keys(man["ports"]),
                            ((), "clk", 0), [((), n, 0) for n in WATCHED if n in present],
                            shapes, sources)
        #: the flattening the power is computed on (the replicated modules' instances
        #: stubs, their power :meth:`group_power`'s): the simulation's own
        self.flat = Flat.of(leaves, uf, self.names, stubs)
        # a cell pin's alias is not a name Verilator's SAIF has (the cell models are not
        # traced): only the wires of every level are handed on
        self._cell_paths = {lf.path for lf in leaves}
        self._tc = None
        self.build_s = round(time.monotonic() - t0, 1)

    def __call__(self, run_dir: str, cycles: int, seed: int, stimulus: str | None = None,
                 idle: bool = False):
        """One run (as :func:`.measure.run_model`'s arguments): ``(stats, saif)``."""
        import os
        from .stimulus import read_stimulus
        from .tile_driver import drive, tile_runs
        runs = None if stimulus is None else \
            read_stimulus(os.path.join(run_dir, stimulus))["runs"]
        self.sim.reset()
        stats = drive(self.sim, self.man["ports"], tile_runs(self.cfg, self.man, runs, idle),
                      cycles, seed)
        return stats, self.saif()

    def saif(self):
        """The activity of the tile's nets (those outside the replicated modules'
        instances, whose power is :meth:`group_power`'s) so far as a :class:`.saif.Saif`
        under ``TOP/<top>``."""
        from .saif import NetActivity, Saif
        act = self.sim.activity()
        self._tc = act.tc
        h, dur = self.half, act.halves * self.half
        nets: dict = {}
        prefix = f"TOP/{self.top}/"
        cells = self._cell_paths
        for i, root in enumerate(self.sim.nets[:self.sim._shared]):
            aliases = [n for n in self.names.get(root, ())
                       if "/" not in n or n.rsplit("/", 1)[0] not in cells]
            if not aliases:
                continue
            t1 = int(act.t1[i]) * h
            a = NetActivity(t0=dur - t1, t1=t1, tc=int(act.tc[i]))
            for n in aliases:
                nets[prefix + n] = a
        return Saif(duration=dur, timescale_s=1e-12, divider="/", nets=nets)

    def group_power(self, saif, scale: float):
        """The replicated modules' power in the run :meth:`saif` last described
        (:class:`.group_power.GroupPower`, for :func:`.compute.netlist_power`'s
        ``groups``), rates times ``scale``."""
        from .group_power import GroupPower
        return GroupPower(self.sim, self._tc, saif.duration_s, scale, self.lib)
