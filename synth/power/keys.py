"""The keys of the power flow's results: a power report's key, and the synthesis keys it is
computed from.

A report is stored under :func:`report_key` of :func:`report_key_inputs` (the canonical
key, :func:`termwise.gen.results.keys.key`): explicit inputs and versions only, never
source text, so editing a docstring or an error message retires nothing, while a change
that would move a number bumps :data:`POWER_FLOW_VERSION` by hand (it is defined, with the
other flow versions, in :mod:`termwise.gen.results.versions`; synth/README.md, "Measured
results"). The shipped reports (synth/measured/power) are found by the same keys;
:func:`current_key` says which key an entry would have if it were measured now, so a
stale one is seen.

A synthesis key is the Verilog's sha256 with the flow's settings
(:func:`termwise.synth.api.asic_cache_key`); rendering a 16x16 tile's Verilog takes
seconds, so its sha256 is remembered (:func:`verilog_sha`) under the configuration and the
text of every package the Verilog is rendered from, and so is its module hierarchy, which
the hierarchical flow's key reads (:func:`stub_fields`: which modules its timing stubs).
The memo is not a result store: it remembers what is always derivable, and a stale memo is
impossible because any edit of those packages renders again.
"""

from __future__ import annotations

import json
import os

from ...gen.results import keys as result_keys
from ...gen.results.versions import POWER_FLOW_VERSION, POWER_REPORT_LAYOUT_VERSION

__all__ = ["REPORT_CACHE_VERSION", "POWER_FLOW_VERSION", "MODEL_BUILD_FLAGS",
           "RENDER_PACKAGES", "sha256_hex", "tree_sha", "verilog_sha", "stub_fields",
           "synthesis_key",
           "current_synthesis_key", "report_key_inputs", "report_key", "current_key",
           "is_current"]

#: The stored report's layout version, in every report's key
#: (:data:`termwise.gen.results.versions.POWER_REPORT_LAYOUT_VERSION`: when to bump it).
REPORT_CACHE_VERSION = POWER_REPORT_LAYOUT_VERSION
# POWER_FLOW_VERSION (imported above, re-exported) is the power flow's version, in every
# report's key; termwise.gen.results.versions says which changes bump it.

#: A gate-level model is big, flat, generated code: g++ -O0 on both cores compiles the 4x4
#: tile's in ~4 min instead of ~9 (-O2, one job); it then simulates ~5x slower (2000 cycles
#: ~5 s), which the activity counts do not depend on.
MODEL_BUILD_FLAGS = ["-MAKEFLAGS", "OPT_FAST=-O0", "-MAKEFLAGS", "OPT_SLOW=-O0",
                     "-MAKEFLAGS", "OPT_GLOBAL=-O0", "--build-jobs", "2"]
def sha256_hex(text: str | bytes) -> str:
    """sha256 of ``text`` (UTF-8 if a str), in hex
    (:func:`termwise.gen.results.keys.sha256_hex`)."""
    return result_keys.sha256_hex(text)


#: The packages whose text the Verilog is rendered from (:mod:`termwise.gen.results.keys`).
RENDER_PACKAGES = result_keys.RENDER_PACKAGES
tree_sha = result_keys.tree_sha


def verilog_sha(cfg, memo_dir: str, sources: str) -> str:
    """sha256 of ``cfg``'s Verilog, remembered.

    Parameters
    ----------
    cfg : TileConfig
        The configuration.
    memo_dir : str
        The memo's folder (:func:`.cache.verilog_memo_dir`): one file per configuration
        and ``sources``.
    sources : str
        :func:`tree_sha` of :data:`RENDER_PACKAGES`: an edit of any of them renders again.

    Returns
    -------
    str
        The Verilog's sha256 (rendered, or read from the memo).
    """
    memo = _memo(cfg, memo_dir, sources)
    try:
        with open(memo, encoding="utf-8") as f:
            sha = f.read().strip()
        if len(sha) == 64:
            return sha
    except OSError:
        pass
    return _render(cfg, memo_dir, sources)[0]


def _memo(cfg, memo_dir: str, sources: str) -> str:
    return os.path.join(memo_dir, sha256_hex(json.dumps([cfg.to_dict(), cfg.top_name,
                                                         sources], sort_keys=True))[:24])


