"""Invariants of a refactor, recorded before and checked after.

    python -m termwise.tb.invariants record -o FILE.json [--skip-large]
    python -m termwise.tb.invariants check FILE.json [--skip-large]

Records, per preset: the sha256 of the emitted Verilog, the manifest without the tool
versions (configuration, derived values, command layout, ports), and the area kind of every
module the Verilog defines (:func:`termwise.synth.kinds.kind_of`). ``check`` recomputes the
same and prints every difference (exit 1 when there is one). ``--skip-large`` leaves out the
presets whose emission takes minutes (1024-PE tiles).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor

__all__ = ["record", "compare"]

#: Presets whose Verilog takes minutes to emit today.
LARGE = ("loom-16x16", "laconic-16x16")


def _one(name: str) -> dict:
    from ..gen.config import preset
    from ..gen.emit import manifest, render
    from ..synth.kinds import kind_of
    cfg = preset(name)
    t0 = time.perf_counter()
    text, tile = render(cfg)
    man = manifest(cfg, text, tile)
    man.pop("tools")
    modules = re.findall(r"^module\s+\\?(\S+?)\s*\(", text, flags=re.M)
    kinds = {m: kind_of(m, cfg.top_name) for m in modules}
    return {"sha256": hashlib.sha256(text.encode()).hexdigest(), "manifest": man,
            "kinds": kinds, "seconds": round(time.perf_counter() - t0, 1)}


def record(names, workers: int = 2) -> dict:
    with ProcessPoolExecutor(workers) as pool:
        return dict(zip(names, pool.map(_one, names)))


def compare(before: dict, after: dict) -> list[str]:
    diffs = []
    for name in sorted(set(before) | set(after)):
        if name not in after or name not in before:
            diffs.append(f"{name}: only {'before' if name in before else 'after'}")
            continue
        b, a = before[name], after[name]
        for key in ("sha256", "manifest", "kinds"):
            if b[key] != a[key]:
                diffs.append(f"{name}: {key} differs")
    return diffs


def main(argv=None) -> int:
    from ..gen.config import load_presets
    p = argparse.ArgumentParser(prog="python -m termwise.tb.invariants")
    p.add_argument("action", choices=("record", "check"))
    p.add_argument("file")
    p.add_argument("--skip-large", action="store_true")
    args = p.parse_args(argv)
    names = [n for n in load_presets() if not (args.skip_large and n in LARGE)]
    now = record(names)
    if args.action == "record":
        with open(args.file, "w", encoding="utf-8") as f:
            json.dump(now, f, indent=1, sort_keys=True)
        for n, r in now.items():
            print(f"{n:28s} {r['sha256'][:16]} {r['seconds']:6.1f} s")
        return 0
    with open(args.file, encoding="utf-8") as f:
        before = json.load(f)
    before = {n: r for n, r in before.items() if n in now}
    diffs = compare(before, {n: r for n, r in now.items() if n in before})
    for n, r in now.items():
        state = "new" if n not in before else \
            "same" if before[n]["sha256"] == r["sha256"] else "CHANGED"
        print(f"{n:28s} {r['sha256'][:16]} {state}")
    for d in diffs:
        print(d)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
