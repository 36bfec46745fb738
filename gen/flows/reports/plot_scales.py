"""Value axes by the span rule: logarithmic when the positive values span more than
:data:`LOG_SPAN`, with plain-number log ticks; and the text of a ratio (``3.07x``)."""

from __future__ import annotations

import math

__all__ = ["LOG_SPAN", "positive_values", "value_span", "wants_log", "set_value_scale",
           "nice_floor", "ratio_text"]

#: A value axis is logarithmic when max / min of its positive values exceeds this.
LOG_SPAN = 10.0


def positive_values(values) -> list[float]:
    """Finite positive floats of ``values`` (nested sequences flattened).

    Parameters
    ----------
    values : iterable of float or nested iterables
        Strings, non-numbers, zeros, negatives, NaN and infinities are skipped.

    Returns
    -------
    list of float
    """
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
    pos = positive_values(values)
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
        decades = math.log10(value_span(values)) if positive_values(values) else 1.0
        subs = (1.0, 2.0, 5.0) if decades <= 3.5 else (1.0,)
        a.set_major_locator(LogLocator(base=10, subs=subs))
        a.set_major_formatter(FuncFormatter(_tick_text))
        a.set_minor_formatter(NullFormatter())
        label = f"{label} (log scale)"
    (ax.set_xlabel if axis == "x" else ax.set_ylabel)(label)
    return log


def nice_floor(v: float) -> float:
    """Largest value of the 1-2-5 sequence at most ``v``: where a log axis starts.

    Parameters
    ----------
    v : float
        Positive.

    Returns
    -------
    float
        ``m * 10**e`` with ``m`` in 1, 2, 5.
    """
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
