"""The look every figure shares: resolution, font size, one style per design, and the
hardware the title states (the rules: :mod:`termwise.gen.flows.reports.plots`)."""

from __future__ import annotations

from ....golden.netsim.presets import REFERENCE

__all__ = ["DPI", "FONT", "design_styles", "hardware_summary"]

#: Resolution of every PNG.
DPI = 150
#: Base font size (points) of ticks, legends and annotations.
FONT = 8

# Colour-blind-safe Tableau 10; the baseline (the reference) is drawn in black.
_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")
_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "h", "*", "p")
_LINESTYLES = ("-", "--", "-.", ":")


def design_styles(names) -> dict:
    """One distinct line style per design, stable for a given list of names.

    Parameters
    ----------
    names : sequence of str
        Every design of the report, in report order (pass the same full list to every
        figure so a design keeps its colour across figures).

    Returns
    -------
    dict
        ``name -> {"color", "marker", "linestyle"}`` (plus ``"zorder"`` for the baseline);
        ``"baseline"`` is black and drawn on top, the others take the Tableau 10 colours in
        order, then repeat them with another line style.
    """
    out = {}
    i = 0
    for k, n in enumerate(names):
        if n == REFERENCE:
            out[n] = {"color": "black", "marker": "o", "linestyle": "-", "zorder": 3}
            continue
        out[n] = {"color": _COLORS[i % len(_COLORS)], "marker": _MARKERS[k % len(_MARKERS)],
                  "linestyle": _LINESTYLES[(i // len(_COLORS)) % len(_LINESTYLES)]}
        i += 1
    return out


def hardware_summary(designs: dict | None, data_bits=None) -> str:
    """Precision and throughput of the simulated hardware, for a title.

    Parameters
    ----------
    designs : dict or None
        ``name -> {"config": {"act_bits", "wgt_bits", ...}, "peak_macs_per_cycle_<b>b"}``
        (the ``designs`` entry of ``sim.json`` / ``tradeoff.json``; the peak at the
        hardware's width ``b``, e.g. ``peak_macs_per_cycle_8b`` on 8-bit hardware); missing
        keys are skipped.
    data_bits : int or None
        Fixed-point width of the workload's values.

    Returns
    -------
    str
        E.g. ``"8-bit values, 8-bit hardware, equal peak 256 MAC/cycle"``.
    """
    parts = []
    if data_bits is not None:
        parts.append(f"{data_bits}-bit values")
    cfgs = [d["config"] for d in (designs or {}).values()
            if isinstance(d, dict) and isinstance(d.get("config"), dict)]
    widths = sorted({(c.get("act_bits"), c.get("wgt_bits")) for c in cfgs} - {(None, None)})
    if widths:
        txt = "/".join(f"{a}" if a == w else f"{a}x{w}" for a, w in widths)
        parts.append(f"{txt}-bit hardware")
    peaks = sorted({float(v) for d in (designs or {}).values() if isinstance(d, dict)
                    for k, v in d.items() if k.startswith("peak_macs_per_cycle") and v})
    if len(peaks) == 1:
        parts.append(f"equal peak {peaks[0]:g} MAC/cycle")
    elif peaks:
        parts.append(f"peak {peaks[0]:g}-{peaks[-1]:g} MAC/cycle")
    return ", ".join(parts)
