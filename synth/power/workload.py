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
``act_signed``, as ``termwise sim`` and the ``real`` suite set them). Its runs are rows and
command words by the cocotb driver's packing (:func:`termwise.tb.driver.wgt_rows`,
:func:`~termwise.tb.driver.act_rows`, :func:`.stimulus.command_word`).

What the activity is: ``n`` runs of every chosen layer, drawn at random without
replacement (``seed``), ``n`` the most that fit the cycle budget by the golden cycle model
(at most :data:`MAX_RUNS_PER_LAYER`), interleaved layer by layer, weights loaded for every
run. What it is not: a whole inference (the layers' shares of the cycles are not the
network's: every layer gets the same number of runs), nor the weight reuse of a scheduler
that keeps weights across window groups; the fused output stage sees zero bias and
residual.

A design whose regression does not use the generic tile driver (its own testbench: e.g.
Bit-Tactical's schedule and metadata, Diffy's delta rows, bfloat16 operands) needs
operands the generic lowering does not give: :func:`check_drivable` refuses it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...gen.spec import ConfigError

__all__ = ["MAX_RUNS_PER_LAYER", "RUN_SLACK_CYCLES", "StimulusRun", "WorkloadPlan",
           "check_drivable", "workload_bits", "load_layers", "run_useful_macs",
           "estimate_run_cycles", "plan_workload", "stimulus_rows"]

#: At most this many sampled runs of each layer ("a few").
MAX_RUNS_PER_LAYER = 8
#: Cycles a run costs in the harness besides its loads, command, compute and output rows:
#: the wrapper's input and output registers and the two idle cycles.
RUN_SLACK_CYCLES = 4


@dataclass
class StimulusRun:
    """One run of the stimulus: ``layer``'s run ``index`` (in its lowering), its runtime
    registers and command word, its MACs (``useful``: the layer's own; ``padded``: every
    MAC slot of the run's bricks) and the cycles the plan expects it to take."""
    layer: str
    index: int
    run: object
    runtime: dict
    command: int
    useful_macs: int
    padded_macs: int
    estimated_cycles: int


@dataclass
class WorkloadPlan:
    workload: str
    bits: int
    layers: list[dict]                  # per chosen layer: name, kind, shape, runtime, ...
    runs: list[StimulusRun] = field(default_factory=list)   # in the harness's order
    runs_per_layer: int = 0
    estimated_cycles: int = 0


def check_drivable(cfg) -> None:
    """Refuse (``ConfigError`` on ``workload``) a design whose tile the generic driver does
    not run: its regression is its own testbench, not the generic one with the ``real``
    suite."""
    from ...gen.designs import spec
    from ...gen.designs.common import GENERIC_TB
    tb = spec(cfg).testbench(cfg)
    if tb.module != GENERIC_TB or "real" not in tb.suites:
        raise ConfigError("workload", f"not available for {cfg.top_name}: its tile is "
                          f"driven by its own testbench ({tb.module}), whose runs need "
                          "operands the generic lowering of golden/lowering.py does not "
                          "give; --workload drives the designs of the generic tile driver")


def workload_bits(cfg) -> int:
    """The fixed-point width a workload is loaded at for ``cfg`` (the ``real`` suite's)."""
    return 8 if cfg.act_bits <= 8 else 16


def load_layers(cfg, workload: str, names: list[str] | None, log=None):
    """``(workload, layers)``: the workload at the tile's width and its chosen layers
    (``names``, default every conv/fc layer), each checked to fit the tile's operand
    widths."""
    from ...golden.workloads import WORKLOADS, load_workload
    if workload not in WORKLOADS:
        raise ConfigError("workload", f"must be one of {', '.join(WORKLOADS)}, got "
                          f"{workload!r}")
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


def estimate_run_cycles(cfg, run, rt) -> int:
    """Harness cycles of one run: its rows loaded, the command, the golden cycle model's
    compute cycles, the output rows and :data:`RUN_SLACK_CYCLES`."""
    from ...golden.cycles import run_cycles
    bricks = run.k // cfg.lanes
    return (2 * bricks + 1 + int(run_cycles(cfg, run.act, run.wgt, rt)) + cfg.windows
            + RUN_SLACK_CYCLES)


def plan_workload(cfg, command_layout: dict, workload: str, names: list[str] | None, *,
                  cycles: int, seed: int, reset_cycles: int, log=None) -> WorkloadPlan:
    """The stimulus runs of ``workload``'s layers ``names`` (default all conv/fc layers) for
    ``cycles`` simulated cycles: ``n`` runs of each layer (the most that fit after
    ``reset_cycles`` by :func:`estimate_run_cycles`, at most :data:`MAX_RUNS_PER_LAYER` or
    the layer's run count), drawn with ``numpy.random.default_rng(seed)``, in rounds of one
    run per layer. ``ConfigError`` on ``cycles`` when one run of every layer does not fit."""
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
        picks = [int(i) for i in rng.choice(len(runs), min(MAX_RUNS_PER_LAYER, len(runs)),
                                            replace=False)]
        useful = run_useful_macs(cfg, layer, runs, spans, picks)
        chosen = []
        for i, u in zip(picks, useful):
            run = runs[i]
            bricks = run.k // cfg.lanes
            chosen.append(StimulusRun(
                layer.name, i, run, rt, command_word(command_layout, {"bricks": bricks, **rt}),
                u, bricks * cfg.lanes * cfg.filters * cfg.windows,
                estimate_run_cycles(cfg, run, rt)))
        per_layer.append(chosen)
        info.append({"name": layer.name, "kind": layer.kind, "shape": layer.shape_text(),
                     "runtime": {k: (bool(v) if isinstance(v, (bool, np.bool_)) else int(v))
                                 for k, v in rt.items()},
                     "lowered_runs": len(runs)})
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
    for r in range(n):
        plan.runs += [c[r] for c in per_layer if r < len(c)]
    for d, c in zip(info, per_layer):
        d["runs"] = min(n, len(c))
    return plan


def stimulus_rows(cfg, plan: WorkloadPlan):
    """``(command, wgt_rows, act_rows)`` of every run of ``plan``, in order, for
    :func:`.stimulus.write_stimulus` (the cocotb driver's row packing)."""
    from ...tb.driver import act_rows, wgt_rows
    for s in plan.runs:
        yield s.command, wgt_rows(cfg, s.run.wgt), act_rows(cfg, s.run.act)
