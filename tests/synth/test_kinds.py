"""The kinds table (synth/kinds.py) on the module names the generator really emits, and the
front-end area figures built on it (synth/report.py, synth/compare.py)."""

import re

import pytest

from termwise.gen.config import preset
from termwise.gen.emit import emit
from termwise.synth import compare, report
from termwise.synth.kinds import FRONT_END_KINDS, KIND_TABLE, KINDS, kind_of

# The designs of the 4x4 comparison: with a value-based front end, and without.
FRONT_END_PRESETS = ("tactical-tclp-4x4", "tactical-tcle-4x4", "diffy-4x4")
OTHER_PRESETS = ("baseline-4x4", "stripes-4x4", "dstripes-4x4", "loom-4x4", "pragmatic-4x4",
                 "laconic-4x4", "cnvlutin-4x4")


def _modules(name, tmp_path_factory):
    cfg = preset(name)
    out = tmp_path_factory.mktemp(name)
    man = emit(cfg, str(out))
    text = (out / man["verilog"]["file"]).read_text(encoding="utf-8")
    return cfg.top_name, re.findall(r"^module\s+(\\?\S+?)\s*\(", text, re.M)


@pytest.fixture(scope="module")
def emitted(tmp_path_factory):
    return {name: _modules(name, tmp_path_factory)
            for name in FRONT_END_PRESETS + OTHER_PRESETS}


def _kinds(top, modules):
    """{suffix after top: kind} of every emitted module."""
    return {m.lstrip("\\")[len(top):]: kind_of(m, top) for m in modules}


def test_table_kinds_are_declared():
    assert set(FRONT_END_KINDS) <= set(KINDS)
    for pattern, kind, what in KIND_TABLE:
        assert kind in KINDS, pattern
        re.compile(pattern)
        assert what


@pytest.mark.parametrize("name", FRONT_END_PRESETS + OTHER_PRESETS)
def test_every_emitted_module_has_a_kind(emitted, name):
    top, modules = emitted[name]
    unmapped = [rest for rest, kind in _kinds(top, modules).items() if kind is None]
    assert not unmapped, unmapped


@pytest.mark.parametrize("name", ("tactical-tclp-4x4", "tactical-tcle-4x4"))
def test_tactical_front_end_and_stores_are_separate(emitted, name):
    kinds = _kinds(*emitted[name])
    # The multiplexers and the select decoding / masking are modules of their own ...
    assert kinds[".array.lane_mux"] == "front_end"
    assert kinds[".array.front_end"] == "front_end"
    # ... and the operand and metadata stores count as buffers, not as compute.
    for store in (".array.act_store", ".array.wgt_store", ".array.meta_store"):
        assert kinds[store] == "buffers", store
    assert kinds[".array"] == "encoders"
    assert "reconstruction" not in kinds.values()


@pytest.mark.parametrize("name", ("tactical-tclp-4x4", "tactical-tcle-4x4"))
def test_tactical_meta_store_holds_only_used_bits(tmp_path, name):
    # With hierarchy kept, synthesis cannot drop a store's unread columns across the module
    # boundary: the store must be only as wide as the used metadata, or its area is inflated.
    from termwise.golden.arch.tactical import meta_layout
    from termwise.rtl.tactical import meta_width
    cfg = preset(name)
    man = emit(cfg, str(tmp_path))
    text = (tmp_path / man["verilog"]["file"]).read_text(encoding="utf-8")
    body = text.split(f"module \\{cfg.top_name}.array.meta_store ", 1)[1].split("endmodule")[0]
    width = int(re.search(r"output \[(\d+):0\] rdata;", body).group(1)) + 1
    assert width == meta_width(meta_layout(cfg)) < cfg.wgt_row_bits


def test_diffy_front_end_reconstruction_and_store(emitted):
    kinds = _kinds(*emitted["diffy-4x4"])
    assert kinds[".array.front_end"] == "front_end"
    assert kinds[".array.front_end.predecessor_store"] == "buffers"
    assert kinds[".array.reconstruction"] == "reconstruction"
    assert kinds[".array.datapath"] == "encoders"      # as Pragmatic's array level
    assert kinds["__pe"] == "pe_lanes"


@pytest.mark.parametrize("name", OTHER_PRESETS)
def test_designs_without_front_end_have_none(emitted, name):
    kinds = _kinds(*emitted[name])
    assert not set(kinds.values()) & set(FRONT_END_KINDS), kinds


def test_kind_of_names():
    top = "termwise_x"
    assert kind_of(top + ".array.lane_mux", top) == "front_end"
    assert kind_of("\\" + top + ".array.front_end", top) == "front_end"
    assert kind_of(top + ".array.reconstruction", top) == "reconstruction"
    assert kind_of(top + ".array.front_end.predecessor_store", top) == "buffers"
    assert kind_of(top + ".array.meta_store", top) == "buffers"
    # Anchored: a deeper module of the front end is not silently front end.
    assert kind_of(top + ".array.front_end.other", top) is None
    assert kind_of("other.array.front_end", top) is None


def _report(name, by_module, compute):
    cfg = preset(name)
    top = cfg.top_name
    modules = {top + suffix: {"kind": "x", "instances": n, "area_um2": a}
               for suffix, (n, a) in by_module.items()}
    asic = {"area_um2": 2 * compute, "area_compute_um2": compute, "pe_area_um2": 1.0,
            "fmax_mhz": 100.0, "modules": modules, "area_by_module": {}}
    return {"preset": name, "top": top, "config": cfg.to_dict(), "flow": {"clock_ns": 10.0},
            "asic": asic, "fpga": None}


def test_area_by_kind_uses_the_current_table():
    rep = _report("diffy-4x4", {".array.front_end": (1, 300.0),
                                ".array.reconstruction": (1, 100.0),
                                ".array.front_end.predecessor_store": (1, 5000.0),
                                "__pe": (20, 50.0), "": (1, 7.0)}, 2000.0)
    by = report.area_by_kind(rep["asic"], rep["top"])
    assert by["front_end"] == 300.0 and by["reconstruction"] == 100.0
    assert by["buffers"] == 5000.0 and by["pe_lanes"] == 1000.0
    assert by["control_glue"] == 7.0
    assert report.front_end_area(by) == 400.0
    assert report.front_end_area({}) is None


def test_compare_shows_front_end_area_and_share():
    reps = [_report("pragmatic-4x4", {"__pe": (16, 100.0)}, 4000.0),
            _report("diffy-4x4", {".array.front_end": (1, 300.0),
                                  ".array.reconstruction": (1, 200.0)}, 5000.0)]
    rows, basis = compare.compare_rows(reps, precision=8)
    assert rows[0]["front_end_mm2"] == 0.0 and rows[0]["front_end_share"] == 0.0
    assert rows[1]["front_end_mm2"] == pytest.approx(500e-6)
    assert rows[1]["front_end_share"] == pytest.approx(0.1)
    md = compare.to_markdown(rows, basis)
    assert "front end / area w/o buffers" in md and "10.0%" in md
