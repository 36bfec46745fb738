"""Energy per inference (golden/netsim/energy.py, golden/netsim/storage.py): access bits and
tile-buffer rows hand counted on small tiles and recounted over the lowered runs, the storage
levels at each design's shapes from the SRAM macro model, every brick charged once per level
(hand-summed energies), the compute term without the flop buffers, the refetch rule, the DRAM
sensitivity, and designs without a power record."""
import math


import json

import numpy as np
import pytest

from termwise.gen.config import TileConfig
from termwise.gen.spec import ConfigError
from termwise.golden.lowering import ORDERS, iter_fc_columns, lower_conv2d, lower_matmul
from termwise.golden.netsim import (check_power_record, design_energy, layer_accesses,
                                    network_energy)
from termwise.golden.netsim.storage import STORAGE, StorageModel, chip_levels, refetch
from termwise.golden.sram import bank
from termwise.golden.workloads import Layer

#: 3 filters x 4 windows x 4 lanes, 2-brick buffers, 8-bit operands, no output stage.
CFG = TileConfig(arch="baseline", filters=3, windows=4, lanes=4, act_bits=8, wgt_bits=8,
                 depth=2)
#: Stripes with per-column weight registers: 2 columns, 4-row buffers (2 rounds per run).
FC_CFG = TileConfig(arch="stripes", filters=3, windows=2, lanes=4, act_bits=8, wgt_bits=8,
                    depth=4, fc_columns=1)

#: CFG with 16-row buffers: macros (OpenRAM's smallest macro has 16 words).
CFG16 = TileConfig(arch="baseline", filters=3, windows=4, lanes=4, act_bits=8, wgt_bits=8,
                   depth=16)
DRAM_PJ = 1300 / 64             # Horowitz DRAM, 64-bit: 1.3 nJ, not scaled


def _rng():
    return np.random.default_rng(0)


def conv_layer(batch=1):
    """6x5x5 input, 5 filters 3x3, padding 1: 25 windows per image."""
    r = _rng()
    return Layer("conv", "conv", r.integers(-5, 6, size=(batch, 6, 5, 5)),
                 r.integers(-3, 4, size=(5, 6, 3, 3)), 8, padding=1)


def depthwise_layer():
    """6 channels 4x4, one 3x3 filter each, padding 1: 16 windows."""
    r = _rng()
    return Layer("dw", "conv", r.integers(0, 6, size=(1, 6, 4, 4)),
                 r.integers(-3, 4, size=(6, 1, 3, 3)), 8, padding=1, groups=6)


def fc_layer(batch):
    r = _rng()
    return Layer("fc", "fc", r.integers(0, 6, size=(batch, 13)),
                 r.integers(-3, 4, size=(7, 13)), 8)


