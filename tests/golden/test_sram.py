"""The SRAM macro model (termwise.golden.sram) against hand counts: one characterised
macro's figures from its liberty numbers as the shipped JSON records them, the banking
arithmetic, the input checks, the fit's error and form, and the cross-check's ratios."""

from __future__ import annotations

import json
import os

import pytest

from termwise.gen.errors import ConfigError
from termwise.golden import sram
from termwise.golden.sram import published

DATA = os.path.join(os.path.dirname(sram.__file__), "openram_scn4m_subm.json")


def _shape(words, width):
    with open(DATA) as f:
        doc = json.load(f)
    return next(s for s in doc["shapes"] if (s["words"], s["width"]) == (words, width))


# The 16 x 32 macro's liberty (build/sram/scn4m_subm/16x32/sram_16x32_TT_5p0V_25C.lib) and
# LEF, as written by OpenRAM 1.2.48 + ngspice 39.3 (copied by hand from the files):
# clk0 internal_power (mW, average over a cycle): "!csb0 & !web0" (write) rise 34.27465,
# fall 36.38424; "!csb0 & web0" (read) 23.26451 / 24.68701; deselected "csb0 & !web0"
# 12.18119 / 17.42954 and "csb0 & web0" 17.20321 / 12.02652; cell_leakage_power 30.05628;
# minimum_period 16.875 ns; dout0 falling_edge cell_rise = cell_fall = 2.176 ns.
# LEF: SIZE 868.4 BY 430.2.
LIB_16X32 = {
    "read_mw": (23.26451 + 24.68701) / 2, "write_mw": (34.27465 + 36.38424) / 2,
    "deselected_read_mw": (17.20321 + 12.02652) / 2,
    "deselected_write_mw": (12.18119 + 17.42954) / 2,
    "leakage_mw": 30.05628, "min_period_ns": 16.875, "fall_to_q_ns": 2.176,
}
LEF_16X32 = (868.4, 430.2)


def test_the_json_holds_the_liberty_numbers():
    """The shipped file records the liberty's numbers this test counts from."""
    lib = _shape(16, 32)["raw"]["liberty"]
    assert lib["min_period_ns"] == LIB_16X32["min_period_ns"]
    assert lib["leakage_mw"] == LIB_16X32["leakage_mw"]
    assert lib["power_mw"]["disabled_read"] == pytest.approx(LIB_16X32["deselected_read_mw"])
    assert lib["power_mw"]["disabled_write"] == pytest.approx(LIB_16X32["deselected_write_mw"])
    assert lib["power_mw"]["read"] == pytest.approx(LIB_16X32["read_mw"], rel=1e-9)
    assert lib["power_mw"]["write"] == pytest.approx(LIB_16X32["write_mw"], rel=1e-9)
    assert lib["clk_fall_to_q_ns"] == pytest.approx(LIB_16X32["fall_to_q_ns"], rel=1e-9)
    raw = _shape(16, 32)["raw"]
    assert (raw["lef_w_um"], raw["lef_h_um"]) == LEF_16X32


