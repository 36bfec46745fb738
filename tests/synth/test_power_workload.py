"""`termwise power --workload`: the workload plan (the real layers lowered as the ``real``
regression lowers them, their runtime registers, the layers' own MACs per run, the cycle
budget, refused designs and names) and the stimulus file the gate-level harness reads,
decoded here independently of the writer and compared with a fresh lowering: the generic
driver's rows (baseline, Stripes), Bit-Tactical's scheduled weight rows (decoded back into
the dense weights by the T <2,5> connectivity of the paper) and Diffy's chained runs (restart
bits re-derived from the output positions)."""

import numpy as np
import pytest

from termwise.gen.config import preset
from termwise.gen.emit import manifest, render
from termwise.gen.flows.ppa import needed_cycles
from termwise.gen.spec import ConfigError
from termwise.golden.cycles import run_cycles
from termwise.golden.lowering import lower_layer
from termwise.golden.netsim import layer_runtime
from termwise.golden.workloads import Layer, load_workload
from termwise.synth.power.stimulus import RESET_CYCLES, read_stimulus, write_stimulus
from termwise.synth.power.workload import (RUN_SLACK_CYCLES,
                                           check_drivable, plan_workload, run_useful_macs,
                                           stimulus_rows)


@pytest.fixture(scope="module")
def tiles():
    out = {}
    for name in ("baseline-4x4", "stripes-4x4", "tactical-tcle-4x4", "diffy-4x4"):
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


def _command(word: int, layout: dict) -> dict:
    return {k: (word >> f["offset"]) & ((1 << f["width"]) - 1) for k, f in layout.items()}


def _acts(cfg, rows, signed: bool) -> np.ndarray:
    """Activation rows -> (windows, K): row i is brick i of every window, window 0 least
    significant."""
    act = np.array([_fields(a, cfg.windows * cfg.lanes, cfg.act_bits, signed) for a in rows])
    return act.reshape(len(rows), cfg.windows, cfg.lanes).transpose(1, 0, 2).reshape(
        cfg.windows, -1)


def _plan_and_file(cfg, man, tmp_path, workload="digits-cnn", seed=5, cycles=2000):
    plan = plan_workload(cfg, man["command_layout"], workload, None, cycles=cycles, seed=seed,
                         reset_cycles=RESET_CYCLES)
    path = str(tmp_path / "stim.bin")
    assert write_stimulus(path, man["ports"], stimulus_rows(cfg, plan)) == len(plan.runs)
    return plan, read_stimulus(path)


