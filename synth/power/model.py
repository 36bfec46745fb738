"""The gate-level model: a synthesised netlist compiled by Verilator with behavioural models
of its liberty cells (:func:`.cell_models.verilog_models`), SAIF tracing on, and a C++ harness
(the tile's: :func:`.stimulus.tile_run_harness_cpp`).

The model of a netlist takes minutes to compile (a 4x4 tile: ~4 min on 2 cores), so it is
kept in the power cache (:func:`.cache.power_cache_dir`) under a key of the synthesis
entry, the netlist, the cell models, the harness and the build flags
(:data:`.keys.MODEL_BUILD_FLAGS`); a run of other cycles or another seed or clock reuses
it. A failed build's folder is kept (``failed.build-*``) for its log.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time

from ...gen.errors import ToolError
from ...gen.progress import Bar
from .keys import MODEL_BUILD_FLAGS, sha256_hex

__all__ = ["cells_used", "build_model", "run_model", "verilator_runner"]

#: A cell instance in a yosys netlist: "<cell> <instance> (" at the start of a line.
_INSTANCE = re.compile(r"^\s*(\S+)\s+\S+\s*\(", re.M)


def cells_used(netlist_text: str, lib) -> list[str]:
    """The liberty cells ``netlist_text`` instantiates, sorted."""
    return sorted({c for c in _INSTANCE.findall(netlist_text) if c in lib.cells})


def build_model(netlist_text: str, top: str, lib, harness: str, synth_key: str,
                cache_dir: str, extra_models: str = "") -> tuple[str, dict]:
    """The Verilated model of a netlist, built once and cached.

    Parameters
    ----------
    netlist_text : str
        The gate-level netlist (yosys ``write_verilog``).
    top : str
        Its top module; the model's C++ class is ``Vdut`` (``--prefix``).
    lib : Library
        The liberty (:func:`.cells.read_library`) whose cells the netlist instantiates.
    harness : str
        The C++ main driving ``Vdut``.
    synth_key : str
        The synthesis entry the netlist comes from (a name in the model's key).
    extra_models : str
        Verilog of the netlist's black boxes (the SRAM macros' behavioural models).
    cache_dir : str
        The power cache.

    Returns
    -------
    exe : str
        The executable (``<cache_dir>/<key>/sim``).
    facts : dict
        ``key``, ``hit`` (found in the cache) and ``build_s``.

    Raises
    ------
    ToolError
        Verilator or the C++ build failed (the build's folder is kept, the error names
        its log there).
    """
    from .cell_models import verilog_models
    # the cells' models, and the black boxes' own (the SRAM macros', :mod:`.macro_power`)
    models = verilog_models(lib, cells_used(netlist_text, lib)) + extra_models
    key = sha256_hex(json.dumps([synth_key, sha256_hex(netlist_text), sha256_hex(models),
                                 sha256_hex(harness), MODEL_BUILD_FLAGS]))[:24]
    final = os.path.join(cache_dir, key)
    exe = os.path.join(final, "sim")
    if os.path.isfile(exe):
        return exe, {"key": key, "hit": True, "build_s": 0.0}
    os.makedirs(cache_dir, exist_ok=True)
    wd = tempfile.mkdtemp(prefix=".build-", dir=cache_dir)
    try:
        build_s = _build(wd, netlist_text, top, models, harness)
        if os.path.isdir(final):        # a concurrent build got there first
            shutil.rmtree(wd, ignore_errors=True)
        else:
            os.replace(wd, final)
    except ToolError as err:          # keep the failed build's log for the reader
        kept = os.path.join(cache_dir, "failed" + os.path.basename(wd))
        shutil.rmtree(os.path.join(wd, "obj_dir"), ignore_errors=True)
        os.replace(wd, kept)
        raise err.moved(wd, kept) from None
    except BaseException:
        shutil.rmtree(wd, ignore_errors=True)
        raise
    return exe, {"key": key, "hit": False, "build_s": round(build_s, 1)}


def _build(wd: str, netlist_text: str, top: str, models: str, harness: str) -> float:
    """Verilate and compile in ``wd``, leaving only ``wd/sim`` and the logs (the object
    files and the netlist copy are tens to hundreds of MB); returns the seconds taken."""
    from .gatesim import split_long_lines, verilator_build
    for name, text in (("cells.v", models), ("netlist.v", split_long_lines(netlist_text)),
                       ("main.cpp", harness)):
        with open(os.path.join(wd, name), "w", encoding="utf-8") as f:
            f.write(text)
    t0 = time.monotonic()
    built = verilator_build(wd, [os.path.join(wd, n) for n in
                                 ("cells.v", "netlist.v", "main.cpp")],
                            top, saif=True, extra=["--prefix", "Vdut", *MODEL_BUILD_FLAGS])
    build_s = time.monotonic() - t0
    shutil.move(built, os.path.join(wd, "sim"))
    shutil.rmtree(os.path.join(wd, "obj_dir"), ignore_errors=True)
    os.remove(os.path.join(wd, "netlist.v"))
    return build_s


def run_model(exe: str, run_dir: str, cycles: int, seed: int,
              stimulus: str | None = None, idle: bool = False) -> dict:
    """Run a gate-level model in ``run_dir``: it writes ``dump.saif`` there.

    Parameters
    ----------
    exe : str
        The model (:func:`.model.build_model`).
    run_dir : str
        The run's folder.
    cycles, seed : int
        Cycles to simulate (a bound with a stimulus file) and the random operands' seed.
    stimulus : str or None
        A stimulus file in ``run_dir`` (:func:`.stimulus.write_stimulus`), else None.
    idle : bool
        The harness's ``idle`` mode: after reset, the clock alone.

    Returns
    -------
    dict
        The counts of the harness's last output line (JSON): ``cycles``,
        ``runs_completed``, ``timeouts``, ``busy_cycles``, ... .

    Raises
    ------
    ToolError
        The model failed (its output in ``run_dir/model.log``).
    """
    argv = [exe, str(cycles), str(seed), "dump.saif"]
    if stimulus is not None or idle:
        argv.append(stimulus or "-")
    if idle:
        argv.append("idle")
    out = subprocess.run(argv, cwd=run_dir, capture_output=True, text=True, timeout=7200)
    if out.returncode != 0:
        with open(os.path.join(run_dir, "model.log"), "w", encoding="utf-8") as f:
            f.write(out.stdout + out.stderr)
        raise ToolError("the gate-level model", out.returncode,
                        os.path.join(run_dir, "model.log"))
    return json.loads(out.stdout.strip().splitlines()[-1])


def verilator_runner(exe: str):
    """The runs of a Verilated model: ``runner(run_dir, cycles, seed, stimulus, idle)`` ->
    ``(stats, saif)`` (:func:`run_model`, its SAIF read); the levelised simulation's are
    :class:`.levelsim_run.LevelSimRunner`'s."""
    def runner(run_dir, cycles, seed, stimulus=None, idle=False):
        from .saif import read_saif
        with Bar(1, f"power: the Verilated model, up to {cycles} cycles", "run"):
            stats = run_model(exe, run_dir, cycles, seed, stimulus, idle)
        return stats, read_saif(os.path.join(run_dir, "dump.saif"))
    return runner
