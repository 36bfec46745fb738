"""The liberty's lookup tables as the power flow reads them: the internal-power energy of a
cell pin against output load and input transition, interpolated linearly and extrapolated
past the ends as OpenSTA does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Table", "lookup", "lookup_array", "in_range_array"]


@dataclass
class Table:
    """A lookup table: ``values[i][j]`` at ``index_1[i]``, ``index_2[j]``; ``variables`` are
    the template's ``variable_1/2`` names (a 1-D table has one index and one variable)."""
    variables: tuple[str, ...]
    index: tuple[tuple[float, ...], ...]
    values: tuple[tuple[float, ...], ...]     # 1-D tables: one row

    def at(self, **by_variable: float) -> float:
        """Value at the given variables (``total_output_net_capacitance=...``,
        ``input_transition_time=...``), linearly interpolated, and extrapolated past the
        ends, as OpenSTA does."""
        xs = []
        for v in self.variables:
            if v not in by_variable:
                raise KeyError(f"table needs {v}")
            xs.append(by_variable[v])
        if len(self.variables) == 1:
            return _interp1(self.index[0], self.values[0], xs[0])
        rows = [_interp1(self.index[1], row, xs[1]) for row in self.values]
        return _interp1(self.index[0], rows, xs[0])

    def in_range(self, **by_variable: float) -> bool:
        """Whether every variable lies within its index (no extrapolation)."""
        return all(ix[0] <= by_variable[v] <= ix[-1]
                   for v, ix in zip(self.variables, self.index))


def _interp1(xs, ys, x: float) -> float:
    """``ys`` at ``x`` on the piecewise-linear curve through ``xs``, extended past the ends
    along the first and last segments."""
    if len(xs) == 1:
        return ys[0]
    k = 0
    while k < len(xs) - 2 and x > xs[k + 1]:
        k += 1
    x0, x1, y0, y1 = xs[k], xs[k + 1], ys[k], ys[k + 1]
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


def lookup(table: Table, load: float, slew: float) -> float:
    """A power table at ``load`` (capacitance unit) and ``slew`` (time unit), whichever of
    them the table's template names."""
    args = {}
    for v in table.variables:
        if v == "total_output_net_capacitance":
            args[v] = load
        elif v in ("input_transition_time", "input_net_transition", "related_pin_transition"):
            args[v] = slew
        else:
            raise KeyError(f"unsupported power table variable {v}")
    return table.at(**args)


def _interp1_array(xs, ys, x):
    """:func:`_interp1` elementwise: ``x`` an array (``ys`` scalars) or ``ys`` arrays
    (``x`` a scalar)."""
    if len(xs) == 1:
        return ys[0] + 0.0 * np.asarray(x)
    if np.ndim(x) == 0:
        return _interp1(xs, ys, float(x))
    k = np.searchsorted(np.asarray(xs[1:-1], dtype=float), x, side="left")
    xa, ya = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    x0, x1, y0, y1 = xa[k], xa[k + 1], ya[k], ya[k + 1]
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


def lookup_array(table: Table, loads: np.ndarray, slew: float) -> np.ndarray:
    """:func:`lookup` at every load of ``loads`` (an array), one ``slew``."""
    loads = np.asarray(loads, dtype=float)
    xs = []
    for v in table.variables:
        if v == "total_output_net_capacitance":
            xs.append(loads)
        elif v in ("input_transition_time", "input_net_transition", "related_pin_transition"):
            xs.append(slew)
        else:
            raise KeyError(f"unsupported power table variable {v}")
    if len(xs) == 1:
        return _interp1_array(table.index[0], table.values[0], xs[0]) + 0.0 * loads
    rows = [_interp1_array(table.index[1], row, xs[1]) for row in table.values]
    return _interp1_array(table.index[0], rows, xs[0]) + 0.0 * loads


def in_range_array(table: Table, loads: np.ndarray, slew: float) -> np.ndarray:
    """:meth:`Table.in_range` at every load of ``loads``, one ``slew``."""
    ok = np.ones(np.shape(loads), dtype=bool)
    for v, ix in zip(table.variables, table.index):
        x = loads if v == "total_output_net_capacitance" else slew
        ok &= (ix[0] <= x) & (x <= ix[-1])
    return ok
