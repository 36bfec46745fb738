"""The power of a replicated module's instances from the levelised simulation's counts
(:mod:`.levelsim_groups`), computed one cell type of the module at a time for every
instance at once: what :func:`.compute.netlist_power` gives them on the fully flattened
tile, without a Python object per instance, cell, pin or name.

Why: a 16x16 Laconic tile's 1,024 PEs flattened (a leaf, a pin dictionary and names per
copy of every cell) were most of the report process's 15.2 GB; here a module's cells and
nets are flattened once and every figure is an array over its instances.

The formulas are :mod:`.compute`'s, term for term: a net's capacitance is its pins' plus
the wire load of its fanout (a net inside an instance: the module's own pins; a port net:
the tile's net, every instance's loads on it included), its switching power is charged to
its drivers in equal shares, an output pin's internal power weights its arcs by their
related inputs' toggle rates (equal weights when none toggles), an input pin's passive
tables are charged at its own rate, and leakage is per cell. The power is listed per
module definition and cell type (``cells``: how many instances of it, all copies).
"""

from __future__ import annotations

import numpy as np

from .compute import InstancePower
from .tables import in_range_array, lookup, lookup_array

__all__ = ["GroupPower"]


class GroupPower:
    """The ``groups`` argument of :func:`.compute.netlist_power` for one run of a
    :class:`.levelsim.LevelSim` with replicated modules.

    Parameters
    ----------
    sim : LevelSim
        The simulation (its groups and tile nets, whose roots are the flattening's the power
        is computed on).
    tc : ndarray
        The run's toggle counts (:meth:`.levelsim.LevelSim.activity` order).
    duration_s : float
        The run's simulated time.
    scale : float
        The assumed clock over the simulated one.
    lib : Library
        The liberty.

    After a call, :attr:`rate_sum` and :attr:`rate_nets` are the sum of the rates of the
    nets inside the instances and their number (the average activity's share).
    """

    def __init__(self, sim, tc: np.ndarray, duration_s: float, scale: float, lib):
        self.sim, self.tc, self.d, self.scale, self.lib = sim, tc, duration_s, scale, lib
        self.rate_sum, self.rate_nets = 0.0, 0

    def _rate(self, tc):
        return tc / self.d * self.scale          # the SAIF path's order: tc / d, then scaled

    def __call__(self, nets, slew: float, v2: float, wire_load):
        sim, lib = self.sim, self.lib
        shared_rate = self._rate(self.tc[:sim._shared].astype(float))
        # a constant's net is at rate 0 (as compute's: the simulation counts its first
        # settling from 0 to 1)
        shared_rate[[i for i, r in enumerate(sim.nets[:sim._shared]) if r[0] == "'"]] = 0.0
        off = sim._shared
        out: list[InstancePower] = []
        extrap = 0
        for g in sim.groups:
            ni = len(g.internal)
            tc = self.tc[off:off + ni * g.n].reshape(ni, g.n)
            off += ni * g.n
            rate, cap, ndrv = self._nets(g, tc, shared_rate, nets, wire_load)
            self.rate_sum += float(rate[g.internal].sum())
            self.rate_nets += ni * g.n
            ips, n_extrap = _cells_power(g, rate, cap, ndrv, lib, slew, v2)
            out += ips
            extrap += n_extrap
        return out, extrap

    def _nets(self, g, tc, shared_rate, nets, wire_load):
        """Per group net and instance: rate, capacitance, drivers."""
        lib = self.lib
        rate = np.zeros((g.size, g.n))
        cap = np.zeros((g.size, g.n))
        ndrv = np.ones((g.size, g.n))
        rate[g.internal] = self._rate(tc.astype(float))
        own_cap = np.zeros(g.size)
        fanout = np.zeros(g.size, dtype=np.int64)
        drivers = np.zeros(g.size, dtype=np.int64)
        for cell, pins in g.cells:
            for p, net in pins.items():
                lp = cell.pins[p]
                own_cap[net] += lp.capacitance
                if lp.direction == "input":
                    fanout[net] += 1
                else:
                    drivers[net] += 1
        inside = g.internal
        cap[inside] = (own_cap[inside] + np.array([wire_load(int(f)) for f in fanout[inside]],
                                                  dtype=float))[:, None]
        ndrv[inside] = np.maximum(drivers[inside], 1)[:, None]
        roots = self.sim.nets
        for rows, tile in ((g.in_g, g.in_v), (g.out_g, g.out_v)):
            for row, vs in zip(rows.tolist(), tile):
                rate[row] = shared_rate[vs]
                cap[row] = [nets.cap.get(roots[v], 0.0) for v in vs.tolist()]
                ndrv[row] = [max(1, _tile_drivers(nets, roots[v], lib)) for v in vs.tolist()]
        return rate, cap, ndrv


