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

What the activity is: the network's mix of runs. Runs are drawn with ``seed`` at random
from the runs of all chosen layers together (each run of the network equally likely) while
their cycles by the cycle model fit the budget, so that each layer's share of the
stimulus's cycles is, in expectation, its share of the network's (a small layer may get no
run); chained runs: per layer as many consecutive runs from a random start as the draw gave
it, layer after layer. Weights are loaded for every run; the energy of a loaded row and of
a busy cycle are separated by :mod:`.phases`. What it is not: a whole inference (a sample
of its runs), nor the weight reuse of a scheduler that keeps weights across window groups;
the fused output stage sees zero bias and residual.

A design whose regression is its own testbench and whose golden model has neither hook
(bfloat16 tiles: the workloads are integer traces) is refused by :func:`check_drivable`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...gen.spec import ConfigError

__all__ = ["RUN_SLACK_CYCLES", "HOST_HOOKS", "StimulusRun",
           "WorkloadPlan", "check_drivable", "workload_bits", "load_layers", "run_useful_macs",
           "run_rows", "run_registers", "chained", "estimate_run_cycles", "plan_workload",
           "stimulus_rows", "trace_sha256"]

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


def _draw(rng, sizes: list[int]):
    """Every run of every layer once, in a random order (``rng.permutation`` of the runs of
    all layers together): ``(layer, run)`` index pairs."""
    offsets = np.cumsum([0] + list(sizes))
    for flat in rng.permutation(int(offsets[-1])):
        layer = int(np.searchsorted(offsets, flat, side="right") - 1)
        yield layer, int(flat - offsets[layer])


def _sample(cfg, rng, layers: list, lowered: list, rts: list, budget: int) -> tuple[list, int]:
    """The runs drawn (:func:`_draw`) while their estimated cycles fit ``budget``:
    ``([(layer, run, cycles, rows)], need)``, ``need`` the first refused run's cycles (0
    when every run fit). A :func:`chained` design's picks are, per layer, as many
    consecutive runs from a random start as the draw gave that layer (with their own
    registers, :func:`run_registers`), the longest chain shortened while they do not fit."""
    picks, total, need = [], 0, 0
    for li, i in _draw(rng, [len(runs) for runs, _ in lowered]):
        run = lowered[li][0][i]
        bricks, wrows, arows = run_rows(cfg, run)
        est = estimate_run_cycles(cfg, run, rts[li], (len(wrows), len(arows)))
        if total + est > budget:
            need = est
            break
        picks.append((li, i, est, (bricks, wrows, arows)))
        total += est
    if not chained(cfg) or not picks:
        return picks, need
    chains = {}
    for li in dict.fromkeys(p[0] for p in picks):
        n = sum(1 for p in picks if p[0] == li)
        runs, spans = lowered[li]
        start = int(rng.integers(0, len(runs) - n + 1))
        idx = list(range(start, start + n))
        regs = run_registers(cfg, layers[li], runs, spans, rts[li], idx)
        chain = []
        for i, r in zip(idx, regs):
            bricks, wrows, arows = run_rows(cfg, runs[i])
            chain.append((li, i, estimate_run_cycles(cfg, runs[i], r, (len(wrows),
                                                                        len(arows))),
                          (bricks, wrows, arows)))
        chains[li] = chain
    while sum(p[2] for c in chains.values() for p in c) > budget:
        longest = max(chains, key=lambda li: len(chains[li]))
        chains[longest].pop()       # consecutive runs may take longer than those drawn
    return [p for li in sorted(chains) for p in chains[li]], need


def plan_workload(cfg, command_layout: dict, workload: str, names: list[str] | None, *,
                  cycles: int, seed: int, reset_cycles: int, log=None) -> WorkloadPlan:
    """The stimulus runs of ``workload``'s layers ``names`` (default all conv/fc layers) for
    ``cycles`` simulated cycles, in the network's mix: runs drawn at random from the runs of
    every layer together (``numpy.random.default_rng(seed)``, :func:`_sample`), as many as
    fit after ``reset_cycles`` by :func:`estimate_run_cycles`, so that each layer's share
    of the stimulus's cycles is, in expectation, its share of the network's; a
    :func:`chained` design's runs consecutive within each layer, layer after layer.
    ``ConfigError`` on ``cycles`` when not even the first run drawn fits."""
    from ...golden.lowering import lower_layer
    from ...golden.netsim import layer_runtime
    from .stimulus import command_word
    check_drivable(cfg)
    wl, layers = load_layers(cfg, workload, names, log)
    rng = np.random.default_rng(seed)
    # the drawn runs built as they are drawn; a chained design's registers need the whole
    # lowering (its model walks every run)
    lowered = [lower_layer(cfg, layer, lazily=not chained(cfg)) for layer in layers]
    rts = [layer_runtime(cfg, layer) for layer in layers]
    picks, need = _sample(cfg, rng, layers, lowered, rts, cycles - reset_cycles)
    if not picks:
        raise ConfigError("cycles", f"{cycles} cycles do not hold one run of "
                          f"{workload}'s layers (about {reset_cycles + need} cycles by the "
                          "cycle model): give more --cycles or fewer --layers")
    by_layer = {}
    for li, i, est, rows in picks:
        by_layer.setdefault(li, []).append((i, est, rows))
    stim, info = {}, []
    for li, layer in enumerate(layers):
        (runs, spans), rt = lowered[li], rts[li]
        mine = by_layer.get(li, [])
        idx = [i for i, _, _ in mine]
        useful = run_useful_macs(cfg, layer, runs, spans, idx)
        regs = run_registers(cfg, layer, runs, spans, rt, idx)
        chosen = []
        for (i, est, (bricks, wrows, arows)), u, r in zip(mine, useful, regs):
            run = runs[i]
            fields = {k: r[k] for k in rt}         # the command's registers
            chosen.append(StimulusRun(
                layer.name, i, run, fields,
                command_word(command_layout, {"bricks": bricks, **fields}),
                u, (run.k // cfg.lanes) * cfg.lanes * cfg.filters * cfg.windows,
                est, wrows, arows))         # estimated by _sample with these registers
        stim[li] = chosen
        varying = [k for k in rt if any(s.runtime[k] != rt[k] for s in chosen)]
        d = {"name": layer.name, "kind": layer.kind, "shape": layer.shape_text(),
             "runtime": {k: (bool(v) if isinstance(v, (bool, np.bool_)) else int(v))
                         for k, v in rt.items() if k not in varying},
             "lowered_runs": len(runs), "runs": len(chosen)}
        if varying:         # registers of each run (Diffy's restart bits)
            d["run_registers"] = {k: [int(s.runtime[k]) for s in chosen] for k in varying}
        info.append(d)
    plan = WorkloadPlan(wl.name, workload_bits(cfg), info)
    if chained(cfg):
        for li in range(len(layers)):
            plan.runs += stim[li]
    else:           # in the order drawn
        at = dict.fromkeys(range(len(layers)), 0)
        for li, _, _, _ in picks:
            plan.runs.append(stim[li][at[li]])
            at[li] += 1
    plan.estimated_cycles = reset_cycles + sum(s.estimated_cycles for s in plan.runs)
    return plan


def stimulus_rows(cfg, plan: WorkloadPlan):
    """``(command, wgt_rows, act_rows)`` of every run of ``plan``, in order, for
    :func:`.stimulus.write_stimulus` (the rows of :func:`run_rows`)."""
    for s in plan.runs:
        yield s.command, s.wgt_rows, s.act_rows
