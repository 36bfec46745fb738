"""The layout's promises, checked on the source (issue 13): no import cycles (imports inside
functions count, and so do cycles through a package's ``__init__``, issue 39), no private
name imported across modules, the layers import only what they may, and shared code never
branches on a design's name."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("rtl", "gen", "golden", "tb", "synth")


def _modules() -> dict:
    """module name -> path, for every project module (tb's pytest runners included)."""
    out = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(["termwise", *parts])] = path
    return out


MODULES = _modules()


def _statements(name: str, path: Path):
    """``(kind, target, names, line)`` of every import statement in the module, wherever it
    stands: ``kind`` is ``"import"`` or ``"from"``, ``target`` the module imported or imported
    from (relative imports resolved), ``names`` the names a ``from`` import reads."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("termwise"):
                    yield "import", alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("termwise"):
                yield "from", target, [a.name for a in node.names], node.lineno


def _imports(name: str, path: Path):
    """``(target module, imported names, line)`` of every import statement in the module,
    wherever it stands; relative imports resolved, ``from pkg import sub`` resolved to the
    submodule when it is one."""
    for kind, target, names, line in _statements(name, path):
        subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in MODULES]
        if not subs:
            yield target, names, line
            continue
        for s in subs:
            yield s, [], line
        rest = [n for n in names if f"{target}.{n}" not in MODULES]
        if rest:
            yield target, rest, line


def _parents(name: str) -> list:
    """The packages above a module, outermost first: ``a.b.c`` -> ``[a, a.b]``."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _edges(name: str, path: Path) -> dict:
    """The modules the module's imports make Python execute or read, each with the line of
    the first import that does: ``{target: line}``.

    What Python runs: ``import a.b.c`` and ``from a.b.c import x`` execute ``a/__init__``,
    ``a/b/__init__`` and then ``a.b.c``; ``from a.b import c`` executes ``a.b`` and reads
    ``c`` from its namespace, importing the submodule ``a.b.c`` when ``c`` is one. A
    module's own packages (its parents; an ``__init__``'s own package too) ran before it, so
    passing through them is no edge, but reading one's namespace is, since the package may
    be only half initialised when the module runs (issue 39): ``from . import x`` and
    ``from .. import pkg`` inside it, or importing the package itself.

    Parameters
    ----------
    name : str
        The module's dotted name.
    path : Path
        Its source file.

    Returns
    -------
    dict
        Project module name -> line number of the import that makes the edge.
    """
    own = set(_parents(name)) | ({name} if path.name == "__init__.py" else set())
    out = {}
    for kind, target, names, line in _statements(name, path):
        reached = [target]                       # imported, or read from: always an edge
        reached += [p for p in _parents(target) if p not in own]    # run on the way
        if kind == "from":
            reached += [f"{target}.{n}" for n in names if f"{target}.{n}" in MODULES]
        for t in reached:
            if t in MODULES and t != name:
                out.setdefault(t, line)
    return out


def _graph() -> dict:
    """module name -> ``{imported module: line}`` (see :func:`_edges`)."""
    return {name: _edges(name, path) for name, path in MODULES.items()}


def _cycle_path(graph: dict, comp: list) -> str:
    """One import cycle through a strongly connected component, as ``a (file:line) -> b
    (file:line) -> ... -> a``: the shortest way from its first module back to it."""
    start, inside = comp[0], set(comp)
    prev, todo = {}, [start]
    while todo and start not in prev:           # breadth first, inside the component
        v = todo.pop(0)
        for w in sorted(graph[v]):
            if w in inside and w not in prev:
                prev[w] = v
                todo.append(w)
    path, v = [start], start
    while True:
        v = prev[v]
        path.append(v)
        if v == start:
            break
    path.reverse()
    return " -> ".join(
        f"{v} ({MODULES[v].relative_to(ROOT)}:{graph[v][w]})"
        for v, w in zip(path, path[1:])) + f" -> {start}"


def test_no_import_cycles():
    graph = _graph()
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):                       # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    import sys
    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    # A package's __init__ importing its own submodules is not a cycle by itself; a cycle
    # through it is one only if a submodule imports the package back: both are edges here.
    assert not cycles, "import cycles:\n" + "\n".join(_cycle_path(graph, c) for c in cycles)


def test_no_private_names_imported_across_modules():
    bad = []
    for name, path in MODULES.items():
        for target, names, line in _imports(name, path):
            for n in names:
                if n.startswith("_") and not n.startswith("__"):
                    bad.append(f"{path.relative_to(ROOT)}:{line} imports {n} from {target}")
    assert not bad, "\n".join(bad)


#: What each layer may import (prefixes of module names).
ALLOWED = {
    "termwise.gen.errors": (),
    "termwise.gen.spec": ("termwise.gen.errors",),
    "termwise.gen.designs": ("termwise.gen.errors", "termwise.gen.spec",
                             "termwise.gen.designs"),
    "termwise.gen.config": ("termwise.gen.errors", "termwise.gen.spec",
                            "termwise.gen.designs"),
    "termwise.rtl": ("termwise.rtl", "termwise.gen.errors", "termwise.gen.spec",
                     "termwise.gen.designs", "termwise.gen.config"),
    "termwise.golden": ("termwise.golden", "termwise.gen.errors", "termwise.gen.spec",
                        "termwise.gen.designs", "termwise.gen.config"),
}


@pytest.mark.parametrize("layer", list(ALLOWED))
def test_layers_import_only_what_they_may(layer):
    bad = []
    for name, path in MODULES.items():
        if not (name == layer or name.startswith(layer + ".")):
            continue
        for target, _, line in _imports(name, path):
            if target in MODULES and not any(target == a or target.startswith(a + ".")
                                             for a in ALLOWED[layer]):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not bad, "\n".join(bad)


def _design_names():
    from termwise.gen import designs
    return set(designs.archs()) | set(designs.sim_designs())


#: Where a design's own knowledge lives (its spec, golden model, RTL and testbench).
OWN = ("gen/designs/", "golden/arch/", "rtl/", "tb/")


def test_shared_code_does_not_branch_on_a_design_name():
    names = _design_names()
    pattern = re.compile(r"""(==|!=|\bin)\s*\(?\s*["']([\w-]+)["']""")
    bad = []
    for name, path in MODULES.items():
        rel = str(path.relative_to(ROOT))
        if rel.startswith(OWN):
            continue
        for i, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = text.split("#", 1)[0]
            for m in pattern.finditer(code):
                if m.group(2) in names:
                    bad.append(f"{rel}:{i}: {text.strip()}")
    assert not bad, "\n".join(bad)
