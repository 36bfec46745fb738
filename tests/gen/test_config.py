"""Configuration validation, presets and derived values."""

import pytest

from termwise.gen.config import ConfigError, TileConfig, from_mapping, load_presets, preset


def test_presets_load_and_equal_peak_at_16_bits():
    assert {"baseline-16x16", "stripes-16x16", "baseline-4x4", "stripes-4x4"} <= set(load_presets())
    base, stripes = preset("baseline-16x16"), preset("stripes-16x16")
    assert base.peak_macs_per_cycle(16) == stripes.peak_macs_per_cycle(16) == 256
    small_b, small_s = preset("baseline-4x4"), preset("stripes-4x4")
    assert small_b.peak_macs_per_cycle(8) == small_s.peak_macs_per_cycle(8)


def test_sim_presets_equal_peak_at_their_width():
    """Every ``termwise sim`` design has a 16-bit and an 8-bit equal-peak 16x16 preset: 16
    filters x 16 lanes, operands as wide as the preset's key, 256 MAC/cycle at that width
    (the 8-bit ones: issue 14; the 16-bit map is the one sim always used)."""
    from termwise.gen.designs import sim_designs, sim_presets
    by_bits = sim_presets()
    assert len(by_bits) >= 12
    assert sim_designs() == sim_designs(16) == {d: f"{d}-16x16" for d in by_bits}
    assert sim_designs(8) == {d: f"{d}-16x16-8b" for d in by_bits}
    for design, widths in by_bits.items():
        assert set(widths) == {16, 8}, design
        for bits, name in widths.items():
            cfg = preset(name)
            assert (cfg.act_bits, cfg.wgt_bits) == (bits, bits), name
            assert (cfg.filters, cfg.lanes, cfg.depth) == (16, 16, 16), name
            assert cfg.peak_macs_per_cycle(bits) == 256, name
            assert load_presets()[name]["description"], name
        # The same design (arch and its options) at both widths.
        wide, narrow = preset(widths[16]).to_dict(), preset(widths[8]).to_dict()
        for key in ("windows", "act_bits", "wgt_bits", "acc_bits", "serial_bits"):
            wide.pop(key, None)
            narrow.pop(key, None)
        assert wide == narrow, design


def test_sim_designs_must_map_widths_to_presets():
    from termwise.gen.designs import SPECS
    from dataclasses import replace
    spec = next(iter(SPECS.values()))
    with pytest.raises(ValueError, match="must map hardware widths"):
        replace(spec, sim_designs={"x": "x-16x16"})


def test_acc_bits_derived_to_never_overflow():
    cfg = TileConfig("baseline", 4, 1, 4, 8, 8, depth=64)
    # 256 products of magnitude up to 2**14 need 8 + 8 + log2(256) bits signed.
    assert cfg.acc_bits == 8 + 8 + 8
    worst = 4 * 64 * (-128) * (-128)
    assert worst < 2 ** (cfg.acc_bits - 1)


@pytest.mark.parametrize("field,value,fragment", [
    ("lanes", 0, "lanes: must be in 1..64"),
    ("filters", 65, "filters: must be in 1..64"),
    ("act_bits", 40, "act_bits: must be in 1..32"),
    ("arch", "foo", "arch: must be one of"),
    ("acc_bits", 4, "acc_bits: must be in"),
    ("depth", "8", "depth: must be an integer"),
])
def test_bad_fields_name_field_and_range(field, value, fragment):
    table = dict(arch="stripes", filters=4, windows=4, lanes=4, act_bits=8, wgt_bits=8)
    table[field] = value
    with pytest.raises(ConfigError) as err:
        from_mapping(table)
    assert fragment in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("sizes, field, bits", [
    (dict(filters=1, windows=64, lanes=64, act_bits=16, wgt_bits=16), "windows", 65536),
    (dict(filters=64, windows=1, lanes=64, act_bits=8, wgt_bits=16), "filters", 65536),
    (dict(filters=64, windows=64, lanes=2, act_bits=8, wgt_bits=8), "windows", 94208),
])
def test_ports_amaranth_cannot_build_are_refused(sizes, field, bits):
    """A buffer row or the accumulators at 2**16 bits or more (one port each): refused
    before any work, naming the field and the limit (the emission would end in an
    assertion inside Amaranth after minutes); one bit less is accepted."""
    with pytest.raises(ConfigError) as err:
        from_mapping(dict(arch="baseline", **sizes))
    assert err.value.field == field and f"is {bits:,} bits" in str(err.value)
    assert "limit is 65,535" in str(err.value) and "\n" not in str(err.value)
    from_mapping(dict(arch="baseline", filters=1, windows=64, lanes=64, act_bits=15,
                      wgt_bits=16))          # 61,440 bits: fine


