"""The SRAM characterisation's parsing and arithmetic (termwise.synth.sram.characterise) on
small hand-written liberty and LEF text, and (slow, needs .venv-openram and ngspice) one
real OpenRAM run."""

from __future__ import annotations

import os
import shutil

import pytest

from termwise.gen.errors import ConfigError, ToolError
from termwise.synth.sram import characterise as ch

# The shape of an OpenRAM 1.2.48 liberty (characterizer/lib.py), 1 x 1 tables, hand values.
LIB = """
library (sram_16x32_TT_5p0V_25C_lib){
    time_unit : "1ns" ;
    voltage_unit : "1V" ;
    leakage_power_unit : "1mW" ;
    capacitive_load_unit(1, pF) ;
    nom_voltage : 5.0;
cell (sram_16x32){
    area : 373569.68;
    leakage_power () { value : 0.25; }
    cell_leakage_power : 0.25;
    bus(din0){
        direction : input;
        pin(din0[31:0]){
        timing(){ timing_type : setup_rising; related_pin : "clk0";
            rise_constraint(CONSTRAINT_TABLE) { values("0.009"); }
            fall_constraint(CONSTRAINT_TABLE) { values("0.011"); } }
        timing(){ timing_type : hold_rising; related_pin : "clk0";
            rise_constraint(CONSTRAINT_TABLE) { values("0.5"); } }
        }
    }
    bus(dout0){
        direction : output;
        pin(dout0[31:0]){
        timing(){ timing_sense : non_unate; related_pin : "clk0"; timing_type : falling_edge;
            cell_rise(CELL_TABLE) { values("1.2"); }
            cell_fall(CELL_TABLE) { values("1.4"); }
            rise_transition(CELL_TABLE) { values("0.1"); } }
        }
    }
    pin(clk0){
        clock : true;
        direction : input;
        internal_power(){ when : "!csb0 & !web0";
            rise_power(scalar){ values("4.0e+00"); }
            fall_power(scalar){ values("6.0e+00"); } }
        internal_power(){ when : "csb0 & !web0";
            rise_power(scalar){ values("1.0e+00"); }
            fall_power(scalar){ values("1.0e+00"); } }
        internal_power(){ when : "!csb0 & web0";
            rise_power(scalar){ values("3.25e+00"); }
            fall_power(scalar){ values("3.25e+00"); } }
        internal_power(){ when : "csb0 & web0";
            rise_power(scalar){ values("0.75"); }
            fall_power(scalar){ values("0.75"); } }
        timing(){ timing_type :"min_pulse_width"; related_pin : clk0;
            rise_constraint(scalar) { values("4.0"); } }
        timing(){ timing_type :"minimum_period"; related_pin : clk0;
            rise_constraint(scalar) { values("8.0"); }
            fall_constraint(scalar) { values("8.0"); } }
    }
}
}
"""

LEF = """VERSION 5.4 ;
MACRO sram_16x32
   CLASS BLOCK ;
   SIZE 868.4 BY 430.2 ;
END sram_16x32
"""


def test_liberty_figures_by_hand():
    f = ch.parse_liberty(LIB)
    assert f["area_um2"] == 373569.68
    assert f["vdd_v"] == 5.0
    assert f["leakage_mw"] == 0.25
    # write: rise 4, fall 6 -> 5 mW; read 3.25; disabled read 0.75, disabled write 1.0
    assert f["power_mw"] == {"write": 5.0, "read": 3.25, "disabled_read": 0.75,
                             "disabled_write": 1.0}
    assert f["clk_fall_to_q_ns"] == pytest.approx(1.3)      # (1.2 + 1.4) / 2
    assert f["setup_ns"] == 0.011                           # the larger setup
    assert f["min_period_ns"] == 8.0


def test_liberty_units_are_applied():
    text = LIB.replace('leakage_power_unit : "1mW"', 'leakage_power_unit : "1uW"')
    f = ch.parse_liberty(text)
    assert f["leakage_mw"] == pytest.approx(0.25e-3)
    assert f["power_mw"]["read"] == pytest.approx(3.25e-3)


