"""The power flow's entry point: :func:`power_report`, the gate-level power report of a
tile (``termwise power``, and ``termwise report``'s power column).

Synthesise (or reuse the cached synthesis), simulate the gate-level netlist under Verilator
with SAIF tracing while a harness drives tile runs through the IO wrapper, compute
internal, switching and leakage power from the toggle counts, cross-check against
OpenSTA's vectorless ``report_power`` (:mod:`.measure`); for a tile too big to build, do so
on one PE row (or a slice of it) and scale it to the whole tile (:mod:`.part_report`).

The activity comes from random operands (every payload bit drawn at random) or from a
real workload's layers (:mod:`.workload`): a few sampled runs of each conv/fc layer,
lowered onto the tile as the ``real`` regression lowers them, with the layer's runtime
registers, weights reloaded every run. The report's ``activity`` record says which, the
layers and their runs, the cycles simulated and the runs completed, and
``energy.per_real_mac_pj`` divides the tile's energy by the layers' own MACs in the
completed runs (not the brick padding). Bit-Tactical's runs carry their offline weight
schedule and Diffy's are chained runs with their restart bits, as their regressions drive
them; bfloat16 tiles are refused for a workload (integer traces).

Every report is kept in the power cache under its key (:mod:`.keys`, :mod:`.cache`), and
found there, or in the project's measured results, by a later run of the same inputs.
"""

from __future__ import annotations

import os
import time

from ...gen.errors import ConfigError

__all__ = ["MAX_CYCLES", "power_report", "check_simulator"]

#: The most cycles a power run may be asked to simulate (``termwise power --cycles``;
#: ``termwise report`` raises a design's budget up to it, no further).
MAX_CYCLES = 10_000_000


def _check_request(cfg, part: str, workload: str | None,
                   layers: list[str] | None, samples: int | None = None,
                   simulator: str = "verilator") -> str | None:
    """Refuse a bad ``part`` (or a slice of windows it cannot divide), ``samples`` without
    ``part`` sampled or below 1, a bad ``simulator`` (:func:`check_simulator`), a design a
    workload cannot drive, or layers without a workload; return the workload trace's
    sha256 (its report key names the trace, not the code that built it), or None."""
    check_simulator(simulator, part)
    from .part import MODES, SLICE_WINDOW_DIVISOR
    if part not in MODES:
        raise ConfigError("part", f"must be one of {', '.join(MODES)}, got {part!r}")
    if samples is not None and part != "sampled":
        raise ConfigError("samples", f"needs --part sampled, got --part {part}")
    if samples is not None and (not isinstance(samples, int) or samples < 1):
        raise ConfigError("samples", f"must be a positive integer, got {samples!r}")
    if part == "slice" and cfg.windows % SLICE_WINDOW_DIVISOR:
        raise ConfigError("part", f"slice keeps windows/{SLICE_WINDOW_DIVISOR} window columns: "
                          f"needs windows divisible by {SLICE_WINDOW_DIVISOR}, got "
                          f"{cfg.windows}")
    if workload is not None:
        from .workload import check_drivable, trace_sha256
        check_drivable(cfg)
        return trace_sha256(cfg, workload)
    if layers is not None:
        raise ConfigError("layers", "needs --workload (the layers are a workload's)")
    return None


def check_simulator(simulator: str, part: str) -> None:
    """``simulator`` one of :data:`.levelsim_run.SIMULATORS`, and the levelised simulation
    not asked for the sampled method (its mixed model has RTL instances)."""
    from .levelsim_run import SIMULATORS
    if simulator not in SIMULATORS:
        raise ConfigError("simulator", f"one of {', '.join(SIMULATORS)}, got {simulator!r}")
    if simulator == "levelsim" and part == "sampled":
        raise ConfigError("simulator", "levelsim simulates every instance at gate level; "
                          "--part sampled (RTL instances) needs verilator")


def _key_inputs(cfg, clock_ns: float, lib: str, memo: str, run: dict, trace_sha,
                samples: int | None, hierarchical: bool = False):
    """The whole tile's synthesis key and a function of the part mode giving the report's
    key inputs (:func:`.keys.report_key_inputs`) for the options ``run``; the Verilog
    sha256s memoised in ``memo``; ``samples`` the sampled mode's instances."""
    from .keys import RENDER_PACKAGES, report_key_inputs, synthesis_key, tree_sha
    from .part import part_config
    sources = tree_sha(RENDER_PACKAGES)
    key_w = synthesis_key(cfg, clock_ns, lib, memo, sources, hierarchical)

    def inputs_for(mode):
        return report_key_inputs(
            cfg, synth_key=key_w, mode=mode, samples=samples,
            part_synth_key=synthesis_key(part_config(cfg, mode), clock_ns, lib, memo, sources,
                                         hierarchical)
            if mode in ("row", "slice") else None, trace_sha256=trace_sha, **run)
    return key_w, inputs_for


