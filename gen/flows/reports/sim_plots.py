"""The PNG figures of ``termwise sim``: sim_cycles.png, sim_speedup.png, sim_total.png and
sim_stats.png, one function each (the axis, label and title rules of
:mod:`termwise.gen.flows.reports.plots`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ....golden.netsim.presets import REFERENCE

__all__ = ["plot_title", "write_plots"]


def plot_title(doc) -> str:
    """Workload and hardware of a sim document, for the figure titles: e.g.
    ``"digits-cnn, 8-bit values, 8-bit hardware, equal peak 256 MAC/cycle, position bricks,
    speedups over baseline-16x16-8b"`` (the brick order and the reference when the document
    records them)."""
    from .plots import hardware_summary
    syn = " (synthetic values)" if doc.get("synthetic") else ""
    hw = hardware_summary(doc.get("designs"), doc.get("precision"))
    ref = doc.get("reference")
    order = f", {doc['brick_order']} bricks" if doc.get("brick_order") else ""
    over = f", speedups over {ref['preset']}" if isinstance(ref, dict) and \
        ref.get("preset") else ""
    return f"{doc['workload']}{syn}" + (f", {hw}" if hw else "") + order + over


@dataclass
class _Figures:
    """What the figures of one document share: the layer axis, the title, one style per
    design, and the paths written so far."""
    out_dir: str
    doc: dict
    archs: list
    names: list = field(init=False)
    x: np.ndarray = field(init=False)
    title: str = field(init=False)
    styles: dict = field(init=False)
    width: float = field(init=False)
    ms: float = field(init=False)
    paths: list = field(default_factory=list)

    def __post_init__(self):
        from . import plots as P
        self.names = [r["name"] for r in self.doc["layers"]]
        self.x = np.arange(len(self.names))
        self.title = plot_title(self.doc)
        self.styles = P.design_styles(self.archs)
        self.width = P.category_figure_width(self.names)
        # Smaller markers on a long network, so that neighbouring layers' points stay apart.
        self.ms = 4 if len(self.names) <= 20 else 2.5

    def per_layer(self, key, designs) -> dict:
        """``design -> array`` of ``key`` of every layer."""
        return {a: np.array([r["designs"][a][key] for r in self.doc["layers"]], float)
                for a in designs}

    def save(self, fig, name) -> None:
        from . import plots as P
        self.paths.append(P.save(fig, os.path.join(self.out_dir, name)))

    def lines(self, ax, series, style=None) -> None:
        """One line per series over the layers, in ``style`` (default the designs')."""
        from . import plots as P
        for lab, v in series.items():
            ax.plot(self.x, v, label=lab,
                    **{"lw": 1.1, "ms": self.ms, **(style or self.styles)[lab]})
        ax.grid(alpha=0.3)
        ax.margins(y=0.08)
        ax.tick_params(labelsize=P.FONT)

    def layer_axis(self, ax) -> None:
        """The layer names on the bottom axis."""
        from . import plots as P
        P.category_axis(ax, self.names)
        ax.set_xlabel("layer", fontsize=P.FONT + 1)


def _legend(ax, **kw) -> None:
    """A legend outside the axes, on the right: the lines stay clear of it."""
    from .plots import FONT
    ax.legend(fontsize=FONT, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
              **kw)


def _others(archs) -> list:
    """The designs a speedup is drawn for: all but the reference (all when only it ran)."""
    return [a for a in archs if a != REFERENCE] or list(archs)


def _cycles_figure(f: _Figures) -> None:
    """Cycles per layer, every design (the baseline in black)."""
    from . import plots as P
    fig, ax = P.new_figure(f.width, 4.0)
    cyc = f.per_layer("cycles", f.archs)
    f.lines(ax, cyc)
    P.set_value_scale(ax, list(cyc.values()), "steady-state cycles")
    f.layer_axis(ax)
    _legend(ax)
    fig.suptitle(f"Cycles per layer\n{f.title}", fontsize=P.FONT + 1)
    f.save(fig, "sim_cycles.png")


def _speedup_figure(f: _Figures) -> None:
    """Speedup, ideal speedup and achieved / ideal per layer: one panel each."""
    from . import plots as P
    others = _others(f.archs)
    fig, axes = P.new_figure(f.width, 8.2, 3, 1, sharex=True)
    for key, ax, lab in zip(("speedup", "ideal", "achieved_over_ideal"), axes,
                            ("speedup over baseline", "ideal (potential) speedup",
                             "achieved / ideal")):
        v = f.per_layer(key, others)
        f.lines(ax, v)
        ax.axhline(1.0, color="black", lw=0.8, ls="--", zorder=1,
                   label="1 = baseline (bottom panel: ideal)" if key == "speedup" else None)
        P.set_value_scale(ax, list(v.values()) + [[1.0]], lab)
        ax.yaxis.label.set_fontsize(P.FONT + 1)
    _legend(axes[0])
    f.layer_axis(axes[-1])
    fig.suptitle(f"Speedup per layer over the bit-parallel baseline\n{f.title}",
                 fontsize=P.FONT + 1)
    f.save(fig, "sim_speedup.png")


def _total_figure(f: _Figures) -> None:
    """Network total: achieved and ideal speedup per design, horizontal bars."""
    from . import plots as P
    others = _others(f.archs)
    total = f.doc["total"]
    fig, ax = P.hbar_chart(
        others, {"achieved (cycles)": [total[a]["speedup"] for a in others],
                 "ideal (potential)": [total[a]["ideal"] for a in others]},
        xlabel="network speedup over the bit-parallel baseline", value_format=P.ratio_text,
        reference=1.0, reference_label="baseline (1x)",
        styles={"achieved (cycles)": {"color": "#1f77b4"},
                "ideal (potential)": {"color": "#ff7f0e"}})
    fig.suptitle(f"Network total speedup\n{f.title}", fontsize=P.FONT + 1)
    f.save(fig, "sim_total.png")


def _precision_series(f: _Figures, st: dict) -> tuple[dict, dict]:
    """The bits panel of sim_stats.png: ``(label -> values, label -> style)``: the lossless
    activation precision, the runtime precisions of Stripes and Loom when they ran, the
    mean group precision."""
    bits = {"activation precision (lossless)": st["act_precision"]}
    sty = {"activation precision (lossless)": {"color": "#1f77b4", "marker": "o",
                                               "linestyle": "-", "mfc": "none", "ms": 7}}
    for a, k, lab, c in (("stripes", "precision", "Stripes runtime act precision", "#d62728"),
                         ("loom", "wgt_precision", "Loom runtime wgt precision", "#2ca02c")):
        if a in f.archs:
            bits[lab] = np.array([r["designs"][a]["rt"].get(k, np.nan)
                                  for r in f.doc["layers"]], float)
            sty[lab] = {"color": c, "marker": "x", "linestyle": "--"}
    bits["activation group precision (16 lanes, mean)"] = st["act_group_precision_mean"]
    sty["activation group precision (16 lanes, mean)"] = {"color": "#9467bd", "marker": "^",
                                                          "linestyle": "-."}
    return bits, sty


def _stats_figure(f: _Figures) -> None:
    """Value statistics per layer: zero fractions, precisions, terms per value."""
    from . import plots as P
    layers = f.doc["layers"]
    fig, axes = P.new_figure(f.width, 8.2, 3, 1, sharex=True)
    st = {k: np.array([r["stats"][k] for r in layers], float)
          for k in layers[0]["stats"]} if layers else {}
    sty = {"activation zeros": {"color": "#1f77b4", "marker": "o", "linestyle": "-"},
           "weight zeros": {"color": "#ff7f0e", "marker": "s", "linestyle": "-"}}
    zeros = {"activation zeros": st["act_zero_fraction"],
             "weight zeros": st["wgt_zero_fraction"]}
    f.lines(axes[0], zeros, sty)
    P.set_value_scale(axes[0], list(zeros.values()), "zero fraction", scale="linear")
    axes[0].set_ylim(0, 1)
    bits, sty = _precision_series(f, st)
    f.lines(axes[1], bits, sty)
    if not P.set_value_scale(axes[1], list(bits.values()), "bits"):
        from matplotlib.ticker import MaxNLocator
        axes[1].yaxis.set_major_locator(MaxNLocator(integer=True))
    terms = {"activation essential bits": st["act_essential_bits_mean"],
             "activation Booth terms": st["act_booth_terms_mean"],
             "weight Booth terms": st["wgt_booth_terms_mean"]}
    sty = {"activation essential bits": {"color": "#1f77b4", "marker": "o", "linestyle": "-"},
           "activation Booth terms": {"color": "#ff7f0e", "marker": "s", "linestyle": "--"},
           "weight Booth terms": {"color": "#2ca02c", "marker": "^", "linestyle": "-."}}
    f.lines(axes[2], terms, sty)
    P.set_value_scale(axes[2], list(terms.values()), "per value (mean)")
    for ax in axes:
        _legend(ax)
        ax.yaxis.label.set_fontsize(P.FONT + 1)
    f.layer_axis(axes[-1])
    fig.suptitle(f"Value statistics per layer\n{f.title}", fontsize=P.FONT + 1)
    f.save(fig, "sim_stats.png")


def write_plots(out_dir, doc, archs) -> list[str]:
    """Write the figures of a sim document.

    Parameters
    ----------
    out_dir : str
    doc : dict
        A sim document (:func:`termwise.gen.flows.reports.sim.write_reports`).
    archs : list of str
        Its designs, in report order (the reference first).

    Returns
    -------
    list of str
        sim_cycles.png, sim_speedup.png, sim_total.png and sim_stats.png in ``out_dir``.
    """
    f = _Figures(out_dir, doc, list(archs))
    for draw in (_cycles_figure, _speedup_figure, _total_figure, _stats_figure):
        draw(f)
    return f.paths
