"""`termwise power --workload`: the workload plan (the real layers lowered as the ``real``
regression lowers them, their runtime registers, the layers' own MACs per run, the cycle
budget, refused designs and names) and the stimulus file the gate-level harness reads,
decoded here independently of the writer and compared with the lowering."""

import numpy as np
import pytest

from termwise.gen.config import preset
from termwise.gen.emit import manifest, render
from termwise.gen.spec import ConfigError
from termwise.golden.lowering import lower_layer
from termwise.golden.netsim import layer_runtime
from termwise.golden.workloads import Layer, load_workload
from termwise.synth.power.stimulus import RESET_CYCLES, read_stimulus, write_stimulus
from termwise.synth.power.workload import (MAX_RUNS_PER_LAYER, check_drivable,
                                           plan_workload, run_useful_macs, stimulus_rows)


@pytest.fixture(scope="module")
def tiles():
    out = {}
    for name in ("baseline-4x4", "stripes-4x4"):
        cfg = preset(name)
        text, tile = render(cfg)
        out[name] = (cfg, manifest(cfg, text, tile))
    return out


@pytest.fixture(scope="module")
def digits():
    return load_workload("digits-cnn", 8, log=None)


def _fields(word: int, count: int, bits: int, signed: bool) -> list[int]:
    mask = (1 << bits) - 1
    vals = [(word >> (i * bits)) & mask for i in range(count)]
    return [v - (1 << bits) if signed and v >> (bits - 1) else v for v in vals]


