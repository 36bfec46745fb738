"""``make bench``'s flow half: how long each tile's synthesis and gate-level power take on
this machine, and their peak memory, measured from cold caches (never asserted).

For each preset: ``termwise synth`` then ``termwise power --workload`` (the flow
``termwise report`` runs per design: a 16x16 tile by the part its table uses, a smaller one
whole), each a fresh process on
an empty cache folder of its own, so the synthesis, the gate-level model's build and the
simulation are all in the figures. The peak memory is the process's and its children's
(Verilator, OpenSTA; yosys runs inside it as WebAssembly): ``os.wait4``'s ``ru_maxrss``.
Prints a table and writes ``build/bench_flow.json`` (``bench_flow_hierarchical.json``,
``bench_flow_levelsim.json``).

``python -m termwise.synth.bench [PRESET ...] [--buffers macros] [--clock-gating]
[--hierarchical] [--simulator levelsim] [--workload W] [--cycles N]``; default
baseline-4x4 and stripes-4x4 with SRAM macros and clock gating (minutes); the 16x16 tiles
take 2-10 minutes each to synthesise and 10 or more to measure (synth/README.md). ``make
bench`` runs the default tiles by both synthesis flows, flat and hierarchical, and their
power on both simulators (``--simulator levelsim``: every tile whole, no model build).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["measure_process", "bench_tile", "main"]

DEFAULT_PRESETS = ["baseline-4x4", "stripes-4x4"]


#: Runs argv[2:] and writes its ``ru_maxrss`` to argv[1]. A small process of its own: a
#: child forked from a big one (a pytest worker, a notebook) counts the parent's resident
#: pages until its exec, so measured from the caller it would report the caller's size.
_LAUNCHER = ("import os, subprocess, sys\n"
             "p = subprocess.Popen(sys.argv[2:])\n"
             "_, status, usage = os.wait4(p.pid, 0)\n"
             "open(sys.argv[1], 'w').write(str(usage.ru_maxrss))\n"
             "sys.exit(os.waitstatus_to_exitcode(status))\n")


def measure_process(argv: list[str], *, cwd: str | None = None,
                    log: str | None = None) -> dict:
    """Run ``argv`` to its end: ``{"wall_s", "peak_rss_mb", "returncode"}``, the peak
    resident memory of the process and of the children it waited for (``ru_maxrss`` of
    ``os.wait4``, from a small launcher process)."""
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-rss-") as tmp:
        rss_file = os.path.join(tmp, "maxrss")
        with open(log or os.devnull, "w", encoding="utf-8") as out:
            proc = subprocess.run([sys.executable, "-c", _LAUNCHER, rss_file, *argv],
                                  cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        with open(rss_file, encoding="utf-8") as f:
            maxrss_kb = int(f.read())
    return {"wall_s": round(time.monotonic() - t0, 1),
            "peak_rss_mb": round(maxrss_kb / 1024, 1),    # Linux: kilobytes
            "returncode": proc.returncode}


def _termwise() -> list[str]:
    return [sys.executable, "-m", "termwise.gen.cli"]


def bench_tile(name: str, options: list[str], workload: str, cycles: int,
               workdir: str, simulator: str = "verilator") -> dict:
    """Cold synthesis and power of preset ``name`` with ``options`` in ``workdir``, the
    power on ``simulator``."""
    from ..gen.config import preset
    from .power.part import table_part
    cfg = preset(name)
    # termwise report's part for its 16x16 tiles; a small tile whole, as the 4x4 tables
    part = table_part(cfg) if "16x16" in name and simulator == "verilator" else "whole"
    cache = os.path.join(workdir, "synth-cache")
    synth = measure_process(_termwise() + ["synth", "--preset", name, *options,
                                           "--cache-dir", cache, "-o",
                                           os.path.join(workdir, "synth")],
                            log=os.path.join(workdir, "synth.log"))
    power = measure_process(_termwise() + ["power", "--preset", name, *options,
                                           "--workload", workload, "--cycles", str(cycles),
                                           "--part", part, "--simulator", simulator,
                                           "--cache-dir", cache,
                                           "-o", os.path.join(workdir, "power")],
                            log=os.path.join(workdir, "power.log"))
    report = os.path.join(workdir, "power", "power_report.json")
    stages = {}
    if os.path.exists(report):
        stages = json.loads(Path(report).read_text())["wall_s"]
    return {"preset": name, "options": options, "simulator": simulator, "part": part,
            "synthesis": synth, "power": power,
            "power_stages_s": stages}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m termwise.synth.bench",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("presets", nargs="*", default=DEFAULT_PRESETS)
    p.add_argument("--buffers", default="macros")
    p.add_argument("--clock-gating", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--workload", default="efficientnet-lite0")
    p.add_argument("--cycles", type=int, default=5000)
    p.add_argument("--hierarchical", action="store_true",
                   help="the hierarchical synthesis flow (synth/README.md)")
    p.add_argument("--simulator", default="verilator", choices=("verilator", "levelsim"),
                   help="the power runs' gate-level simulation (docs/energy.md)")
    args = p.parse_args(argv)
    options = ["--buffers", args.buffers] + (["--clock-gating"] if args.clock_gating else []) \
        + (["--hierarchical"] if args.hierarchical else [])
    rows = []
    print(f"{'preset':16s} {'synth s':>8s} {'GB':>5s} | {'power s':>8s} {'GB':>5s} "
          f"{'workload s':>10s} {'model build s':>14s} {'simulation s':>13s} "
          f"{'phases s':>9s}")
    for name in args.presets:
        workdir = tempfile.mkdtemp(prefix=f"bench-flow-{name}-")
        try:
            row = bench_tile(name, options, args.workload, args.cycles, workdir,
                             args.simulator)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        rows.append(row)
        s, w, st = row["synthesis"], row["power"], row["power_stages_s"]
        failed = [k for k in ("synthesis", "power") if row[k]["returncode"] != 0]
        print(f"{name:16s} {s['wall_s']:8.1f} {s['peak_rss_mb'] / 1024:5.1f} | "
              f"{w['wall_s']:8.1f} {w['peak_rss_mb'] / 1024:5.1f} "
              f"{st.get('workload', float('nan')):10.1f} "
              f"{st.get('model_build', float('nan')):14.1f} "
              f"{st.get('simulation_and_power', float('nan')):13.1f} "
              f"{st.get('phases', float('nan')):9.1f}"
              + (f"  FAILED: {', '.join(failed)}" if failed else ""), flush=True)
    out = Path("build") / ("bench_flow" + ("_hierarchical" if args.hierarchical else "")
                           + ("_levelsim" if args.simulator == "levelsim" else "") + ".json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rows, indent=2) + "\n")
    print(f"options {' '.join(options)}, power on {args.simulator}, workload "
          f"{args.workload}, {args.cycles} power "
          f"cycles; cold caches; GB: peak resident memory of the command and its tools; "
          f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