def test_a_characterised_macro_by_hand():
    """16 x 32: energy = (P_op - P_deselected) mW x T ns = pJ at 5 V in scn4m_subm, then
    x 0.5 (C ~ s, lambda 0.2 -> 0.1 um) x (1.8 / 5)^2; area = LEF w x h x 0.25; access =
    (T / 2 + falling-edge delay) x 0.5; leakage x 0.5 x 0.36.

    By hand: read (23.97576 - 14.614865) x 16.875 = 157.965 pJ x 0.0648 = 10.236 pJ;
    write (35.329445 - 14.805365) x 16.875 = 346.344 pJ x 0.0648 = 22.443 pJ;
    area 868.4 x 430.2 = 373,585.68 um2 x 0.25 = 93,396.42 um2; access (8.4375 + 2.176)
    x 0.5 = 5.307 ns; min period 8.4375 ns; leakage 30.05628 mW x 0.18 = 5.41 mW."""
    t, leak = LIB_16X32["min_period_ns"], LIB_16X32["leakage_mw"]
    energy = 0.5 * (1.8 / 5.0) ** 2
    read = (LIB_16X32["read_mw"] - LIB_16X32["deselected_read_mw"]) * t * energy
    write = (LIB_16X32["write_mw"] - LIB_16X32["deselected_write_mw"]) * t * energy
    assert read == pytest.approx(10.236, abs=1e-3)
    assert write == pytest.approx(22.443, abs=1e-3)
    m = sram.macro(16, 32)
    assert m.read_pj == pytest.approx(read, rel=1e-5)
    assert m.write_pj == pytest.approx(write, rel=1e-5)
    w, h = LEF_16X32
    assert m.area_um2 == pytest.approx(w * h * 0.25, rel=1e-6)
    assert m.leakage_w == pytest.approx(leak * 1e-3 * 0.18, rel=1e-9)
    assert m.clk_to_q_ns == pytest.approx((t / 2 + LIB_16X32["fall_to_q_ns"]) * 0.5, rel=1e-5)
    assert m.min_period_ns == pytest.approx(t * 0.5, rel=1e-9)
    assert "OpenRAM 16x32" in m.source


def test_a_wide_buffer_is_banked_side_by_side():
    """16 x 4096 in macros of at most 128 bits: 32 macros of 16 x 128, a row access reads
    one row of each."""
    b = sram.bank(16, 4096, max_width=128)
    m = sram.macro(16, 128)
    assert (b.columns, b.rows, b.macros) == (32, 1, 32)
    assert (b.macro.words, b.macro.width) == (16, 128)
    assert b.area_um2 == pytest.approx(32 * m.area_um2)
    assert b.read_pj == pytest.approx(32 * m.read_pj)
    assert b.write_pj == pytest.approx(32 * m.write_pj)
    assert b.leakage_w == pytest.approx(32 * m.leakage_w)
    assert (b.clk_to_q_ns, b.min_period_ns) == (m.clk_to_q_ns, m.min_period_ns)


def test_a_deep_buffer_is_stacked():
    """1024 x 64 in macros of at most 256 words: 4 stacked, one active per access."""
    b = sram.bank(1024, 64, max_width=128, max_words=256)
    m = sram.macro(256, 64)
    assert (b.columns, b.rows) == (1, 4)
    assert b.read_pj == pytest.approx(m.read_pj)
    assert b.area_um2 == pytest.approx(4 * m.area_um2)
    assert b.leakage_w == pytest.approx(4 * m.leakage_w)


def test_an_uneven_width_is_split_evenly():
    b = sram.bank(64, 100, max_width=64)          # 2 columns of 50 bits
    assert (b.columns, b.macro.width, b.macro.words) == (2, 50, 64)


@pytest.mark.parametrize("call, field", [
    (lambda: sram.macro(8, 32), "words"),
    (lambda: sram.macro(16, 0), "width"),
    (lambda: sram.macro(16.0, 32), "words"),
    (lambda: sram.macro("16", 32), "words"),
    (lambda: sram.macro(True, 32), "words"),
    (lambda: sram.bank(16, 32, max_width=0), "max_width"),
    (lambda: sram.bank(16, 32, max_words=8), "max_words"),
    (lambda: sram.bank(16, -1), "width"),
])
def test_nonsense_is_refused_naming_the_field(call, field):
    with pytest.raises(ConfigError) as err:
        call()
    assert err.value.field == field


def _by_hand(fig, n, w):
    """The fit's documented forms (model.py's table), evaluated here."""
    c = sram.FIT_COEFFICIENTS[fig]
    if fig == "area_um2":
        return 6.8 * 10.4 * 0.25 * n * w + c[0] + c[1] * w + c[2] * n
    if fig in ("read_pj", "write_pj"):
        return c[0] + c[1] * w + c[2] * n * w
    if fig == "leakage_w":
        return c[0] + c[1] * w
    return c[0] + c[1] * n + c[2] * w


