"""Parsers on real output captured from this flow (baseline-4x4, OSU018, ECP5-25k)."""

import json
import os
import re

import pytest

from termwise.synth import parse
from termwise.synth.kinds import KINDS, kind_of
from termwise.synth.tools import DEFAULT_LIBERTY
from termwise.synth.wrapper import asic_wrapper, fpga_wrapper

FIX = os.path.join(os.path.dirname(__file__), "fixtures")
TOP = "termwise_baseline_f4w1l4_a8sw8_acc24_d64"


def fixture(name):
    with open(os.path.join(FIX, name), encoding="utf-8") as f:
        return f.read()


@pytest.fixture(scope="module")
def mods():
    return parse.parse_stat_json(fixture("b44_asic_stat.json"))


def test_stat_modules_and_hierarchy(mods):
    wrap = TOP + "__wrap"
    assert set(mods) >= {wrap, TOP, TOP + "__pe", TOP + "__pe.tree", TOP + "__pe.accumulator",
                         TOP + ".array", TOP + ".act_buffer", TOP + ".wgt_buffer"}
    counts = parse.instance_counts(mods, wrap)
    assert counts[TOP + "__pe"] == 4 and counts[TOP + "__pe.tree"] == 4
    assert counts[TOP] == 1
    # Local areas, multiplied through the hierarchy, give back yosys' own design total.
    design = json.loads(fixture("b44_asic_stat.json"))["design"]
    total = sum(n * mods[m]["local_area"] for m, n in counts.items())
    assert total == pytest.approx(design["area"])
    seq = sum(n * mods[m]["local_seq_area"] for m, n in counts.items())
    assert seq == pytest.approx(design["sequential_area"])
    assert all(m["local_area"] >= 0 for m in mods.values())
    # Library cells only in "cells"; submodules only in "subs".
    assert "DFFPOSX1" in mods[TOP + "__pe.accumulator"]["cells"]
    assert mods[TOP + ".array"]["subs"] == {TOP + "__pe": 4}


def test_every_module_has_a_kind(mods):
    for name in mods:
        assert kind_of(name, TOP) in KINDS, name
    assert kind_of(TOP + "__pe.tree", TOP) == "adder_tree"
    assert kind_of(TOP + ".wgt_buffer", TOP) == "buffers"
    assert kind_of("something_else", TOP) is None


def _liberty_cells():
    with open(DEFAULT_LIBERTY, encoding="utf-8") as f:
        return set(re.findall(r"^\s*cell\s*\(\s*\"?(\w+)\"?\s*\)", f.read(), re.M))


def test_sta_path():
    text = fixture("b44_sta.log")   # 10 ns clock: met
    p = parse.parse_sta(text)
    assert p["startpoint"] == "tile/act_buffer/_19808_"
    assert p["endpoint"] == "tile/array/pe_f0_w0/accumulator/_579_"
    assert p["start_cell"] == "DFFPOSX1" and p["end_cell"] == "DFFPOSX1"
    assert p["logic_depth"] == 43 == len(p["cells"])
    assert p["arrival_ns"] == pytest.approx(5.704)
    assert p["required_ns"] == pytest.approx(9.820)
    assert p["slack_ns"] == pytest.approx(4.116) and p["met"] is True
    # report_wns prints 0.00 for a met design; the marker line keeps the real slack.
    assert parse.parse_sta_wns(text) == pytest.approx(4.116, abs=1e-3)


def test_sta_path_violated():
    text = fixture("b44_sta_5ns.log")   # the run at a 5 ns clock: violated
    p = parse.parse_sta(text)
    assert p["logic_depth"] == 43
    assert p["required_ns"] == pytest.approx(4.820)
    assert p["slack_ns"] == pytest.approx(-0.884) and p["met"] is False
    assert parse.parse_sta_wns(text) == pytest.approx(-0.884, abs=1e-3)


@pytest.mark.skipif(not os.path.exists(DEFAULT_LIBERTY), reason="OSU018 liberty not installed")
def test_sta_path_names_liberty_cells():
    p = parse.parse_sta(fixture("b44_sta.log"))
    assert set(p["cells"]) <= _liberty_cells()


def test_sta_wns_fallback():
    assert parse.parse_sta_wns("wns -1.25\ntns -3.00\n") == -1.25
    with pytest.raises(ValueError):
        parse.parse_sta_wns("nothing here")
    with pytest.raises(ValueError):
        parse.parse_sta("no path")


def test_nextpnr_report():
    r = parse.parse_nextpnr_report(fixture("b44_nextpnr_report.json"))
    assert r["fmax_mhz"] == pytest.approx(47.77, abs=0.01)
    assert r["utilization"]["MULT18X18D"] == {"used": 16, "available": 28}
    assert r["utilization"]["TRELLIS_COMB"]["available"] == 24288
    assert all(v["used"] > 0 for v in r["utilization"].values())


def test_ecp5_resources():
    stat = json.loads(fixture("b44_ecp5_stat.json"))["design"]["num_cells_by_type"]
    res = parse.ecp5_resources(stat)
    assert res == {"lut4": 754 + 2 * 63, "ff": 427, "dsp": 16, "bram": 5, "lutram": 0}


