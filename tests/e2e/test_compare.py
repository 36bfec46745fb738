"""`termwise compare` end to end on two `termwise synth` output folders (the smallest tile and
the same with two filters); bad input refused."""

import csv
import io

import pytest

from termwise_e2e import SMALLEST_TILE, SYNTH_CACHE, assert_usage_error, load_json, ok


def _filters(n):
    args = list(SMALLEST_TILE)
    args[args.index("--filters") + 1] = str(n)
    return args


def test_compare_synth_folders(termwise, tmp_path):
    for n in (1, 2):
        ok(termwise("synth", *_filters(n), "--cache-dir", SYNTH_CACHE, "-o", f"f{n}"))
    reps = [load_json(tmp_path / f"f{n}" / "synth_report.json") for n in (1, 2)]

    r = ok(termwise("compare", "f1", "f2", "-o", "cmp"))
    md = (tmp_path / "cmp" / "compare.md").read_text()
    assert md in r.stdout and "cmp/compare.md" in r.stdout
    rows = list(csv.DictReader(io.StringIO((tmp_path / "cmp" / "compare.csv").read_text())))
    assert [row["name"] for row in rows] == [rep["top"] for rep in reps]
    for row, rep, n in zip(rows, reps, (1, 2)):
        assert row["name"] in md
        assert row["arch"] == "baseline" and row["geometry"] == f"{n}x1x2" and row["bits"] == "4/4"
        assert float(row["peak"]) == 2 * n                 # filters x windows x lanes
        assert float(row["asic_area_mm2"]) == pytest.approx(rep["asic"]["area_um2"] / 1e6)
        assert float(row["asic_fmax_mhz"]) == pytest.approx(rep["asic"]["fmax_mhz"])
        assert row["precision_bits"] == "4" and row["equal_peak"] == "False"
    a1, a2 = (rep["asic"]["area_um2"] for rep in reps)
    assert float(rows[0]["asic_area_mm2_ratio"]) == 1.0
    assert float(rows[1]["asic_area_mm2_ratio"]) == pytest.approx(a2 / a1, rel=1e-6)
    assert a2 > a1                                          # one more PE
    assert "peaks differ" in md


def test_compare_bad_input(termwise, tmp_path):
    r = termwise("compare", "no-such-preset", "--cache-dir", SYNTH_CACHE, "-o", "cmp")
    assert_usage_error(r, tmp_path / "cmp", "preset: unknown preset 'no-such-preset'")


def test_compare_malformed_report(termwise, tmp_path):
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "synth_report.json").write_text("{}\n")
    r = termwise("compare", "bad", "-o", "cmp")
    assert_usage_error(r, tmp_path / "cmp", "is not a termwise synth_report.json")


def test_compare_folder_without_report(termwise, tmp_path):
    (tmp_path / "empty").mkdir()
    r = termwise("compare", "empty", "-o", "cmp")
    assert_usage_error(r, tmp_path / "cmp", "no synth_report.json there")
