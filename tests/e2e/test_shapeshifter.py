"""`termwise shapeshifter` end to end on digits-cnn (one image, the default), groups 16 and
256 with Diffy's deltas: the fixed-width traffic checked against the network's shapes; bad
input refused."""

import csv
import io

import pytest

from termwise_e2e import assert_usage_error, load_json, ok, wrote_paths

BITS = 16
# digits-cnn on 8x8x1 digits, per layer: input activations, weights, outputs (values). The
# last layer's output is not counted as traffic.
VALUES = {"conv1": (8 * 8 * 1, 8 * 1 * 9, 8 * 8 * 8),
          "conv2": (8 * 8 * 8, 16 * 8 * 9, 16 * 4 * 4),
          "fc": (256, 10 * 256, None)}


def test_shapeshifter_digits_cnn(termwise, tmp_path):
    r = ok(termwise("shapeshifter", "--workload", "digits-cnn", "--precision", str(BITS),
                    "--group", "16,256", "--deltas", "-o", "out"))
    doc = load_json(tmp_path / "out" / "shapeshifter.json")
    assert doc["workload"] == "digits-cnn" and doc["precision"] == BITS
    assert list(doc["groups"]) == ["16", "256"]
    for g in doc["groups"].values():
        assert [l["name"] for l in g["layers"]] == list(VALUES)
        for layer in g["layers"]:
            act, wgt, out = VALUES[layer["name"]]
            assert layer["act_fixed_bits"] == act * BITS
            assert layer["wgt_fixed_bits"] == wgt * BITS
            if out is not None:
                assert layer["out_fixed_bits"] == out * BITS
            # Narrower groups can only shrink the traffic (4-bit header per group).
            assert 0 < layer["ss_bits"] < layer["fixed_bits"]
        t = g["total"]
        assert t["act_fixed_bits"] == sum(a for a, _, _ in VALUES.values()) * BITS
        assert t["wgt_fixed_bits"] == sum(w for _, w, _ in VALUES.values()) * BITS
        assert t["fixed_bits"] == sum(l["fixed_bits"] for l in g["layers"])
        assert t["ratio"] == pytest.approx(t["ss_bits"] / t["fixed_bits"])
        assert t["cycles"]["baseline"] == 64 + 80 + 16 and t["speedup"]["baseline"] == 1.0

    deltas = load_json(tmp_path / "out" / "deltas.json")
    assert deltas["workload"] == doc["workload"] and deltas["bits"] == BITS
    assert deltas["total"]["ratio"] == pytest.approx(
        deltas["total"]["delta_terms"] / deltas["total"]["act_terms"], abs=1e-3)
    assert (tmp_path / "out" / "deltas.md").read_text().startswith("# Diffy deltas")

    for p in wrote_paths(r.stderr):
        assert (tmp_path / p).is_file(), p
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out" / "shapeshifter.csv").read_text())))
    totals = {row["group"]: row for row in rows if row["name"] == "TOTAL"}
    assert set(totals) == {"16", "256"}
    assert int(totals["16"]["ss_bits"]) == doc["groups"]["16"]["total"]["ss_bits"]
    assert "# ShapeShifter: digits-cnn" in (tmp_path / "out" / "shapeshifter.md").read_text()
    assert r.stdout.startswith("group  16: traffic")


def test_shapeshifter_bad_input(termwise, tmp_path):
    r = termwise("shapeshifter", "--workload", "digits-cnn", "--group", "8", "-o", "out")
    assert_usage_error(r, tmp_path / "out", "group: must be in 16..256, got 8")