PORTS = [{"name": "clk", "dir": "in", "width": 1}, {"name": "rst", "dir": "in", "width": 1},
         {"name": "a__payload", "dir": "in", "width": 12}, {"name": "a__valid", "dir": "in",
                                                             "width": 1},
         {"name": "o__payload", "dir": "out", "width": 20}, {"name": "busy", "dir": "out",
                                                             "width": 1}]


def test_wrappers_connect_every_port():
    v = asic_wrapper("t", PORTS)
    assert "module t__wrap" in v and "t tile (" in v
    for p in PORTS:
        assert f".{p['name']}(" in v
    assert "a__payload_q <= a__payload" in v and "o__payload <= o__payload_d" in v
    f = fpga_wrapper("t", PORTS)
    assert "input sin" in f and "output reg [7:0] dout" in f
    assert "reg [12:0] shift" in f and "reg [20:0] outs_q" in f
    for p in PORTS:
        assert f".{p['name']}(" in f


# Excerpt of a real yosys.log where the yowasp ABC died (baseline f2 w2 l2, 4-bit, depth 4).
ABC_CRASH_LOG = """6. Executing ABC pass (technology mapping using ABC).
6.6. Extracting gate netlist of module `\\termwise_baseline_f2w2l2_a4sw4_acc11_d4__pe' to `<abc-temp-dir>/input.blif'..
6.7.2. Re-integrating ABC results.
6.8. Extracting gate netlist of module `\\termwise_baseline_f2w2l2_a4sw4_acc11_d4' to `<abc-temp-dir>/input.blif'..
6.9.1. Executed ABC.
Running ABC script: <abc-temp-dir>/abc.script
ERROR: Can't open ABC output file `/tmp/yosys-abc-000004/output.blif'.
"""


def test_abc_crash_recovery_helpers():
    from termwise.synth.asic import FAST_SCRIPT, SAFE_SCRIPT, abc_commands, crashed_module
    assert crashed_module(ABC_CRASH_LOG) == "termwise_baseline_f2w2l2_a4sw4_acc11_d4"
    assert crashed_module("3. Executing SYNTH pass.\\nERROR: x") is None
    assert abc_commands([], "l.lib", "c.constr", 5000) == (
        f"abc -liberty l.lib -constr c.constr -D 5000 -script {FAST_SCRIPT}")
    cmds = abc_commands(["m.a"], "l.lib", "c.constr", 5000).splitlines()
    assert cmds[0] == "setattr -mod -set termwise_abc_safe 1 m.a"
    assert cmds[1].endswith(f"{FAST_SCRIPT} A:termwise_abc_safe %n")
    assert cmds[2].endswith(f"{SAFE_SCRIPT} A:termwise_abc_safe")


def test_sta_worst_stage():
    p = parse.parse_sta(fixture("b44_sta.log"))
    assert p["worst_stage"]["cell"] == "XOR2X1" and not p["worst_stage"]["net_leaves_module"]
    # stripes-4x4: the sequencer's `first` broadcast to 32 PEs, unbuffered across modules.
    s = parse.parse_sta(fixture("s44_sta.log"))
    ws = s["worst_stage"]
    assert ws["instance"] == "tile/array/sequencer/_58_" and ws["cell"] == "NOR2X1"
    assert ws["cap_pf"] == pytest.approx(3.849) and ws["delay_ns"] == pytest.approx(6.545)
    assert ws["net_leaves_module"] is True
    assert s["startpoint"] == "tile/_3387_" and s["logic_depth"] == 23
    assert s["arrival_ns"] == pytest.approx(10.51)


def test_sta_errors_flag_an_unreadable_netlist():
    from termwise.synth.asic import sta_errors
    assert sta_errors(fixture("b44_sta.log")) == []
    bad = ("OpenSTA 2.0.17\nError: netlist.v, line 12 syntax error, unexpected '{', "
           "expecting ID.\nWarning: netlist.v, line 40 instance name _5_ duplicated\n")
    assert sta_errors(bad) == ["Error: netlist.v, line 12 syntax error, unexpected '{', "
                               "expecting ID."]


def test_refresh_recomputes_from_the_cached_run(tmp_path):
    """A cached result is re-derived from its stat.json and sta.log (the kind table is
    applied at report time); the run's own fields are kept."""
    from termwise.synth.asic import refresh
    (tmp_path / "stat.json").write_text(fixture("b44_asic_stat.json"))
    (tmp_path / "sta.log").write_text(fixture("b44_sta.log"))
    stale = {"area_by_module": {"pe_lanes": -1.0}, "fmax_mhz": -1.0,
             "wall_s": {"total": 12.5}, "abc_fallback_modules": ["x"]}
    got = refresh(stale, str(tmp_path), TOP, 10.0)
    assert got["wall_s"] == {"total": 12.5} and got["abc_fallback_modules"] == ["x"]
    assert got["area_by_module"]["pe_lanes"] > 0
    assert got["fmax_mhz"] == pytest.approx(1000 / (10 - 4.116), abs=0.05)
