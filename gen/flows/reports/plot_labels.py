"""Labels that never collide: category tick labels (a figure width that gives each room,
rotation, and :func:`declutter_ticks` on the rendered extents after the final layout) and
scatter point labels placed where they meet no other label and no marker."""

from __future__ import annotations

import math

from .plot_style import FONT

__all__ = ["category_figure_width", "category_axis", "tick_label_overlaps", "label_points",
           "point_label_overlaps", "declutter_ticks"]


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


def declutter_ticks(fig) -> None:
    """Rotate, then shrink, x tick labels that overlap after the final layout.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        A figure with a canvas (drawn once per check, :func:`tick_label_overlaps`).
    """
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
