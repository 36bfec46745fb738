"""Build a generated tile with Verilator and run its cocotb regression, from pytest or the CLI.

Measured on this toolchain (docs/toolchain.md#lean-cocotb-runner): cocotb's Verilator runner always
adds ``--public-flat-rw``, which on Amaranth output multiplies build time by 3-5 and slows
simulation 4x. :class:`LeanVerilator` drops it and marks only the top-level ports public
through a Verilator control file. Builds are cached by a hash of the Verilog, the control
file, the flags and the Verilator version, under ``build/sim/``; concurrent pytest workers
wait on a file lock instead of building the same model twice.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import time
import xml.etree.ElementTree as ET
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..gen.config import TileConfig
from ..gen.errors import ToolError
from ..synth.verilator import apply_verilator_env, verilator_root

__all__ = ["BUILD_ROOT", "generated", "build", "run_regression", "RegressionResult",
           "LINT_WAIVERS", "control_file", "operand_memories", "OPERAND_BUFFERS"]

BUILD_ROOT = Path(os.environ.get("TERMWISE_BUILD", "build")).resolve()

#: Verilator warnings waived on Amaranth's output, by name, with the reason.
LINT_WAIVERS = {
    "DECLFILENAME": "one file holds the tile and its PE modules; names follow the config",
    "PROCASSINIT": "Amaranth gives registers an initial value and also assigns them in processes",
    "UNUSEDSIGNAL": "Amaranth keeps named views of unused fields (e.g. act[0] of a port)",
    "WIDTHEXPAND": "Amaranth widens operands implicitly, as its semantics define",
    "WIDTHTRUNC": "Amaranth truncates results implicitly, as its semantics define",
    "CASEINCOMPLETE": "Amaranth FSMs decode only reachable state codes (no default arm)",
}

#: Flags for every simulation build.
BUILD_FLAGS = ("-O3", "--x-assign", "fast", "--x-initial", "fast", "-Wno-fatal")


def _fingerprint_sources() -> str:
    """Hash of the generator's own sources: a cached Verilog is stale when they change."""
    h = hashlib.sha256()
    pkg = Path(__file__).resolve().parent.parent
    # The generator proper: the RTL, the configuration and the design specs (which derive
    # RTL values); not the commands and reports, whose edits leave the Verilog alone.
    for pattern in ("rtl/*.py", "gen/*.py", "gen/designs/*.py"):
        for path in sorted(pkg.glob(pattern)):
            h.update(str(path.relative_to(pkg)).encode())
            h.update(path.read_bytes())
    from importlib import metadata
    h.update(metadata.version("amaranth").encode())
    return h.hexdigest()[:16]