def _tile_drivers(nets, root, lib) -> int:
    """The drivers of a tile net: its leaves' output pins and the stubbed instances'."""
    return (sum(1 for lf, p in nets.pins.get(root, ())
                if lib.cells[lf.cell].pins[p].direction != "input")
            + nets.stub_drivers(root))


def _batches(g) -> dict:
    """The module's cells by cell type and connected pins: ``{(cell name, pins): (cell,
    {pin: group nets}, [holding module per cell])}``."""
    out: dict = {}
    for (cell, pins), lf in zip(g.cells, g.source.leaves):
        key = (cell.name, tuple(pins))
        b = out.get(key)
        if b is None:
            b = out[key] = (cell, {p: [] for p in pins}, [])
        for p, net in pins.items():
            b[1][p].append(net)
        b[2].append(lf.module)
    return out


def _cells_power(g, rate, cap, ndrv, lib, slew: float, v2: float):
    """The module's cells' power over every instance, per holding module and cell type:
    ``([InstancePower], lookups outside their tables' range)``."""
    u = lib.units
    sums: dict = {}
    extrap = 0
    for (name, _), (cell, pins, modules) in _batches(g).items():
        m = len(modules)
        G = {p: np.array(v, dtype=np.int64) for p, v in pins.items()}
        internal = np.zeros((m, g.n))
        switching = np.zeros((m, g.n))
        load = np.zeros((m, g.n))
        for p, nets in G.items():
            lp = cell.pins[p]
            r = rate[nets]
            if lp.direction == "input":
                for ig in lp.internal_power:
                    if ig.related_pin is not None:
                        continue
                    tabs = [t for t in (ig.rise, ig.fall) if t is not None]
                    extrap += m * g.n * sum(1 for t in tabs
                                            if not in_range_array(t, 0.0, slew))
                    if tabs:
                        e = sum(lookup(t, 0.0, slew) for t in tabs) / len(tabs)
                        internal += r * e * u.energy_j
                continue
            c = cap[nets]
            switching += 0.5 * c * u.capacitance_f * v2 * r / ndrv[nets]
            load += c
            arcs = [a for a in lp.internal_power if a.related_pin is not None]
            if not arcs:
                continue
            w = [rate[G[a.related_pin]] if a.related_pin in G else np.zeros((m, g.n))
                 for a in arcs]
            wsum = sum(w)
            idle = wsum <= 0
            if idle.any():
                w = [np.where(idle, 1.0, wi) for wi in w]
                wsum = np.where(idle, float(len(arcs)), wsum)
            e = np.zeros((m, g.n))
            for wi, a in zip(w, arcs):
                tabs = [t for t in (a.rise, a.fall) if t is not None]
                extrap += int(sum((~in_range_array(t, c, slew)).sum() for t in tabs))
                e += wi * sum(lookup_array(t, c, slew) for t in tabs) / len(tabs)
            internal += r * (e / wsum) * u.energy_j
        by_cell = (internal.sum(axis=1), switching.sum(axis=1), load.sum(axis=1))
        for j, module in enumerate(modules):
            s = sums.setdefault((module, name), [0, 0.0, 0.0, 0.0])
            s[0] += g.n
            s[1] += by_cell[0][j]
            s[2] += by_cell[1][j]
            s[3] += by_cell[2][j]
    out = []
    for (module, name), (n, internal_w, switching_w, load) in sums.items():
        out.append(InstancePower(f"{g.name}[{g.n} instances]/[{module}] {name} x{n}", name,
                                 module, leakage_w=n * lib.cells[name].leakage * u.leakage_w,
                                 internal_w=float(internal_w), switching_w=float(switching_w),
                                 load=float(load), cells=n))
    return out, extrap