def test_storage_levels_at_the_designs_shapes():
    """Tile buffers: depth x row width, from the macro model; chip memories: capacity /
    128-bit words, plus the wire across the bank: 0.25 x bits x 0.2 pF/mm x side x 1.8^2."""
    e = design_energy([fc_layer(2)], CFG16, [10], out_bits=8, images=2)
    lv = e["levels"]
    assert (lv["act_buffer"]["words"], lv["act_buffer"]["width"]) == (16, 4 * 4 * 8)
    assert (lv["wgt_buffer"]["words"], lv["wgt_buffer"]["width"]) == (16, 3 * 4 * 8)
    b = bank(16, 128)           # 4 macros of 16 x 32 side by side
    assert lv["act_buffer"]["read_pj"] == b.read_pj and lv["act_buffer"]["wire_pj"] == 0
    assert lv["act_buffer"]["write_pj"] == b.write_pj
    assert e["tile_buffers"] == "macros"
    w = lv["weight_memory"]
    assert (w["words"], w["width"]) == (2048 * 1024 * 8 // 128, 128)
    big = bank(w["words"], 128, max_words=256, max_width=128)    # 4 KB macros
    side_mm = math.sqrt(big.area_um2) / 1000
    assert w["wire_pj"] == pytest.approx(0.25 * 128 * 0.2 * side_mm * 1.8 ** 2)
    assert w["read_pj_per_bit"] == pytest.approx((big.read_pj + w["wire_pj"]) / 128)
    assert lv["activation_memory"]["words"] == 4096 * 1024 * 8 // 128
    # The bigger memory's word travels further.
    assert lv["activation_memory"]["wire_pj"] > w["wire_pj"] > 0
    with pytest.raises(ConfigError, match="weight_kib"):
        StorageModel(weight_kib=0)
    with pytest.raises(ConfigError, match="dram_pj_per_bit"):
        StorageModel(dram_pj_per_bit=-1.0)


def test_refetch_rule():
    """Capacities of 1 KiB (8192 bits) of weights and 2 KiB of activations."""
    m = StorageModel(weight_kib=1, activation_kib=2)
    assert refetch(8192, 10000, 6000, m)["offchip_bits"] == 8192 + 10000 + 6000
    # Weights in 2 chunks, activations fit: nothing fetched twice.
    r = refetch(8193, 10000, 6000, m)
    assert (r["weight_chunks"], r["activation_chunks"]) == (2, 1)
    assert r["offchip_bits"] == 8193 + 10000 + 6000
    # Both overflow (2 and 3 chunks): the smaller operand again for every chunk of the other.
    r = refetch(9000, 30000, 10000, m)
    assert (r["weight_chunks"], r["activation_chunks"]) == (2, 3)
    assert (r["weight_passes"], r["input_passes"]) == (3, 1)
    assert r["offchip_bits"] == 9000 * 3 + 30000 + 10000
    r = refetch(40000, 20000, 1, m)
    assert (r["weight_passes"], r["input_passes"]) == (1, 5)
    assert r["offchip_bits"] == 40000 + 20000 * 5 + 1


def test_conv_hand_count():
    """M = 25 windows, position order: ceil(6/4) = 2 bricks at each of 9 positions, Kp = 72;
    5 filters in ceil(5/3) = 2 filter groups, ceil(25/4) = 7 window groups; 18 bricks in
    chunks of 2: 9 chunks; 125 outputs."""
    acc = CFG.acc_bits
    got = layer_accesses(conv_layer(), CFG, 8, "position")
    assert (got["groups"], got["rows"], got["filters"], got["k_padded"]) == (1, 25, 5, 72)
    assert got["act_read_bits"] == 25 * 72 * 8 * 2 == 28800
    assert got["wgt_read_bits"] == 5 * 72 * 8 * 7 == 20160
    assert got["output_bits"] == 125 * (2 * 9 * acc + 8)
    assert got["onchip_bits"] == 28800 + 20160 + 125 * (18 * acc + 8)
    # 270 weights, 150 inputs, 125 outputs, 8 bits each.
    assert got["offchip_bits"] == (270 + 150 + 125) * 8
    # Channel order: 54 values in ceil(54/4) = 14 bricks, Kp = 56, 7 chunks.
    got = layer_accesses(conv_layer(), CFG, 8, "channel")
    assert got["act_read_bits"] == 25 * 56 * 8 * 2
    assert got["wgt_read_bits"] == 5 * 56 * 8 * 7
    assert got["output_bits"] == 125 * (2 * 7 * acc + 8)


def test_depthwise_hand_count():
    """Diagonal: ceil(6/4) = 2 tile groups of 4 channels and 4 filters (2 padding in the
    last), 9 one-brick positions (Kp = 36), ceil(4/3) = 2 filter groups, ceil(16/4) = 4
    window groups. Group: 6 groups of 1 filter, each channel padded to a brick per
    position (Kp = 36), one filter group each."""
    got = layer_accesses(depthwise_layer(), CFG, 8, "position", "diagonal")
    assert (got["groups"], got["filters"], got["k_padded"]) == (2, 4, 36)
    assert got["act_read_bits"] == 2 * 16 * 36 * 8 * 2 == 18432
    assert got["wgt_read_bits"] == 2 * 4 * 36 * 8 * 4 == 9216
    got = layer_accesses(depthwise_layer(), CFG, 8, "position", "group")
    assert got["act_read_bits"] == 6 * 16 * 36 * 8 * 1 == 27648
    assert got["wgt_read_bits"] == 6 * 1 * 36 * 8 * 4 == 6912
    # 96 outputs (not the padding filters'); 9 bricks in chunks of 2: 5 chunks.
    assert got["output_bits"] == 96 * (2 * 5 * CFG.acc_bits + 8)
    assert got["offchip_bits"] == (54 + 96 + 96) * 8


def test_fc_hand_count():
    """Batch 2 (a matrix product): M = 2, K = 13 -> Kp = 16 (4 bricks, 2 chunks), 7
    filters in 3 filter groups, one window group; 14 outputs."""
    got = layer_accesses(fc_layer(2), CFG, 8)
    assert got["mapping"] == "lowered"
    assert got["act_read_bits"] == 2 * 16 * 8 * 3 == 768
    assert got["wgt_read_bits"] == 7 * 16 * 8 * 1 == 896
    assert got["output_bits"] == 14 * (2 * 2 * CFG.acc_bits + 8)
    assert got["offchip_bits"] == (91 + 26 + 14) * 8


def test_fc_columns_hand_count():
    """Batch 1 on per-column weights: K = 13 in rounds of 2 columns x 4 lanes, 2 rounds
    (Kr = 16), 2 rounds per run: 1 chunk; 7 filters in 3 filter groups; each run writes
    both columns' partial sums of its real filters."""
    acc = FC_CFG.acc_bits
    got = layer_accesses(fc_layer(1), FC_CFG, 8)
    assert got["mapping"] == "fc_columns" and got["k_padded"] == 16
    assert got["act_read_bits"] == 16 * 8 * 3 == 384
    assert got["wgt_read_bits"] == 7 * 16 * 8 == 896
    assert got["output_bits"] == 2 * 1 * 2 * 7 * acc + 7 * 8
    assert got["output_fused"] is False
    assert got["offchip_bits"] == (91 + 13 + 7) * 8
    # K = 40: 5 rounds (Kr = 40), 3 chunks of at most 2 rounds.
    r = _rng()
    big = Layer("fc", "fc", r.integers(0, 6, size=(1, 40)), r.integers(-3, 4, size=(5, 40)), 8)
    got = layer_accesses(big, FC_CFG, 8)
    assert got["act_read_bits"] == 40 * 8 * 2
    assert got["wgt_read_bits"] == 5 * 40 * 8
    assert got["output_bits"] == 2 * 3 * 2 * 5 * acc + 5 * 8


def _count_runs(runs, cfg):
    """Activation and weight bits the runs load: their real windows' and filters' bricks."""
    act = sum(int((r.rows >= 0).sum()) * r.k for r in runs) * cfg.act_bits
    wgt = sum(int((r.cols >= 0).sum()) * r.k for r in runs) * cfg.wgt_bits
    return act, wgt


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("mapping", ["diagonal", "group"])
def test_reads_equal_count_over_lowered_runs(order, mapping):
    r = _rng()
    x = r.integers(0, 6, size=(2, 6, 5, 5))
    layers = [conv_layer(batch=2), depthwise_layer(), fc_layer(2),
              Layer("grouped", "conv", x, r.integers(-3, 4, size=(6, 2, 3, 3)), 8, stride=2,
                    padding=1, groups=3)]
    for layer in layers:
        if layer.kind == "fc":
            runs = lower_matmul(CFG, layer.act, layer.wgt)
        else:
            runs = lower_conv2d(CFG, layer.act, layer.wgt, stride=layer.stride,
                                padding=layer.padding, groups=layer.groups, order=order,
                                depthwise=mapping).runs
        got = layer_accesses(layer, CFG, 8, order, mapping)
        assert (got["act_read_bits"], got["wgt_read_bits"]) == _count_runs(runs, CFG), \
            layer.name
        # each run loads, and reads, one row of each buffer per brick it holds
        rows = sum(run.k // CFG.lanes for run in runs)
        assert got["tile_act_rows"] == got["tile_wgt_rows"] == rows, layer.name


def test_fc_columns_reads_equal_count_over_runs():
    r = _rng()
    for k in (5, 13, 16, 40):
        layer = Layer("fc", "fc", r.integers(0, 6, size=(1, k)),
                      r.integers(-3, 4, size=(7, k)), 8)
        runs = list(iter_fc_columns(FC_CFG, layer.act[0], layer.wgt))
        act = sum(run.act.size for run in runs) * 8
        wgt = sum(int((run.cols >= 0).sum()) * run.wgt.shape[0] * run.wgt.shape[2]
                  for run in runs) * 8
        partial = sum(FC_CFG.windows * int((run.cols >= 0).sum()) for run in runs)
        got = layer_accesses(layer, FC_CFG, 8)
        assert (got["act_read_bits"], got["wgt_read_bits"]) == (act, wgt), k
        assert got["output_bits"] == 2 * partial * FC_CFG.acc_bits + 7 * 8, k


def _hand_energy(acc_bits):
    """The conv layer (2 images) on CFG16, counted by hand: M = 50 windows in 13 window
    groups, 5 filters in 2 filter groups, Kp = 72 (18 bricks, 2 chunks of at most 16), 250
    outputs. Returns (bits and rows, joules by level) with the levels' per-access figures
    from the macro model."""
    runs, steps = 13 * 2, 18
    n = {"act": 50 * 72 * 8 * 2, "wgt": 5 * 72 * 8 * 13, "rows": runs * steps,
         "out_read": 250 * 2 * acc_bits, "out_write": 250 * (2 * acc_bits + 8),
         "fill_wgt": 270 * 8, "fill_act": 300 * 8, "offchip": (270 + 300 + 250) * 8}
    a, w = bank(16, 128), bank(16, 96)
    chip = chip_levels(STORAGE)
    am, wm = chip["activation_memory"], chip["weight_memory"]
    j = {"tile": n["rows"] * (a.read_pj + a.write_pj + w.read_pj + w.write_pj) * 1e-12,
         "chip": (n["wgt"] * wm.read_pj_per_bit + n["fill_wgt"] * wm.write_pj_per_bit
                  + (n["act"] + n["out_read"]) * am.read_pj_per_bit
                  + (n["fill_act"] + n["out_write"]) * am.write_pj_per_bit) * 1e-12,
         "dram": n["offchip"] * DRAM_PJ * 1e-12,
         }
    return n, j


def test_every_brick_charged_once_per_level():
    """Each operand bit: one chip-memory read, one tile-buffer write and one read; each
    DRAM bit one chip-memory write; compute without the flop buffers (0.5 - 0.2 W at
    100 MHz for 1000 cycles = 3 uJ); leakage over the same 10 us."""
    layer = conv_layer(batch=2)
    n, j = _hand_energy(CFG16.acc_bits)
    got = layer_accesses(layer, CFG16, 8)
    assert (got["act_read_bits"], got["wgt_read_bits"]) == (n["act"], n["wgt"])
    assert got["tile_act_rows"] == got["tile_wgt_rows"] == n["rows"]
    assert got["output_read_bits"] == n["out_read"]
    assert got["output_bits"] == n["out_read"] + n["out_write"]
    assert (got["dram_fill_wgt_bits"], got["dram_fill_act_bits"]) == (n["fill_wgt"],
                                                                      n["fill_act"])
    assert got["offchip_bits"] == n["offchip"]
    power = {"preset": "p", "tile_w": 0.5, "buffers_w": 0.2, "clock_mhz": 100.0,
             "source": "hand"}
    e = design_energy([layer], CFG16, [1000], out_bits=8, images=2, power=power)
    assert e["tile_buffer_j"] == pytest.approx(j["tile"], rel=1e-12)
    assert e["chip_memory_j"] == pytest.approx(j["chip"], rel=1e-12)
    assert e["offchip_j"] == pytest.approx(j["dram"], rel=1e-12)
    assert e["compute_j"] == pytest.approx(3e-6)
    assert e["time_s"] == pytest.approx(1e-5)
    total = 3e-6 + j["tile"] + j["chip"] + j["dram"]
    assert e["total_j"] == pytest.approx(total)
    assert e["per_inference_j"] == pytest.approx(total / 2)
    assert e["onchip_j"] == pytest.approx(j["tile"] + j["chip"])
    assert "leakage_j" not in e         # not charged: storage.py says why
    assert e["power"] == power
    # Without a record: access energy only, no compute, leakage, total or time.
    e = design_energy([layer], CFG16, [1000], out_bits=8, images=2)
    assert e["compute_j"] is None and e["total_j"] is None
    assert e["time_s"] is None and e["per_inference"]["compute_j"] is None
    assert e["memory_j"] == pytest.approx(j["tile"] + j["chip"] + j["dram"])
    with pytest.raises(ValueError, match="rtl_cycles"):
        design_energy([layer], CFG16, [1, 2], out_bits=8, images=2)


def test_busy_power_and_loaded_rows():
    """A record with busy, load and idle cycles apart: the power while busy without its
    buffers (0.8 - 0.3 W) for the RTL cycles (1000 at 100 MHz: 5 uJ), and per row written
    into the tile buffers (n["rows"] activation + weight rows) what a loaded row adds
    without its buffers (40 - 30 pJ); the stimulus's average (tile_w) is not used."""
    layer = conv_layer(batch=2)
    n, _ = _hand_energy(CFG16.acc_bits)
    power = {"preset": "p", "tile_w": 0.5, "buffers_w": 0.2, "clock_mhz": 100.0,
             "source": "hand", "busy_w": 0.8, "busy_buffers_w": 0.3, "load_row_pj": 40.0,
             "load_row_buffers_pj": 30.0}
    e = design_energy([layer], CFG16, [1000], out_bits=8, images=2, power=power)
    assert e["compute_j"] == pytest.approx(5e-6 + 2 * n["rows"] * 10e-12, rel=1e-12)
    # flop buffers below a macro's depth: the tile's own buffers stay in
    e = design_energy([conv_layer()], CFG, [1000], out_bits=8, images=1, power=power)
    rows = sum(layer_accesses(conv_layer(), CFG, 8)[k] for k in ("tile_act_rows",
                                                                 "tile_wgt_rows"))
    assert e["compute_j"] == pytest.approx(8e-6 + rows * 40e-12, rel=1e-12)
    with pytest.raises(ConfigError, match="go together"):
        check_power_record("d", {k: v for k, v in power.items() if k != "load_row_pj"})
    with pytest.raises(ConfigError, match="busy_buffers_w"):
        check_power_record("d", dict(power, busy_buffers_w=0.9))


def test_buffers_below_a_macro_stay_in_the_tile_power():
    """Depth 2 (below OpenRAM's 16 words): no tile-buffer level, the whole tile power."""
    power = {"preset": "p", "tile_w": 0.5, "buffers_w": 0.2, "clock_mhz": 100.0,
             "source": "hand"}
    e = design_energy([conv_layer()], CFG, [1000], out_bits=8, images=1, power=power)
    assert e["tile_buffer_j"] == 0 and "act_buffer" not in e["levels"]
    assert e["compute_j"] == pytest.approx(5e-6)
    assert e["tile_buffers"].startswith("flip-flops")


def test_network_efficiency_over_baseline_and_dram_sensitivity():
    """The baseline's total over each design's, when both have compute energy. Same tile
    for both: equal storage energy m (dram part d), compute 1 uJ and 0.25 uJ; at DRAM x s
    the totals move by (s - 1) d."""
    layer = fc_layer(2)
    cfgs = {"baseline": CFG16, "stripes": CFG16, "loom": CFG16}
    cycles = {"baseline": [100], "stripes": [100], "loom": [100]}

    def rec(w):
        return {"preset": "p", "tile_w": w, "buffers_w": 0.0, "clock_mhz": 100.0,
                "source": "hand"}

    doc = network_energy([layer], cfgs, cycles, out_bits=8, images=2,
                         power={"baseline": rec(1.0), "stripes": rec(0.25)})
    d = doc["designs"]
    m, dram = d["loom"]["memory_j"], d["loom"]["offchip_j"]
    leak = 0.0
    assert dram == pytest.approx((91 + 26 + 14) * 8 * DRAM_PJ * 1e-12)
    assert d["baseline"]["total_j"] == pytest.approx(1e-6 + m + leak)
    assert d["stripes"]["total_j"] == pytest.approx(0.25e-6 + m + leak)
    assert d["baseline"]["efficiency_over_baseline"] == pytest.approx(1.0)
    assert d["stripes"]["efficiency_over_baseline"] == pytest.approx(
        (1e-6 + m + leak) / (0.25e-6 + m + leak))
    assert d["loom"]["compute_j"] is None and d["loom"]["efficiency_over_baseline"] is None
    for s in (0.25, 2.0):
        x = (s - 1) * dram
        assert doc["dram_sensitivity"][f"{s:g}"]["stripes"] == pytest.approx(
            (1e-6 + m + leak + x) / (0.25e-6 + m + leak + x))
    assert doc["dram_sensitivity"]["1"]["stripes"] == \
        d["stripes"]["efficiency_over_baseline"]
    assert doc["images"] == 2 and doc["constants"]["dram_pj_per_bit"] == DRAM_PJ
    assert doc["constants"]["weight_memory_kib"] == 2048
    assert "DaDianNao" in doc["constants"]["sources"]["chip_memory_sizes"]
    assert doc["modelled"] and doc["not_modelled"]
    json.dumps(doc)
    # No baseline record: no design has an efficiency.
    doc = network_energy([layer], cfgs, cycles, out_bits=8, images=2,
                         power={"stripes": rec(0.25)})
    assert all(r["efficiency_over_baseline"] is None for r in doc["designs"].values())


_OK = {"preset": "p", "tile_w": 1.0, "buffers_w": 0.5, "clock_mhz": 100.0, "source": "s"}


@pytest.mark.parametrize("rec, fragment", [
    ({"preset": "p", "tile_w": 1.0, "buffers_w": 0, "clock_mhz": 100.0}, "lacks source"),
    ({k: v for k, v in _OK.items() if k != "buffers_w"}, "lacks buffers_w"),
    (dict(_OK, buffers_w=1.0), "buffers_w must be"),
    (dict(_OK, buffers_w=-0.1), "buffers_w must be"),
    (dict(_OK, buffers_w=True), "buffers_w must be"),
    (dict(_OK, tile_w=0), "tile_w must be"),
    (dict(_OK, tile_w=True), "tile_w must be"),
    (dict(_OK, clock_mhz=float("nan")), "clock_mhz"),
    (dict(_OK, preset=3), "must be text"),
    (dict(_OK, preset="q"), "runs on 'p'"),
    ("0.5 W", "must be a dict"),
])
def test_bad_power_record(rec, fragment):
    with pytest.raises(ConfigError, match=fragment) as err:
        check_power_record("d", rec, preset="p")
    assert err.value.field == "power"


def _report(path, preset, tile_w=0.5, mhz=100.0, source="random"):
    path.mkdir(parents=True)
    (path / "power_report.json").write_text(json.dumps({
        "preset": preset, "power_w": {"tile": tile_w, "total": 2 * tile_w},
        "by_kind_w": {"buffers": {"total_w": tile_w / 4}, "pe_lanes": {"total_w": 0.1}},
        "clock": {"mhz": mhz}, "activity": {"source": source}}))


def test_read_power_reports(tmp_path):
    from termwise.gen.flows.simulation.power_records import read_power_reports, reports_for
    _report(tmp_path / "a", "baseline-16x16")
    _report(tmp_path / "b" / "deep", "stripes-16x16", 0.25, 50.0, "digits-cnn")
    _report(tmp_path / "c", "loom-4x4")
    reps = read_power_reports(str(tmp_path))
    assert set(reps) == {"baseline-16x16", "stripes-16x16", "loom-4x4"}
    rec = reps["stripes-16x16"]["b/deep/power_report.json"]
    assert rec["tile_w"] == 0.25 and rec["clock_mhz"] == 50.0 and rec["buffers_w"] == 0.0625
    assert "b/deep/power_report.json" in rec["source"] and "digits-cnn" in rec["source"]
    power, ignored = reports_for(["baseline", "stripes"], 16, reps)
    assert set(power) == {"baseline", "stripes"} and ignored == ["loom-4x4"]
    power, _ = reports_for(["baseline", "stripes"], 8, reps)     # the -8b presets
    assert power == {}
    _report(tmp_path / "d", "stripes-16x16")
    with pytest.raises(ConfigError, match="2 reports of preset stripes-16x16"):
        reports_for(["stripes"], 16, read_power_reports(str(tmp_path)))
    for bad, fragment in (({"preset": "x", "power_w": {}}, "no power_w.tile"),
                          ({"preset": "x", "power_w": {"tile": -1}, "clock": {"mhz": 1},
                            "by_kind_w": {}, "activity": {"source": "random"}},
                           "power_w.tile must be"),
                          ({"preset": "x", "power_w": {"tile": 1}, "clock": {"mhz": 1},
                            "by_kind_w": {"buffers": {"total_w": 2}},
                            "activity": {"source": "random"}}, "buffers.total_w must be")):
        (tmp_path / "a" / "power_report.json").write_text(json.dumps(bad))
        with pytest.raises(ConfigError, match=fragment) as err:
            read_power_reports(str(tmp_path))
        assert err.value.field == "power_reports"
    with pytest.raises(ConfigError, match="must be a directory"):
        read_power_reports(str(tmp_path / "none"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="no power_report.json"):
        read_power_reports(str(tmp_path / "empty"))
