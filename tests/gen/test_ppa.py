"""gen/flows/reports/ppa.py: how each design's power was obtained, as report.md states it."""

import pytest

from termwise.gen.flows.reports.ppa import method_text


def test_method_text_names_the_part():
    assert method_text({}) == "the whole tile simulated at gate level"
    assert method_text({"method": {"mode": "whole"}}).startswith("the whole tile")
    row = method_text({"method": {"mode": "row", "part_top": "t_f1w64"}})
    assert row.startswith("one PE row (t_f1w64)") and "scaled" in row
    sl = method_text({"method": {"mode": "slice", "part_top": "t_f1w16",
                                 "macs": {"windows": [16, 64]}}})
    assert sl.startswith("a slice of one PE row (t_f1w16: 16 of 64 window columns)")
    with pytest.raises(ValueError, match="'half'"):
        method_text({"method": {"mode": "half"}})
