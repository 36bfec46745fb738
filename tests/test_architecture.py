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


#: The layers, bottom first: each may import itself and the layers below it, nothing above
#: (prefixes of module names). The description of a design at the bottom (errors, the spec
#: and value checks, the registry, the configuration); the hardware (rtl) and the models
#: (golden) on it; emission (rtl -> Verilog); the synthesis and power flows (synth); the
#: testbenches (tb); the library flows (gen.flows); the commands and the CLI on top.
LAYERS = (
    ("termwise.gen.errors", "termwise.gen.progress"),
    # Result keys, versions and store locations: below every flow, so every store uses it.
    ("termwise.gen.results",),
    ("termwise.gen.spec", "termwise.gen.checks"),
    ("termwise.gen.designs",),
    ("termwise.gen.config", "termwise.gen.fields", "termwise.gen.options",
     "termwise.gen.runtime_registers", "termwise.gen.toml_io"),
    ("termwise.rtl", "termwise.golden"),
    ("termwise.gen.emit",),
    ("termwise.synth",),
    ("termwise.tb",),
    ("termwise.gen.flows",),
    ("termwise.gen.commands",),
    ("termwise.gen.cli",),
)


def _layer_of(name: str) -> int | None:
    for i, layer in enumerate(LAYERS):
        if any(name == p or name.startswith(p + ".") for p in layer):
            return i
    return None


#: Packages of one layer that are not each other's business: the hardware and its models
#: meet only in tests and testbenches.
APART = (("termwise.rtl", "termwise.golden"),)


def test_every_module_has_a_layer():
    """A new package must be placed in :data:`LAYERS` (its rule is then enforced)."""
    top = {"termwise.gen"}            # the package of the layers' modules, nothing else
    missing = [str(path.relative_to(ROOT)) for name, path in MODULES.items()
               if name not in top and _layer_of(name) is None]
    assert not missing, "modules of no layer (add them to LAYERS):\n" + "\n".join(missing)


@pytest.mark.parametrize("layer", [" ".join(layer) for layer in LAYERS])
def test_layers_import_only_what_they_may(layer):
    bad = []
    prefixes = layer.split()
    for name, path in MODULES.items():
        if not any(name == p or name.startswith(p + ".") for p in prefixes):
            continue
        mine = _layer_of(name)
        for target, _, line in _imports(name, path):
            if target not in MODULES or target == "termwise.gen":
                continue
            theirs = _layer_of(target)
            apart = any(name.startswith(a) and target.startswith(b) or
                        name.startswith(b) and target.startswith(a) for a, b in APART)
            if theirs is None or theirs > mine or apart:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not bad, "\n".join(bad)


def test_a_command_imports_no_other_command():
    """Commands parse arguments and call one flow: among the commands' modules they share
    only the argument handling (:mod:`termwise.gen.commands.args`)."""
    bad = []
    for name, path in MODULES.items():
        if not name.startswith("termwise.gen.commands."):
            continue
        for target, _, line in _imports(name, path):
            if target.startswith("termwise.gen.commands") and target not in (
                    "termwise.gen.commands.args",):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not bad, "\n".join(bad)


#: The most lines a command module may have: a command parses arguments and calls a flow.
COMMAND_LINES = 160


def test_commands_are_thin():
    bad = [f"{path.relative_to(ROOT)}: {n} lines" for name, path in MODULES.items()
           if name.startswith("termwise.gen.commands.")
           and (n := len(path.read_text(encoding="utf-8").splitlines())) > COMMAND_LINES]
    assert not bad, "\n".join(bad)


def _design_knowledge() -> dict:
    """Every string that names a design -> the arch it belongs to: the archs, the
    ``termwise sim`` design names, and the string values of options only one design
    declares (``backend == "tclp"`` is Bit-Tactical's knowledge as much as its name)."""
    from termwise.gen import designs
    out = {a: a for a in designs.archs()}
    for s in designs.SPECS.values():
        out.update({d: s.arch for d in s.sim_designs})
    for name, specs in designs.options().items():
        if len({s.arch for s in specs}) == 1:
            option = specs[0].option(name)
            if option.type is str:
                out.update({v: specs[0].arch for v in option.valid if v not in out})
    return out


def _module_path(dotted: str) -> str:
    """``termwise.tb.diffy_tests`` -> ``tb/diffy_tests.py``."""
    return "/".join(dotted.split(".")[1:]) + ".py"


