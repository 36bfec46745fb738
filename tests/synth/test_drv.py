"""Design-rule checks: the liberty limit reader on a hand-written snippet and on OSU018, the
parser on OpenSTA output captured from this flow, the report and compare marking."""

import copy
import json
import os

import pytest

from termwise.gen.config import preset
from termwise.synth import compare, liberty, parse, report
from termwise.synth.tools import DEFAULT_LIBERTY

FIX = os.path.join(os.path.dirname(__file__), "fixtures")


def fixture(name):
    with open(os.path.join(FIX, name), encoding="utf-8") as f:
        return f.read()


def test_liberty_limits_tiny_snippet():
    lim = liberty.parse_limits(fixture("tiny.lib"))
    assert set(lim.pins) == {("BUF", "Y"), ("FF", "Q")}       # output pins only
    buf, ff = lim.pins[("BUF", "Y")], lim.pins[("FF", "Q")]
    # Loads in pF whatever the unit (here fF); the load index is found by the template's
    # variable, index_2 for BUF, index_1 for FF; the smallest last index over the tables.
    assert buf.table_max_load == pytest.approx(0.3)
    assert ff.table_max_load == pytest.approx(0.15)
    assert buf.max_capacitance == pytest.approx(0.5) and ff.max_capacitance is None
    assert buf.max_fanout == 12 and ff.max_fanout is None
    assert buf.max_transition == ff.max_transition == 2.0      # the library default
    # Characterised slew: the smallest last transition index (FF's setup table: 0.6 ns).
    assert lim.table_max_slew == pytest.approx(0.6)
    tcl = liberty.limits_tcl(lim)
    assert "set termwise_drv_pin(BUF/Y) {0.5 0.3 12}" in tcl
    assert "set termwise_drv_pin(FF/Q) {- 0.15 -}" in tcl
    assert "set termwise_drv_slew 0.6" in tcl


@pytest.mark.skipif(not os.path.exists(DEFAULT_LIBERTY), reason="OSU018 liberty missing")
def test_liberty_limits_osu018():
    lim = liberty.read_limits(DEFAULT_LIBERTY)
    # The figures: DFFPOSX1's tables end at 0.15 pF, BUFX4's at 0.6 pF, while the
    # declared max_capacitance is far beyond (0.97 pF): the range is the binding limit.
    assert lim.pins[("DFFPOSX1", "Q")].table_max_load == pytest.approx(0.15)
    assert lim.pins[("DFFPOSX1", "Q")].max_capacitance == pytest.approx(0.967534)
    assert lim.pins[("BUFX4", "Y")].table_max_load == pytest.approx(0.6)
    assert ("FAX1", "YC") in lim.pins and ("FAX1", "YS") in lim.pins
    assert lim.table_max_slew == pytest.approx(1.2)


def test_parse_drv_captured_output():
    # The smallest tile's OpenSTA log, rerun with `set_max_transition 0.2` so that OpenSTA's
    # own report_check_types section has rows.
    text = fixture("b12_sta_drv.log")
    path = parse.parse_sta(text)
    drv = parse.parse_drv(text, listed=500, path_instances=path["instances"])
    assert drv["drivers_checked"] == 1107
    assert drv["by_kind"]["table_range"] == 1 and drv["by_kind"]["max_capacitance"] == 0
    n_tr = sum(1 for line in text.splitlines() if line.endswith("(VIOLATED)")
               and "Limit" not in line)
    assert drv["by_kind"]["max_transition"] == n_tr > 10
    assert drv["count"] == 1 + n_tr == drv["listed"] == len(drv["violations"])
    short = parse.parse_drv(text, listed=5)
    assert short["count"] == drv["count"] and short["listed"] == len(short["violations"]) == 5
    table = next(v for v in drv["violations"] if v["kind"] == "table_range")
    assert table == {"pin": "_46_/Q", "net": "rst_q", "cell": "DFFPOSX1",
                     "kind": "table_range", "quantity": "load_pf", "value": 0.1821,
                     "limit": 0.15, "fanout": 12}
    # Worst first (value / limit): the 0.2933 ns slews against 0.2 ns come before 0.1821 pF
    # against 0.15 pF.
    assert drv["worst"]["kind"] == "max_transition" and drv["worst"]["value"] == 0.2933
    assert drv["nets"] == 1                     # OpenSTA's rows name pins, not nets
    assert isinstance(drv["on_critical_path"], int)


def test_parse_drv_old_log_and_clean_log():
    old = fixture("b44_sta.log")                 # a log from before the checks
    assert parse.parse_drv(old) is None
    clean = ("TERMWISE_DRV_BEGIN\nTERMWISE_DRV_DRIVERS 10\nTERMWISE_DRV_END\n"
             "TERMWISE_CHECK_TYPES_BEGIN\nTERMWISE_CHECK_TYPES_END\n")
    drv = parse.parse_drv(clean)
    assert drv["count"] == 0 and drv["worst"] is None and drv["violations"] == []
    with pytest.raises(ValueError):
        parse.parse_drv(clean + "TERMWISE_DRV bogus a b c 1 2 3\n")


def drv_report(name="baseline-4x4", count=3):
    """A report section with ``count`` violations (a fixture report, as synth writes it)."""
    rep = json.loads(fixture("b12_report_drv.json"))
    rep = copy.deepcopy(rep)
    if count == 0:
        rep["asic"]["drv_violations"].update(count=0, violations=[], listed=0, worst=None,
                                             by_kind={k: 0 for k in parse.DRV_KINDS})
    return rep


def test_report_markdown_marks_violations():
    rep = drv_report()
    md = report.to_markdown(rep)
    lines = md.splitlines()
    assert lines[0].startswith("# Synthesis report")
    assert lines[2].startswith("**Timing extrapolated beyond the library's characterised "
                               "range") and "not signable" in lines[2]
    assert "| design-rule violations | 1 |" in md and "not signable, see above" in md
    assert "| _46_/Q | rst_q | DFFPOSX1 | table_range (load_pf) | 0.1821 pF | 0.15 pF | 12 |" \
        in md
    clean = drv_report(count=0)
    md0 = report.to_markdown(clean)
    assert "extrapolated" not in md0 and "| design-rule violations | 0 |" in md0
    old = drv_report()
    del old["asic"]["drv_violations"]          # a report from before the checks
    mdo = report.to_markdown(old)
    assert "Design rules not checked" in mdo.splitlines()[2]


def test_compare_marks_rows_with_violations():
    bad, clean, old = drv_report(), drv_report(count=0), drv_report()
    del old["asic"]["drv_violations"]
    rows, basis = compare.compare_rows([clean, bad, old])
    assert [r["asic_drv"] for r in rows] == [0, 1, None]
    md = compare.to_markdown(rows, basis)
    table = [line for line in md.splitlines() if line.startswith("| ")]
    assert "| DRV |" in table[0]
    fmax = f"{bad['asic']['fmax_mhz']:.1f}"
    assert f"{fmax}{compare.DRV_MARK} (1.00x)" in table[2]
    assert f"{fmax}{compare.UNCHECKED_MARK} (1.00x)" in table[3] and "not checked" in table[3]
    assert f"{fmax} |" in table[1]               # no mark on the clean row
    assert compare.DRV_NOTE in md and compare.UNCHECKED_NOTE in md
    csv = compare.to_csv(rows, basis).splitlines()
    assert "asic_drv" in csv[0].split(",")
    # Without violations nor old rows: no footnote.
    rows, basis = compare.compare_rows([clean])
    md = compare.to_markdown(rows, basis)
    assert compare.DRV_NOTE not in md and compare.UNCHECKED_NOTE not in md
