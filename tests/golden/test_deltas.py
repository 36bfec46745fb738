"""Diffy's delta statistics (golden/workloads/deltas.py): deltas along x and Booth term
counts worked out by hand."""

import numpy as np
import pytest

from termwise.golden.terms import booth_term_count
from termwise.golden.workloads import Layer, Workload
from termwise.golden.workloads.deltas import delta_table, delta_term_stats, layer_deltas


def test_deltas_by_hand_1x1():
    act = np.array([1, 3, 3, 0]).reshape(1, 1, 1, 4)
    layer = Layer("l", "conv", act, np.ones((1, 1, 1, 1), np.int64), 8)
    a, d = layer_deltas(layer)
    assert d.ravel().tolist() == [1, 2, 0, -3]
    s = delta_term_stats(layer)
    # radix-4 Booth: 1 -> 1, 3 -> 2 (4 - 1), 0 -> 0; deltas (9 bits): 1 -> 1,
    # 2 -> 2 (4 - 2), 0 -> 0, -3 -> 2 (-4 + 1)
    assert s["act_terms"] == pytest.approx((1 + 2 + 2 + 0) / 4)
    assert s["delta_terms"] == pytest.approx((1 + 2 + 0 + 2) / 4)
    assert s["delta_zero"] == 0.25


def test_deltas_stride_and_row_start():
    act = np.arange(10).reshape(1, 1, 2, 5) ** 2
    layer = Layer("l", "conv", act, np.ones((1, 1, 1, 3), np.int64), 8, stride=2)
    a, d = layer_deltas(layer)
    assert a.shape == (1, 1, 1, 2, 3)        # rows: (2 - 1)//2 + 1 = 1, OW = 2
    row = act[0, 0, 0]
    assert d[0, 0, 0, 0].tolist() == row[0:3].tolist()           # predecessor 0
    assert d[0, 0, 0, 1].tolist() == (row[2:5] - row[0:3]).tolist()
    # two output rows with stride 1: each row starts over
    layer2 = Layer("l", "conv", act, np.ones((1, 1, 1, 1), np.int64), 8)
    _, d2 = layer_deltas(layer2)
    assert d2[0, 0, 1, 0, 0] == act[0, 0, 1, 0]
    s = delta_term_stats(layer)
    assert s["delta_terms"] == pytest.approx(
        booth_term_count(d.ravel(), 9).mean())


def test_delta_table_weighted_total_and_fc():
    conv = Layer("c", "conv", np.array([1, 3, 3, 0]).reshape(1, 1, 1, 4),
                 np.ones((1, 1, 1, 1), np.int64), 8)
    fc = Layer("f", "fc", np.array([[5, 6]]), np.ones((2, 2), np.int64), 8)
    tab = delta_table(Workload("w", 8, [conv, fc]))
    assert tab["layers"][1]["delta_terms"] is None
    assert tab["total"]["act_terms"] == pytest.approx(1.25)
    assert tab["total"]["ratio"] == pytest.approx(1.0)
    assert tab["total_macs"]["act_terms"] == pytest.approx(1.25)