def _own_files() -> dict:
    """arch -> the files that are the design's own (paths relative to the root), derived
    from the registry so that a new design's files are recognised: its spec module
    (``gen/designs/<module>.py``), the modules its spec names when no other design's spec
    names them too (``rtl/<spec.rtl>.py``, ``golden/arch/<spec.golden>.py``, its
    testbench's module, its ``formal.module``), and every file named for it (stem
    ``<name>``, ``<name>_*`` or ``test_<name>*`` for the arch and those modules' names,
    e.g. ``tb/diffy_tests.py``, ``tb/tactical_formal.py``, ``gen/flows/reports/tactical.py``)."""
    import importlib
    import pkgutil

    from termwise.gen import designs
    from termwise.gen.config import preset
    named: dict = {}                       # module path -> the archs whose spec names it
    stems: dict = {}                       # arch -> the names its files go by
    for info in pkgutil.iter_modules(designs.__path__):
        spec = getattr(importlib.import_module(f"{designs.__name__}.{info.name}"), "SPEC",
                       None)
        if spec is None:
            continue
        cfg = preset(spec.regressions[0].preset)
        modules = {f"gen/designs/{info.name}.py", f"rtl/{spec.rtl}.py",
                   f"golden/arch/{spec.golden}.py",
                   _module_path(spec.testbench(cfg).module)}
        if spec.formal is not None and spec.formal.module:
            modules.add(_module_path(spec.formal.module))
        for m in modules:
            named.setdefault(m, set()).add(spec.arch)
        stems.setdefault(spec.arch, {spec.arch}).update(
            {info.name, spec.rtl, spec.golden})
    own: dict = {arch: {m for m, archs in named.items() if archs == {arch}}
                 for arch in stems}
    for arch, names in stems.items():
        for path in MODULES.values():
            stem = path.stem
            if any(stem == n or stem.startswith(n + "_") or stem.startswith("test_" + n)
                   for n in names):
                own[arch].add(str(path.relative_to(ROOT)))
    return own


def test_shared_code_does_not_branch_on_a_design_name():
    knowledge, own = _design_knowledge(), _own_files()
    pattern = re.compile(r"""(==|!=|\bin)\s*\(?\s*["']([\w-]+)["']""")
    bad = []
    for name, path in MODULES.items():
        rel = str(path.relative_to(ROOT))
        for i, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = text.split("#", 1)[0]
            for m in pattern.finditer(code):
                arch = knowledge.get(m.group(2))
                if arch is not None and rel not in own[arch]:
                    bad.append(f"{rel}:{i}: {text.strip()}  ({arch}'s knowledge)")
    assert not bad, "\n".join(bad)


def test_own_files_are_recognised():
    """The registry-derived list holds each kind of a design's own file (so the check
    above is not vacuous), and no shared file."""
    own = _own_files()
    assert {"gen/designs/tactical.py", "rtl/tactical.py", "golden/arch/tactical.py",
            "tb/tactical_cases.py", "tb/tactical_formal.py"} <= own["tactical"]
    assert {"tb/diffy_tests.py", "tb/diffy_formal.py"} <= own["diffy"]
    assert "tb/bf16_tests.py" in own["baseline"]
    shared = {"tb/tile_tests.py", "rtl/tile.py", "rtl/array.py", "tb/formal/harness.py",
              "golden/arch/__init__.py", "gen/designs/common.py"}
    assert not shared & set().union(*own.values())


#: The most lines a module of gen/, synth/ or tb/ and a function anywhere may have (issue
#: 40: a module is one concept, a function one step); declarative tables excepted (none so
#: far).
MODULE_LINES, FUNCTION_LINES = 500, 100
SIZED_FOLDERS = ("gen/", "synth/", "tb/")


def test_modules_and_functions_are_small():
    bad = []
    for name, path in MODULES.items():
        rel = str(path.relative_to(ROOT))
        text = path.read_text(encoding="utf-8")
        if rel.startswith(SIZED_FOLDERS) and len(text.splitlines()) > MODULE_LINES:
            bad.append(f"{rel}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > FUNCTION_LINES:
                    bad.append(f"{rel}:{node.lineno}: {node.name} is {lines} lines")
    assert not bad, "\n".join(bad)


def test_every_package_is_installed():
    """pyproject.toml lists its packages by hand: a new package missing there would be left
    out of a built wheel while the editable install still finds it."""
    import tomllib
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {name for name, path in MODULES.items() if path.name == "__init__.py"}
    assert found - listed == set(), f"packages missing from pyproject.toml: {found - listed}"
