"""`termwise demo` end to end on baseline-4x4 (the smallest preset): generate, Verilator +
cocotb regression, (synthesis), summary.json; bad input refused."""

import tomllib

from termwise_e2e import REPO, assert_usage_error, load_json, ok

PRESET = "baseline-4x4"
# The real convolution layer of the regression, by its name: 3x3 kernel, 16 input channels,
# 16 filters, 8x8 outputs.
CONV_CASE, CONV_MACS = "conv3x3_c16_k16_8x8", 8 * 8 * 16 * 16 * 3 * 3


def _check_summary(summary, stdout):
    table = tomllib.loads((REPO / "gen" / "presets.toml").read_text())["preset"][PRESET]
    assert summary["preset"] == PRESET
    for key, value in table.items():
        if key != "description":
            assert summary["config"][key] == value, (key, summary["config"])
    reg = summary["regression"]
    assert reg["passed"] is True
    runs = reg["runs"]
    assert runs and {r["suite"] for r in runs} >= {"random", "corners", "conv"}
    for r in runs:
        assert r["outputs_match"] is True, r
        assert r["cycles"] == r["model_cycles"], r
    (conv,) = [r for r in runs if r["suite"] == "conv"]
    assert conv["case"] == CONV_CASE and conv["macs"] == CONV_MACS
    cfg = summary["config"]
    peak = cfg["filters"] * cfg["windows"] * cfg["lanes"]     # bit-parallel: MAC/cycle
    assert conv["cycles"] >= CONV_MACS / peak
    line = next(l for l in stdout.splitlines() if l.strip().startswith("regression"))
    assert "PASSED" in line and f"{len(runs)}/{len(runs)}" in line, line


def test_demo_no_synth(termwise, tmp_path):
    r = ok(termwise("demo", "--preset", PRESET, "--no-synth", "-o", "out"))
    summary = load_json(tmp_path / "out" / "summary.json")
    _check_summary(summary, r.stdout)
    assert "synth" not in summary and not (tmp_path / "out" / "synth").exists()
    assert "out/summary.json" in r.stdout


def test_demo_with_synthesis(termwise, tmp_path):
    """The whole `make demo` path (the synthesis cache is shared through build/synth-cache)."""
    r = ok(termwise("demo", "--preset", PRESET, "-o", "out"))
    summary = load_json(tmp_path / "out" / "summary.json")
    _check_summary(summary, r.stdout)
    rep = load_json(tmp_path / "out" / "synth" / "synth_report.json")
    assert (tmp_path / "out" / "synth" / "synth_report.md").is_file()
    asic = summary["synth"]["asic"]
    assert asic["area_um2"] == rep["asic"]["area_um2"] > 0
    assert asic["fmax_mhz"] == rep["asic"]["fmax_mhz"] > 0
    assert asic["flops"] == rep["asic"]["flops"] > 0
    assert rep["preset"] == PRESET and rep["flow"]["target"] == "asic"
    assert "synthesis" in r.stdout and f"{asic['area_um2'] / 1e6:.3f} mm2" in r.stdout


def test_demo_bad_input(termwise, tmp_path):
    r = termwise("demo", "--preset", "no-such-preset", "-o", "out")
    assert_usage_error(r, tmp_path / "out", "preset: unknown preset 'no-such-preset'")
