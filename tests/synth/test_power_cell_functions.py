"""Liberty Boolean functions: precedence, postfix and prefix negation, constants, the Verilog
text and the variables, against truth tables written out by hand."""

import itertools

import pytest

from termwise.synth.power.cell_functions import (eval_function, function_vars,
                                                 function_verilog, parse_function)


def test_function_parser_precedence():
    t = parse_function("A B + !C D'")            # (A&B) | (!C & !D)
    for a, b, c, d in itertools.product((0, 1), repeat=4):
        want = (a & b) | ((1 - c) & (1 - d))
        assert eval_function(t, dict(A=a, B=b, C=c, D=d)) == want
    t = parse_function("A ^ B C")                # ^ binds tighter: (A^B)&C
    assert eval_function(t, dict(A=1, B=0, C=0)) == 0
    with pytest.raises(ValueError):
        parse_function("(A B")


def test_tree_verilog_and_variables():
    t = parse_function("!(A | B) * C'")
    assert t == ("and", ("not", ("or", ("var", "A"), ("var", "B"))), ("not", ("var", "C")))
    assert function_verilog(t) == "(~(A | B) & ~C)"
    assert function_vars(t) == {"A", "B", "C"}
    assert function_verilog(parse_function("1")) == "1'b1"
    assert function_vars(parse_function("0")) == set()
    for a, b, c in itertools.product((0, 1), repeat=3):     # NOR(A, B) and not C
        assert eval_function(t, dict(A=a, B=b, C=c)) == (1 - (a | b)) & (1 - c)


def test_bad_functions():
    for text in ("A +", "A $ B", "(A) )", ")"):
        with pytest.raises(ValueError):
            parse_function(text)
