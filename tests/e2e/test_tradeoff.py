"""`termwise tradeoff` end to end with one traced image (accuracy still on all 360 test
images): tradeoff.json/csv/md/png, cycles checked against the network's shapes; bad input
refused."""

import csv
import io

from termwise_e2e import assert_png, assert_usage_error, load_json, ok

# digits-cnn on one image, per layer (windows, bricks per window, filters) -> steps of a
# 16x16 tile, the convolutions in the papers' brick order (ceil(C/16) x 9 bricks: 9 for
# conv1's 1 channel and conv2's 8; the fc layer's 256 inputs are 16): baseline (1 window at
# a time) 64 * 9 + 16 * 9 + 16, Stripes (16 windows at once) 4 * 9 + 1 * 9 steps of
# `precision` cycles each; the batch-1 fc layer's 16 bricks are dealt over the 16 columns
# (issue 14: one round, max(precision, 16) = 16 cycles: its 16 weight rows).
BASELINE_CYCLES = 64 * 9 + 16 * 9 + 16
STRIPES_STEPS = (4 * 9, 9)
STRIPES_FC = 16
# 10 uniform activation precisions, 9 uniform weight precisions, 6 for each of the 3
# layers alone, 2 lossless profiles, 2 settings of the 8-bit base.
N_SETTINGS = 10 + 9 + 6 * 3 + 2 + 2


def test_tradeoff_one_image(termwise, tmp_path):
    r = ok(termwise("tradeoff", "--images", "1", "-o", "out"))
    doc = load_json(tmp_path / "out" / "tradeoff.json")
    assert doc["workload"] == "digits-cnn" and doc["layers"] == ["conv1", "conv2", "fc"]
    assert doc["fc"] == "columns" and doc["designs"]["stripes"]["config"]["fc_columns"] == 1
    assert doc["test_images_cycles"] == 1 and doc["test_images_accuracy"] == 360
    assert doc["lossless_floor"] == doc["float_test_accuracy"] - doc["lossless_margin_points"]
    assert 80 < doc["float_test_accuracy"] <= 100
    rows = doc["rows"]
    assert len(rows) == N_SETTINGS
    for row in rows:
        assert row["cycles"]["baseline"] == BASELINE_CYCLES, row["label"]
        assert row["speedup"]["baseline"] == 1.0
        for d in ("stripes", "loom"):
            assert row["speedup"][d] == BASELINE_CYCLES / row["cycles"][d]
        assert row["lossless"] == (row["accuracy"] >= doc["lossless_floor"])
        if row["group"] in ("uniform act", "uniform wgt", "one layer act"):
            # Stripes runs each layer at its activation precision, weights do not matter;
            # every layer's inputs (pixels, ReLU outputs) are non-negative, so each runs
            # unsigned, one bit below its two's complement grid width (issue 14).
            expect = sum(s * max(1, p - 1) for s, p in zip(STRIPES_STEPS, row["act"]))
            expect += STRIPES_FC
            assert row["cycles"]["stripes"] == expect, row["label"]
    # The profiles are lossless by construction.
    assert all(row["lossless"] for row in rows if row["group"] == "profile")

    table = list(csv.DictReader(io.StringIO((tmp_path / "out" / "tradeoff.csv").read_text())))
    assert [t["setting"] for t in table] == [row["label"] for row in rows]
    assert all(int(t["baseline_cycles"]) == BASELINE_CYCLES for t in table)
    md = (tmp_path / "out" / "tradeoff.md").read_text()
    assert md.startswith("# digits-cnn") and all(f"| {row['label']} |" in md for row in rows)
    assert_png(tmp_path / "out" / "tradeoff.png")
    assert f"float {doc['float_test_accuracy']:.2f}%" in r.stdout


def test_tradeoff_bad_input(termwise, tmp_path):
    r = termwise("tradeoff", "--images", "0", "-o", "out")
    assert_usage_error(r, tmp_path / "out", "images: must be a positive integer, got 0")