def test_rows_together_past_amaranths_limit_are_refused():
    """The tile's input ports are one Amaranth cell: an activation row and a weight row of
    32,768 bits each (each fine alone) are refused, naming ``lanes`` and the limit; one lane
    less is accepted."""
    sizes = dict(arch="loom", filters=32, windows=32, act_bits=16, wgt_bits=16)
    with pytest.raises(ConfigError) as err:
        from_mapping(dict(sizes, lanes=64))
    assert err.value.field == "lanes" and "65,536 bits together" in str(err.value)
    assert "limit is 65,535" in str(err.value) and "\n" not in str(err.value)
    from_mapping(dict(sizes, lanes=63))      # 64,512 bits


def test_unknown_field_rejected():
    with pytest.raises(ConfigError, match="bogus: unknown field"):
        from_mapping(dict(arch="baseline", filters=1, windows=1, lanes=1, act_bits=8,
                          wgt_bits=8, bogus=1))


def test_precision_checked_against_datapath():
    cfg = preset("stripes-4x4")
    assert cfg.check_precision(8) == 8
    with pytest.raises(ConfigError, match="precision: must be in 1..8, got 9"):
        cfg.check_precision(9)


def test_arch_options_validated():
    with pytest.raises(ConfigError, match="serial_bits: applies only to arch loom"):
        TileConfig("stripes", 1, 1, 1, 8, 8, serial_bits=2)
    with pytest.raises(ConfigError, match="serial_bits: must be one of 1, 2, 4 for loom, got 3"):
        TileConfig("loom", 1, 1, 1, 8, 8, serial_bits=3)
    with pytest.raises(ConfigError, match="column_registers: must be in 1..8"):
        TileConfig("pragmatic", 1, 1, 1, 8, 8, sync="column")
    assert TileConfig("pragmatic", 1, 1, 1, 8, 8).first_stage_bits == 2


def test_option_states_the_default_of_a_design_without_it():
    assert preset("pragmatic-4x4").option("encoding", default=None) == "plain"
    assert preset("baseline-4x4").option("encoding", default=None) is None
    assert preset("stripes-4x4").replace(fc_columns=1).has_fc_columns
    assert not preset("stripes-4x4").has_fc_columns
    assert not preset("baseline-4x4").has_fc_columns
    with pytest.raises(AttributeError, match="no field 'encodng'"):
        preset("pragmatic-4x4").option("encodng", default=None)
    with pytest.raises(AttributeError, match="no field 'bogus'"):
        preset("baseline-4x4").bogus


def test_another_designs_option_is_no_field():
    with pytest.raises(AttributeError, match="TileConfig of baseline has no option "
                       "'encoding' \\(an option of pragmatic, laconic, tactical\\)"):
        preset("baseline-4x4").encoding
    with pytest.raises(AttributeError, match="stripes has no option 'serial_bits'"):
        preset("stripes-4x4").serial_bits


def test_top_name_spells_out_configuration():
    a = preset("stripes-4x4")
    assert a.top_name != a.replace(wgt_bits=4).top_name
    assert a.top_name != a.replace(act_bits=4).top_name
    assert a.top_name != a.replace(depth=32).top_name
    # No signedness letter any more: one tile runs signed and unsigned activations.
    assert f"_a{a.act_bits}w{a.wgt_bits}_" in a.top_name


@pytest.mark.parametrize("value", [True, False])
def test_act_signed_is_no_configuration_field(value):
    """``act_signed`` moved to the runtime registers: a configuration that still sets it is
    refused with an error naming the field, both as a keyword and in a mapping."""
    with pytest.raises(ConfigError, match="^act_signed: is a runtime register") as err:
        TileConfig("stripes", 1, 1, 1, 8, 8, act_signed=value)
    assert "\n" not in str(err.value)
    with pytest.raises(ConfigError, match="^act_signed: is a runtime register"):
        from_mapping(dict(arch="baseline", filters=1, windows=1, lanes=1, act_bits=8,
                          wgt_bits=8, act_signed=value))
    with pytest.raises(ConfigError, match="^act_signed: is a runtime register"):
        preset("stripes-4x4").replace(act_signed=value)
    assert "act_signed" not in preset("stripes-4x4").to_dict()


