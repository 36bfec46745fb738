"""The critical path's delay by kind of hardware (synth/path_kinds.py): each stage's
instance path resolved through the module tree of the yosys statistics."""

from termwise.synth.path_kinds import module_of, path_kinds

TOP = "termwise_stripes_f4w8l4_a8w8_acc24_d64"
WRAP = TOP + "__wrap"
# A module tree as parse_stat_json gives it: Amaranth children are <parent>.<instance>; the
# PE is emitted once and instantiated by name.
MODS = {
    WRAP: {"subs": {TOP: 1}},
    TOP: {"subs": {f"{TOP}.array": 1, f"{TOP}.act_buffer": 1, f"{TOP}.wgt_buffer": 1}},
    f"{TOP}.array": {"subs": {f"{TOP}__pe": 32, f"{TOP}.array.sequencer": 1}},
    f"{TOP}.array.sequencer": {"subs": {}},
    f"{TOP}__pe": {"subs": {f"{TOP}__pe.serial": 1, f"{TOP}__pe.tree": 1}},
    f"{TOP}__pe.serial": {"subs": {}},
    f"{TOP}__pe.tree": {"subs": {}},
    f"{TOP}.act_buffer": {"subs": {}},
    f"{TOP}.wgt_buffer": {"subs": {}},
}


def test_module_of():
    assert module_of("tile/array/pe_f3_w7/serial/_745_", MODS, WRAP) == f"{TOP}__pe.serial"
    assert module_of("tile/array/pe_f0_w1/_12_", MODS, WRAP) == f"{TOP}__pe"
    assert module_of("tile/array/sequencer/_1_", MODS, WRAP) == f"{TOP}.array.sequencer"
    assert module_of("tile/_3418_", MODS, WRAP) == TOP
    assert module_of("_9_", MODS, WRAP) == WRAP
    assert module_of("tile/nowhere/_1_", MODS, WRAP) is None


def test_path_kinds():
    stages = [("tile/array/sequencer/_102_", "DFFPOSX1", 0.02, 0.4),
              ("tile/array/_7_", "BUFX4", 0.5, 2.5),
              ("tile/array/pe_f0_w0/tree/_3_", "XOR2X1", 0.01, 0.3),
              ("tile/array/pe_f0_w0/tree/_4_", "XOR2X1", 0.01, 0.3),
              ("tile/nowhere/_5_", "NAND2X1", 0.01, 0.1)]
    got = path_kinds(stages, MODS, TOP, WRAP, endpoint="tile/array/pe_f0_w0/serial/_745_")
    assert got["delay_by_kind_ns"] == {"encoders": 2.5, "adder_tree": 0.6,
                                       "control_glue": 0.5}
    assert list(got["delay_by_kind_ns"]) == ["encoders", "adder_tree", "control_glue"]
    assert got["slowest_kind"] == "encoders"        # the array level: Stripes' serialisers
    assert got["start_kind"] == "control_glue"      # the sequencer
    assert got["end_kind"] == "accumulators"
    assert got["unresolved"] == 1
