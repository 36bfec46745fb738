"""Liberty Boolean ``function`` expressions (a pin's ``function``, ``three_state``, a
flip-flop's ``next_state``, ``clocked_on``, ``clear``, ``preset``): parsed into a tree of
tuples, evaluated, and written as a Verilog expression.

Precedence (liberty): ``!`` and postfix ``'`` first, then ``^``, then ``&`` / ``*`` /
juxtaposition, then ``|`` / ``+``.
"""

from __future__ import annotations

import re

__all__ = ["parse_function", "eval_function", "function_verilog", "function_vars"]

_FTOK = re.compile(r"\s*([A-Za-z_][\w\[\]\.]*|[01]|[!'()+|&*^])")


def _ftokens(text: str) -> list[str]:
    """The tokens of a liberty function: names, ``0``/``1``, operators and parentheses."""
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _FTOK.match(text, pos)
        if not m:
            if text[pos:].strip() == "":
                break
            raise ValueError(f"bad liberty function {text!r} at {pos}")
        out.append(m.group(1))
        pos = m.end()
    return out


def parse_function(text: str):
    """A liberty Boolean ``function`` as a tree of tuples: ``("var", name)``, ``("const",
    0|1)``, ``("not", x)``, ``("and"|"or"|"xor", a, b)``. Precedence (liberty): ``!`` and
    postfix ``'`` first, then ``^``, then ``&`` / ``*`` / juxtaposition, then ``|`` / ``+``."""
    toks = _ftokens(text)
    pos = 0

    def peek():
        return toks[pos] if pos < len(toks) else None

    def take():
        nonlocal pos
        pos += 1
        return toks[pos - 1]

    def starts_operand(t):
        return t is not None and (t in ("!", "(", "0", "1") or re.match(r"[A-Za-z_]", t))

    def p_or():
        a = p_and()
        while peek() in ("+", "|"):
            take()
            a = ("or", a, p_and())
        return a

    def p_and():
        a = p_xor()
        while True:
            t = peek()
            if t in ("&", "*"):
                take()
                a = ("and", a, p_xor())
            elif starts_operand(t):
                a = ("and", a, p_xor())
            else:
                return a

    def p_xor():
        a = p_unary()
        while peek() == "^":
            take()
            a = ("xor", a, p_unary())
        return a

    def p_unary():
        if peek() == "!":
            take()
            return ("not", p_unary())
        x = p_primary()
        while peek() == "'":
            take()
            x = ("not", x)
        return x

    def p_primary():
        t = take() if peek() is not None else None
        if t == "(":
            x = p_or()
            if peek() != ")":
                raise ValueError(f"unbalanced parentheses in {text!r}")
            take()
            return x
        if t in ("0", "1"):
            return ("const", int(t))
        if t is None or not re.match(r"[A-Za-z_]", t):
            raise ValueError(f"unexpected {t!r} in liberty function {text!r}")
        return ("var", t)

    tree = p_or()
    if pos != len(toks):
        raise ValueError(f"trailing tokens in liberty function {text!r}")
    return tree


def eval_function(tree, env: dict[str, int]) -> int:
    """The value (0 or 1) of :func:`parse_function`'s ``tree`` with its variables set by
    ``env``."""
    op = tree[0]
    if op == "var":
        return int(env[tree[1]]) & 1
    if op == "const":
        return tree[1]
    if op == "not":
        return 1 - eval_function(tree[1], env)
    a, b = eval_function(tree[1], env), eval_function(tree[2], env)
    return {"and": a & b, "or": a | b, "xor": a ^ b}[op]


def function_verilog(tree) -> str:
    """``tree`` as a Verilog expression (every binary operation parenthesised)."""
    op = tree[0]
    if op == "var":
        return tree[1]
    if op == "const":
        return f"1'b{tree[1]}"
    if op == "not":
        return f"~{function_verilog(tree[1])}"
    sym = {"and": "&", "or": "|", "xor": "^"}[op]
    return f"({function_verilog(tree[1])} {sym} {function_verilog(tree[2])})"


def function_vars(tree) -> set[str]:
    """The variable names ``tree`` reads."""
    if tree[0] == "var":
        return {tree[1]}
    if tree[0] == "const":
        return set()
    return set().union(*(function_vars(t) for t in tree[1:]))
