"""Shared plotting helpers of every PNG the project writes: the figure, the bar chart and
the writer, and (imported from their modules, so that every user imports from here) the
style (:mod:`.plot_style`), the value axes (:mod:`.plot_scales`) and the labels
(:mod:`.plot_labels`).

Users: :mod:`termwise.gen.flows.reports.sim` (``termwise sim``: ``sim_cycles.png``,
``sim_speedup.png``, ``sim_total.png``, ``sim_stats.png``),
:mod:`termwise.gen.flows.reports.ppa` (``termwise report``), :mod:`termwise.gen.flows.tune.report`
(``tune_pareto.png``) and :mod:`termwise.gen.flows.reports.tradeoff` (``termwise tradeoff``:
``tradeoff.png``).

The rules, the same in every figure:

- **Axis scale.** A value axis is logarithmic when its positive values span more than
  :data:`LOG_SPAN` (10x), and its label then ends in ``"(log scale)"``; log ticks are plain
  numbers (``0.5, 1, 2, 5, 10, 20 ...``, ``10k``, ``1M``), not powers of ten.
- **Category labels never collide.** Bar charts are horizontal (one row per category,
  rows tall enough for their labels); per-layer axes get a figure width computed from the
  number of labels, and :func:`save` rotates or shrinks tick labels that still overlap
  after the final layout (checked on the rendered window extents,
  :func:`tick_label_overlaps`).
- **Point labels never collide.** A scatter's labels (:func:`label_points`) each take the
  first place around their point that meets no other label and no marker and is nearest
  its own point (:func:`point_label_overlaps`): designs of nearly equal area and speed
  sit side by side.
- **Titles** state the workload and the hardware (:func:`hardware_summary`).
- **Output.** Figures are plain :class:`matplotlib.figure.Figure` objects on an Agg canvas
  (no pyplot, no global backend switch), laid out by the constrained (tight) layout engine
  and saved at :data:`DPI` with a tight bounding box.

Matplotlib is imported inside the functions, so importing this module (and the report
modules that use it) stays cheap.
"""

from __future__ import annotations

from .plot_labels import (category_axis, category_figure_width, declutter_ticks,
                          label_points, point_label_overlaps, tick_label_overlaps)
from .plot_scales import (LOG_SPAN, nice_floor, positive_values, ratio_text, set_value_scale,
                          value_span, wants_log)
from .plot_style import DPI, FONT, design_styles, hardware_summary

__all__ = ["DPI", "FONT", "LOG_SPAN", "value_span", "wants_log", "set_value_scale",
           "design_styles", "new_figure", "category_axis", "category_figure_width",
           "hbar_chart", "ratio_text", "hardware_summary", "tick_label_overlaps",
           "label_points", "point_label_overlaps", "save"]


def new_figure(width: float, height: float, nrows: int = 1, ncols: int = 1, **kw):
    """A figure on an Agg canvas with the constrained (tight) layout.

    Parameters
    ----------
    width, height : float
        Size in inches.
    nrows, ncols : int
    **kw
        Passed to :meth:`matplotlib.figure.Figure.subplots` (``sharex`` ...).

    Returns
    -------
    (matplotlib.figure.Figure, axes)
        ``axes`` as :meth:`~matplotlib.figure.Figure.subplots` returns it.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    fig.get_layout_engine().set(h_pad=0.04, w_pad=0.04, hspace=0.04, wspace=0.04)
    return fig, fig.subplots(nrows, ncols, **kw)


def hbar_chart(categories, series: dict, *, xlabel: str, title: str = "",
               value_format="{:.2f}", reference: float | None = None,
               reference_label: str | None = None, styles: dict | None = None,
               width: float = 7.0, row_height: float = 0.17, threshold: float = LOG_SPAN):
    """Horizontal grouped bar chart with value annotations.

    Parameters
    ----------
    categories : sequence of str
        One group of bars per category, top to bottom in the given order; the labels sit
        on the y axis, one per row, so they never collide.
    series : dict
        ``label -> values`` (one value per category); one bar per series in each group.
    xlabel : str
        Value axis label (``" (log scale)"`` is appended by the span rule).
    title : str
    value_format : str or callable
        Format (``"{:.1f}"`` ...) or function (:func:`ratio_text` ...) of the annotation
        written at the end of each bar.
    reference : float or None
        Draw a vertical reference line at this value (e.g. 1.0 for speedups); on a log
        axis the bars start at the reference (a bar's length is then the log ratio, and
        values below the reference extend to the left).
    reference_label : str or None
        Legend text of the reference line.
    styles : dict or None
        ``series label -> {"color": ...}``.
    width, row_height : float
        Figure width and the height of one bar row, in inches.
    threshold : float
        Span rule of the value axis (:func:`wants_log`).

    Returns
    -------
    (matplotlib.figure.Figure, matplotlib.axes.Axes)
    """
    import numpy as np
    cats = [str(c) for c in categories]
    names = list(series)
    ns, nc = len(names), len(cats)
    height = max(2.5, 1.3 + (0.2 if title else 0) + nc * max(ns, 1) * row_height
                 + 0.15 * ns)
    fig, ax = new_figure(width, height)
    vals = [np.asarray(series[s], float) for s in names]
    log = set_value_scale(ax, vals + ([[reference]] if reference else []), xlabel, axis="x",
                          threshold=threshold)
    pos = positive_values(vals)
    hi = max(pos + ([reference] if reference else [])) if pos else 1.0
    lo = min(pos + ([reference] if reference else [])) if pos else 1.0
    left = nice_floor(lo / 1.4) if log else 0.0
    right = hi * 3.0 if log else hi * 1.16
    base = reference if (log and reference) else left
    text = value_format if callable(value_format) else value_format.format
    bar_h = 0.8 / max(ns, 1)
    y = np.arange(nc)
    for k, (s, v) in enumerate(zip(names, vals)):
        yk = y - 0.4 + bar_h * (k + 0.5)
        st = (styles or {}).get(s, {})
        bars = v if not log else np.where(v > 0, v, np.nan)
        ax.barh(yk, bars - base, bar_h * 0.92, left=base, label=s, color=st.get("color"),
                zorder=2)
        for yy, vv in zip(yk, v):
            if not np.isfinite(vv) or (log and vv <= 0):
                continue
            below = vv < base
            if log:
                xx = vv / 1.04 if below else vv * 1.04
            else:
                xx = vv + (-1 if below else 1) * 0.01 * (right - left)
            ax.text(xx, yy, text(vv), va="center", ha="right" if below else "left",
                    fontsize=FONT - 1)
    ax.set_xlim(left, right)
    ax.set_ylim(nc - 0.5, -0.5)
    ax.set_yticks(y, cats, fontsize=FONT)
    ax.tick_params(axis="x", labelsize=FONT)
    ax.grid(axis="x", which="major", alpha=0.3)
    ax.set_axisbelow(True)
    if reference is not None:
        ax.axvline(reference, color="black", lw=0.8, ls="--", label=reference_label, zorder=3)
    if ns > 1 or reference_label:
        ax.legend(fontsize=FONT, loc="lower right", framealpha=0.9)
    if title:
        ax.set_title(title, fontsize=FONT + 1)
    return fig, ax


def save(fig, path: str) -> str:
    """Lay out ``fig`` (no overlapping x tick labels) and write it as a PNG at :data:`DPI`.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A figure from :func:`new_figure` or :func:`hbar_chart`.
    path : str

    Returns
    -------
    str
        ``path``.
    """
    declutter_ticks(fig)
    fig.savefig(path, dpi=DPI, bbox_inches="tight", pad_inches=0.05)
    return path
