"""Workload activity for the gate-level power flow (``termwise power --workload``): the runs
of real layers, lowered onto the tile as the regressions lower them, for the stimulus file
of :mod:`.stimulus`.

A workload (:func:`termwise.golden.workloads.load_workload`, the names ``termwise sim``
accepts) is loaded at the tile's width (8-bit values on tiles of at most 8-bit activations,
else 16-bit, as the ``real`` regression loads it), each chosen conv/fc layer lowered by
:func:`termwise.golden.lowering.lower_layer` (the ``real`` suite's lowering: the papers'
brick order, channel-diagonal depthwise packing; fc layers as a matrix product, batch rows
as windows) with the layer's runtime registers from
:func:`termwise.golden.netsim.layer_runtime` (its activation / weight precision and
``act_signed``, as ``termwise sim`` and the ``real`` suite set them). Each run is sent as
the design's regression driver sends it (:func:`run_rows`, :func:`run_registers`):

* the generic tile driver's rows (:func:`termwise.golden.packing.wgt_rows`,
  :func:`~termwise.golden.packing.act_rows`), ``bricks`` the run's bricks;
* a design whose golden model lowers the weights on the host (``host_weight_rows(cfg,
  wgt) -> (rows, kept)``: Bit-Tactical's offline schedule,
  :func:`termwise.golden.arch.tactical.host_weight_rows`, as
  :class:`termwise.tb.tactical_cases.TacticalDriver` sends it): those weight rows (two per
  kept step: the packed weights, then the selects and the original step index), the dense
  activation rows, ``bricks`` the kept steps;
* a design whose golden model gives per-run registers of a lowered layer
  (``run_runtimes(cfg, lowering, rt)``: Diffy's restart bits and predecessors,
  :func:`termwise.golden.arch.diffy.run_runtimes`, as :mod:`termwise.tb.diffy_tests`
  drives a convolution): the generic rows and each run's registers. Such a run depends on
  the run before it (Diffy's predecessor store holds the previous run's last window), so
  its runs are *chained*: consecutive runs of the lowering, the first one restarting
  window 0.

The command word is :func:`.stimulus.command_word` of ``bricks`` and the run's registers.

What the activity is: ``n`` runs of every chosen layer (at most :data:`MAX_RUNS_PER_LAYER`,
``n`` the most that fit the cycle budget by the golden cycle model), drawn with ``seed``: at
random without replacement, interleaved layer by layer; chained runs: ``n`` consecutive runs
from a random start, layer after layer. Weights are loaded for every run. What it is not: a
whole inference (the layers' shares of the cycles are not the network's: every layer gets
the same number of runs), nor the weight reuse of a scheduler that keeps weights across
window groups; the fused output stage sees zero bias and residual.

A design whose regression is its own testbench and whose golden model has neither hook
(bfloat16 tiles: the workloads are integer traces) is refused by :func:`check_drivable`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...gen.spec import ConfigError

__all__ = ["MAX_RUNS_PER_LAYER", "RUN_SLACK_CYCLES", "HOST_HOOKS", "StimulusRun",
           "WorkloadPlan", "check_drivable", "workload_bits", "load_layers", "run_useful_macs",
           "run_rows", "run_registers", "chained", "estimate_run_cycles", "plan_workload",
           "stimulus_rows", "trace_sha256"]

#: At most this many sampled runs of each layer ("a few").
MAX_RUNS_PER_LAYER = 8
#: Cycles a run costs in the harness besides its loads, command, compute and output rows:
#: the wrapper's input and output registers and the two idle cycles.
RUN_SLACK_CYCLES = 4
#: Golden-model functions through which a design's own testbench feeds a lowered run
#: (see the module docstring): host-lowered weight rows, per-run registers.
HOST_HOOKS = ("host_weight_rows", "run_runtimes")


@dataclass
class StimulusRun:
    """One run of the stimulus: ``layer``'s run ``index`` (in its lowering), its runtime
    registers (the command's fields besides ``bricks``) and command word, its MACs
    (``useful``: the layer's own; ``padded``: every MAC slot of the run's bricks), the
    cycles the plan expects it to take and the rows the harness sends (:func:`run_rows`)."""
    layer: str
    index: int
    run: object
    runtime: dict
    command: int
    useful_macs: int
    padded_macs: int
    estimated_cycles: int
    wgt_rows: list = field(default_factory=list)
    act_rows: list = field(default_factory=list)


@dataclass
class WorkloadPlan:
    workload: str
    bits: int
    layers: list[dict]                  # per chosen layer: name, kind, shape, runtime, ...
    runs: list[StimulusRun] = field(default_factory=list)   # in the harness's order
    runs_per_layer: int = 0
    estimated_cycles: int = 0


def _model(cfg):
    from ...golden.arch import model_of
    return model_of(cfg)


def check_drivable(cfg) -> None:
    """Refuse (``ConfigError`` on ``workload``) a design whose runs of a real layer cannot be
    made as its regression makes them: not the generic testbench with the ``real`` suite,
    and a golden model without a host hook (:data:`HOST_HOOKS`), or operands that are not
    integers (the workloads are integer traces)."""
    from ...gen.designs import spec
    from ...gen.designs.common import GENERIC_TB
    tb = spec(cfg).testbench(cfg)
    if tb.module == GENERIC_TB and "real" in tb.suites:
        return
    if cfg.dtype != "int":
        raise ConfigError("workload", f"not available for {cfg.top_name}: its tile takes "
                          f"{cfg.dtype} operands and is driven by its own testbench "
                          f"({tb.module}), while the workloads are integer traces (fixed-"
                          "point codes whose float values are not kept), so there are no "
                          f"layer values to round to {cfg.dtype}")
    if not any(hasattr(_model(cfg), h) for h in HOST_HOOKS):
        raise ConfigError("workload", f"not available for {cfg.top_name}: its tile is "
                          f"driven by its own testbench ({tb.module}), whose runs need "
                          "operands the generic lowering of golden/lowering.py does not "
                          f"give, and its golden model has no host hook ({', '.join(HOST_HOOKS)})")


def workload_bits(cfg) -> int:
    """The fixed-point width a workload is loaded at for ``cfg`` (the ``real`` suite's)."""
    return 8 if cfg.act_bits <= 8 else 16


def trace_sha256(cfg, workload: str) -> str:
    """The content hash of ``workload``'s trace at ``cfg``'s width
    (:meth:`~termwise.golden.workloads.Workload.trace_sha256`): what a power report of its
    activity is keyed on."""
    from ...golden.workloads import check_workload, load_workload
    check_workload(workload)
    key = (workload, workload_bits(cfg))
    if key not in _TRACE_SHA:     # a process asks once per trace (termwise measured list)
        # quietly, as load_layers loads it: a refusal after it must print nothing else
        _TRACE_SHA[key] = load_workload(*key, log=None).trace_sha256()
    return _TRACE_SHA[key]


_TRACE_SHA: dict[tuple[str, int], str] = {}


def load_layers(cfg, workload: str, names: list[str] | None, log=None):
    """``(workload, layers)``: the workload at the tile's width and its chosen layers
    (``names``, default every conv/fc layer), each checked to fit the tile's operand
    widths."""
    from ...golden.workloads import check_workload, load_workload
    check_workload(workload)
    bits = workload_bits(cfg)
    wl = load_workload(workload, bits, log=log)
    every = [layer for layer in wl.layers if layer.kind in ("conv", "fc")]
    if names is None:
        layers = every
    else:
        by_name = {layer.name: layer for layer in every}
        for n in names:
            if n not in by_name:
                raise ConfigError("layers", f"{workload} has no conv/fc layer {n!r}; valid: "
                                  f"{', '.join(by_name)}")
        layers = [by_name[n] for n in dict.fromkeys(names)]
    if not layers:
        raise ConfigError("layers", f"{workload} has no conv/fc layer")
    for layer in layers:
        a_lo, a_hi = ((-(1 << (cfg.act_bits - 1)), (1 << (cfg.act_bits - 1)) - 1)
                      if layer.act_signed else (0, (1 << cfg.act_bits) - 1))
        w_lo, w_hi = -(1 << (cfg.wgt_bits - 1)), (1 << (cfg.wgt_bits - 1)) - 1
        act, wgt = np.asarray(layer.act), np.asarray(layer.wgt)
        if act.min() < a_lo or act.max() > a_hi or wgt.min() < w_lo or wgt.max() > w_hi:
            raise ConfigError("workload", f"{workload} at {bits} bits does not fit the tile: "
                              f"layer {layer.name} has activations {act.min()}..{act.max()} "
                              f"and weights {wgt.min()}..{wgt.max()}, the tile takes "
                              f"{cfg.act_bits}-bit activations and {cfg.wgt_bits}-bit "
                              "weights")
    return wl, layers


def run_useful_macs(cfg, layer, runs, spans, indices) -> list[int]:
    """The layer's own MACs in each of ``runs[i]`` for ``i`` in ``indices``: real windows x
    real filters x inner-dimension positions that are the layer's (not brick padding, not
    the block-diagonal zeros of a packed depthwise layer:
    :func:`termwise.golden.netsim.simulate.lowered_mask`)."""
    from ...golden.netsim.simulate import lowered_mask
    mask = lowered_mask(layer, lanes=cfg.lanes)         # broadcastable to (G, kg, Kg)
    group = np.empty(len(runs), dtype=np.int64)
    for first, count, g in spans:
        group[first:first + count] = g
    step = cfg.depth * cfg.lanes
    out = []
    for i in indices:
        run = runs[i]
        m = mask[min(int(group[i]), mask.shape[0] - 1)]     # (1 or kg, Kg)
        cols = run.cols[run.cols >= 0]
        k0 = run.chunk * step
        per_filter = m[:, k0:k0 + run.k].sum(axis=1, dtype=np.int64)
        k_sum = int(per_filter[0]) * len(cols) if m.shape[0] == 1 else int(per_filter[cols].sum())
        out.append(int((run.rows >= 0).sum()) * k_sum)
    return out


def run_rows(cfg, run) -> tuple[int, list[int], list[int]]:
    """How the design's regression driver sends one lowered ``run``.

    Parameters
    ----------
    cfg : TileConfig
        The tile.
    run : termwise.golden.lowering.Run
        A run of :func:`termwise.golden.lowering.lower_layer` (whole bricks).

    Returns
    -------
    bricks : int
        The command's ``bricks``: the run's bricks, or the steps a host lowering kept.
    wgt_rows, act_rows : list of int
        The ``wgt`` and ``act`` stream payloads: the generic driver's
        (:func:`termwise.golden.packing.wgt_rows`, :func:`~termwise.golden.packing.act_rows`), the
        weight rows of the golden model's ``host_weight_rows(cfg, wgt) -> (rows, kept)``
        when it has one (Bit-Tactical's schedule, as ``TacticalDriver`` sends them).
    """
    from ...golden.packing import act_rows, wgt_rows
    acts = act_rows(cfg, run.act)
    host = getattr(_model(cfg), "host_weight_rows", None)
    if host is None:
        return run.k // cfg.lanes, wgt_rows(cfg, run.wgt), acts
    rows, kept = host(cfg, run.wgt)
    return int(kept), list(rows), acts


def chained(cfg) -> bool:
    """Whether a run of ``cfg`` depends on the run before it, so that its runs must be
    consecutive runs of a lowering (the golden model has ``run_runtimes``: Diffy)."""
    return hasattr(_model(cfg), "run_runtimes")


def run_registers(cfg, layer, runs, spans, rt: dict, indices) -> list[dict]:
    """The runtime registers of ``runs[i]`` for ``i`` in ``indices``, each run sent right
    after the one before it in ``indices``.

    Parameters
    ----------
    cfg : TileConfig
        The tile.
    layer : termwise.golden.workloads.Layer
        The layer ``runs`` and ``spans`` lower (:func:`termwise.golden.lowering.lower_layer`).
    runs, spans
        Its runs and their ``(first, count, group)`` spans.
    rt : dict
        The layer's registers (:func:`termwise.golden.netsim.layer_runtime`).
    indices : sequence of int
        The runs in the order they are sent.

    Returns
    -------
    list of dict
        ``rt`` for every run; for a :func:`chained` design the golden model's
        ``run_runtimes`` of the lowering (Diffy: ``restart`` bits and ``predecessor``, the
        previous run's last window), except that a run whose predecessor in the lowering
        is not the run sent before it restarts window 0 (``restart | 1``, no predecessor).
    """
    if not chained(cfg):
        return [rt for _ in indices]
    from ...golden.lowering import ConvLowering
    out_shape = (np.shape(layer.act)[0], np.shape(layer.wgt)[0], *layer.out_hw)
    every = _model(cfg).run_runtimes(cfg, ConvLowering(runs, spans, out_shape), rt)
    out, previous = [], None
    for i in indices:
        regs = dict(every[i])
        if previous != i - 1:
            regs.update(restart=int(regs["restart"]) | 1, predecessor=None)
        out.append(regs)
        previous = i
    return out


def estimate_run_cycles(cfg, run, rt, rows: tuple[int, int] | None = None) -> int:
    """Harness cycles of one run: its rows loaded (``rows`` = weight and activation row
    counts, default the run's bricks each), the command, the golden cycle model's compute
    cycles (:func:`termwise.golden.cycles.run_cycles` with the run's registers ``rt``), the
    output rows and :data:`RUN_SLACK_CYCLES`."""
    from ...golden.cycles import run_cycles
    bricks = run.k // cfg.lanes
    n_wgt, n_act = rows or (bricks, bricks)
    return (n_wgt + n_act + 1 + int(run_cycles(cfg, run.act, run.wgt, rt)) + cfg.windows
            + RUN_SLACK_CYCLES)


def _picks(cfg, rng, count: int) -> list[int]:
    """The runs of a layer of ``count`` runs to send: at most :data:`MAX_RUNS_PER_LAYER`
    drawn without replacement, or (:func:`chained`) consecutive ones from a random start."""
    n = min(MAX_RUNS_PER_LAYER, count)
    if chained(cfg):
        start = int(rng.integers(0, count - n + 1))
        return list(range(start, start + n))
    return [int(i) for i in rng.choice(count, n, replace=False)]


def plan_workload(cfg, command_layout: dict, workload: str, names: list[str] | None, *,
                  cycles: int, seed: int, reset_cycles: int, log=None) -> WorkloadPlan:
    """The stimulus runs of ``workload``'s layers ``names`` (default all conv/fc layers) for
    ``cycles`` simulated cycles: ``n`` runs of each layer (the most that fit after
    ``reset_cycles`` by :func:`estimate_run_cycles`, at most :data:`MAX_RUNS_PER_LAYER` or
    the layer's run count), drawn with ``numpy.random.default_rng(seed)`` (:func:`_picks`),
    in rounds of one run per layer, or for a :func:`chained` design each layer's runs
    together. ``ConfigError`` on ``cycles`` when one run of every layer does not fit."""
    from ...golden.lowering import lower_layer
    from ...golden.netsim import layer_runtime
    from .stimulus import command_word
    check_drivable(cfg)
    wl, layers = load_layers(cfg, workload, names, log)
    rng = np.random.default_rng(seed)
    budget = cycles - reset_cycles
    per_layer, info = [], []
    for layer in layers:
        runs, spans = lower_layer(cfg, layer)
        rt = layer_runtime(cfg, layer)
        picks = _picks(cfg, rng, len(runs))
        useful = run_useful_macs(cfg, layer, runs, spans, picks)
        regs = run_registers(cfg, layer, runs, spans, rt, picks)
        chosen = []
        for i, u, r in zip(picks, useful, regs):
            run = runs[i]
            bricks, wrows, arows = run_rows(cfg, run)
            fields = {k: r[k] for k in rt}         # the command's registers
            chosen.append(StimulusRun(
                layer.name, i, run, fields,
                command_word(command_layout, {"bricks": bricks, **fields}),
                u, (run.k // cfg.lanes) * cfg.lanes * cfg.filters * cfg.windows,
                estimate_run_cycles(cfg, run, r, (len(wrows), len(arows))), wrows, arows))
        per_layer.append(chosen)
        varying = [k for k in rt if any(s.runtime[k] != rt[k] for s in chosen)]
        info.append({"name": layer.name, "kind": layer.kind, "shape": layer.shape_text(),
                     "runtime": {k: (bool(v) if isinstance(v, (bool, np.bool_)) else int(v))
                                 for k, v in rt.items() if k not in varying},
                     "lowered_runs": len(runs)})
        if varying:         # registers of each run (Diffy's restart bits), filled in below
            info[-1]["run_registers"] = dict.fromkeys(varying)
    n, total = 0, 0
    while n < MAX_RUNS_PER_LAYER:
        more = sum(c[n].estimated_cycles for c in per_layer if n < len(c))
        if not more or total + more > budget:
            break
        n, total = n + 1, total + more
    if n == 0:
        need = reset_cycles + sum(c[0].estimated_cycles for c in per_layer)
        raise ConfigError("cycles", f"{cycles} cycles do not hold one run of each of the "
                          f"{len(layers)} layers of {workload} (about {need} cycles by the "
                          "cycle model): give more --cycles or fewer --layers")
    plan = WorkloadPlan(wl.name, workload_bits(cfg), info, runs_per_layer=n,
                        estimated_cycles=reset_cycles + total)
    if chained(cfg):
        for c in per_layer:
            plan.runs += c[:n]
    else:
        for r in range(n):
            plan.runs += [c[r] for c in per_layer if r < len(c)]
    for d, c in zip(info, per_layer):
        d["runs"] = min(n, len(c))
        for k in d.get("run_registers", ()):
            d["run_registers"][k] = [int(s.runtime[k]) for s in c[:n]]
    return plan


def stimulus_rows(cfg, plan: WorkloadPlan):
    """``(command, wgt_rows, act_rows)`` of every run of ``plan``, in order, for
    :func:`.stimulus.write_stimulus` (the rows of :func:`run_rows`)."""
    for s in plan.runs:
        yield s.command, s.wgt_rows, s.act_rows
