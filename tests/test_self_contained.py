"""The repository stands on its own: no file cites reference notes that live outside it.

Facts the code relies on (paper figures, cycle semantics, encodings, tool pitfalls) are
written in the repository's own ``docs/`` and cited from there. This test fails when any
tracked file names the external reference folder or its notes other than as ``docs/``
paths, when a cited ``docs/<page>.md`` does not exist, or when a cited ``#anchor`` is not
a heading of that page.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Built from pieces so that this file does not match its own patterns.
_EXTERNAL_FOLDER = re.compile(re.escape("shared" + "/" + "reference"))
_NOTE_NAMES = ("family", "toolchain")
# A note name with the path characters in front of it (``docs/``, ``../x/``, or nothing).
_NOTE = re.compile(r"([\w./-]*?)\b(" + "|".join(_NOTE_NAMES) + r")\.md\b")
# A citation of one of the repository's docs pages, with an optional anchor.
_DOCS_CITE = re.compile(r"(?<![\w/.-])docs/([\w.-]+?\.md)(?:#([\w-]+))?")


def tracked_files() -> list[Path]:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                         check=False)
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    names = [n for n in out.stdout.decode("utf-8", "replace").split("\0") if n]
    return [ROOT / n for n in names if (ROOT / n).is_file()]


def _text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "ignore")


def external_citations(text: str) -> list[str]:
    """Every place in ``text`` that points at the external reference notes."""
    found = [m.group(0) for m in _EXTERNAL_FOLDER.finditer(text)]
    for m in _NOTE.finditer(text):
        prefix = m.group(1)
        if prefix not in ("docs/", "./docs/"):
            found.append(m.group(0))
    return found


def slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if fenced or not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def test_patterns_catch_external_citations():
    name = "family" + ".md"
    assert external_citations("see " + "shared" + "/reference/" + name)
    assert external_citations(f"(semantics: {name}, Loom)")
    assert external_citations("../notes/toolchain" + ".md")
    assert not external_citations("(docs/toolchain.md#abc-script) and docs/papers.md")
    assert slug("Ideal (potential) work") == "ideal-potential-work"
    assert slug("No set_input_delay") == "no-set_input_delay"
    assert anchors("# A\n## B c\n```\n# not a heading\n```\n## B c\n") == {"a", "b-c",
                                                                          "b-c-1"}


def test_no_file_cites_outside_the_repository():
    bad = []
    for path in tracked_files():
        for hit in external_citations(_text(path)):
            bad.append(f"{path.relative_to(ROOT)}: {hit}")
    assert not bad, "cite the repository's own docs/ instead:\n" + "\n".join(bad)


def test_cited_docs_and_anchors_exist():
    missing = []
    pages: dict[str, set[str] | None] = {}
    for path in tracked_files():
        for m in _DOCS_CITE.finditer(_text(path)):
            page, anchor = m.group(1), m.group(2)
            if page not in pages:
                doc = ROOT / "docs" / page
                pages[page] = anchors(doc.read_text(encoding="utf-8")) if doc.is_file() else None
            where = f"{path.relative_to(ROOT)}: {m.group(0)}"
            if pages[page] is None:
                missing.append(f"{where} (no such page)")
            elif anchor and anchor not in pages[page]:
                missing.append(f"{where} (no heading with that anchor)")
    assert not missing, "\n".join(missing)
