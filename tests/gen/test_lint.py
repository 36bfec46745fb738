"""Verilator -Wall lint of generated Verilog is clean apart from the named waivers."""

import pytest

from termwise.gen.config import preset
from termwise.tb.lint import lint

from termwise.gen import designs

# Every registered fast regression's configuration (a new design is linted with no edit
# here), plus configurations that stress particular widths and the output stage.
FAST = list(dict.fromkeys(
    (r.preset, tuple(sorted(r.changes.items())))
    for s in designs.SPECS.values() for r in s.regressions if not r.slow))
FAST = [(name, dict(changes)) for name, changes in FAST] + [
    ("baseline-4x4", {"windows": 3, "lanes": 5, "filters": 1}),
    ("baseline-4x4", {"bias": True, "residual": True, "activation": "relu6", "out_bits": 8}),
    ("stripes-4x4", {"out_bits": 12, "activation": "relu"}),
    ("stripes-4x4", {"act_bits": 7}),        # precision field exactly fits act_bits
    ("pragmatic-4x4", {"sync": "column", "column_registers": 2, "encoding": "booth"}),
]


@pytest.mark.parametrize("name,changes", FAST)
def test_lint_clean(name, changes):
    ok, messages = lint(preset(name).replace(**changes))
    assert ok, messages[:3000]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["baseline-16x16", "stripes-16x16"])
def test_lint_clean_16x16(name):
    ok, messages = lint(preset(name))
    assert ok, messages[:3000]