def _with_trace(rep: dict, trace_sha: str | None) -> dict:
    """``rep`` with the content hash of the workload trace its activity came from
    (``activity.trace_sha256``; the report's key holds it, so a stored report gets it on
    the way out too): ``termwise report --reports`` reuses a power report only on the same
    trace (a re-profiled or rebuilt trace moves both the stimulus and the cycles)."""
    if trace_sha is not None and isinstance(rep.get("activity"), dict):
        rep["activity"]["trace_sha256"] = trace_sha
    return rep


def _stored(reports: str, key: str, t0: float) -> dict | None:
    """The report stored under ``key`` (in ``reports``, else in the project's measured
    results), marked cached and saying where it was found; None if there is none."""
    from .. import measured_store
    from .cache import load_report
    rep = load_report(reports, key)
    if rep is None:
        return None
    where = os.path.join(reports, key)
    rep["cached"] = True
    rep["cache"] = {"key": key, "hit": True, "lookup_s": 0.0}
    if not os.path.isdir(where):    # found in the project's measured results
        where = os.path.join(measured_store.root(), "power", key)
        rep["cache"]["measured_store"] = True
    rep["cache"].update(dir=where, lookup_s=round(time.monotonic() - t0, 2))
    return rep


def _whole_method(requested: str, syn: dict) -> dict:
    """The report's ``method`` record of a whole tile simulated."""
    from .part import ROW_ABOVE_CELLS
    cells = syn["asic"]["cell_count"]
    return {"mode": "whole", "requested": requested,
            "why": ("--part whole" if requested == "whole" else
                    f"--part auto: {cells} synthesised cells, at most {ROW_ABOVE_CELLS} "
                    "(the whole tile's gate-level model builds in minutes)"),
            "synthesis_key": syn["cache"]["asic"]["key"],
            "how": "the whole tile's netlist simulated: every figure is the whole tile's own"}


def _measured(cfg, mode: str, part: str, syn: dict, clock_mhz: float | None,
              common: dict, samples: int | None) -> dict:
    """The report of ``cfg`` measured in ``mode``: the whole tile simulated, or its part
    simulated at the whole tile's clock and scaled."""
    from .measure import measure
    from .part import part_config
    from .part_report import report_from_part
    from .clock_tree import add_clock_network
    if mode == "whole":
        rep, _ = measure(cfg, clock_mhz=clock_mhz, **common)
        rep["method"] = _whole_method(part, syn)
        return add_clock_network(rep, syn)
    if mode == "sampled":
        rep, _ = measure(cfg, clock_mhz=clock_mhz, sampled=True, samples=samples, **common)
        rep["method"] = {
            "mode": "sampled", "requested": part, "why": "--part sampled",
            "synthesis_key": syn["cache"]["asic"]["key"],
            "how": ("the whole tile simulated with "
                    + (f"{samples} instances" if samples else "sampled instances (as many as "
                       "the cell budget allows, 2 to 8)")
                    + " of each replicated module at gate level and the others as RTL; the "
                    "replicated modules' dynamic power scaled from the sampled instances, "
                    "with its standard error (the report's sampling record); everything "
                    "else is the whole tile's own")}
        return add_clock_network(rep, syn)
    pcfg = part_config(cfg, mode)
    f_mhz = clock_mhz if clock_mhz is not None else syn["asic"]["fmax_mhz"]
    source = ("--clock-mhz" if clock_mhz is not None else
              "the whole tile's ASIC Fmax (its synthesis report)")
    prep, facts = measure(pcfg, clock_mhz=f_mhz, clock_source=source, **common)
    rep = report_from_part(cfg, pcfg, part, syn, prep, facts, common["workload"],
                           common["clock_ns"])
    rep["clock"]["source"] = source
    return add_clock_network(rep, syn)


