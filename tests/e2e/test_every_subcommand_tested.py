"""Issue 12: every ``termwise`` subcommand has an end-to-end test, ``tests/e2e/test_<name>.py``,
that runs it through the installed entry point. A subcommand without one is a bug.

A file qualifies when it calls ``<helper>("<name>", ...)`` where the helper is this folder's
``termwise`` fixture / ``run_termwise`` (termwise_e2e.py), or any function of a file that
builds the installed script's path itself (``Path(sys.executable).parent / "termwise"``).
"""

import argparse
import ast
from pathlib import Path

import pytest

from termwise_e2e import ok

HERE = Path(__file__).resolve().parent
HELPERS = {"termwise", "run_termwise"}


def registered_subcommands() -> list[str]:
    from termwise.gen.cli import build_parser
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(sub.choices)


def _callee(call: ast.Call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _builds_entry_point(tree: ast.AST) -> bool:
    """``<...sys.executable...> / "termwise"`` somewhere in the module."""
    for node in ast.walk(tree):
        if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)
                and isinstance(node.right, ast.Constant) and node.right.value == "termwise"
                and "sys.executable" in ast.unparse(node.left)):
            return True
    return False


def invokes_through_entry_point(path: Path, name: str) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    own_runner = _builds_entry_point(tree)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and node.args
                and isinstance(node.args[0], ast.Constant) and node.args[0].value == name
                and (_callee(node) in HELPERS or own_runner)):
            return True
    return False


SUBCOMMANDS = registered_subcommands()


def test_the_parser_has_subcommands():
    assert {"gen", "presets", "demo", "synth", "compare", "sim"} <= set(SUBCOMMANDS)


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_subcommand_has_an_end_to_end_test(name):
    path = HERE / f"test_{name}.py"
    assert path.is_file(), (f"`termwise {name}` has no end-to-end test: write {path} "
                            f"(see {HERE / 'conftest.py'})")
    assert invokes_through_entry_point(path, name), (
        f"{path} never runs `termwise {name}` through the installed entry point "
        f"(the termwise fixture, or Path(sys.executable).parent / 'termwise')")


def test_installed_entry_point_offers_the_same_subcommands(termwise):
    """The console script is this source tree's parser (an editable install), not a stale copy."""
    usage = ok(termwise("--help")).stdout
    listed = usage[usage.index("{") + 1:usage.index("}")].split(",")
    assert listed == SUBCOMMANDS
