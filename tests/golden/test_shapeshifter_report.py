"""ShapeShifter report on a small synthetic workload, its CLI and its errors."""

import json
import math
import os

import numpy as np
import pytest

from termwise.gen.config import ConfigError
from termwise.gen.flows.shapeshifter import parse_groups, run_shapeshifter
from termwise.gen.cli import main as _cli_main
from termwise.golden.shapeshifter import tensor_footprint
from termwise.gen.flows.reports.shapeshifter import tile_cycles, workload_report
from termwise.golden.workloads import Layer, Workload


def _workload(bits=8):
    rng = np.random.default_rng(0)
    a1 = rng.integers(-3, 4, (1, 4, 6, 6))                          # signed, 3 bits
    w1 = rng.integers(-20, 21, (16, 4, 3, 3))
    a2 = np.maximum(rng.integers(-4, 8, (1, 16, 6, 6)), 0)          # ReLU output, 3 bits
    w2 = rng.integers(-2, 3, (8, 16, 3, 3))
    return Workload("tiny", bits, [
        Layer("c1", "conv", a1, w1, bits, padding=1),
        Layer("c2", "conv", a2, w2, bits, padding=1)])


def test_totals_are_sums_of_layers_and_parts():
    wl = _workload()
    doc = workload_report(wl, [16, 32])
    for g, d in doc["groups"].items():
        rows, t = d["layers"], d["total"]
        assert t["fixed_bits"] == sum(r["fixed_bits"] for r in rows)
        assert t["ss_bits"] == sum(r["ss_bits"] for r in rows)
        # fixed: act + wgt of both layers + out of the first (= c2's input)
        fixed = 8 * (wl.layers[0].act.size + wl.layers[0].wgt.size + wl.layers[1].act.size
                     + wl.layers[1].act.size + wl.layers[1].wgt.size)
        assert t["fixed_bits"] == fixed
        assert 0 < t["ratio"] < 1
    r1 = doc["groups"]["16"]["layers"][1]
    assert r1["act_signed"] is False and doc["groups"]["16"]["layers"][0]["act_signed"]
    # c2's input: 16 channels per pixel -> one group per pixel, NHWC order
    ref = tensor_footprint(wl.layers[1].act.transpose(0, 2, 3, 1), 8, False, 16)
    assert r1["act_ss_bits"] == ref.shapeshifter_bits
    assert "out_ratio" not in r1          # last layer's output not counted


def test_cycles_baseline_stripes_and_shapeshifter_by_hand():
    bits = 16                                      # 16-bit hardware: 16 windows
    act = np.zeros((1, 32, 1, 16), np.int64)      # 1x1 conv: M = 16 windows, Kin = 32
    act[0, 0, 0, 3] = 5                            # window 3, lane 0: width 3 (unsigned)
    act[0, 20, 0, 7] = 1                           # window 7, lane 20: width 1
    wgt = np.ones((16, 32, 1, 1), np.int64)
    layer = Layer("l", "conv", act, wgt, bits, act_precision=6)
    c = tile_cycles(layer, 16)
    assert c["baseline"] == 16 * 2                 # 16 windows x 2 bricks, one filter group
    # one window group, 2 bricks x p; the input is non-negative, so the layer is an
    # unsigned run and the profile's 6 two's complement bits are 5 unsigned ones
    assert layer.act_signed is False and layer.act_precision == 5
    assert c["stripes"] == 1 * 2 * 5
    signed = Layer("l", "conv", act, wgt, bits, act_precision=6, act_signed=True)
    assert tile_cycles(signed, 16)["stripes"] == 1 * 2 * 6     # a signed run keeps p = 6
    # non-negative input: stored unsigned; brick 0 takes max width 3, brick 1 width 1
    assert c["ss_stripes"] == 3 + 1
    c32 = tile_cycles(layer, 32)
    assert c32["ss_stripes"] == 2 * 3              # one group of 32 (2 bricks) at width 3
    # 8-bit data runs on 8-bit hardware of equal peak: 8 windows, so two window groups.
    layer8 = Layer("l", "conv", act, wgt, 8, act_precision=6)
    c8 = tile_cycles(layer8, 16)
    assert c8["baseline"] == 16 * 2
    assert c8["stripes"] == 2 * 2 * 5
    # Windows 8..15 are all zero: their window group still takes a cycle per brick.
    assert c8["ss_stripes"] == (3 + 1) + (1 + 1)


def test_report_files_and_cli(tmp_path):
    doc = run_shapeshifter("tiny", 8, str(tmp_path), groups="16,64",
                           workload_obj=_workload(), deltas=True, log=lambda m: None)
    for name in ("shapeshifter.json", "shapeshifter.csv", "shapeshifter.md", "deltas.md",
                 "deltas.json"):
        assert os.path.exists(tmp_path / name)
    assert set(json.load(open(tmp_path / "shapeshifter.json"))["groups"]) == {"16", "64"}
    assert "TOTAL" in open(tmp_path / "shapeshifter.csv").read()
    assert doc["deltas"]["total"]["ratio"] is not None


@pytest.mark.parametrize("text,field", [("8", "group"), ("300", "group"), ("x", "group"),
                                        ("", "group")])
def test_group_errors(text, field):
    with pytest.raises(ConfigError) as e:
        parse_groups(text)
    assert e.value.field == field


def test_cli_errors(tmp_path, capsys):
    with pytest.raises(ConfigError) as e:
        run_shapeshifter("nope", 8, str(tmp_path), log=lambda m: None)
    assert e.value.field == "workload"
    with pytest.raises(ConfigError) as e:
        run_shapeshifter("dncnn", 12, str(tmp_path), log=lambda m: None)
    assert e.value.field == "precision"
    assert _cli_main(["shapeshifter", "--workload", "nope", "--precision", "8", "-o", str(tmp_path)]) == 2
    assert "workload" in capsys.readouterr().err
    assert _cli_main(["shapeshifter", "--workload", "dncnn", "--group", "7", "-o", str(tmp_path)]) == 2
    with pytest.raises(ConfigError):
        run_shapeshifter("tiny", 16, str(tmp_path), workload_obj=_workload(8),
                         log=lambda m: None)
