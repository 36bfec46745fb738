"""Plot helpers (gen/flows/reports/plots.py) and the PNG writers that use them: the log-axis rule,
tick labels that do not collide, titles with the hardware, and every PNG written."""

from types import SimpleNamespace

import numpy as np
import pytest

from termwise.gen.flows.reports import plots as P

# The designs of `termwise sim --designs all` (from the design registry): the label tests
# must hold for every registered design name.
from termwise.gen.designs import sim_designs  # noqa: E402

DESIGNS = list(sim_designs())
PNG = b"\x89PNG\r\n\x1a\n"


def test_designs_match_the_simulator():
    from termwise.golden.netsim import PRESETS
    assert list(PRESETS) == DESIGNS and len(DESIGNS) >= 11


@pytest.mark.parametrize("values, log", [
    ([354.0, 1.2], True),               # Laconic's ideal next to a small speedup
    ([1.0, 2.0, 3.0], False),
    ([1.0, 10.0], False),               # exactly 10x: linear
    ([1.0, 10.5], True),
    ([[0.02, 0.5], [1.0]], True),       # nested series, all of an axis
    ([0.0, -5.0, 2.0, 3.0, np.nan, np.inf], False),   # only finite positives count
    ([], False),
    ([7.0], False),
])
def test_log_rule(values, log):
    assert P.wants_log(values) is log


def test_value_span():
    assert P.value_span([354.34, 1.21]) == pytest.approx(354.34 / 1.21)
    assert P.value_span([0, 0]) == 1.0


def test_set_value_scale_labels_log_axes():
    fig, ax = P.new_figure(4, 3)
    assert P.set_value_scale(ax, [[1.2, 354.0]], "speedup") is True
    assert ax.get_yscale() == "log" and ax.get_ylabel() == "speedup (log scale)"
    fig, ax = P.new_figure(4, 3)
    assert P.set_value_scale(ax, [1.0, 3.0], "bits", axis="x") is False
    assert ax.get_xscale() == "linear" and ax.get_xlabel() == "bits"
    fig, ax = P.new_figure(4, 3)
    assert P.set_value_scale(ax, [0.01, 0.9], "zero fraction", scale="linear") is False
    assert ax.get_yscale() == "linear"


def test_ratio_text():
    assert [P.ratio_text(v) for v in (0.884, 3.07, 11.87, 354.34)] == \
        ["0.88x", "3.07x", "11.9x", "354x"]


def _overlapping_texts(fig, texts):
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(r) for t in texts]
    return [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes))
            if boxes[i].overlaps(boxes[j])]


def test_bar_chart_labels_do_not_overlap(tmp_path):
    """The 11 design names on a bar chart: no two category labels, value labels or value
    annotations intersect, and the 354x vs 1.2x axis is logarithmic."""
    rng = np.random.default_rng(0)
    sp = list(1.0 + 10 * rng.random(len(DESIGNS)))
    ideal = list(1.2 + 30 * rng.random(len(DESIGNS)))
    ideal[DESIGNS.index("laconic")] = 354.34
    fig, ax = P.hbar_chart(DESIGNS, {"achieved": sp, "ideal": ideal}, xlabel="speedup",
                           value_format=P.ratio_text, reference=1.0,
                           reference_label="baseline")
    assert ax.get_xscale() == "log" and ax.get_xlabel().endswith("(log scale)")
    assert [t.get_text() for t in ax.get_yticklabels()] == DESIGNS
    assert P.tick_label_overlaps(ax, "y") == []
    assert P.tick_label_overlaps(ax, "x") == []
    assert _overlapping_texts(fig, ax.texts) == []
    P.save(fig, str(tmp_path / "bars.png"))
    assert (tmp_path / "bars.png").read_bytes()[:8] == PNG


def test_category_axis_labels_do_not_overlap(tmp_path):
    """Design names (or layer names) along x: the figure width and rotation rule keep the
    labels apart; the overlap check itself detects the old layout's collisions."""
    fig, ax = P.new_figure(7, 4)         # the old sim_total layout: horizontal names, 7 in
    ax.bar(range(len(DESIGNS)), np.ones(len(DESIGNS)))
    ax.set_xticks(range(len(DESIGNS)), DESIGNS)
    assert P.tick_label_overlaps(ax, "x"), "the check must see the old collisions"

    for labels in (DESIGNS, [f"res{i}a.1x1b" for i in range(60)], ["conv1", "conv2", "fc"]):
        fig, ax = P.new_figure(P.category_figure_width(labels), 4)
        ax.plot(range(len(labels)), np.arange(len(labels)) + 1.0)
        P.category_axis(ax, labels)
        P.save(fig, str(tmp_path / "x.png"))
        assert P.tick_label_overlaps(ax, "x") == [], len(labels)

    fig, ax = P.new_figure(3, 3)         # too narrow for horizontal labels: save() fixes it
    ax.plot(range(len(DESIGNS)), np.ones(len(DESIGNS)))
    ax.set_xticks(range(len(DESIGNS)), DESIGNS)
    P.save(fig, str(tmp_path / "narrow.png"))
    assert P.tick_label_overlaps(ax, "x") == []