FIGS = ("area_um2", "read_pj", "write_pj", "leakage_w", "access_ns", "min_period_ns",
        "setup_ns")


def test_fit_error_within_the_stated_bound():
    with open(DATA) as f:
        shapes = json.load(f)["shapes"]
    for fig in FIGS:
        errs = [abs(_by_hand(fig, s["words"], s["width"]) - s["scaled"][fig])
                / abs(s["scaled"][fig]) for s in shapes]
        assert fig not in sram.CHARGED or max(errs) <= sram.FIT_ERROR_BOUND, fig
        assert sram.FIT_ERROR[fig] == pytest.approx(max(errs), rel=1e-6, abs=1e-12)


def test_an_uncharacterised_shape_follows_the_fit():
    m = sram.macro(32, 48)
    assert m.read_pj == pytest.approx(_by_hand("read_pj", 32, 48))
    assert m.area_um2 == pytest.approx(_by_hand("area_um2", 32, 48))
    assert m.clk_to_q_ns == pytest.approx(_by_hand("access_ns", 32, 48))
    assert "fit" in m.source


def test_cross_check_ratios_by_hand():
    rows = {r["figure"]: r for r in sram.cross_check()}
    cell = rows["bitcell_um2 vs GF180MCU 5 V cell"]
    assert cell["ratio"] == pytest.approx(6.8 * 10.4 * 0.25 / 13.5)      # 1.3096
    cell = rows["bitcell_um2 vs 6T 140 F^2 at 0.18 um"]
    assert cell["published"] == pytest.approx(4.536)
    assert cell["ratio"] == pytest.approx(17.68 / 4.536)
    gf = rows["GF180MCU 512x8 read_pj"]
    assert gf["published"] == 103.176
    assert gf["ratio"] == pytest.approx(sram.macro(512, 8).read_pj / 103.176)
    assert published.GF180_64X8["area_um2"] == 100571.5568


def test_a_default_bank_stays_within_the_characterised_shapes():
    """The defaults are the widest and deepest characterised macro (64 bits, 64 words), so
    16 x 4096 is 64 characterised 16 x 64 macros: 64 x 22.498 pJ = 1439.9 pJ per row, 64 x
    its LEF outline 1603.2 x 474.2 um x 0.25 = 12.164 mm2 (docs/sram.md's shapes table)."""
    assert (sram.DEFAULT_MAX_WIDTH, sram.DEFAULT_MAX_WORDS) == (64, 64)
    b = sram.bank(16, 4096)
    assert (b.columns, b.rows, b.macro.width) == (64, 1, 64)
    assert b.read_pj == pytest.approx(64 * 22.498, abs=0.1)
    assert b.area_um2 == pytest.approx(64 * 1603.2 * 474.2 * 0.25, rel=1e-6)
    assert "OpenRAM 16x64" in b.source


def test_the_data_file_was_scaled_by_the_stated_rules():
    """The characterisation (synth layer) wrote its factors into the file; they must be the
    golden layer's rules: s = 0.10 / 0.20, area s^2, energy s (1.8 / 5.0)^2."""
    from termwise.golden.sram import scaling
    with open(DATA) as f:
        factors = json.load(f)["scale"]["factors"]
    assert factors == pytest.approx(scaling.FACTORS)
    assert (scaling.AREA, scaling.ENERGY, scaling.DELAY) == pytest.approx((0.25, 0.0648, 0.5))


def test_the_rtl_splits_rows_at_the_widest_characterised_macro():
    """The RTL's macros (gen.fields.MACRO_MAX_WIDTH, rtl/buffer.py) are the bank's default
    columns: never extrapolated; re-characterising wider shapes must move both."""
    from termwise.gen.fields import MACRO_MAX_WIDTH, MACRO_MIN_WORDS
    assert MACRO_MAX_WIDTH == sram.DEFAULT_MAX_WIDTH
    assert MACRO_MIN_WORDS == sram.MIN_WORDS
