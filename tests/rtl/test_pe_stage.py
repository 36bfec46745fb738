"""The registered, replicated PE inputs (``rtl/pe_stage.py``, ``cfg.pe_stages``): how copies
are shared and replicated, that a copy is its value ``stages`` cycles late, and what the
configuration derives. The designs' cycle-exact regressions with ``pe_stages`` are
registered with their specs (``tb/test_tiles.py``); one of them fails against a model
without the stage (``test_regression_detects_a_wrong_model``)."""

import re

import pytest
from amaranth import Const, Module, Signal
from amaranth.sim import Simulator

from termwise.gen.config import PE_STAGE_GROUP, ConfigError, TileConfig, from_toml, preset, to_toml
from termwise.gen.emit import emit_verilog
from termwise.golden import cycles as cycle_model
from termwise.rtl.pe_stage import PEInputStage


def test_copies_shared_by_structure_and_replicated_per_group():
    stage = PEInputStage(stages=1, group=3)
    a, b = Signal(4), Signal(4)
    first = [stage.copy(a, name="a") for _ in range(3)]
    assert first[0] is first[1] is first[2]
    fourth = stage.copy(a, name="a")
    assert fourth is not first[0]                 # a new copy after `group` PEs
    # The same slice, operator or concatenation built again is the same value.
    assert stage.copy(a[1:3], name="s") is stage.copy(a[1:3], name="s")
    assert stage.copy(a & b, name="o") is stage.copy(a & b, name="o")
    assert stage.copy(a & b, name="o") is not stage.copy(a | b, name="o")
    # A different signal of the same name is a different value.
    assert stage.copy(Signal(4, name="x"), name="x") is not stage.copy(Signal(4, name="x"),
                                                                   name="x")
    const = Const(5, 4)
    assert stage.copy(const, name="c") is const   # nothing to register


def test_bad_stage_parameters():
    with pytest.raises(ValueError):
        PEInputStage(stages=0, group=4)
    with pytest.raises(TypeError):
        PEInputStage(stages=1.5, group=4)


@pytest.mark.parametrize("stages", [1, 3])
def test_a_copy_is_its_value_stages_cycles_late(stages):
    m = Module()
    value = Signal(8)
    counter = Signal(8)
    m.d.sync += counter.eq(counter + 1)
    m.d.comb += value.eq(counter * 3)
    m.submodules.stage = stage = PEInputStage(stages=stages, group=1)
    out = stage.copy(value, name="v")
    seen = []
    sim = Simulator(m)
    sim.add_clock(1e-6)

    async def bench(ctx):
        for _ in range(12):
            await ctx.tick()
            seen.append((ctx.get(counter), ctx.get(out)))

    sim.add_testbench(bench)
    sim.run()
    for count, got in seen:
        if count >= stages:
            assert got == ((count - stages) * 3) & 0xFF


def test_tile_verilog_replicates_control_per_group():
    """stripes-4x4 has 32 PEs: a control input (``first``) is registered in
    32 / PE_STAGE_GROUP copies, a window's serialised bits once per window, and no copy
    exists without the option (the Verilog of ``pe_stages = 0`` is today's)."""
    cfg = preset("stripes-4x4")
    staged = emit_verilog(cfg.replace(pe_stages=1))
    firsts = set(re.findall(r"\bfirst_f\d+_w\d+_s0\b", staged))
    assert len(firsts) == cfg.pes // PE_STAGE_GROUP
    bits = set(re.findall(r"\bact_bit_f\d+_w\d+_s0\b", staged))
    assert len(bits) == cfg.windows
    assert "pe_stage_active" in staged
    plain = emit_verilog(cfg)
    assert "_s0" not in plain and "pe_stage_active" not in plain


def test_pe_stages_derived_from_the_array_size():
    assert preset("stripes-4x4").pe_stages == 0
    assert preset("baseline-16x16").pe_stages == 0       # 16 PEs
    big = preset("stripes-16x16")
    assert big.pes == 256 and big.pe_stages == 1
    assert "_ps1" in big.top_name
    assert big.derived()["pe_stages"] == 1 and big.derived()["pe_stages_derived"]
    # Chosen, it is kept through replace() and TOML; derived, it is derived again.
    chosen = preset("stripes-4x4").replace(pe_stages=2)
    assert chosen.replace(depth=32).pe_stages == 2
    assert preset("stripes-4x4").replace(windows=64, filters=4).pe_stages == 1
    assert "pe_stages" not in preset("stripes-16x16").to_dict()


def test_pe_stages_in_toml_round_trip(tmp_path):
    cfg = preset("loom-4x4").replace(pe_stages=3)
    path = tmp_path / "tile.toml"
    path.write_text(to_toml(cfg))
    assert from_toml(str(path)) == cfg


@pytest.mark.parametrize("value", [-1, 5, 1.0, True])
def test_bad_pe_stages_named_with_range(value):
    with pytest.raises(ConfigError) as err:
        preset("stripes-4x4").replace(pe_stages=value)
    assert "pe_stages" in str(err.value) and "0..4" in str(err.value)


def test_every_cycle_model_adds_the_stages():
    cfg = preset("pragmatic-4x4")
    act = [[1, 2, 3, 4]] * cfg.windows
    wgt = [[1, 1, 1, 1]] * cfg.filters
    base = cycle_model.run_cycles(cfg, act, wgt)
    for stages in (1, 2):
        staged = cfg.replace(pe_stages=stages)
        assert cycle_model.run_cycles(staged, act, wgt) == base + stages
        assert cycle_model.run_overhead(staged) == cycle_model.run_overhead(cfg) + stages
    bf16 = TileConfig("baseline", 2, 1, 2, 16, 16, dtype="bf16", depth=4)
    assert (cycle_model.run_cycles(bf16.replace(pe_stages=1), [[0, 0]], [[0, 0]] * 2)
            == cycle_model.run_cycles(bf16, [[0, 0]], [[0, 0]] * 2) + 1)
