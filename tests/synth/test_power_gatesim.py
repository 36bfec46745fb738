"""Netlist lines for Verilator (synth/power/gatesim.py:split_long_lines): a line past the
limit is broken after its ", " separators and nothing but whitespace changes; shorter lines
and escaped identifiers holding commas are kept as they are."""

import re

from termwise.synth.power.gatesim import split_long_lines


def _tokens(text):
    return re.sub(r"\s+", " ", text).strip()


def test_a_long_concatenation_is_broken_at_its_separators():
    wide = "    .values({ " + ", ".join(f"\\termwise_fo_{i} " for i in range(3000)) + "})"
    text = "module m (a);\n" + wide + "\n  assign b = { x, y };\nendmodule\n"
    out = split_long_lines(text, limit=1000)
    lines = out.split("\n")
    assert max(len(line) for line in lines) < 1000
    assert "  assign b = { x, y };" in lines            # short lines untouched
    assert _tokens(out) == _tokens(text)


def test_an_escaped_identifier_keeps_its_comma():
    line = "  X u (.a({ \\a,b , " + ", ".join(["n"] * 500) + " }));"
    out = split_long_lines(line, limit=100)
    assert "\\a,b" in out and _tokens(out) == _tokens(line)


def test_text_within_the_limit_is_returned_as_is():
    text = "a, b, c\n" * 10
    assert split_long_lines(text, limit=100) is text