def power_report(cfg, *, cycles: int, seed: int, clock_mhz: float | None,
                 clock_ns: float, liberty: str | None, cache_root: str | None,
                 use_cache: bool, precision: int | None, log=print,
                 workload: str | None = None, layers: list[str] | None = None,
                 part: str = "auto", samples: int | None = None,
                 hierarchical: bool = False, simulator: str = "verilator") -> dict:
    """The gate-level power report of ``cfg``'s tile: synthesis (cached), gate-level
    simulation, power; stored, or found stored.

    Parameters
    ----------
    cfg : TileConfig
        The tile.
    cycles, seed : int
        Cycles simulated (with a workload, a bound: as many runs of each layer as fit);
        the seed of the random operands, or of the workload's runs drawn.
    clock_mhz : float or None
        The clock the power is stated at; None: the synthesised Fmax.
    clock_ns, liberty, precision, hierarchical
        The synthesis options (:func:`termwise.synth.api.synthesise`).
    simulator : str
        ``verilator`` or ``levelsim`` (:mod:`.levelsim_run`; not with ``part="sampled"``).
    cache_root : str or None
        The synthesis cache (the power cache is beside it, :func:`.cache.power_cache_dir`).
    use_cache : bool
        False recomputes the report (and reruns the synthesis).
    log : callable
        Takes a line of progress.
    workload, layers : str or None, list of str or None
        The activity of that workload's ``layers`` (default: every conv/fc layer) instead
        of random operands.
    part : str
        ``whole``: the whole tile; ``row``: one PE row and the shared logic (:mod:`.part`),
        scaled; ``slice``: a quarter of that row's windows, scaled; ``auto``: ``row``
        above :data:`~termwise.synth.power.part.ROW_ABOVE_CELLS` synthesised cells, else
        ``whole``; ``sampled``: the whole tile, ``samples`` instances of each replicated
        module at gate level, the others RTL (:mod:`.sampled`).
    samples : int or None
        With ``part`` sampled: instances per replicated module (default: by its cells,
        :func:`~termwise.synth.power.sampled.default_k`).

    Returns
    -------
    dict
        The report; ``cached`` says whether it was found stored, ``cache`` its key and
        folder (:func:`.keys.report_key_inputs`).

    Raises
    ------
    ConfigError
        Bad names, a design the generic lowering cannot drive, or too few ``cycles`` for
        one run of each layer, before anything runs.
    """
    from ...gen.emit import rendered
    from ...gen.results import locations
    from .. import cache as synth_cache
    from ..api import check_options, synthesise
    from .cache import power_cache_dir, reports_dir, store_report, verilog_memo_dir
    from .keys import report_key
    from .part import choose_mode
    from .stimulus import RESET_CYCLES
    from .workload import plan_workload
    t0 = time.monotonic()
    trace_sha = _check_request(cfg, part, workload, layers, samples, simulator)
    clock_ns, _, lib = check_options(clock_ns, "asic", liberty)
    root = locations.synth_cache_root(cache_root)
    reports = reports_dir(power_cache_dir(cache_root))
    key_w, inputs_for = _key_inputs(
        cfg, clock_ns, lib, verilog_memo_dir(power_cache_dir(cache_root)),
        dict(cycles=cycles, seed=seed, clock_mhz=clock_mhz,
             precision=min(16, cfg.act_bits) if precision is None else precision,
             workload=workload, layers=layers, simulator=simulator), trace_sha, samples,
        hierarchical)
    if use_cache:
        # ``auto`` resolves from the whole tile's cached synthesis; without it, a miss.
        hit_w = synth_cache.lookup(root, key_w) or synth_cache.lookup_measured(key_w)
        mode = choose_mode(part, hit_w["cell_count"] if hit_w else None) \
            if (part != "auto" or hit_w) else None
        rep = _stored(reports, report_key(inputs_for(mode)), t0) if mode is not None else None
        if rep is not None:
            return _with_trace(rep, trace_sha)
    if workload is not None:
        # names and cycle budget checked on the whole tile before any synthesis
        _, man = rendered(cfg, locations.emit_cache_dir(cache_root))
        plan_workload(cfg, man["command_layout"], workload, layers,
                      cycles=cycles, seed=seed, reset_cycles=RESET_CYCLES, log=None)
    syn = synthesise(cfg, None, clock_ns=clock_ns, target="asic", liberty=liberty,
                     cache_root=cache_root, use_cache=use_cache, precision=precision,
                     hierarchical=hierarchical)
    mode = choose_mode(part, syn["asic"]["cell_count"])
    common = dict(cycles=cycles, seed=seed, clock_ns=clock_ns, liberty=liberty,
                  cache_root=cache_root, use_cache=use_cache, precision=precision, log=log,
                  workload=workload, layers=layers, hierarchical=hierarchical, simulator=simulator)
    rep = _measured(cfg, mode, part, syn, clock_mhz, common, samples)
    rep["wall_s"]["total"] = round(time.monotonic() - t0, 1)
    key = report_key(inputs := inputs_for(mode))
    rep["cached"] = False
    store_report(reports, key, inputs, _with_trace(rep, trace_sha))
    rep["cache"] = {"key": key, "hit": False, "dir": os.path.join(reports, key)}
    return rep