@pytest.mark.parametrize("name", ["baseline-4x4", "stripes-4x4"])
def test_stimulus_file_holds_the_lowered_runs(tiles, digits, tmp_path, name):
    cfg, man = tiles[name]
    plan = plan_workload(cfg, man["command_layout"], "digits-cnn", None, cycles=2000, seed=5,
                         reset_cycles=RESET_CYCLES)
    layers = {layer.name: layer for layer in digits.layers}
    assert [d["name"] for d in plan.layers] == list(layers)
    n = plan.runs_per_layer
    assert 1 <= n <= MAX_RUNS_PER_LAYER
    # rounds of one run per layer, the plan's estimate within the budget
    assert [s.layer for s in plan.runs[:len(layers)]] == list(layers)
    assert RESET_CYCLES + sum(s.estimated_cycles for s in plan.runs) == plan.estimated_cycles
    assert plan.estimated_cycles <= 2000
    path = str(tmp_path / "stim.bin")
    assert write_stimulus(path, man["ports"], stimulus_rows(cfg, plan)) == len(plan.runs)
    got = read_stimulus(path)
    widths = {p["name"]: p["width"] for p in man["ports"]}
    assert got["wgt_words"] == -(-widths["wgt__payload"] // 32)
    assert len(got["runs"]) == len(plan.runs)
    lowered = {name: lower_layer(cfg, layer)[0] for name, layer in layers.items()}
    layout = man["command_layout"]
    for s, r in zip(plan.runs, got["runs"]):
        layer = layers[s.layer]
        run = lowered[s.layer][s.index]         # the lowering's own run, lowered afresh
        rt = layer_runtime(cfg, layer)
        assert s.runtime == rt
        bricks = run.k // cfg.lanes
        assert r["bricks"] == bricks == len(r["wgt_rows"]) == len(r["act_rows"])
        cmd = {k: (r["command"] >> f["offset"]) & ((1 << f["width"]) - 1)
               for k, f in layout.items()}
        assert cmd == {k: int(v) for k, v in {"bricks": bricks, **rt}.items()}
        # row i: brick i of every filter / window, element 0 least significant
        wgt = np.array([_fields(w, cfg.filters * cfg.lanes, cfg.wgt_bits, True)
                        for w in r["wgt_rows"]])            # (bricks, filters * lanes)
        wgt = wgt.reshape(bricks, cfg.filters, cfg.lanes).transpose(1, 0, 2)
        np.testing.assert_array_equal(wgt.reshape(cfg.filters, -1), run.wgt)
        act = np.array([_fields(a, cfg.windows * cfg.lanes, cfg.act_bits, rt["act_signed"])
                        for a in r["act_rows"]])
        act = act.reshape(bricks, cfg.windows, cfg.lanes).transpose(1, 0, 2)
        np.testing.assert_array_equal(act.reshape(cfg.windows, -1), run.act)
    # real data: the runs are not all zero, the digits' activations are unsigned
    assert any(np.any(s.run.act) for s in plan.runs)
    assert not any(s.runtime["act_signed"] for s in plan.runs)


def test_useful_macs_add_up_to_the_layers_macs(tiles, digits):
    cfg, _ = tiles["baseline-4x4"]
    small = [Layer(layer.name, layer.kind, layer.act[:1], layer.wgt, layer.bits,
                   layer.stride, layer.padding, layer.dilation, layer.groups)
             for layer in digits.layers]
    rng = np.random.default_rng(0)
    # a depthwise layer (channel-diagonal packing: block-diagonal zeros are not MACs) and a
    # channel count that is not a multiple of the lanes
    small.append(Layer("dw", "conv", rng.integers(0, 9, (1, 6, 5, 5)),
                       rng.integers(-4, 4, (12, 1, 3, 3)), 8, padding=1, groups=6))
    small.append(Layer("c3", "conv", rng.integers(0, 9, (1, 3, 5, 5)),
                       rng.integers(-4, 4, (5, 3, 3, 3)), 8, stride=2))
    for layer in small:
        runs, spans = lower_layer(cfg, layer)
        useful = run_useful_macs(cfg, layer, runs, spans, range(len(runs)))
        padded = sum(r.k * cfg.filters * cfg.windows for r in runs)
        assert sum(useful) == layer.macs <= padded, layer.name
        # padding: conv1's one channel in 4 lanes, fc's 10 filters in 3 groups of 4, the
        # depthwise packing's zeros, c3's 3 channels and 5 filters; conv2 fills the tile
        assert (sum(useful) < padded) == (layer.name in ("conv1", "fc", "dw", "c3")), layer.name
        # a run's real MACs never exceed its non-padding windows x filters x positions
        for run, u in zip(runs, useful):
            assert u <= (run.rows >= 0).sum() * (run.cols >= 0).sum() * run.k


def test_layers_budget_and_refusals(tiles):
    cfg, man = tiles["baseline-4x4"]
    layout = man["command_layout"]
    plan = plan_workload(cfg, layout, "digits-cnn", ["fc", "conv1"], cycles=2000, seed=1,
                         reset_cycles=RESET_CYCLES)
    assert [d["name"] for d in plan.layers] == ["fc", "conv1"]
    assert {s.layer for s in plan.runs} == {"fc", "conv1"}
    # the same seed draws the same runs
    again = plan_workload(cfg, layout, "digits-cnn", ["fc", "conv1"], cycles=2000, seed=1,
                          reset_cycles=RESET_CYCLES)
    assert [(s.layer, s.index) for s in again.runs] == [(s.layer, s.index) for s in plan.runs]
    with pytest.raises(ConfigError) as e:
        plan_workload(cfg, layout, "digits-cnn", ["conv9"], cycles=2000, seed=1,
                      reset_cycles=RESET_CYCLES)
    assert e.value.field == "layers" and "conv1, conv2, fc" in str(e.value)
    with pytest.raises(ConfigError) as e:
        plan_workload(cfg, layout, "no-such-net", None, cycles=2000, seed=1,
                      reset_cycles=RESET_CYCLES)
    assert e.value.field == "workload" and "digits-cnn" in str(e.value)
    with pytest.raises(ConfigError) as e:
        plan_workload(cfg, layout, "digits-cnn", None, cycles=100, seed=1,
                      reset_cycles=RESET_CYCLES)
    assert e.value.field == "cycles"
    for name in ("tactical-tclp-4x4", "tactical-tcle-4x4", "diffy-4x4", "baseline-bf16-4x4"):
        with pytest.raises(ConfigError) as e:
            check_drivable(preset(name))
        assert e.value.field == "workload" and "own testbench" in str(e.value), name
    for name in ("baseline-4x4", "stripes-4x4", "dstripes-4x4", "zstripes-4x4", "loom-4x4",
                 "pragmatic-4x4", "laconic-4x4", "cnvlutin-4x4"):
        check_drivable(preset(name))


def test_write_stimulus_checks_rows(tiles, tmp_path):
    _, man = tiles["baseline-4x4"]
    with pytest.raises(ValueError, match="equal"):
        write_stimulus(str(tmp_path / "s"), man["ports"], [(0, [1, 2], [1])])
    with pytest.raises(ValueError, match="128-bit"):
        write_stimulus(str(tmp_path / "s"), man["ports"], [(0, [1 << 128], [1])])
