"""The ``edges`` suite's stimulus (:mod:`termwise.tb.edges`, issue 39), without a simulator:
which values each command field gets, that every field of every preset's command has them,
and that every testbench runs the suite by default (so ``make test`` runs it on every
design). The runs themselves are in the design regressions (``tb/test_tiles.py`` and the
other runners)."""

import numpy as np
import pytest

from termwise.gen import designs
from termwise.gen.config import load_presets, preset
from termwise.tb.edges import command_fields, edge_cases, field_edges
from termwise.tb import testbenches

PRESETS = sorted(name for name in load_presets() if name.endswith("-4x4"))


@pytest.mark.parametrize("changes, field, values", [
    ({}, "precision", (0, 1, 8, 9, 15)),               # 4-bit field on 8-bit activations
    ({}, "wgt_precision", (0, 1, 8, 9, 15)),
    ({}, "bricks", (0, 1, 64)),                         # 7-bit field: above depth not sent
    ({}, "act_signed", (0, 1)),
    ({"act_bits": 7}, "precision", (0, 1, 7)),          # a 3-bit field holds no more than 7
    ({"act_bits": 6}, "precision", (0, 1, 6, 7)),
    ({"fc_columns": 1}, "fc", (0, 1)),
    ({"activation": "relu6", "out_bits": 8}, "cap", (0, 1, 127)),   # signed field
    ({"out_bits": 8}, "multiplier", (0, 1, 65535)),
    ({"out_bits": 8}, "shift", (0, 1, 63)),
])
def test_field_edges(changes, field, values):
    assert field_edges(preset("stripes-4x4").replace(**changes))[field] == values


def test_restart_edges():
    assert field_edges(preset("diffy-4x4"))["restart"] == (0, 1, 31)


@pytest.mark.parametrize("name", PRESETS)
def test_every_command_field_has_its_edges(name):
    """Each field of the RTL's command layout gets 0, 1 and its legal maximum, every value
    fits the field, and a field wider than its range gets a value above it (the
    precisions: issue 39)."""
    cfg = preset(name)
    fields = command_fields(cfg)
    edges = field_edges(cfg, fields)
    assert set(edges) == set(fields)
    ranges = cfg.register_ranges()
    for field, (width, signed) in fields.items():
        hi = ranges[field][1]
        assert {0, 1, hi} <= set(edges[field]) and max(edges[field]) < 1 << (width - signed)
    for field, bits in (("precision", cfg.act_bits), ("wgt_precision", cfg.wgt_bits)):
        if (1 << fields[field][0]) - 1 > bits:
            assert max(edges[field]) > bits, field


def test_a_field_without_a_range_is_refused():
    cfg = preset("stripes-4x4")
    with pytest.raises(ValueError, match="no legal range for command field.*offset"):
        field_edges(cfg, dict(command_fields(cfg), offset=(4, False)))


@pytest.mark.parametrize("name", ["stripes-4x4", "diffy-4x4"])
def test_edge_cases_cover_every_edge(name):
    """One run per field and edge value (``bricks`` by its length) in a signed and an
    unsigned run, and the registers sent as they are."""
    cfg = preset(name)
    cases = edge_cases(cfg, np.random.default_rng(1))
    by_name = {c.name: c for c in cases}
    for field, values in field_edges(cfg).items():
        for v in values:
            if field == "act_signed":
                continue
            for suffix, signed in (("", True), ("_u", False)):
                case = by_name[f"{field}={v}{suffix}"]
                assert case.act_signed is signed
                if field == "bricks":
                    assert case.act.shape[1] == v * cfg.lanes
                else:
                    assert case.runtime(cfg)[field] == v
    assert by_name["all_registers=0"].runtime(cfg)["precision"] == 0


def test_a_continued_diffy_run_keeps_the_run_before():
    """Diffy: a run whose window 0 does not restart continues the run before it (same
    length, signedness and weights), which the testbench needs for its predecessor."""
    cfg = preset("diffy-4x4")
    cases = edge_cases(cfg, np.random.default_rng(1))
    continued = [i for i, c in enumerate(cases) if not c.runtime(cfg)["restart"] & 1]
    assert len(continued) == 4          # restart=0 and all_registers=0, both signednesses
    for i in continued:
        before, case = cases[i - 1], cases[i]
        assert before.act.shape == case.act.shape and before.act_signed == case.act_signed
        assert np.array_equal(before.wgt, case.wgt) and not case.reload_weights


def test_every_testbench_runs_edges_by_default():
    """``edges`` is a default suite of every design's testbench: the plain regression of
    every design runs it (``make test``, ``termwise verify``)."""
    for spec in designs.SPECS.values():
        plain = [reg for reg in spec.regressions if not reg.changes and reg.suites is None]
        assert plain, spec.arch
        assert "edges" in testbenches.testbench_for(preset(plain[0].preset)).default, spec.arch
