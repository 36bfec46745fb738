"""Shared plotting helpers of every PNG the project writes.

Users: :mod:`termwise.gen.flows.reports.sim` (``termwise sim``: ``sim_cycles.png``,
``sim_speedup.png``, ``sim_total.png``, ``sim_stats.png``) and
:mod:`termwise.gen.flows.reports.tradeoff` (``termwise tradeoff``: ``tradeoff.png``).

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

import math

from ....golden.netsim.simulate import REFERENCE

__all__ = ["DPI", "FONT", "LOG_SPAN", "value_span", "wants_log", "set_value_scale",
           "design_styles", "new_figure", "category_axis", "category_figure_width",
           "hbar_chart", "ratio_text", "hardware_summary", "tick_label_overlaps",
           "label_points", "point_label_overlaps", "save"]

#: Resolution of every PNG.
DPI = 150
#: Base font size (points) of ticks, legends and annotations.
FONT = 8
#: A value axis is logarithmic when max / min of its positive values exceeds this.
LOG_SPAN = 10.0

# Colour-blind-safe Tableau 10; the baseline (the reference) is drawn in black.
_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")
_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "h", "*", "p")
_LINESTYLES = ("-", "--", "-.", ":")


def _positive(values):
    """Finite positive floats of ``values`` (nested sequences flattened)."""
    out = []
    stack = [values]
    while stack:
        v = stack.pop()
        if isinstance(v, (str, bytes)):
            continue
        if hasattr(v, "__iter__"):
            stack.extend(v)
            continue
        try:
            f = float(v)
        except (TypeError, ValueError):
            continue
        if math.isfinite(f) and f > 0:
            out.append(f)
    return out


def value_span(values) -> float:
    """Ratio max / min of the finite positive values.

    Parameters
    ----------
    values : iterable of float or nested iterables
        The plotted values; zeros, negatives, NaN and infinities are ignored.

    Returns
    -------
    float
        ``max / min``, or 1.0 when fewer than one positive value is present.
    """
    pos = _positive(values)
    return max(pos) / min(pos) if pos else 1.0


def wants_log(values, threshold: float = LOG_SPAN) -> bool:
    """Whether an axis of ``values`` should be logarithmic.

    Parameters
    ----------
    values : iterable of float or nested iterables
        The plotted values (all series of the axis).
    threshold : float
        Span (max / min of the positive values) above which the axis is logarithmic.

    Returns
    -------
    bool
        True when :func:`value_span` exceeds ``threshold``.

    Examples
    --------
    >>> wants_log([354.0, 1.2])
    True
    >>> wants_log([1.0, 2.0, 3.0])
    False
    """
    return value_span(values) > threshold


def _tick_text(v, _pos=None) -> str:
    if not math.isfinite(v) or v <= 0:
        return ""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= div:
            return f"{v / div:g}{suffix}"
    return f"{v:g}"


def set_value_scale(ax, values, label: str, axis: str = "y", threshold: float = LOG_SPAN,
                    scale: str | None = None) -> bool:
    """Set the scale and label of a value axis by the span rule.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    values : iterable of float or nested iterables
        Every value plotted on this axis.
    label : str
        Axis label; ``" (log scale)"`` is appended when the axis is logarithmic.
    axis : {"x", "y"}
    threshold : float
        See :func:`wants_log`.
    scale : {"log", "linear"} or None
        Force a scale (e.g. a fraction bounded by [0, 1]); None applies the rule.

    Returns
    -------
    bool
        True when the axis is logarithmic.
    """
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    log = wants_log(values, threshold) if scale is None else scale == "log"
    a = ax.xaxis if axis == "x" else ax.yaxis
    if log:
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
        decades = math.log10(value_span(values)) if _positive(values) else 1.0
        subs = (1.0, 2.0, 5.0) if decades <= 3.5 else (1.0,)
        a.set_major_locator(LogLocator(base=10, subs=subs))
        a.set_major_formatter(FuncFormatter(_tick_text))
        a.set_minor_formatter(NullFormatter())
        label = f"{label} (log scale)"
    (ax.set_xlabel if axis == "x" else ax.set_ylabel)(label)
    return log


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


def _text_width_in(label: str, fontsize: float) -> float:
    """Rough width of ``label`` in inches (average glyph 0.6 em)."""
    return len(label) * fontsize * 0.6 / 72


def category_figure_width(labels, fontsize: float = FONT, extra: float = 2.6,
                          minimum: float = 6.5) -> float:
    """Figure width (inches) that gives every category of an x axis room for its label.

    Parameters
    ----------
    labels : sequence of str
        The categories (e.g. layer names).
    fontsize : float
        Tick label size in points.
    extra : float
        Inches for the y label, ticks and an outside legend.
    minimum : float

    Returns
    -------
    float
        ``extra`` plus, per label, its width (horizontal labels) when the labels are few
        and short, else 1.6 line heights (labels rotated by 90 degrees).
    """
    n = max(1, len(labels))
    longest = max((_text_width_in(str(s), fontsize) for s in labels), default=0.0)
    slot = min(longest * 1.25, 1.2) if n <= 8 else 1.6 * fontsize / 72
    return max(minimum, extra + n * slot)


def category_axis(ax, labels, fontsize: float = FONT):
    """Categorical x ticks: horizontal labels when they fit their slot, else rotated 90.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    labels : sequence of str
        One label per x position ``0 .. n-1``.
    fontsize : float

    Notes
    -----
    The choice uses an estimate of the label widths; :func:`save` checks the rendered
    extents after the final layout and rotates or shrinks labels that still overlap.
    """
    labels = [str(s) for s in labels]
    n = len(labels)
    fig = ax.get_figure()
    pos = ax.get_position()
    slot = fig.get_figwidth() * pos.width / max(1, n)
    longest = max((_text_width_in(s, fontsize) for s in labels), default=0.0)
    rot = 0 if longest <= 0.85 * slot else 90
    ax.set_xticks(range(n), labels, fontsize=fontsize, rotation=rot)
    ax.set_xlim(-0.5, n - 0.5)


def _nice_floor(v: float) -> float:
    """Largest value of the 1-2-5 sequence at most ``v`` (``v > 0``)."""
    e = math.floor(math.log10(v))
    for m in (5, 2, 1):
        if m * 10 ** e <= v:
            return m * 10 ** e
    return 10 ** e


def ratio_text(v: float) -> str:
    """A speedup as text with three significant digits at most: ``0.88x``, ``3.07x``,
    ``11.9x``, ``354x``.

    Parameters
    ----------
    v : float

    Returns
    -------
    str
    """
    if not math.isfinite(v):
        return f"{v}"
    nd = 2 if abs(v) < 10 else 1 if abs(v) < 100 else 0
    return f"{v:.{nd}f}x"


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
    pos = _positive(vals)
    hi = max(pos + ([reference] if reference else [])) if pos else 1.0
    lo = min(pos + ([reference] if reference else [])) if pos else 1.0
    left = _nice_floor(lo / 1.4) if log else 0.0
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


def tick_label_overlaps(ax, which: str = "x") -> list[tuple[int, int]]:
    """Pairs of tick labels of ``ax`` whose rendered window extents intersect.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        An axes of a figure with a canvas (draws the figure once).
    which : {"x", "y"}

    Returns
    -------
    list of (int, int)
        Indices (into the visible, non-empty labels) of every overlapping pair.
    """
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    labels = ax.get_xticklabels() if which == "x" else ax.get_yticklabels()
    lo, hi = (ax.get_xlim() if which == "x" else ax.get_ylim())
    lo, hi = min(lo, hi), max(lo, hi)
    boxes = []
    for t in labels:
        p = t.get_position()[0 if which == "x" else 1]
        if t.get_visible() and t.get_text() and lo <= p <= hi:
            boxes.append(t.get_window_extent(renderer))
    return [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes))
            if boxes[i].overlaps(boxes[j])]


#: Where :func:`label_points` tries a label, in order: (dx, dy) points from its point and
#: the label's alignment; each ring again at twice and three times the distance.
_LABEL_PLACES = ((4, 3, "left", "bottom"), (4, -3, "left", "top"),
                 (-4, 3, "right", "bottom"), (-4, -3, "right", "top"),
                 (0, 6, "center", "bottom"), (0, -6, "center", "top"),
                 (7, 0, "left", "center"), (-7, 0, "right", "center"))
#: Half the side of the box counted as a point's marker (points): a scatter marker of
#: ``s=28`` is about 5.3 points across.
_MARKER_HALF_PT = 3.0


def _marker_boxes(ax, points, renderer):
    from matplotlib.transforms import Bbox
    half = _MARKER_HALF_PT * renderer.points_to_pixels(1.0)
    out = []
    for x, y in points:
        px, py = ax.transData.transform((x, y))
        out.append(Bbox([[px - half, py - half], [px + half, py + half]]))
    return out


def point_label_overlaps(ax, labels, points) -> list[tuple[str, str]]:
    """Collisions of point labels with each other and with the markers of ``points``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        An axes of a figure with a canvas (draws the figure once).
    labels : list of matplotlib.text.Annotation
        One label per point, in the order of ``points``.
    points : list of (float, float)
        The labelled points, in data coordinates.

    Returns
    -------
    list of (str, str)
        ``(label, label)`` for two labels whose boxes intersect, ``(label, "marker of
        " + other)`` for a label over another point's marker and ``(label, "nearer to " +
        other)`` for a label nearer to another point's marker than to its own.
    """
    fig = ax.figure
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(r) for t in labels]
    marks = _marker_boxes(ax, points, r)
    names = [t.get_text() for t in labels]
    out = [(names[i], names[j]) for i in range(len(boxes)) for j in range(i + 1, len(boxes))
           if boxes[i].overlaps(boxes[j])]
    out += [(names[i], "marker of " + names[j]) for i in range(len(boxes))
            for j in range(len(marks)) if i != j and boxes[i].overlaps(marks[j])]
    out += [(names[i], "nearer to " + names[j]) for i in range(len(boxes))
            for j in _nearer_points(boxes[i], i, marks)]
    return out


def _gap(box, mark) -> float:
    """Distance (pixels) between a label's box and a marker's box (0 when they touch)."""
    dx = max(mark.x0 - box.x1, box.x0 - mark.x1, 0.0)
    dy = max(mark.y0 - box.y1, box.y0 - mark.y1, 0.0)
    return math.hypot(dx, dy)


def _nearer_points(box, own: int, marks) -> list[int]:
    """The points whose markers are nearer to ``box`` than its own point's: a reader would
    read the label as theirs."""
    mine = _gap(box, marks[own])
    return [j for j, m in enumerate(marks) if j != own and _gap(box, m) < mine]


def label_points(ax, points, texts, fontsize: float = FONT - 1) -> list:
    """Label each point of a scatter with its text where it collides with nothing.

    Each label takes the first place of :data:`_LABEL_PLACES` (nearest ring first) whose
    box stays inside the axes, meets neither an earlier label nor any point's marker, and
    is nearer to its own point than to any other (else it reads as the other's); when no
    place is free it takes the one with the least overlap. The places are chosen on
    the drawn figure and chosen again once the layout has settled (labels take part in the
    constrained layout, which can move the axes).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        An axes whose scales and limits are final.
    points : list of (float, float)
        Data coordinates.
    texts : list of str
    fontsize : float

    Returns
    -------
    list of matplotlib.text.Annotation
        One per point, in order.
    """
    fig = ax.figure
    labels = [ax.annotate(t, p, textcoords="offset points", xytext=(4, 3), fontsize=fontsize)
              for p, t in zip(points, texts)]
    places = [(k * dx, k * dy, ha, va) for k in (1, 2, 3) for dx, dy, ha, va in _LABEL_PLACES]
    for _ in range(3):
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        frame = ax.get_window_extent(r)
        marks = _marker_boxes(ax, points, r)
        placed = []
        for i, label in enumerate(labels):
            best = None
            for dx, dy, ha, va in places:
                label.set_position((dx, dy))
                label.set_horizontalalignment(ha)
                label.set_verticalalignment(va)
                box = label.get_window_extent(r)
                hits = sum(box.overlaps(b) for b in placed)
                hits += sum(box.overlaps(m) for j, m in enumerate(marks) if j != i)
                nearer = len(_nearer_points(box, i, marks))
                outside = not (frame.x0 <= box.x0 and box.x1 <= frame.x1
                               and frame.y0 <= box.y0 and box.y1 <= frame.y1)
                cost = (hits, nearer, outside)
                if best is None or cost < best[0]:
                    best = (cost, (dx, dy, ha, va), box)
                if cost == (0, 0, False):
                    break
            (dx, dy, ha, va), box = best[1], best[2]
            label.set_position((dx, dy))
            label.set_horizontalalignment(ha)
            label.set_verticalalignment(va)
            placed.append(box)
        if not point_label_overlaps(ax, labels, points):
            break
    return labels


def _declutter(fig):
    """Rotate, then shrink, x tick labels that overlap after the final layout."""
    for ax in fig.axes:
        if not ax.get_xticklabels() or not any(t.get_visible() and t.get_text()
                                                for t in ax.get_xticklabels()):
            continue
        for _ in range(6):
            if not tick_label_overlaps(ax, "x"):
                break
            ts = ax.get_xticklabels()
            if ts[0].get_rotation() != 90:
                ax.tick_params(axis="x", labelrotation=90)
            else:
                size = ts[0].get_fontsize()
                if size <= 4:
                    break
                ax.tick_params(axis="x", labelsize=size - 1)


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
    _declutter(fig)
    fig.savefig(path, dpi=DPI, bbox_inches="tight", pad_inches=0.05)
    return path