def test_design_styles_are_distinct():
    st = P.design_styles(DESIGNS)
    assert st["baseline"]["color"] == "black"
    keys = {(s["color"], s["marker"], s["linestyle"]) for s in st.values()}
    assert len(keys) == len(DESIGNS)
    # Colours alone are distinct up to the palette (baseline black + 10); beyond it the
    # line style tells designs of the same colour apart.
    assert len({(s["color"], s["linestyle"]) for s in st.values()}) == len(DESIGNS)
    assert len({s["color"] for s in st.values()}) == min(len(DESIGNS), 11)


def _designs(names, act_bits=16):
    return {a: {"preset": f"{a}-16x16", "peak_macs_per_cycle_16b": 256.0,
                "config": {"arch": a, "act_bits": act_bits, "wgt_bits": act_bits}}
            for a in names}


def test_hardware_summary():
    assert P.hardware_summary(_designs(DESIGNS), 8) == \
        "8-bit values, 16-bit hardware, equal peak 256 MAC/cycle"
    assert P.hardware_summary({"a": {"preset": "x"}}, 16) == "16-bit values"
    assert P.hardware_summary(None) == ""
    # 8-bit hardware for 8-bit values (issue 14): the peak is recorded at the hardware width.
    narrow = {a: {"preset": f"{a}-16x16-8b", "peak_macs_per_cycle_8b": 256.0,
                  "config": {"arch": a, "act_bits": 8, "wgt_bits": 8}} for a in DESIGNS}
    assert P.hardware_summary(narrow, 8) == \
        "8-bit values, 8-bit hardware, equal peak 256 MAC/cycle"


def _sim_doc(names, layers=("conv1", "conv2", "fc")):
    """A small sim.json document through report_sim.summarise (no workload, no netsim)."""
    from termwise.gen.flows.reports.sim import summarise
    rng = np.random.default_rng(1)
    results = []
    for i, n in enumerate(layers):
        stats = {"act_zero_fraction": 0.5, "wgt_zero_fraction": 0.05 * i,
                 "act_precision": 5 + i, "wgt_precision": 6, "act_group_precision_mean": 4.2,
                 "act_value_precision_mean": 2.0, "act_essential_bits_mean": 0.7,
                 "act_booth_terms_mean": 0.8, "wgt_booth_terms_mean": 1.5}
        base = 20000 + 1000 * i
        d = {}
        for k, a in enumerate(names):
            f = 1.0 if a == "baseline" else 1.0 + 15 * rng.random()
            ideal = 354.0 if a == "laconic" else f * (1 + rng.random())
            rt = {"stripes": {"precision": 5 + i}, "loom": {"wgt_precision": 6}}.get(a, {})
            d[a] = {"cycles": int(base / f), "work": int(base * 256 / ideal), "runs": 4,
                    "steps": 40, "sampled": False, "rt": rt}
        results.append(SimpleNamespace(name=n, shape=f"shape{i}", macs=1000, stats=stats,
                                       designs=d))
    rows, total = summarise(results, names)
    return {"workload": "tiny-net", "precision": 8, "synthetic": True, "notes": ["test"],
            "designs": _designs(names), "encodings": {}, "sampling": "none",
            "layers": rows, "total": total}


def test_sim_writer_writes_every_png(tmp_path):
    from termwise.gen.flows.reports.sim import plot_title, write_reports
    doc = _sim_doc(DESIGNS)
    paths = write_reports(str(tmp_path), doc)
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pngs == ["sim_cycles.png", "sim_speedup.png", "sim_stats.png", "sim_total.png"]
    for name in pngs:
        assert str(tmp_path / name) in paths
        assert (tmp_path / name).read_bytes()[:8] == PNG
    assert plot_title(doc) == ("tiny-net (synthetic values), 8-bit values, 16-bit hardware, "
                               "equal peak 256 MAC/cycle")


def test_sim_writer_without_hardware_config(tmp_path):
    """Documents without the designs' configs (older sim.json, two designs) still plot."""
    from termwise.gen.flows.reports.sim import write_reports
    doc = _sim_doc(["baseline", "stripes"])
    doc["designs"] = {a: {"preset": f"{a}-16x16"} for a in doc["designs"]}
    write_reports(str(tmp_path), doc)
    assert len(list(tmp_path.glob("sim_*.png"))) == 4


