"""Verilator -Wall lint of generated Verilog is clean apart from the named waivers."""

import pytest

from termwise.gen.config import preset
from termwise.tb.lint import lint

FAST = [("baseline-4x4", {}), ("stripes-4x4", {}), ("stripes-4x4", {"act_signed": False}),
        ("baseline-4x4", {"windows": 3, "lanes": 5, "filters": 1}),
        ("baseline-4x4", {"bias": True, "residual": True, "activation": "relu6", "out_bits": 8}),
        ("stripes-4x4", {"out_bits": 12, "activation": "relu"})]


@pytest.mark.parametrize("name,changes", FAST)
def test_lint_clean(name, changes):
    ok, messages = lint(preset(name).replace(**changes))
    assert ok, messages[:3000]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["baseline-16x16", "stripes-16x16"])
def test_lint_clean_16x16(name):
    ok, messages = lint(preset(name))
    assert ok, messages[:3000]
