"""The tile-run stimulus of the power flow: command packing, the harness's handling of wide
ports, and the whole ``termwise power`` chain on the smallest tile (synthesis ~3 s, the
gate-level model ~20 s to compile, both cached under the test's tmp folder), where the
harness must complete tile runs with no timeout."""

import math
import os
import re

import pytest

from termwise.gen.config import TileConfig
from termwise.synth.power.stimulus import RESET_CYCLES, command_word, tile_run_harness_cpp
from termwise.synth.tools import DEFAULT_LIBERTY

PORTS = [{"name": "clk", "dir": "in", "width": 1}, {"name": "rst", "dir": "in", "width": 1},
         {"name": "wgt__payload", "dir": "in", "width": 128},
         {"name": "wgt__valid", "dir": "in", "width": 1},
         {"name": "act__payload", "dir": "in", "width": 40},
         {"name": "act__valid", "dir": "in", "width": 1},
         {"name": "cmd__payload", "dir": "in", "width": 70},
         {"name": "cmd__valid", "dir": "in", "width": 1},
         {"name": "out__payload", "dir": "out", "width": 96},
         {"name": "out__valid", "dir": "out", "width": 1},
         {"name": "out__ready", "dir": "in", "width": 1},
         {"name": "busy", "dir": "out", "width": 1}]


def test_command_word():
    layout = {"bricks": {"offset": 0, "width": 7}, "precision": {"offset": 7, "width": 4},
              "act_signed": {"offset": 11, "width": 1}, "cap": {"offset": 12, "width": 4}}
    w = command_word(layout, {"bricks": 64, "precision": 8, "act_signed": True, "cap": -2})
    assert w == 64 | 8 << 7 | 1 << 11 | 0b1110 << 12


def test_harness_wide_ports_and_names():
    cpp = tile_run_harness_cpp(PORTS, bricks=5, windows=3, command=(1 << 69) | 5,
                               timeout_cycles=100, half_period=5000)
    # ports wider than 64 bits are written a 32-bit word at a time; "__" is Verilator's ___05F
    assert "t->wgt___05Fpayload[3] = (uint32_t)(rnd() & 4294967295ull);" in cpp
    assert "t->wgt___05Fpayload[4]" not in cpp
    assert "t->act___05Fpayload = rnd() & 1099511627775ull;" in cpp
    assert "t->cmd___05Fpayload[0] = 5u; t->cmd___05Fpayload[1] = 0u; " \
           "t->cmd___05Fpayload[2] = 32u;" in cpp
    assert f"if (++k >= {RESET_CYCLES})" in cpp and "outs >= 3" in cpp and "nb = 5," in cpp
    # a stimulus file's rows are read a 32-bit word at a time, the top word masked
    assert "t->wgt___05Fpayload[3] = p[3] & 4294967295u;" in cpp
    assert "t->act___05Fpayload = ((uint64_t)p[1] << 32 | p[0]) & 1099511627775ull;" in cpp
    assert "t->cmd___05Fpayload[2] = p[2] & 63u;" in cpp
    assert "WW = 4, AW = 2, CW = 3;" in cpp
    with pytest.raises(ValueError, match="cmd__valid"):
        tile_run_harness_cpp([p for p in PORTS if p["name"] != "cmd__valid"], 5, 3, 0, 100,
                             5000)


@pytest.mark.skipif(not os.path.isfile(DEFAULT_LIBERTY), reason="OSU018 liberty not installed")
def test_power_report_smallest_tile(tmp_path):
    from termwise.synth.power.flow import power_report
    from termwise.synth.power.report_files import to_markdown
    cfg = TileConfig(arch="baseline", filters=1, windows=1, lanes=2, act_bits=4, wgt_bits=4,
                     depth=4)
    rep = power_report(cfg, cycles=300, seed=3, clock_mhz=100.0, clock_ns=10.0,
                       liberty=None, cache_root=str(tmp_path / "synth-cache"),
                       use_cache=True, precision=None, log=lambda m: None)
    a = rep["activity_source"]
    # a run: 4 + 4 rows, a command, a few cycles of compute, the output row, 2 idle cycles
    assert a["timeouts"] == 0 and a["runs_completed"] >= 300 // 20
    assert a["macs_issued"] == a["runs_completed"] * 4 * 2
    p = rep["power_w"]
    assert math.isclose(p["total"], p["dynamic"] + p["leakage"], rel_tol=1e-9)
    assert math.isclose(sum(k["total_w"] for k in rep["by_kind_w"].values()), p["total"],
                        rel_tol=1e-9)
    assert rep["energy"]["per_mac_at_peak_pj"] > 0
    assert rep["opensta"]["total_w"] > 0
    assert os.path.isfile(tmp_path / "power-cache" / rep["model_cache"]["key"] / "sim")
    md = to_markdown(rep)
    assert re.search(r"termwise / OpenSTA = \d", md)
    # the same inputs again: the stored report, the same figures
    rep2 = power_report(cfg, cycles=300, seed=3, clock_mhz=100.0, clock_ns=10.0,
                        liberty=None, cache_root=str(tmp_path / "synth-cache"),
                        use_cache=True, precision=None, log=lambda m: None)
    assert rep2.get("cached") is True and rep2["power_w"] == p
    # another seed: a new simulation on the cached gate-level model
    rep3 = power_report(cfg, cycles=300, seed=4, clock_mhz=100.0, clock_ns=10.0,
                        liberty=None, cache_root=str(tmp_path / "synth-cache"),
                        use_cache=True, precision=None, log=lambda m: None)
    assert not rep3.get("cached") and rep3["model_cache"]["hit"]
    assert rep3["activity_source"]["seed"] == 4