@pytest.mark.parametrize("name", ["baseline-4x4", "stripes-4x4"])
def test_stimulus_file_holds_the_lowered_runs(tiles, digits, tmp_path, name):
    cfg, man = tiles[name]
    plan, got = _plan_and_file(cfg, man, tmp_path)
    layers = {layer.name: layer for layer in digits.layers}
    assert [d["name"] for d in plan.layers] == list(layers)
    assert [d["runs"] for d in plan.layers] == \
        [sum(s.layer == name for s in plan.runs) for name in layers]
    # runs of the layers mixed, none sent twice, the plan's estimate within the budget
    assert len({s.layer for s in plan.runs}) > 1
    assert len({(s.layer, s.index) for s in plan.runs}) == len(plan.runs)
    assert RESET_CYCLES + sum(s.estimated_cycles for s in plan.runs) == plan.estimated_cycles
    assert plan.estimated_cycles <= 2000
    widths = {p["name"]: p["width"] for p in man["ports"]}
    assert got["wgt_words"] == -(-widths["wgt__payload"] // 32)
    assert len(got["runs"]) == len(plan.runs)
    lowered = {name: lower_layer(cfg, layer)[0] for name, layer in layers.items()}
    for s, r in zip(plan.runs, got["runs"]):
        layer = layers[s.layer]
        run = lowered[s.layer][s.index]         # the lowering's own run, lowered afresh
        rt = layer_runtime(cfg, layer)
        assert s.runtime == rt
        bricks = run.k // cfg.lanes
        assert bricks == len(r["wgt_rows"]) == len(r["act_rows"])
        assert _command(r["command"], man["command_layout"]) == \
            {k: int(v) for k, v in {"bricks": bricks, **rt}.items()}
        # row i: brick i of every filter / window, element 0 least significant
        wgt = np.array([_fields(w, cfg.filters * cfg.lanes, cfg.wgt_bits, True)
                        for w in r["wgt_rows"]])            # (bricks, filters * lanes)
        wgt = wgt.reshape(bricks, cfg.filters, cfg.lanes).transpose(1, 0, 2)
        np.testing.assert_array_equal(wgt.reshape(cfg.filters, -1), run.wgt)
        np.testing.assert_array_equal(_acts(cfg, r["act_rows"], rt["act_signed"]), run.act)
    # real data: the runs are not all zero, the digits' activations are unsigned
    assert any(np.any(s.run.act) for s in plan.runs)
    assert not any(s.runtime["act_signed"] for s in plan.runs)


#: Bit-Tactical's 'T' <2,5> promotion sources (steps ahead, lane shift), in select order
#: (select s >= 1 is source s - 1), as the paper lists them (docs/papers.md#bit-tactical).
T_2_5 = ((1, -1), (1, 0), (1, 1), (1, 3), (2, -2), (2, 0), (2, 2))


def _untactical(cfg, wgt_rows):
    """The dense (filters, steps, lanes) weights a Bit-Tactical host's weight rows stand
    for, and the kept steps' original indexes: row ``2j`` kept step ``j``'s packed weights,
    row ``2j + 1`` a 3-bit select per (filter, lane) (filter-major), then the step index.
    Every non-zero weight must land on a distinct dense position."""
    sel_bits = 3                                 # ceil(log2(7 sources + 1))
    index_at = cfg.filters * cfg.lanes * sel_bits
    steps = [r >> index_at for r in wgt_rows[1::2]]
    dense = np.zeros((cfg.filters, cfg.depth + 2, cfg.lanes), np.int64)
    placed = np.zeros(dense.shape, bool)
    for t, wrow, mrow in zip(steps, wgt_rows[0::2], wgt_rows[1::2]):
        w = np.array(_fields(wrow, cfg.filters * cfg.lanes, cfg.wgt_bits, True))
        sel = _fields(mrow, cfg.filters * cfg.lanes, sel_bits, False)
        for slot, (value, s) in enumerate(zip(w.tolist(), sel)):
            f, lane = divmod(slot, cfg.lanes)
            dt, dl = (0, 0) if s == 0 else T_2_5[s - 1]
            at = (f, t + dt, (lane + dl) % cfg.lanes)
            if value:
                assert not placed[at], f"weight {at} sent twice"
                placed[at] = True
                dense[at] = value
    return dense, steps


def test_runs_follow_the_networks_mix(tiles, digits):
    """Each layer's share of the stimulus's compute cycles is close to its share of the
    network's (every run of every layer by the golden cycle model), whatever the layers'
    run counts: the draw weights a layer by its cycles, not one sample per layer."""
    cfg, man = tiles["baseline-4x4"]
    network = {}
    for layer in digits.layers:
        rt = layer_runtime(cfg, layer)
        network[layer.name] = sum(run_cycles(cfg, r.act, r.wgt, rt)
                                  for r in lower_layer(cfg, layer)[0])
    plan = plan_workload(cfg, man["command_layout"], "digits-cnn", None, cycles=60000,
                         seed=3, reset_cycles=RESET_CYCLES)
    sampled = dict.fromkeys(network, 0)
    for s in plan.runs:
        sampled[s.layer] += run_cycles(cfg, s.run.act, s.run.wgt, s.runtime)
    runs = {d["name"]: d["lowered_runs"] for d in plan.layers}
    assert max(runs.values()) > 3 * min(runs.values())      # the layers differ in size
    for name in network:
        share, want = sampled[name] / sum(sampled.values()), \
            network[name] / sum(network.values())
        assert abs(share - want) < 0.06, (name, share, want)


def test_tactical_stimulus_holds_the_schedule(tiles, digits, tmp_path):
    cfg, man = tiles["tactical-tcle-4x4"]
    plan, got = _plan_and_file(cfg, man, tmp_path)
    layers = {layer.name: layer for layer in digits.layers}
    assert {s.layer for s in plan.runs} <= set(layers)
    lowered = {name: lower_layer(cfg, layer)[0] for name, layer in layers.items()}
    skipped = 0
    for s, r in zip(plan.runs, got["runs"]):
        run = lowered[s.layer][s.index]
        rt = layer_runtime(cfg, layers[s.layer])
        bricks = run.k // cfg.lanes
        dense, steps = _untactical(cfg, r["wgt_rows"])
        # the kept steps in order, each sent as two rows, the command's bricks their count
        assert steps == sorted(set(steps)) and all(t < bricks for t in steps)
        assert len(r["wgt_rows"]) == 2 * len(steps)
        assert _command(r["command"], man["command_layout"]) == \
            {k: int(v) for k, v in {"bricks": len(steps), **rt}.items()}
        # the schedule stands for exactly the run's weights; activations are sent dense
        np.testing.assert_array_equal(dense[:, :bricks].reshape(cfg.filters, -1), run.wgt)
        assert not dense[:, bricks:].any()
        assert len(r["act_rows"]) == bricks
        np.testing.assert_array_equal(_acts(cfg, r["act_rows"], rt["act_signed"]), run.act)
        skipped += bricks - len(steps)
    assert skipped > 0, "no run skipped a step: the schedule is not exercised"


def _diffy_restarts(cfg, layer, runs, sent):
    """Restart bits of the runs ``sent`` (indexes, in order) from the output positions: a
    window restarts when it is padding or its output is at column 0 of a row; window 0 also
    when the run sent before it does not end on its left neighbour (same filters and K
    chunk)."""
    ow = layer.out_hw[1]
    out, before = [], None
    for i in sent:
        run = runs[i]
        bits = sum(1 << w for w, r in enumerate(run.rows) if r < 0 or r % ow == 0)
        left = (before is not None and before.chunk == run.chunk
                and np.array_equal(before.cols, run.cols) and before.rows[-1] >= 0
                and before.rows[-1] == run.rows[0] - 1)
        out.append(bits | (0 if left else 1))
        before = run
    return out


def test_diffy_stimulus_chains_runs(tiles, digits, tmp_path):
    cfg, man = tiles["diffy-4x4"]
    plan, got = _plan_and_file(cfg, man, tmp_path)
    layers = {layer.name: layer for layer in digits.layers}
    counts = {d["name"]: d["runs"] for d in plan.layers}
    assert sum(n >= 2 for n in counts.values()) >= 2
    # each layer's runs together, consecutive runs of its lowering
    assert [s.layer for s in plan.runs] == [name for name in layers
                                            for _ in range(counts[name])]
    kept_predecessor, at = 0, 0
    for name in layers:
        layer, n = layers[name], counts[name]
        if not n:
            continue
        runs = lower_layer(cfg, layer)[0]
        mine, sent_rows = plan.runs[at:at + n], got["runs"][at:at + n]
        at += n
        sent = [s.index for s in mine]
        assert sent == list(range(sent[0], sent[0] + n))
        rt = layer_runtime(cfg, layer)
        restarts = _diffy_restarts(cfg, layer, runs, sent)
        for s, r, restart in zip(mine, sent_rows, restarts):
            run = runs[s.index]
            bricks = run.k // cfg.lanes
            assert len(r["wgt_rows"]) == len(r["act_rows"]) == bricks
            assert _command(r["command"], man["command_layout"]) == \
                {k: int(v) for k, v in {**rt, "bricks": bricks, "restart": restart}.items()}
            np.testing.assert_array_equal(_acts(cfg, r["act_rows"], rt["act_signed"]),
                                          run.act)
            kept_predecessor += not restart & 1
        if layer.kind == "fc":      # a batch row is no neighbour of the next: all restart
            assert set(restarts) == {(1 << cfg.windows) - 1}
    assert kept_predecessor > 0, "no run continued the previous one's row"
    first = plan.layers[0]
    assert first["name"] == "conv1" and first["runs"] >= 2
    assert first["run_registers"]["restart"] == _diffy_restarts(
        cfg, layers["conv1"], lower_layer(cfg, layers["conv1"])[0],
        [s.index for s in plan.runs[:first["runs"]]])


@pytest.mark.parametrize("name", ["tactical-tcle-4x4", "diffy-4x4"])
def test_planned_cycles_follow_the_cycle_model(tiles, digits, tmp_path, name):
    """The plan's cycles: per run the rows the file holds, the command, the golden cycle
    model's cycles of the run (Diffy: with the decoded restart bits and the previous sent
    run's last window as predecessor), the output rows and the fixed slack."""
    cfg, man = tiles[name]
    plan, got = _plan_and_file(cfg, man, tmp_path, seed=2)
    layers = {layer.name: layer for layer in digits.layers}
    total, before = RESET_CYCLES, None
    for s, r in zip(plan.runs, got["runs"]):
        run = lower_layer(cfg, layers[s.layer])[0][s.index]
        rt = dict(layer_runtime(cfg, layers[s.layer]))
        if "restart" in rt:
            rt["restart"] = _command(r["command"], man["command_layout"])["restart"]
            rt["predecessor"] = None if rt["restart"] & 1 else before.act[-1]
        compute = run_cycles(cfg, run.act, run.wgt, rt)
        assert s.estimated_cycles == (len(r["wgt_rows"]) + len(r["act_rows"]) + 1 + compute
                                      + cfg.windows + RUN_SLACK_CYCLES)
        total += s.estimated_cycles
        before = run
    assert total == plan.estimated_cycles <= 2000


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
        plan_workload(cfg, layout, "digits-cnn", None, cycles=RESET_CYCLES + 5, seed=1,
                      reset_cycles=RESET_CYCLES)
    assert e.value.field == "cycles"
    # the budget it names (read by `termwise report` to raise a slow design's budget) is
    # the smallest that holds the first run drawn
    need = needed_cycles(e.value)
    one = plan_workload(cfg, layout, "digits-cnn", None, cycles=need, seed=1,
                        reset_cycles=RESET_CYCLES)
    assert len(one.runs) == 1 and one.estimated_cycles == need
    with pytest.raises(ConfigError):
        plan_workload(cfg, layout, "digits-cnn", None, cycles=need - 1, seed=1,
                      reset_cycles=RESET_CYCLES)
    with pytest.raises(ConfigError) as e:
        check_drivable(preset("baseline-bf16-4x4"))
    assert e.value.field == "workload" and "integer traces" in str(e.value)
    assert "\n" not in str(e.value)
    for name in ("baseline-4x4", "stripes-4x4", "dstripes-4x4", "zstripes-4x4", "loom-4x4",
                 "pragmatic-4x4", "laconic-4x4", "cnvlutin-4x4", "tactical-tclp-4x4",
                 "tactical-tcle-4x4", "diffy-4x4"):
        check_drivable(preset(name))


def test_write_stimulus_checks_rows(tiles, tmp_path):
    _, man = tiles["baseline-4x4"]
    path = str(tmp_path / "s")
    with pytest.raises(ValueError, match="activation row"):
        write_stimulus(path, man["ports"], [(0, [1, 2], [])])
    with pytest.raises(ValueError, match="128-bit"):
        write_stimulus(path, man["ports"], [(0, [1 << 128], [1])])
    # counts of their own (a Bit-Tactical run: two rows per kept step; none kept: none)
    assert write_stimulus(path, man["ports"], [(7, [1, 2, 3], [4]), (9, [], [5, 6])]) == 2
    words = np.fromfile(path, dtype="<u4")
    w, a, c = (-(-next(p["width"] for p in man["ports"] if p["name"] == n) // 32)
               for n in ("wgt__payload", "act__payload", "cmd__payload"))
    assert words[1] == 2 and list(words[2:6]) == [2, w, a, c]
    assert list(words[6:8]) == [3, 1] and words[8] == 7     # counts, then the command
    second = 6 + 2 + c + 3 * w + a
    assert list(words[second:second + 2]) == [0, 2] and len(words) == second + 2 + c + 2 * a
    assert [(r["command"], r["wgt_rows"], r["act_rows"]) for r in read_stimulus(path)["runs"]] \
        == [(7, [1, 2, 3], [4]), (9, [], [5, 6])]