def test_raw_and_scaled_figures_by_hand():
    raw = ch.raw_figures(ch.parse_liberty(LIB), ch.parse_lef_size(LEF))
    assert raw["area_um2"] == pytest.approx(868.4 * 430.2)   # 373,585.68 um2
    # energy = (P_op - P_deselected) x T: read (3.25 - 0.75) mW x 8 ns = 20 pJ;
    # write (5 - 1) x 8 = 32 pJ; a deselected cycle 0.75 x 8 = 6 pJ
    assert raw["read_pj"] == pytest.approx(20.0)
    assert raw["write_pj"] == pytest.approx(32.0)
    assert raw["idle_pj"] == pytest.approx(6.0)
    assert raw["leakage_w"] == pytest.approx(0.25e-3)
    assert raw["access_ns"] == pytest.approx(4.0 + 1.3)      # T / 2 + falling-edge delay
    s = ch.scaled(raw)
    # lambda 0.2 -> 0.1 um, 5 -> 1.8 V: area x 0.25, energy x 0.5 x 0.1296 = 0.0648,
    # delay x 0.5, leakage x 0.5 x 0.36 = 0.18
    assert s["area_um2"] == pytest.approx(373585.68 * 0.25, abs=1e-3)
    assert s["read_pj"] == pytest.approx(20.0 * 0.0648)
    assert s["write_pj"] == pytest.approx(32.0 * 0.0648)
    assert s["access_ns"] == pytest.approx(5.3 * 0.5)
    assert s["min_period_ns"] == pytest.approx(4.0)
    assert s["leakage_w"] == pytest.approx(0.25e-3 * 0.18)


def test_bad_liberty_and_lef_are_refused():
    with pytest.raises(ValueError):
        ch.parse_liberty("library (x) { }")
    with pytest.raises(ValueError):
        ch.parse_lef_size("MACRO x\nEND x\n")


def test_shapes_option():
    assert ch.parse_shapes("16x32,64x128") == ((16, 32), (64, 128))
    for bad in ("8x32", "16x0", "16*32", ""):
        with pytest.raises(ConfigError, match="shapes"):
            ch.parse_shapes(bad)


def test_a_failed_run_names_its_log(tmp_path, monkeypatch):
    """A compiler that exits 1 gives a ToolError naming the shape's log."""
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho broken >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("TERMWISE_OPENRAM_PYTHON", str(fake))
    with pytest.raises(ToolError) as err:
        ch.characterise_shape(16, 8, root=str(tmp_path / "cache"))
    assert err.value.log == str(tmp_path / "cache" / "16x8" / "compile_macro.log")
    assert "exited 1" in str(err.value)


def test_json_is_written_atomically(tmp_path):
    raw = ch.raw_figures(ch.parse_liberty(LIB), ch.parse_lef_size(LEF))
    shape = {"words": 16, "width": 32, "raw": raw, "scaled": ch.scaled(raw), "run": {},
             "liberty_file": "x.lib"}
    path = tmp_path / "out.json"
    ch.write_json([shape], str(path))
    import json
    doc = json.loads(path.read_text())
    assert doc["shapes"][0]["scaled"]["read_pj"] == pytest.approx(20.0 * 0.0648)
    assert oct(path.stat().st_mode & 0o777) == "0o644"
    assert doc["scale"]["factors"]["energy"] == pytest.approx(0.0648)
    assert os.listdir(tmp_path) == ["out.json"]          # no temporary file left


@pytest.mark.slow
@pytest.mark.synth
def test_openram_compiles_and_characterises_the_smallest_macro(tmp_path):
    """16 x 32 by OpenRAM + ngspice (about 15 minutes of CPU on this machine)."""
    from termwise.gen.results.locations import PACKAGE_ROOT
    py = os.path.join(PACKAGE_ROOT, ".venv-openram", "bin", "python")
    if not os.path.exists(py) or shutil.which("ngspice") is None:
        pytest.skip("needs .venv-openram (synth/sram/openram_env.sh) and ngspice")
    shape = ch.characterise_shape(16, 32, root=str(tmp_path))
    raw = shape["raw"]
    assert raw["read_pj"] > 0 and raw["write_pj"] > 0 and raw["area_um2"] > 0
    assert shape["run"]["options"]["analytical_delay"] is False
