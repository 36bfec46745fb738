"""pytest runner for the generic cocotb tile regression (:mod:`termwise.tb.tile_tests`):
every regression the designs register for it, one simulator start each (the slow ones,
the 16x16 presets' whole regressions and real-network runs, in ``make test-all``;
baseline-16x16's random suite in ``make test``).

loom-16x16 and laconic-16x16 have 1024 PEs (equal peak at 16 bits needs 64 windows): they
are built with Verilator ``--hierarchical`` (:func:`termwise.tb.runner.build`,
docs/toolchain.md#hierarchical-builds).
"""

import pytest

from termwise.gen.config import preset
from termwise.tb.regress import SEED, params, regress
from termwise.tb.runner import (HIERARCHICAL_MIN_PES, HIERARCHICAL_MIN_PES_WITH_MODULES,
                                chooses_hierarchical, generated, run_regression)


@pytest.mark.parametrize("cfg, suites", params("termwise.tb.tile_tests"))
def test_tile_regression(cfg, suites, request):
    regress(cfg, suites, request)


@pytest.mark.parametrize("name, changes, believed", [
    ("stripes-4x4", {}, "zstripes-4x4"),
    ("zstripes-4x4", {}, "stripes-4x4"),
    ("stripes-4x4", {"pe_stages": 1}, "stripes-4x4"),
])
def test_regression_detects_a_wrong_model(name, changes, believed):
    """The regression must fail when the golden side believes in another design: here the
    testbench thinks an all-zero step costs Stripes' P cycles while the hardware skips it
    in one (or the other way round), or that the PEs read their inputs without the
    registered stage (``pe_stages``) the hardware has."""
    result = run_regression(preset(name).replace(**changes), ("corners",), seed=SEED,
                            testbench_config=preset(believed))
    assert not result.passed
    assert any("cycle" in f for f in result.failures), result.failures


@pytest.mark.slow
def test_waves_written_on_request(request):
    result = regress(preset("baseline-4x4"), ("corners",), request, waves=True)
    assert result.waves_file is not None and result.waves_file.stat().st_size > 1000
    assert result.waves_file.read_bytes()[:1] == b"\x00"   # FST header block


@pytest.mark.parametrize("name, pes, hierarchical", [
    ("stripes-4x4", 16, False),
    ("stripes-4x4", 256, False),                # stripes-16x16: one library module, the PE
    ("stripes-4x4", HIERARCHICAL_MIN_PES, True),              # loom-16x16's 1024
    ("pragmatic-4x4", None, False),             # 32 PEs, a window encoder per window
    ("pragmatic-4x4", HIERARCHICAL_MIN_PES_WITH_MODULES - 1, False),
    ("tactical-tcle-4x4", HIERARCHICAL_MIN_PES_WITH_MODULES, True),   # tcle-16x16's 128
    ("diffy-4x4", 144, True),                                         # diffy-16x16
    ("laconic-4x4", 256, True),                 # laconic-16x16-8b: term lanes
])
def test_hierarchical_choice(name, pes, hierarchical):
    """The default build: hierarchical from 512 PEs, or from 128 when the tile emits library
    modules besides the PE (each then verilated once instead of inlined per window); the
    manifests are the real ones, with the PE count of the 16x16 tile in question."""
    man = dict(generated(preset(name)).manifest)
    if pes is not None:
        man["derived"] = {**man["derived"], "pes": pes}
    assert chooses_hierarchical(man) is hierarchical


def test_hierarchical_build_runs_the_regression(request):
    """The build the 1024-PE tiles get (Verilator ``--hierarchical``, every library module a
    hierarchy block) gives a model that passes the same regression, and it is a model of
    its own (the control file names the blocks), not the flat one reused."""
    cfg = preset("stripes-4x4")
    flat = run_regression(cfg, ("corners",), seed=SEED, hierarchical=False)
    result = regress(cfg, ("corners",), request, hierarchical=True)
    blocks = result.build.generated.manifest["library_modules"]
    assert blocks == [f"{cfg.top_name}__pe"]
    vlt = (result.build.directory / "public.vlt").read_text()
    assert f'hier_block -module "{cfg.top_name}_hb_pe"' in vlt     # hier_block_names
    assert result.build.directory != flat.build.directory
    # The blocks are used: the top's model holds no PE's insides (a block whose name
    # Verilator mangles is verilated apart and then inlined all the same).
    def top_state(build):
        return (build.directory / "Vtop___024root.h").read_text()
    assert "pe_f0_w0__DOT__accumulator" in top_state(flat.build)
    hier = top_state(result.build)
    assert "pe_f0_w0__DOT__accumulator" not in hier and "_hb_pe_protectlib" in hier
    assert flat.passed and [r["cycles"] for r in result.runs] == [r["cycles"] for r in flat.runs]
