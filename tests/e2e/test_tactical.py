"""`termwise tactical` end to end on digits-cnn, dense and 50% pruned, one image, two
connectivities: tactical.json/csv/md; bad input refused."""

import csv
import io
from math import ceil, log2

import pytest

from termwise_e2e import assert_usage_error, load_json, ok, wrote_paths

# digits-cnn, one image, baseline-16x16 (dense), the papers' brick order: 9 bricks per window
# for conv1 (64 windows) and conv2 (16), 16 for the fc layer.
BASELINE_CYCLES = 64 * 9 + 16 * 9 + 16
# Select bits per weight: the weight itself, h steps ahead, d lanes aside -> 1 + h + d choices.
CONNECTIVITY = {"T<2,5>": ceil(log2(1 + 2 + 5)), "L<2,1>": ceil(log2(1 + 2 + 1))}
BACK_END = {"tactical-tclp": "dstripes", "tactical-tcle": "pragmatic-booth"}


def test_tactical_digits_cnn(termwise, tmp_path):
    r = ok(termwise("tactical", "--workload", "digits-cnn", "--sparsity", "0,50",
                    "--connectivity", ",".join(CONNECTIVITY), "--images", "1", "-o", "out"))
    doc = load_json(tmp_path / "out" / "tactical.json")
    assert doc["workload"] == "digits-cnn" and doc["precision"] == 16
    assert doc["connectivities"] == list(CONNECTIVITY)
    assert doc["back_ends"] == BACK_END and doc["brick_order"] == "position"
    dense, sparse = doc["rows"]
    assert (dense["sparsity"], sparse["sparsity"]) == (0.0, 0.5)
    assert (dense["workload"], sparse["workload"]) == ("digits-cnn", "digits-cnn-p50")
    assert 0.5 <= sparse["weight_zero_fraction"] < 0.51            # pruned per layer to 50%
    assert dense["weight_zero_fraction"] < 0.5
    for row in doc["rows"]:
        cyc = row["cycles"]
        assert cyc["baseline"] == BASELINE_CYCLES
        for design, c in cyc.items():
            assert row["speedup"][design] == pytest.approx(BASELINE_CYCLES / c)
        for tcl, back in BACK_END.items():
            assert row["over_back_end"][tcl] == pytest.approx(cyc[back] / cyc[tcl])
        for conn, bits in CONNECTIVITY.items():
            s = row["schedule"][conn]
            assert s["metadata_bits"] == bits
            assert s["reduction"] == pytest.approx(1 - s["kept"] / s["steps"])
            assert s["efficiency"] == pytest.approx(s["reduction"] / row["weight_zero_fraction"])
    for tcl in BACK_END:        # more zero weights to skip: fewer cycles
        assert sparse["cycles"][tcl] < dense["cycles"][tcl]

    for p in wrote_paths(r.stderr):
        assert (tmp_path / p).is_file(), p
    table = list(csv.DictReader(io.StringIO((tmp_path / "out" / "tactical.csv").read_text())))
    assert [t["workload"] for t in table] == ["digits-cnn", "digits-cnn-p50"]
    for t, row in zip(table, doc["rows"]):
        assert int(t["cycles_tactical-tcle"]) == row["cycles"]["tactical-tcle"]
    md = (tmp_path / "out" / "tactical.md").read_text()
    assert md.startswith("# Bit-Tactical") and "| 50% | digits-cnn-p50 |" in md
    assert [l.split()[0] for l in r.stdout.splitlines()] == ["digits-cnn", "digits-cnn-p50"]


def test_tactical_bad_input(termwise, tmp_path):
    for args, fragment in ((["--sparsity", "150"], "sparsity: must be 0 <= p < 100"),
                           (["--connectivity", "Q<1,1>"], "connectivity: expected T<2,5>"),
                           (["--workload", "nope"], "workload: must be one of")):
        r = termwise("tactical", *args, "-o", "out")
        assert_usage_error(r, tmp_path / "out", fragment)
