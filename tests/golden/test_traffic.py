"""Fused-output-stage traffic: the closed form equals a count over the lowered runs."""

import numpy as np
import pytest

from termwise.gen.config import TileConfig
from termwise.golden.lowering import ORDERS, lower_conv2d, lower_matmul
from termwise.golden.netsim import layer_output_traffic, network_output_traffic
from termwise.golden.workloads import Layer

CFG = TileConfig(arch="baseline", filters=3, windows=4, lanes=4, act_bits=8, wgt_bits=8,
                 depth=2)


def _layers(rng):
    x = rng.integers(-5, 6, size=(1, 6, 5, 5))
    return [
        Layer("one_chunk", "conv", x, rng.integers(-3, 4, size=(5, 6, 1, 1)), 8),
        Layer("three_chunks", "conv", x, rng.integers(-3, 4, size=(4, 6, 3, 3)), 8,
              padding=1),
        Layer("grouped", "conv", x, rng.integers(-3, 4, size=(6, 2, 3, 3)), 8, stride=2,
              padding=1, groups=3),
        Layer("fc", "fc", rng.integers(-5, 6, size=(2, 13)),
              rng.integers(-3, 4, size=(7, 13)), 8),
    ]


def _runs(layer, order):
    if layer.kind == "fc":
        return lower_matmul(CFG, layer.act, layer.wgt)
    return lower_conv2d(CFG, layer.act, layer.wgt, stride=layer.stride,
                        padding=layer.padding, groups=layer.groups, order=order).runs


def _reference(layer, out_bits, order):
    """Count the partial sums the runs emit (valid rows x valid filters each), and the
    finished outputs as the distinct (group, row, filter) triples written."""
    runs = _runs(layer, order)
    partial = sum(int((r.rows >= 0).sum() * (r.cols >= 0).sum()) for r in runs)
    chunks = max(r.chunk for r in runs) + 1
    outputs = partial // chunks
    unfused = 2 * partial * CFG.acc_bits + outputs * out_bits
    fused = outputs * out_bits if chunks == 1 else unfused
    return outputs, chunks, unfused, fused


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("out_bits", [8, 16])
def test_traffic_equals_count_over_lowered_runs(out_bits, order):
    for layer in _layers(np.random.default_rng(0)):
        got = layer_output_traffic(layer, CFG, out_bits, order)
        outputs, chunks, unfused, fused = _reference(layer, out_bits, order)
        assert (got["outputs"], got["chunks"]) == (outputs, chunks), layer.name
        assert got["unfused_bits"] == unfused and got["fused_bits"] == fused, layer.name
        assert got["fusable"] == (chunks == 1)


def test_network_totals_and_deep_buffers():
    layers = _layers(np.random.default_rng(1))
    tr = network_output_traffic(layers, CFG, 8)
    t = tr["total"]
    assert t["unfused_bits"] == sum(r["unfused_bits"] for r in tr["layers"])
    # depth 2 x 4 lanes holds K <= 8: only the 1x1 conv (6 channels: 2 bricks) fits one
    # run; in the papers' brick order the 3x3 conv (2 bricks of 6 channels x 9 positions: 9
    # chunks), the grouped conv (2 channels: 9 bricks, 5 chunks) and the fc layer (K = 13:
    # 2) do not.
    assert t["fusable_layers"] == 1 and tr["brick_order"] == "position"
    assert [r["chunks"] for r in tr["layers"]] == [1, 9, 5, 2]
    assert t["fused_deep_bits"] == sum(r["outputs"] for r in tr["layers"]) * 8
    assert 0 < t["saved_fraction"] < t["saved_fraction_deep"] < 1
    assert t["depth_for_all"] == 18
    # Channel-major order: K = 54 (14 bricks, 7 chunks), 18 (3) and 13 (2).
    tr = network_output_traffic(layers, CFG, 8, "channel")
    assert [r["chunks"] for r in tr["layers"]] == [1, 7, 3, 2]
    assert tr["total"]["depth_for_all"] == 14
