"""report.html (gen/flows/reports/html.py) in a real browser: Debian's Chromium driven
headless by Playwright, on the shipped 16- and 8-bit tables (docs/results/). The page loads
without console errors, has a row per design, sorts every column both ways (the expected
orders computed here from report.json's numbers), opens each drill-down, and renders every
image; the shipped page is the one the shipped report.json renders to."""

import json
import math
import shutil
from pathlib import Path

import pytest

from termwise.gen.flows.reports.detail import row_detail
from termwise.gen.flows.reports.html import COLUMNS, to_html

RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results"
TABLES = sorted(p.parent for p in RESULTS.glob("*/report.json"))

#: Chromium's flags for this machine's closed network (docs/toolchain.md: without the
#: background-networking ones it keeps trying to reach Google's hosts).
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def browser():
    exe = _chromium()
    if exe is None:
        pytest.skip("no Chromium installed (make venv installs Debian's chromium as root)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _images(table: Path, doc: dict) -> dict:
    return {n: (table / n).read_bytes() for n in doc["files"] if n.endswith(".png")}


def _open(browser, path: Path):
    page = browser.new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, errors


def _order(page) -> list:
    return page.eval_on_selector_all("#family tbody tr", "rs => rs.map(r => r.dataset.design)")


def _value(row: dict, key: str):
    v = row.get(key)
    return None if v is None or (isinstance(v, float) and not math.isfinite(v)) else v


def _expected(rows: list, key: str, descending: bool) -> list:
    """The column's values in the order the page should show them: sorted, missing ones
    last (designs of equal value may come in either order: compared by value)."""
    present = sorted((_value(r, key) for r in rows if _value(r, key) is not None),
                     reverse=descending)
    return present + [None] * sum(_value(r, key) is None for r in rows)


def _values(page, rows: list, key: str) -> list:
    by_design = {r["design"]: r for r in rows}
    return [_value(by_design[d], key) for d in _order(page)]


def test_shipped_tables_exist():
    assert {t.name for t in TABLES} >= {"efficientnet-lite0-8b", "efficientnet-lite0-16b"}


@pytest.mark.parametrize("table", TABLES, ids=lambda p: p.name)
def test_shipped_page_is_its_report_rendered(table):
    doc = json.loads((table / "report.json").read_text())
    assert (table / "report.html").read_text() == to_html(doc, _images(table, doc))


@pytest.mark.parametrize("table", TABLES, ids=lambda p: p.name)
def test_page_in_chromium(browser, table):
    doc = json.loads((table / "report.json").read_text())
    rows = doc["rows"]
    page, errors = _open(browser, table / "report.html")
    assert _order(page) == [r["design"] for r in rows]
    for key, _, _ in COLUMNS:
        header = page.locator(f'thead th[data-key="{key}"]')
        header.click()
        assert header.get_attribute("aria-sort") == "ascending"
        assert _values(page, rows, key) == _expected(rows, key, False), key
        header.click()
        assert header.get_attribute("aria-sort") == "descending"
        assert _values(page, rows, key) == _expected(rows, key, True), key
    for r in rows:
        details = page.locator(f'details[data-design="{r["design"]}"]')
        assert details.get_attribute("open") is None
        page.locator(f'#family a[href="#detail-{r["design"]}"]').click()
        assert details.get_attribute("open") is not None
        assert details.locator("h4", has_text="Area by kind").is_visible()
        assert details.locator("h4", has_text="Critical path").is_visible()
    widths = page.eval_on_selector_all("img", "is => is.map(i => i.complete && i.naturalWidth)")
    assert len(widths) == len(_images(table, doc)) and all(w > 0 for w in widths), widths
    assert errors == []
    page.close()


def test_a_script_error_is_seen(browser, tmp_path):
    """The console check can fail: the same page with a broken script reports it."""
    table = TABLES[0]
    doc = json.loads((table / "report.json").read_text())
    broken = to_html(doc, {}).replace("function sortTable(th) {", "function sortTable(th) {{")
    (tmp_path / "report.html").write_text(broken)
    page, errors = _open(browser, tmp_path / "report.html")
    assert errors, "a page whose script does not parse logged no error"
    page.close()


def test_row_detail_by_hand():
    synth = {"asic": {"cell_count": 10, "flops": 4,
                      "critical_path": {"delay_ns": 9.5, "logic_depth": 12,
                                        "delay_by_kind_ns": {"adder_tree": 6.0},
                                        "slowest_kind": "adder_tree"},
                      "macros": {"modules": {"m16x64": {"words": 16, "width": 64}},
                                 "bound_by": "macro", "fmax_macro_mhz": 118.5}}}
    power = {"by_kind_w": {"buffers": {"total_w": 0.002}, "io_wrapper": {"total_w": 0.5}},
             "power_w": {"clock_network": 0.0031},
             "macro_accesses": {"buffers": {"tile/wgt_buffer": {"macros": 2,
                                                                "reads": [3, 4],
                                                                "writes": [1, 0]}}},
             "not_modelled": ["glitches"]}
    d = row_detail(synth, power, {"buffers": 2.5e6, "adder_tree": 5e5})
    assert d["area_by_kind_mm2"] == {"buffers": 2.5, "adder_tree": 0.5}
    assert d["power_by_kind_mw"] == {"buffers": 2.0} and d["io_wrapper_mw"] == 500.0
    assert d["clock_network_mw"] == pytest.approx(3.1)
    assert d["macro_accesses"] == {"tile/wgt_buffer": {"macros": 2, "reads": 7, "writes": 1}}
    assert d["critical_path"]["bound_by"] == "macro" and d["critical_path"]["delay_ns"] == 9.5
    assert d["macros"] == {"m16x64": {"words": 16, "width": 64}}
    assert d["not_modelled"] == ["glitches"]
    assert "power_by_kind_mw" not in row_detail(synth, None, {})
