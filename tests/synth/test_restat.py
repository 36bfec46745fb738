"""The area after fanout buffering without re-reading the netlist
(:func:`termwise.synth.asic.stat_with_buffers`): on a two-level hierarchy written here, the
cell counts, local and hierarchical areas against a hand count; the comparison with Yosys'
own stat (:func:`termwise.synth.asic._stats_agree`) finds a module that differs. The flow
itself checks the function against Yosys on every synthesis up to 40 MB (test_flow.py's
baseline-4x4 run goes through that check)."""

import json

import pytest

from termwise.synth import asic, parse

# top: 2 x sub + 10 own cells (area 50); sub: 4 cells (area 20), 8 of it sequential.
STAT = {"modules": {
    "\\top": {"num_cells": 12, "area": 90.0, "sequential_area": 16.0,
              "num_cells_by_type": {"NAND2X1": 10, "sub": 2}},
    "\\sub": {"num_cells": 4, "area": 20.0, "sequential_area": 8.0,
              "num_cells_by_type": {"DFFPOSX1": 1, "INVX1": 3}},
}}


def test_buffers_add_to_counts_and_areas():
    doc = asic.stat_with_buffers(json.dumps(STAT), {"sub": 3, "top": 1}, "BUFX4", 2.5)
    sub, top = doc["modules"]["\\sub"], doc["modules"]["\\top"]
    assert sub["num_cells_by_type"] == {"DFFPOSX1": 1, "INVX1": 3, "BUFX4": 3}
    assert sub["num_cells"] == 7 and sub["area"] == 20.0 + 3 * 2.5
    assert top["num_cells_by_type"] == {"NAND2X1": 10, "sub": 2, "BUFX4": 1}
    # own 50 + one buffer, plus two subs of 27.5 each
    assert top["area"] == 50.0 + 2.5 + 2 * 27.5
    assert top["sequential_area"] == 16.0                  # buffers are not sequential
    mods = parse.parse_stat_json(json.dumps(doc))
    assert mods["top"]["local_area"] == pytest.approx(52.5)


def test_no_buffers_is_the_same_stat():
    doc = asic.stat_with_buffers(json.dumps(STAT), {"sub": 0}, "BUFX4", 2.5)
    assert doc["modules"] == STAT["modules"]
    assert asic._stats_agree(doc, json.dumps(STAT)) == []


def test_a_buffer_in_an_unknown_module_is_refused():
    with pytest.raises(ValueError, match="nosuch"):
        asic.stat_with_buffers(json.dumps(STAT), {"nosuch": 1}, "BUFX4", 2.5)


def test_a_differing_module_is_found():
    ours = asic.stat_with_buffers(json.dumps(STAT), {"sub": 1}, "BUFX4", 2.5)
    assert sorted(asic._stats_agree(ours, json.dumps(STAT))) == ["sub", "top"]
    theirs = json.loads(json.dumps(ours))
    assert asic._stats_agree(ours, json.dumps(theirs)) == []
    theirs["modules"]["\\top"]["area"] += 1.0
    assert asic._stats_agree(ours, json.dumps(theirs)) == ["top"]
