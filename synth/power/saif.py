"""A reader of SAIF (Switching Activity Interchange Format) backward files.

Read: the header's ``TIMESCALE`` (``1ps`` or ``1 ps``), ``DURATION`` and ``DIVIDER``, and
for every ``NET`` (and ``PORT``) entry of every nested ``INSTANCE`` its ``T0``, ``T1``,
``TX``, ``TZ``, ``TB``, ``TC`` and ``IG`` counts (absent ones are 0), keyed by the
hierarchical name (instance names joined with ``/``, whatever the file's divider; escaped
characters such as ``a\\[0\\]`` unescaped to ``a[0]``). This is the form Verilator
``--trace-saif`` writes (one ``TOP`` instance around the design's top, every vector bit as
its own net, times in the simulation's timescale, default 1 ps).

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


@dataclass
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
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse_saif(f.read())
