"""Compile and characterise one single-port SRAM macro with OpenRAM (standalone script).

Runs under ``.venv-openram/bin/python`` (OpenRAM 1.2.48 needs ``numpy<2``), never under
the project's venv, and imports nothing of termwise::

    .venv-openram/bin/python synth/sram/compile_macro.py --words 16 --width 32 -o DIR

writes OpenRAM's output folder ``DIR`` (``<name>.lib``, ``.lef``, ``.v``, ``.sp``, ``.gds``,
``.html``, ``.log``) and ``DIR/run.json`` (the options used, the tool versions, the CPU
seconds of this process and its children: ngspice runs as a child).

Options and why (docs/sram.md, "How the macros are made"):

- ``analytical_delay = False``, ``spice_name = "ngspice"``: the figures come from SPICE
  (OpenRAM's analytical model is a crude Elmore estimate: 21.9 pJ
  per 64-bit access for 64 x 64, docs/sram.md).
- ``nominal_corner_only = True``: TT, 5.0 V, 25 C (scn4m_subm's tech.py nominal).
- ``load_scales = [1]``, ``slew_scales = [1]``: one load (1 x ``dff_in_cap`` = 9.8242 fF)
  and one input slew (1 x ``rise_time`` = 0.05 ns), so every table is 1 x 1 and the
  delay characterisation is one load/slew simulation instead of OpenRAM's default 3 x 3
  (``globals.py``: scales [0.25, 1, 4] and [0.25, 1, 8]). ``use_specified_load_slew``
  would do the same but OpenRAM warns it "will make load slew, data in lib file
  inaccurate" (characterizer/lib.py), so the scales are used instead.
- ``check_lvsdrc = False``, ``route_supplies = False``: no magic/netgen (not installed);
  the macro's outline and area come from the layout without the supply ring.
- ``num_sim_threads = 1``: the machine has 2 cores and one SPICE process at a time.
- ``use_conda = False``: ngspice from PATH (OpenRAM still sources a conda ``activate``;
  synth/sram/openram_env.sh writes a stub).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import subprocess
import sys
import time

#: OpenRAM's offline technology characterised (SCMOS SCN4M_SUBM, lambda 0.20 um, 5 V).
TECH = "scn4m_subm"
#: The first period (ns) OpenRAM tries before its binary search for the minimum period
#: (tech.py's ``spice["feasible_period"]`` is 10 ns): measured, the 16 x 32 macro fails at
#: 10 ns and OpenRAM doubles to 20 ns, so starting there saves one simulation per shape
#: (a shape that fails at 20 ns is doubled again by OpenRAM).
FEASIBLE_PERIOD_NS = 20.0


def config_text(words: int, width: int, outdir: str, name: str) -> tuple[str, dict]:
    """The OpenRAM configuration file for one 1RW macro (Python syntax), and its options."""
    opts = {
        "word_size": width, "num_words": words, "num_rw_ports": 1, "num_r_ports": 0,
        "num_w_ports": 0, "tech_name": TECH, "nominal_corner_only": True,
        "analytical_delay": False, "spice_name": "ngspice", "num_sim_threads": 1,
        "load_scales": [1], "slew_scales": [1], "check_lvsdrc": False,
        "inline_lvsdrc": False, "route_supplies": False, "use_conda": False,
        "output_path": outdir, "output_name": name, "print_banner": False,
    }
    return "".join(f"{k} = {v!r}\n" for k, v in opts.items()), opts


def ngspice_version() -> str:
    """The first version line of ``ngspice -v`` (empty when it cannot run)."""
    try:
        out = subprocess.run(["ngspice", "-v"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    lines = [ln.strip() for ln in (out.stdout + out.stderr).splitlines() if "ngspice" in ln]
    return lines[0] if lines else ""


def cpu_seconds() -> float:
    """User + system CPU of this process and its waited-for children (ngspice)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def compile_macro(words: int, width: int, outdir: str, name: str) -> dict:
    """Run OpenRAM on one shape; return the provenance written to ``run.json``."""
    outdir = os.path.abspath(outdir) + "/"
    os.makedirs(outdir, exist_ok=True)
    text, opts = config_text(words, width, outdir, name)
    cfg = os.path.join(outdir, f"{name}_config.py")
    with open(cfg, "w") as f:
        f.write(text)
    # OpenRAM's temp folder per run, so a failed run's SPICE decks stay for reading.
    os.environ.setdefault("OPENRAM_TMP", os.path.join(outdir, "openram_tmp"))
    start, wall = cpu_seconds(), time.time()
    import openram  # noqa: E402 (only after the config exists; OpenRAM parses argv)
    sys.argv = [sys.argv[0]]
    openram.init_openram(config_file=cfg, is_unit_test=False)
    from openram import sram, tech  # noqa: E402
    tech.spice["feasible_period"] = FEASIBLE_PERIOD_NS
    sram(name=name, sram_config=openram.sram_config(width, words)).save()
    import importlib.metadata as md
    return {
        "words": words, "width": width, "name": name, "tech": TECH,
        "openram_version": md.version("openram"), "numpy_version": md.version("numpy"),
        "ngspice_version": ngspice_version(), "python": sys.version.split()[0],
        "options": opts | {"output_path": "<outdir>",
                           "feasible_period_ns": FEASIBLE_PERIOD_NS},
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cpu_seconds": round(cpu_seconds() - start, 1),
        "wall_seconds": round(time.time() - wall, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", type=int, required=True)
    ap.add_argument("--width", type=int, required=True)
    ap.add_argument("-o", "--outdir", required=True)
    ap.add_argument("--name", default=None, help="macro name (default sram_<words>x<width>)")
    args = ap.parse_args(argv)
    name = args.name or f"sram_{args.words}x{args.width}"
    run = compile_macro(args.words, args.width, args.outdir, name)
    with open(os.path.join(args.outdir, "run.json.tmp"), "w") as f:
        json.dump(run, f, indent=1, sort_keys=True)
    os.replace(os.path.join(args.outdir, "run.json.tmp"), os.path.join(args.outdir, "run.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