def test_act_signed_is_a_runtime_register_of_integer_tiles():
    from termwise.rtl.tile import command_layout
    for name in ("baseline-4x4", "stripes-4x4", "pragmatic-4x4", "diffy-4x4"):
        cfg = preset(name)
        assert "act_signed" in cfg.runtime, name
        assert cfg.runtime_values()["act_signed"] is True, name          # the default
        assert cfg.runtime_values(act_signed=False)["act_signed"] is False, name
        assert cfg.runtime_values(act_signed=True)["act_signed"] is True, name
        assert dict(command_layout(cfg))["act_signed"].shape.width == 1, name
    with pytest.raises(ConfigError, match="act_signed: must be true or false, got 1"):
        preset("stripes-4x4").runtime_values(act_signed=1)
    bf16 = preset("baseline-bf16-4x4")
    assert "act_signed" not in bf16.runtime and "act_signed" not in bf16.runtime_values()
    assert "act_signed" not in dict(command_layout(bf16))
    with pytest.raises(ConfigError, match="act_signed: is not a runtime register of a bf16"):
        bf16.runtime_values(act_signed=False)


@pytest.mark.parametrize("name", ["stripes-4x4", "pragmatic-4x4", "tactical-tcle-4x4",
                                  "baseline-bf16-4x4", "diffy-4x4"])
def test_to_toml_round_trips(name, tmp_path):
    from termwise.gen.config import from_toml, to_toml
    cfg = preset(name).replace(depth=32)
    path = tmp_path / "c.toml"
    path.write_text(to_toml(cfg))
    back = from_toml(str(path))
    assert back == cfg and back.top_name == cfg.top_name


def test_runtime_values_produce_every_declared_register():
    """Every register a design's command carries has a validated default."""
    from termwise.gen import designs
    for spec in designs.SPECS.values():
        names = [r.preset for r in spec.regressions]
        if not names:
            continue
        cfg = preset(names[0])
        rt = cfg.runtime_values()
        assert set(cfg.runtime) <= set(rt), (spec.arch, cfg.runtime, rt)
    diffy = preset("diffy-4x4")
    assert diffy.runtime_values()["restart"] == 1
    with pytest.raises(ConfigError, match="restart: must be in 0..31"):
        diffy.runtime_values(restart=32)
    with pytest.raises(ConfigError, match="restart: is not a runtime register"):
        preset("stripes-4x4").runtime_values(restart=1)


def test_buffers_of_sram_macros(tmp_path):
    """``buffers = macros``: named in the top, kept by to_dict and TOML (absent at its
    default, so every existing configuration's dict and name are unchanged), refused below
    the smallest macro and for the designs that keep their operands in stores of their own
    (the arrays with OWNS_OPERANDS)."""
    from termwise.gen import designs
    from termwise.gen.config import from_toml, to_toml
    from termwise.rtl.tile import array_class
    base = preset("stripes-4x4")
    m = base.replace(buffers="macros")
    assert m.top_name == base.top_name + "_sram" and "buffers" not in base.to_dict()
    assert m.to_dict()["buffers"] == "macros" and from_mapping(m.to_dict()) == m
    path = tmp_path / "m.toml"
    path.write_text(to_toml(m))
    assert from_toml(str(path)) == m
    with pytest.raises(ConfigError, match="must be one of flops, macros") as e:
        base.replace(buffers="sram")
    assert e.value.field == "buffers"
    with pytest.raises(ConfigError, match="at least 16") as e:
        base.replace(buffers="macros", depth=8)
    assert e.value.field == "depth"
    for name in ("cnvlutin-4x4", "tactical-tclp-4x4"):
        with pytest.raises(ConfigError, match="stores of its own") as e:
            preset(name).replace(buffers="macros")
        assert e.value.field == "buffers"
    # a spec names its own stores exactly when its array owns its operands
    for spec in designs.SPECS.values():
        cfg = next(preset(p) for p in load_presets() if preset(p).spec is spec)
        owns = getattr(array_class(cfg), "OWNS_OPERANDS", False)
        assert (spec.own_stores is not None) == owns, spec.arch


def test_clock_gating_field():
    """``clock_gating``: a bool, named ``_cg`` in the top, kept by to_dict only when on."""
    base = preset("baseline-4x4")
    g = base.replace(clock_gating=True)
    assert g.top_name == base.top_name + "_cg" and g.to_dict()["clock_gating"] is True
    assert "clock_gating" not in base.to_dict() and from_mapping(g.to_dict()) == g
    with pytest.raises(ConfigError, match="true or false") as e:
        base.replace(clock_gating=1)
    assert e.value.field == "clock_gating"