def _render(cfg, memo_dir: str, sources: str) -> tuple[str, dict]:
    """Render ``cfg``'s Verilog; remember its sha256 and its module hierarchy
    (:func:`termwise.synth.sta_sample.verilog_hierarchy`) and return them."""
    from ...gen.emit import rendered, write_atomically
    from ..sta_sample import verilog_hierarchy
    memo = _memo(cfg, memo_dir, sources)
    # the emission cache beside the power cache (memo_dir is <power-cache>/reports/...):
    # the synthesis that follows a miss reads the same entry
    power_cache = os.path.dirname(os.path.dirname(os.path.abspath(memo_dir)))
    text_v, _ = rendered(cfg, os.path.join(os.path.dirname(power_cache), "emit-cache"))
    sha, hier = sha256_hex(text_v), verilog_hierarchy(text_v)
    os.makedirs(memo_dir, exist_ok=True)
    write_atomically(memo + ".hierarchy.json", json.dumps(hier, sort_keys=True) + "\n")
    write_atomically(memo, sha + "\n")
    return sha, hier


def stub_fields(cfg, memo_dir: str, sources: str) -> dict | None:
    """The hierarchical synthesis key's field of the modules stubbed besides the PE
    (:func:`termwise.synth.sta_sample.stub_key`, None when at most the PE is) from
    ``cfg``'s Verilog, its module hierarchy remembered as :func:`verilog_sha` remembers
    its sha256 (the rule reads the remembered hierarchy, so a change of the rule needs no
    new rendering)."""
    from ..sta_sample import stub_key
    try:
        with open(_memo(cfg, memo_dir, sources) + ".hierarchy.json", encoding="utf-8") as f:
            hier = json.load(f)
    except (OSError, ValueError):
        hier = _render(cfg, memo_dir, sources)[1]
    return stub_key(hier, cfg.top_name)


def synthesis_key(cfg, clock_ns: float, lib: str, memo_dir: str, sources: str,
                  hierarchical: bool = False) -> str:
    """The key the synthesis cache keeps ``cfg``'s ASIC run under, as
    :func:`termwise.synth.api.synthesise` computes it, without synthesising.

    Parameters
    ----------
    cfg : TileConfig
        The configuration.
    clock_ns : float
        The synthesis clock target.
    lib : str
        The liberty's path (:func:`termwise.synth.api.check_options`).
    memo_dir, sources : str
        As for :func:`verilog_sha`.
    hierarchical : bool
        The hierarchical synthesis flow (its own key).

    Returns
    -------
    str
        The synthesis key.
    """
    from ..api import asic_cache_key
    return asic_cache_key(verilog_sha(cfg, memo_dir, sources), clock_ns, lib,
                          clock_gating=cfg.clock_gating, sram=cfg.buffers == "macros",
                          hierarchical=hierarchical,
                          stubs=stub_fields(cfg, memo_dir, sources) if hierarchical else None)


def current_synthesis_key(cfg, clock_ns: float, hierarchical: bool = False) -> str:
    """:func:`synthesis_key` of ``cfg`` now, with the default liberty and the default
    caches' Verilog memo (as ``termwise power`` memoises it), by the flat or the
    ``hierarchical`` flow."""
    from ..api import check_options
    from .cache import power_cache_dir, verilog_memo_dir
    lib = check_options(clock_ns, "asic", None)[2]
    return synthesis_key(cfg, clock_ns, lib, verilog_memo_dir(power_cache_dir(None)),
                         tree_sha(RENDER_PACKAGES), hierarchical)


