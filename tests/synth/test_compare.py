"""compare: rows, ratios and the equal-peak basis, on hand-made reports."""

import json

import pytest

from termwise.gen.cli import main
from termwise.gen.config import preset
from termwise.synth import compare


def fake_report(name, area, fmax, lut=None):
    cfg = preset(name)
    asic = {"area_um2": area, "area_compute_um2": area / 2, "pe_area_um2": area / 10,
            "fmax_mhz": fmax}
    fpga = {"lut4": lut, "ff": 10, "dsp": 1, "bram": 2, "fmax_mhz": 50.0} if lut else None
    return {"preset": name, "top": cfg.top_name, "config": cfg.to_dict(),
            "flow": {"clock_ns": 10.0}, "asic": asic, "fpga": fpga}


def test_rows_ratios_and_equal_peak_basis():
    reps = [fake_report("baseline-4x4", 2e6, 100.0, 1000),
            fake_report("stripes-4x4", 3e6, 200.0, 4000)]
    rows, basis = compare.compare_rows(reps)
    assert basis["precision_bits"] == 8 and basis["equal_peak"]
    assert rows[0]["peak"] == rows[1]["peak"] == 16
    assert rows[1]["asic_gmacs"] == pytest.approx(16 * 200 / 1000)
    assert rows[1]["asic_gmacs_mm2"] == pytest.approx(3.2 / 3.0, rel=1e-3)
    md = compare.to_markdown(rows, basis)
    assert "equal peak throughput" in md and "(1.50x)" in md and "(4.00x)" in md
    csv = compare.to_csv(rows, basis).splitlines()
    assert csv[0].startswith("name,arch,") and "asic_area_mm2_ratio" in csv[0]
    assert len(csv) == 3


def test_unequal_peaks_are_called_out():
    reps = [fake_report("baseline-4x4", 2e6, 100.0), fake_report("stripes-4x4", 3e6, 200.0)]
    rows, basis = compare.compare_rows(reps, precision=4)   # stripes peak doubles at 4 bits
    assert not basis["equal_peak"] and "peaks differ" in basis["text"]
    assert rows[1]["peak"] == 2 * rows[0]["peak"]
    # FPGA columns are left out when nothing was measured.
    assert "ECP5" not in compare.to_markdown(rows, basis)


def test_compare_cli_from_report_folders(tmp_path, capsys):
    for name, area in (("baseline-4x4", 2e6), ("stripes-4x4", 4e6)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "synth_report.json").write_text(
            json.dumps(fake_report(name, area, 100.0)))
    out = tmp_path / "cmp"
    rc = main(["compare", str(tmp_path / "baseline-4x4"),
               str(tmp_path / "stripes-4x4" / "synth_report.json"), "-o", str(out)])
    assert rc == 0
    assert "(2.00x)" in capsys.readouterr().out
    assert (out / "compare.md").exists() and (out / "compare.csv").exists()