def _tradeoff_doc():
    rows = []
    for p in (16, 8, 4, 2):
        rows.append({"group": "uniform act", "label": f"act {p}b", "bits": 16, "act": [p] * 3,
                     "wgt": [16] * 3, "accuracy": 97.0 - (16 - p) ** 1.5,
                     "lossless": p >= 8, "cycles": {"baseline": 100, "stripes": 100 * p // 16,
                                                    "loom": 100 * p // 16},
                     "speedup": {"stripes": 16 / p, "loom": 16 / p * 1.1}})
    for p in (8, 4):
        rows.append(dict(rows[0], group="uniform wgt", label=f"wgt {p}b", act=[16] * 3,
                         wgt=[p] * 3, accuracy=96.0))
    rows.append(dict(rows[1], group="profile", label="lossless act + wgt profile"))
    prof = {"profile": [5, 5, 7], "accuracy": 97.5, "per_layer_single": [4, 4, 6]}
    return {"workload": "digits-cnn", "architecture": "c8k3-c16k3s2-fc10",
            "train": {"seed": 0, "epochs": 1, "lr": 0.01}, "float_test_accuracy": 97.8,
            "quant_test_accuracy": {"16": 97.8, "8": 97.7}, "lossless_margin_points": 0.5,
            "lossless_floor": 97.3, "test_images_accuracy": 360, "test_images_cycles": 4,
            "profiles": {b: {"act": prof, "wgt": prof} for b in ("16", "8")},
            "lowest_lossless_uniform": {"act": 8, "wgt": 8},
            "lossless_uniform_settings": {"act": [8, 16], "wgt": [8, 16]},
            "equal_peak_throughput": "16x16 presets",
            "designs": _designs(["baseline", "stripes", "loom"]),
            "layers": ["conv1", "conv2", "fc"], "rows": rows}


def test_tradeoff_writer_writes_png(tmp_path):
    from termwise.gen.flows.reports.tradeoff import plot_title, write_reports
    doc = _tradeoff_doc()
    paths = write_reports(str(tmp_path), doc)
    assert str(tmp_path / "tradeoff.png") in paths
    assert (tmp_path / "tradeoff.png").read_bytes()[:8] == PNG
    assert "16-bit hardware, equal peak 256 MAC/cycle" in plot_title(doc)
    # The 8-bit settings on their own 8-bit hardware: both widths in the title.
    narrow = {d: dict(e, preset=f"{d}-16x16-8b", config=dict(e["config"], act_bits=8,
                                                               wgt_bits=8))
              for d, e in doc["designs"].items()}
    doc["designs_by_bits"] = {"16": doc["designs"], "8": narrow}
    assert "8/16-bit hardware, equal peak 256 MAC/cycle" in plot_title(doc)


def test_report_modules_import_without_matplotlib():
    """Importing the report writers does not import matplotlib (plots stay optional)."""
    import subprocess
    import sys
    code = ("import sys, termwise.gen.flows.reports.sim, termwise.gen.flows.reports.tradeoff, "
            "termwise.gen.flows.reports.plots; print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


#: Tile area (mm2) and speedup of the 16-bit EfficientNet-Lite0 report: Stripes and its
#: variants within 0.5 mm2 of each other, TCLp and Pragmatic 2.4 mm2 apart at 5.2x.
_PPA_POINTS = {"baseline": (43.75, 1.00), "stripes": (60.46, 3.88), "zstripes": (60.56, 3.97),
               "dstripes": (60.92, 4.19), "pragmatic": (84.35, 5.24),
               "pragmatic-booth": (49.61, 2.41), "cnvlutin": (43.89, 1.07),
               "diffy": (58.03, 2.85), "tactical-tclp": (81.99, 5.15),
               "tactical-tcle": (62.87, 3.13)}


def test_point_labels_do_not_collide(tmp_path):
    """A scatter of the report's close designs: every label is clear of every other label
    and of every other point's marker; the check itself sees the old fixed-offset labels
    collide."""
    names = list(_PPA_POINTS)
    pts = [_PPA_POINTS[n] for n in names]

    def scatter():
        fig, ax = P.new_figure(6.4, 4.6)
        ax.scatter([x for x, _ in pts], [y for _, y in pts], s=28)
        P.set_value_scale(ax, [x for x, _ in pts], "area", axis="x")
        P.set_value_scale(ax, [y for _, y in pts], "speedup")
        return fig, ax

    fig, ax = scatter()
    old = [ax.annotate(n, p, textcoords="offset points", xytext=(4, 3), fontsize=P.FONT - 1)
           for n, p in zip(names, pts)]
    assert P.point_label_overlaps(ax, old, pts), "the check must see the old collisions"

    fig, ax = scatter()
    labels = P.label_points(ax, pts, names)
    P.save(fig, str(tmp_path / "scatter.png"))
    assert [t.get_text() for t in labels] == names
    assert P.point_label_overlaps(ax, labels, pts) == []
    assert (tmp_path / "scatter.png").read_bytes()[:8] == PNG