def report_key_inputs(cfg, *, synth_key: str, part_synth_key: str | None, mode: str,
                      cycles: int, seed: int, clock_mhz: float | None, precision: int,
                      workload: str | None, layers: list[str] | None,
                      trace_sha256: str | None = None, samples: int | None = None,
                      simulator: str = "verilator") -> dict:
    """Everything a power report depends on, for its cache key: explicit inputs and
    versions only, never source text.

    The synthesis keys stand for the Verilog (hence the configuration and the RTL), the
    clock target, the liberty and the synthesis tools and scripts; the gate-level model
    (:func:`.model.build_model`) is a function of the netlist, the liberty's cell models,
    the harness and the build flags: the synthesis key, :data:`POWER_FLOW_VERSION`,
    :data:`MODEL_BUILD_FLAGS` and the Verilator version. Then the run's options, and for a
    workload its trace's content (``trace_sha256``,
    :meth:`~termwise.golden.workloads.Workload.trace_sha256`): the stimulus is a function
    of the trace, the options and the flow version.

    Parameters
    ----------
    cfg : TileConfig
        The tile reported on (the whole tile, also when a part is simulated).
    synth_key : str
        The whole tile's synthesis key.
    part_synth_key : str or None
        The part's synthesis key (modes ``row`` and ``slice``), else None.
    mode : str
        The part mode resolved (``whole``, ``row``, ``slice`` or ``sampled``).
    cycles, seed, clock_mhz, precision, workload, layers
        The run's options (``clock_mhz`` None: the synthesised Fmax).
    trace_sha256 : str or None
        The workload trace's content hash: given with a workload, and only then.
    samples : int or None
        Mode ``sampled``: the instances simulated at gate level per replicated module
        (None: by its cells, :func:`.sampled.default_k`, whose bounds are in the key); not
        in the other modes' keys.
    simulator : str
        ``verilator`` (not in the key: the keys before there was a choice) or ``levelsim``
        (:mod:`.levelsim_run`, with its version: a report of its own, although its
        activity equals the model's net by net where both were run).

    Returns
    -------
    dict
        The key's inputs (stored beside the report as ``inputs.json``).

    Raises
    ------
    ValueError
        A workload without its trace's hash, or a hash without a workload.
    """
    if (workload is None) != (trace_sha256 is None):
        raise ValueError("a workload's report key needs its trace_sha256, and only then")
    from importlib import metadata
    try:
        verilator = metadata.version("verilator")
    except metadata.PackageNotFoundError:
        verilator = None
    inputs = {"version": REPORT_CACHE_VERSION, "config": cfg.to_dict(),
              "synthesis_key": synth_key, "part": mode, "part_synthesis_key": part_synth_key,
              "cycles": cycles, "seed": seed, "clock_mhz": clock_mhz, "precision": precision,
              "workload": workload, "layers": layers,
              "model_build_flags": MODEL_BUILD_FLAGS, "verilator": verilator,
              "power_flow": POWER_FLOW_VERSION, "workload_trace_sha256": trace_sha256}
    if simulator != "verilator":
        from .levelsim_run import LEVELSIM_VERSION
        inputs["simulator"] = {"name": simulator, "version": LEVELSIM_VERSION}
    if mode == "sampled":       # the other modes' keys stay as they were
        from .sampled import (MIN_SAMPLED, SAMPLED_CELLS, SAMPLED_INSTANCES,
                              SAMPLED_METHOD_VERSION)
        inputs["sampled"] = {"instances": samples,
                             "default": None if samples else
                             [MIN_SAMPLED, SAMPLED_INSTANCES, SAMPLED_CELLS],
                             "method": SAMPLED_METHOD_VERSION}
    return inputs


def report_key(inputs: dict) -> str:
    """The key of a report of ``inputs`` (:func:`report_key_inputs`): the canonical key,
    24 hex digits (:func:`termwise.gen.results.keys.key`)."""
    return result_keys.key(inputs)


def current_key(kind: str, folder: str) -> str:
    """The key a shipped entry would have if it were measured now: the key a lookup tries.

    Same configuration and options; this checkout's Verilog, scripts, tools, flow versions
    and, for a workload's activity, the workload's trace (built once, then cached).

    Parameters
    ----------
    kind : str
        ``asic`` (a synthesis) or ``power`` (a power report), as
        :func:`termwise.synth.measured_store.entries` lists them.
    folder : str
        The entry's folder.

    Returns
    -------
    str
        The key now.
    """
    from ...gen.config import from_mapping
    from ..measured_store import load
    from .part import part_config
    from .workload import trace_sha256
    if kind == "asic":
        rep = load(folder, "synth_report.json")
        cfg = from_mapping(rep["config"], name=rep.get("preset"))
        settings = load(folder, "settings.json")
        return current_synthesis_key(cfg, settings["clock_ns"], "hierarchical" in settings)
    inp = load(folder, "inputs.json")
    rep = load(folder, "power_report.json")
    cfg = from_mapping(inp["config"], name=rep.get("preset"))
    clock_ns = rep["synthesis"]["clock_ns"]
    # the netlist the power ran on: the hierarchical flow's when its key is the entry's
    hier = current_synthesis_key(cfg, clock_ns, True)
    synth_key = hier if inp["synthesis_key"] == hier else current_synthesis_key(cfg, clock_ns)
    now = report_key_inputs(
        cfg, synth_key=synth_key, mode=inp["part"],
        part_synth_key=current_synthesis_key(part_config(cfg, inp["part"]), clock_ns)
        if inp["part"] in ("row", "slice") else None,
        cycles=inp["cycles"], seed=inp["seed"], clock_mhz=inp["clock_mhz"],
        precision=inp["precision"], workload=inp["workload"], layers=inp["layers"],
        trace_sha256=trace_sha256(cfg, inp["workload"]) if inp["workload"] else None,
        samples=inp["sampled"]["instances"] if "sampled" in inp else None,
        simulator=(inp.get("simulator") or {}).get("name", "verilator"))
    return report_key(now)


def is_current(kind: str, folder: str, key: str) -> bool:
    """Whether the shipped entry ``key`` in ``folder`` is what this checkout would look up
    (:func:`current_key`)."""
    return key == current_key(kind, folder)
