"""The critical path's delay by kind of hardware (synth/path_kinds.py): each stage's
instance path resolved through the module tree of the yosys statistics."""

from termwise.synth.path_kinds import modules_of, path_kinds

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


def test_modules_of():
    assert modules_of("tile/array/pe_f3_w7/serial/_745_", MODS, WRAP) == [f"{TOP}__pe.serial"]
    assert modules_of("tile/array/pe_f0_w1/_12_", MODS, WRAP) == [f"{TOP}__pe"]
    assert modules_of("tile/array/sequencer/_1_", MODS, WRAP) == [f"{TOP}.array.sequencer"]
    assert modules_of("tile/_3418_", MODS, WRAP) == [TOP]
    assert modules_of("_9_", MODS, WRAP) == [WRAP]
    assert modules_of("tile/nowhere/_1_", MODS, WRAP) == []


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


# TCLe's array instantiates three modules emitted once: the PE, the window encoder and the
# term multiplexer; the statistics do not say which instance is which.
TCLE = "termwise_tactical_f4w4l4_a8w8_acc24_d16_tcle"
TCLE_MODS = {
    TCLE + "__wrap": {"subs": {TCLE: 1}},
    TCLE: {"subs": {f"{TCLE}.array": 1}},
    f"{TCLE}.array": {"subs": {f"{TCLE}__pe": 16, f"{TCLE}__window_encoder": 4,
                               f"{TCLE}__term_mux": 16}, "cells": {"DFFPOSX1": 8}},
    f"{TCLE}__pe": {"subs": {f"{TCLE}__pe.accumulator": 1}, "cells": {"XOR2X1": 40}},
    f"{TCLE}__pe.accumulator": {"subs": {}, "cells": {"DFFPOSX1": 24}},
    f"{TCLE}__window_encoder": {"subs": {f"{TCLE}__window_encoder.serializer_l1": 1},
                                "cells": {"NOR2X1": 3}},
    f"{TCLE}__window_encoder.serializer_l1": {"subs": {}, "cells": {"DFFPOSX1": 4}},
    f"{TCLE}__term_mux": {"subs": {}, "cells": {"MUX2X1": 30, "NOR2X1": 2}},
}


def test_several_modules_emitted_once_under_one_parent():
    """The path's rest picks the module (a serialiser exists only in the encoder, an
    accumulator only in the PE); a cell directly in one of them is placed by its liberty
    cell where only one holds it, or by another cell of the same instance, and stays
    unresolved where two modules could hold it."""
    w = TCLE + "__wrap"
    once = [f"{TCLE}__pe", f"{TCLE}__window_encoder", f"{TCLE}__term_mux"]
    assert modules_of("tile/array/encoder_w0/serializer_l1/_277_", TCLE_MODS, w) == \
        [f"{TCLE}__window_encoder.serializer_l1"]
    assert modules_of("tile/array/pe_f0_w0/accumulator/_941_", TCLE_MODS, w) == \
        [f"{TCLE}__pe.accumulator"]
    assert modules_of("tile/array/mux_f0_w0/_5_", TCLE_MODS, w) == once
    assert modules_of("tile/array/mux_f0_w0/_5_", TCLE_MODS, w, cell="MUX2X1") == \
        [f"{TCLE}__term_mux"]
    assert modules_of("tile/array/mux_f0_w0/_6_", TCLE_MODS, w, cell="NOR2X1") == once[1:]
    # a fanout buffer inserted after the statistics: in no module's count, no filter
    assert modules_of("tile/array/mux_f0_w0/_7_", TCLE_MODS, w, cell="BUFX4") == once
    stages = [("tile/array/encoder_w0/serializer_l1/_277_", "DFFPOSX1", 0.01, 0.5),
              ("tile/array/mux_f0_w0/_5_", "MUX2X1", 0.01, 0.4),
              ("tile/array/mux_f0_w0/_6_", "NOR2X1", 0.01, 0.2),
              ("tile/array/mux_f1_w0/_9_", "NOR2X1", 0.01, 0.1),
              ("tile/array/pe_f0_w0/_8_", "XOR2X1", 0.01, 0.3)]
    got = path_kinds(stages, TCLE_MODS, TCLE, w,
                     endpoint="tile/array/pe_f0_w0/accumulator/_941_")
    # the NOR2X1 of mux_f0_w0 is in the instance its MUX2X1 placed; mux_f1_w0's one NOR2X1
    # could be in the encoder or the multiplexer
    assert got["delay_by_kind_ns"] == {"front_end": 0.6, "encoders": 0.5, "pe_lanes": 0.3,
                                       "control_glue": 0.1}
    assert got["start_kind"] == "encoders" and got["end_kind"] == "accumulators"
    assert got["unresolved"] == 1