@contextmanager
def _locked(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@dataclass
class Generated:
    cfg: TileConfig
    directory: Path
    verilog: Path
    manifest: dict
    seconds: float          # emission time (0 when cached)


def generated(cfg: TileConfig) -> Generated:
    """The tile's Verilog and manifest, emitted once per configuration and generator version."""
    from ..gen.emit import emit
    key = hashlib.sha256(json.dumps(cfg.to_dict(), sort_keys=True).encode()
                         + _fingerprint_sources().encode()).hexdigest()[:12]
    directory = BUILD_ROOT / "gen" / f"{cfg.top_name}-{key}"
    with _locked(BUILD_ROOT / "locks" / f"gen-{key}.lock"):
        manifest_path = directory / "manifest.json"
        seconds = 0.0
        if not manifest_path.exists():
            t0 = time.perf_counter()
            emit(cfg, str(directory))
            seconds = time.perf_counter() - t0
        manifest = json.loads(manifest_path.read_text())
    return Generated(cfg, directory, directory / manifest["verilog"]["file"], manifest, seconds)


#: The tile's operand buffers (``rtl/tile.py``: ``m.submodules.wgt_buffer`` /
#: ``act_buffer``, each an :class:`~termwise.rtl.buffer.OperandBuffer`), by submodule name.
OPERAND_BUFFERS = ("wgt_buffer", "act_buffer")

_MODULE = re.compile(r"^module\s+(\\\S+|\w+)\s*\(", re.M)
_MEMORY = re.compile(r"^\s*reg\s+\[(\d+):0\]\s+(\w+)\s+\[(\d+):0\]\s*;", re.M)


def operand_memories(verilog: str, top: str) -> dict:
    """The operand buffers' memories in the emitted Verilog, for the driver's backdoor load
    (:class:`~termwise.tb.driver.TileDriver`): ``{buffer: (module, variable, width, depth)}``
    for each of :data:`OPERAND_BUFFERS` the tile has. Amaranth emits the buffer of submodule
    ``wgt_buffer`` as module ``\\<top>.wgt_buffer`` (an escaped name) holding one
    ``reg [width-1:0] mem [depth-1:0]``. A tile whose array owns its operands
    (``OWNS_OPERANDS``: Cnvlutin, Bit-Tactical) has no buffers: ``{}``."""
    starts = [(m.start(), m.group(1).lstrip("\\")) for m in _MODULE.finditer(verilog)]
    out = {}
    for i, (start, name) in enumerate(starts):
        buffer = name[len(top) + 1:] if name.startswith(top + ".") else None
        if buffer not in OPERAND_BUFFERS:
            continue
        end = starts[i + 1][0] if i + 1 < len(starts) else len(verilog)
        mems = _MEMORY.findall(verilog, start, end)
        if len(mems) != 1:
            raise RuntimeError(f"module {name} holds {len(mems)} memories, expected one")
        msb, var, last = mems[0]
        out[buffer] = (name, var, int(msb) + 1, int(last) + 1)
    return out


def control_file(manifest: dict, *, lint: bool = False, hier_blocks=(), memories=()) -> str:
    """Verilator control file: only the top-level ports are public, and ``memories``
    (``(module, variable)`` pairs: the operand buffers' memories, :func:`operand_memories`,
    written by the driver's backdoor load); ``hier_blocks`` (module names) verilated once
    each as hierarchy blocks; named lint waivers."""
    top = manifest["top"]
    lines = ["`verilator_config"]
    if not lint:
        for port in manifest["ports"]:
            lines.append(f'public_flat_rw -module "{top}" -var "{port["name"]}"')
        for module, var in memories:
            lines.append(f'public_flat_rw -module "{module}" -var "{var}"')
    for module in hier_blocks:
        lines.append(f'hier_block -module "{module}"')
    for rule in LINT_WAIVERS:
        lines.append(f"lint_off -rule {rule}")
    return "\n".join(lines) + "\n"


def _lean_runner(*, hierarchical: bool = False, jobs: int | None = None):
    from cocotb_tools.runner import Verilator

    class LeanVerilator(Verilator):
        """cocotb's Verilator runner without the blanket ``--public-flat-rw``; with
        ``hierarchical``, Verilator's ``--hierarchical`` build, which verilates and compiles
        each hierarchy block once (it runs its own make, so the runner's is dropped). A
        command that fails raises :class:`ToolError` naming it and its log (cocotb's
        runner raises a bare ``RuntimeError`` with the exit status only)."""

        def _execute_cmds(self, cmds, cwd, stdout=None):
            for cmd in cmds:
                result = subprocess.run(cmd, cwd=cwd, env=self.env, stdout=stdout,
                                        stderr=None if stdout is None else subprocess.STDOUT)
                if result.returncode != 0:
                    raise ToolError(os.path.basename(str(cmd[0])), result.returncode,
                                    getattr(stdout, "name", None))

        def _build_command(self):
            cmds = super()._build_command()
            cmds[0] = [arg for arg in cmds[0] if arg != "--public-flat-rw"]
            if hierarchical:
                cmds[0] += ["--hierarchical", "--build", "-j", str(jobs or build_jobs())]
                cmds = cmds[:1]
            return cmds

    return LeanVerilator()


def build_jobs() -> int:
    """Parallel compile jobs of a model build: ``TERMWISE_BUILD_JOBS``, else the cores."""
    return int(os.environ.get("TERMWISE_BUILD_JOBS") or os.cpu_count() or 1)


#: A tile with at least this many PEs is built hierarchically (``build(hierarchical=None)``);
#: measured in docs/toolchain.md#hierarchical-builds.
HIERARCHICAL_MIN_PES = 512
#: ... and from this many PEs on when its library holds modules besides the PE (a window
#: encoder or term multiplexer per window, Laconic's term lanes): flat, Verilator inlines
#: every copy into the root (tactical-tcle-16x16, 128 PEs: 165 MB of C++, not built in 17
#: minutes; hierarchical 251 s clean).
HIERARCHICAL_MIN_PES_WITH_MODULES = 128


def chooses_hierarchical(manifest: dict) -> bool:
    """Whether :func:`build` builds the tile of ``manifest`` hierarchically by default:
    from :data:`HIERARCHICAL_MIN_PES` PEs, or from :data:`HIERARCHICAL_MIN_PES_WITH_MODULES`
    when the tile emits library modules besides the PE (Bit-Pragmatic's window encoder,
    TCLe's term multiplexers), so each is verilated once, not once per instance."""
    pes = manifest["derived"]["pes"]
    others = set(manifest.get("library_modules", ())) - {f"{manifest['top']}__pe"}
    return pes >= HIERARCHICAL_MIN_PES or (
        bool(others) and pes >= HIERARCHICAL_MIN_PES_WITH_MODULES)


def hier_blocks(manifest: dict) -> list[str]:
    """The hierarchy blocks of a hierarchical build: the modules the tile emits once and
    instantiates by name (the PE, and what a PE instantiates), from the manifest."""
    return list(manifest.get("library_modules", ()))


#: Version of :func:`hier_block_names` (in the build key).
HIER_NAMES = "hb1"


def hier_block_names(verilog: str, blocks) -> tuple[str, dict]:
    """``verilog`` with each hierarchy block's module renamed so that its name has no
    ``__``, and ``{old: new}``.

    Verilator mangles ``__`` in a name (``_`` + ``__05F``): it writes the block's wrapper
    module as ``<top>___05Fpe`` while the design instantiates ``<top>__pe``, so the top's
    verilation finds the original module instead of the wrapper and inlines every PE (the
    blocks are verilated but unused; measured on Verilator 5.04x: laconic-16x16's top held
    every PE's and term lane's logic). Library modules are named ``<top>__<part>``
    (:mod:`termwise.rtl.library`), so the rename is ``<top>__<part>`` ->
    ``<top>_hb_<part>``: whole identifiers only (a submodule's escaped name
    ``\\<top>__pe.x`` follows its module). Only the simulation model sees these names; the
    tile's ports and the operand memories are outside the blocks."""
    names, kept = {}, {}
    for b in blocks:
        if "__" not in b:           # nothing to mangle (the SRAM macros): kept as it is
            kept[b] = b
            continue
        new = b.replace("__", "_hb_")
        while "__" in new:
            new = new.replace("__", "_")
        names[b] = new
    if not names:
        return verilog, kept
    taken = set(re.findall(r"\b[A-Za-z_][A-Za-z0-9_$]*\b", verilog))
    clash = [n for n in names.values() if n in taken]
    if clash:
        raise ValueError(f"hierarchy block names already used in the Verilog: {clash}")
    pattern = re.compile(r"(?<![A-Za-z0-9_$])(" + "|".join(
        re.escape(b) for b in sorted(names, key=len, reverse=True)) + r")(?![A-Za-z0-9_$])")
    return pattern.sub(lambda mt: names[mt.group(1)], verilog), {**names, **kept}


@dataclass
class Build:
    generated: Generated
    directory: Path
    seconds: float          # build time (0 when cached)
    waves: bool


def build(cfg: TileConfig, *, waves: bool = False, hierarchical: bool | None = None) -> Build:
    """A Verilator model of the tile, built once per Verilog/flags/tool version.

    ``hierarchical``: verilate each library module once as a hierarchy block
    (:func:`hier_blocks`); ``None`` chooses it as :func:`chooses_hierarchical` says.
    """
    apply_verilator_env()
    gen = generated(cfg)
    if hierarchical is None:
        hierarchical = chooses_hierarchical(gen.manifest)
    blocks = hier_blocks(gen.manifest) if hierarchical else []
    text = gen.verilog.read_text()
    # SRAM-macro buffers are loaded through their write port (the backdoor would bypass
    # the macros' read-enable logic): no memories to make public
    memories = {} if cfg.buffers == "macros" else operand_memories(text, gen.manifest["top"])
    source, renamed = hier_block_names(text, blocks)
    vlt = control_file(gen.manifest, hier_blocks=[renamed[b] for b in blocks],
                       memories=[(module, var) for module, var, _, _ in memories.values()])
    flags = BUILD_FLAGS + (("--trace-fst", "--trace-structs") if waves else ())
    version = (verilator_root() / "bin" / "verilator_bin").stat().st_size
    key = hashlib.sha256(gen.verilog.read_bytes() + vlt.encode() + repr(flags).encode()
                         + str(version).encode()
                         + (HIER_NAMES.encode() if blocks else b"")).hexdigest()[:12]
    directory = BUILD_ROOT / "sim" / f"{cfg.top_name}-{key}"
    top = gen.manifest["top"]
    with _locked(BUILD_ROOT / "locks" / f"sim-{key}.lock"):
        if (directory / top).exists():
            return Build(gen, directory, 0.0, waves)
        if directory.exists():
            shutil.rmtree(directory)
        directory.mkdir(parents=True)
        (directory / "public.vlt").write_text(vlt)
        verilog = gen.verilog
        if blocks:          # the blocks renamed for Verilator (hier_block_names)
            verilog = directory / f"{top}.hier.v"
            verilog.write_text(source)
        t0 = time.perf_counter()
        runner = _lean_runner(hierarchical=bool(blocks))
        runner.build(
            sources=[directory / "public.vlt", verilog],
            hdl_toplevel=top,
            build_dir=directory,
            build_args=list(flags),
            waves=waves,
            always=True,
            log_file=directory / "build.log",
        )
        seconds = time.perf_counter() - t0
    return Build(gen, directory, seconds, waves)


@dataclass
class RegressionResult:
    suites: tuple
    passed: bool
    tests: int
    failures: list[str]
    runs: list[dict]
    seed: int
    build: Build
    seconds: float
    waves_file: Path | None
    log: Path


def _results(xml_path: Path) -> tuple[int, list[str]]:
    tests, failures = 0, []
    if not xml_path.exists():
        return 0, ["the simulator wrote no results (it crashed or did not start)"]
    for case in ET.parse(xml_path).getroot().iter("testcase"):
        tests += 1
        for fail in list(case.iter("failure")) + list(case.iter("error")):
            failures.append(f"{case.get('name')}: {fail.get('message', '').strip()}")
    return tests, failures


def run_regression(cfg: TileConfig, suites=("random", "corners", "conv"), *, seed: int = 1,
                   waves: bool | None = None,
                   testbench_config: TileConfig | None = None,
                   test_module: str = "termwise.tb.tile_tests",
                   extra_env: dict | None = None,
                   hierarchical: bool | None = None) -> RegressionResult:
    """Build (or reuse) the tile's model and run the named suites in one simulator start.

    ``waves=None`` follows the ``WAVES`` environment variable; with waves on, an FST file is
    written and its path reported. ``testbench_config`` makes the testbench and golden
    models believe in another configuration than the one built (used to show that the
    regression catches a mismatch). ``hierarchical``: see :func:`build`.
    """
    if waves is None:
        waves = os.environ.get("WAVES", "0") not in ("", "0")
    b = build(cfg, waves=waves, hierarchical=hierarchical)
    top = b.generated.manifest["top"]
    label = f"{'-'.join(suites)}-seed{seed}-{os.getpid()}"
    test_dir = BUILD_ROOT / "runs" / top / label
    if test_dir.exists():
        shutil.rmtree(test_dir)
    test_dir.mkdir(parents=True)
    report = test_dir / "runs.json"
    results_xml = test_dir / "results.xml"
    waves_file = test_dir / "tile.fst" if waves else None
    manifest_path = b.generated.directory / "manifest.json"
    if testbench_config is not None:
        manifest = dict(b.generated.manifest, config=testbench_config.to_dict())
        manifest_path = test_dir / "manifest.json"
        manifest_path.write_text(json.dumps(manifest))
    t0 = time.perf_counter()
    runner = _lean_runner()
    try:
        runner.test(
            test_module=test_module,
            hdl_toplevel_lang="verilog",
            hdl_toplevel=top,
            build_dir=b.directory,
            test_dir=test_dir,
            results_xml=str(results_xml),
            test_args=(["--trace", "--trace-file", str(waves_file)] if waves else []),
            extra_env={
                "TERMWISE_MANIFEST": str(manifest_path),
                "TERMWISE_SUITES": ",".join(suites),
                "TERMWISE_SEED": str(seed),
                "TERMWISE_REPORT": str(report),
                "COCOTB_RANDOM_SEED": str(seed),
                **(extra_env or {}),
            },
            log_file=test_dir / "sim.log",
        )
    except SystemExit:      # cocotb's runner exits on a failed test; results.xml says why
        pass
    seconds = time.perf_counter() - t0
    tests, failures = _results(results_xml)
    runs = json.loads(report.read_text())["runs"] if report.exists() else []
    return RegressionResult(tuple(suites), not failures and tests > 0, tests, failures, runs, seed, b,
                            seconds, waves_file, test_dir / "sim.log")
