"""A reader of SAIF (Switching Activity Interchange Format) backward files.

Read: the header's ``TIMESCALE`` (``1ps`` or ``1 ps``), ``DURATION`` and ``DIVIDER``, and
for every ``NET`` (and ``PORT``) entry of every nested ``INSTANCE`` its ``T0``, ``T1``,
``TX``, ``TZ``, ``TB``, ``TC`` and ``IG`` counts (absent ones are 0), keyed by the
hierarchical name (instance names joined with ``/``, whatever the file's divider; escaped
characters such as ``a\\[0\\]`` unescaped to ``a[0]``). This is the form Verilator
``--trace-saif`` writes (one ``TOP`` instance around the design's top, every vector bit as
its own net, times in the simulation's timescale, default 1 ps).

:func:`read_saif` reads a file line by line when it has Verilator's layout (one entry or
bracket per line), keeping only the counts: a 16x16 tile's mixed model writes a SAIF of
millions of nets, whose text, tokens and parse tree took GBs; any other layout is parsed
whole by :func:`parse_saif`, with the same result.

Not read: ``VIRTUAL_INSTANCE``, state-dependent (``COND``/``IOPATH``) sections,
``INSTANCE`` library cell types beyond ignoring them, and forward SAIF (library files).
``TC`` counts 0-1 and 1-0 transitions; transitions through X or Z (counted by ``IG``, and
by ``TC`` in some writers) are taken as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["NetActivity", "Saif", "parse_saif", "read_saif"]

_TOK = re.compile(r'"[^"]*"|[()]|(?:\\.|[^\s()\\"])+')
_UNESC = re.compile(r"\\(.)")
_SCALE = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12, "fs": 1e-15}


@dataclass(slots=True)
class NetActivity:
    """Counts of one net over the SAIF's duration (times in the SAIF's timescale)."""
    t0: int = 0
    t1: int = 0
    tx: int = 0
    tz: int = 0
    tb: int = 0
    tc: int = 0
    ig: int = 0


@dataclass
class Saif:
    duration: int                 # in timescale units
    timescale_s: float            # one timescale unit in seconds
    divider: str
    nets: dict[str, NetActivity]  # hierarchical name -> counts

    @property
    def duration_s(self) -> float:
        return self.duration * self.timescale_s

    def toggle_rate(self, name: str) -> float:
        """Transitions per second of net ``name``."""
        return self.nets[name].tc / self.duration_s

    def duty(self, name: str) -> float:
        """Fraction of the duration the net was 1."""
        return self.nets[name].t1 / self.duration if self.duration else 0.0

    def rates(self, prefix: str = "") -> dict[str, float]:
        """Transitions per second of every net under ``prefix`` (a hierarchical path such
        as ``"TOP/top"``), keyed by the name relative to it."""
        p = prefix.rstrip("/") + "/" if prefix else ""
        d = self.duration_s
        return {n[len(p):]: a.tc / d for n, a in self.nets.items() if n.startswith(p)}


def _tree(tokens: list[str]):
    stack: list[list] = [[]]
    for t in tokens:
        if t == "(":
            stack.append([])
        elif t == ")":
            if len(stack) == 1:
                raise ValueError("unbalanced parentheses in SAIF")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(t)
    if len(stack) != 1:
        raise ValueError("unbalanced parentheses in SAIF")
    return stack[0]


def _atom(t: str) -> str:
    if len(t) >= 2 and t[0] == t[-1] == '"':
        return t[1:-1]
    return _UNESC.sub(r"\1", t)


def _timescale(items: list[str]) -> float:
    text = "".join(items).strip()
    m = re.fullmatch(r"([\d.]+)?\s*([a-z]+)", text.lower())
    if not m or m.group(2) not in _SCALE:
        raise ValueError(f"bad SAIF TIMESCALE {text!r}")
    return float(m.group(1) or 1) * _SCALE[m.group(2)]


def parse_saif(text: str) -> Saif:
    text = re.sub(r"(?m)^\s*//.*$", "", text)          # comment lines (Verilator's header)
    root = _tree(_TOK.findall(text))
    files = [x for x in root if isinstance(x, list) and x and x[0] == "SAIFILE"]
    if not files:
        raise ValueError("no SAIFILE in text")
    body = files[0]
    duration, scale, divider = None, 1e-12, "/"
    nets: dict[str, NetActivity] = {}

    def walk_instance(node: list, path: list[str]) -> None:
        # (INSTANCE [cell_type] name (NET ...) (PORT ...) (INSTANCE ...))
        atoms = [_atom(x) for x in node[1:] if not isinstance(x, list)]
        name = atoms[-1] if atoms else ""
        here = path + [name]
        for sub in node[1:]:
            if not isinstance(sub, list) or not sub:
                continue
            if sub[0] in ("NET", "PORT"):
                for entry in sub[1:]:
                    if not isinstance(entry, list) or not entry:
                        continue
                    act = NetActivity()
                    for kv in entry[1:]:
                        if isinstance(kv, list) and len(kv) >= 2 and not isinstance(kv[1], list):
                            key = kv[0].lower()
                            if hasattr(act, key):
                                setattr(act, key, int(float(kv[1])))
                    nets["/".join(here + [_atom(entry[0])])] = act
            elif sub[0] == "INSTANCE":
                walk_instance(sub, here)

    for item in body[1:]:
        if not isinstance(item, list) or not item:
            continue
        key = item[0]
        if key == "DURATION":
            duration = int(float(item[1]))
        elif key == "TIMESCALE":
            scale = _timescale([x for x in item[1:] if not isinstance(x, list)])
        elif key == "DIVIDER":
            divider = item[1] if len(item) > 1 else "/"
        elif key == "INSTANCE":
            walk_instance(item, [])
    if duration is None:
        raise ValueError("SAIF without DURATION")
    return Saif(duration=duration, timescale_s=scale, divider=divider, nets=nets)


def read_saif(path: str) -> Saif:
    """The SAIF file at ``path``: read line by line in Verilator's layout
    (:func:`_read_lines`), else parsed whole (:func:`parse_saif`)."""
    try:
        return _read_lines(path)
    except _NotLineForm:
        with open(path, encoding="utf-8", errors="replace") as f:
            return parse_saif(f.read())


class _NotLineForm(Exception):
    """A line :func:`_read_lines` does not know: the file is parsed whole instead."""


#: One net on a line: ``(name (T0 n) (T1 n) ...)``; its counts.
_NET_LINE = re.compile(r"\(((?:\\.|[^\s()\\\"])+)\s+((?:\(\w+\s+[\d.]+\)\s*)+)\)$")
_COUNT = re.compile(r"\((\w+)\s+([\d.]+)\)")
#: A one-line header entry: ``(KEY value)``.
_HEADER_LINE = re.compile(r"\((SAIFVERSION|DIRECTION|PROGRAM_NAME|DIVIDER|TIMESCALE|DURATION|"
                          r"DESIGN|DATE|VENDOR|VERSION)\b\s*([^()]*)\)$")


def _read_lines(path: str) -> Saif:
    """A SAIF in Verilator's layout, line by line; :class:`_NotLineForm` at a line it does
    not know (the caller parses the file whole)."""
    duration, scale, divider = None, 1e-12, "/"
    nets: dict[str, NetActivity] = {}
    stack: list[str | None] = []      # instance names; None for SAIFILE, NET and PORT
    prefix = ""                       # the instance names on the stack, each with "/"
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.strip()
            if not line or line.startswith("//"):
                continue
            if line == ")":
                if not stack:
                    raise _NotLineForm(line)
                if stack.pop() is not None:
                    prefix = "".join(x + "/" for x in stack if x is not None)
            elif line in ("(SAIFILE", "(NET", "(PORT"):
                stack.append(None)
            elif line.startswith("(INSTANCE ") and "(" not in line[1:] and ")" not in line:
                stack.append(_atom(line.split()[-1]))
                prefix += stack[-1] + "/"
            elif stack and stack[-1] is None and len(stack) > 1 and _NET_LINE.match(line):
                m = _NET_LINE.match(line)
                act = NetActivity()
                for key, value in _COUNT.findall(m.group(2)):
                    key = key.lower()
                    if key in NetActivity.__slots__:
                        setattr(act, key, int(float(value)))
                nets[prefix + _atom(m.group(1))] = act
            elif (m := _HEADER_LINE.match(line)) and len(stack) == 1:
                key, value = m.group(1), m.group(2).strip()
                if key == "DURATION":
                    duration = int(float(value))
                elif key == "TIMESCALE":
                    scale = _timescale([value])
                elif key == "DIVIDER":
                    divider = value or "/"
            else:
                raise _NotLineForm(line)
    if stack:
        raise _NotLineForm("unbalanced")
    if duration is None:
        raise ValueError("SAIF without DURATION")
    return Saif(duration=duration, timescale_s=scale, divider=divider, nets=nets)
