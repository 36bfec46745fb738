"""Network simulator, the layer model: one layer's cycles, ideal work and value statistics on
every design, vectorised (whole networks: :mod:`.network`; the designs and the tiles they
run on: :mod:`.presets`).

Every layer is lowered exactly as :mod:`termwise.golden.lowering` does (per channel group
an im2col matrix ``(M, Kg)`` against the group's filters ``(kg, Kg)``, the inner dimension in
the brick ``order`` -- by default the papers' ``"position"`` order, each kernel position's
channels zero padded to whole bricks, or ``"channel"``, the channel-major im2col row; K zero
padded to whole bricks, chunks of ``depth`` bricks, filter groups of ``filters`` and window
groups of ``windows``, padding rows/filters zero) -- the same function,
:func:`termwise.golden.lowering.conv_operands`, gives both -- but instead of building :class:`Run`
objects the steps of all runs are stacked along the steps axis and handed to the design's
golden ``step_cycles`` in large blocks. A step depends only on its own bricks, so

    total = sum over (group, filter group, window group, brick) of max(step_cycles, 1)
            + run_overhead * runs,     runs = groups * chunks * filter groups * window groups

whose second term is this RTL's fixed per-run cost (its runs do not overlap; the design's
``RUN_OVERHEAD`` and the configuration's pipeline registers,
:func:`termwise.golden.cycles.run_overhead`). The
comparison between designs uses the steady-state ``cycles`` (the sum of step cycles, as the
papers' models count; a pipelined host would overlap the per-run overheads), while
``rtl_cycles`` adds the per-run overheads and equals the sum of
:func:`termwise.golden.cycles.run_cycles` over the lowered runs exactly (tested in
``tests/golden/test_netsim.py``). Counting the overheads would charge the baseline a second
cycle per brick on a layer whose runs are one brick long. A design whose steps are *not* independent
(a model with ``STEPS_INDEPENDENT = False``, or Pragmatic with column synchronisation)
falls back to one ``run_cycles`` call per run.

Depthwise convolutions (``depthwise``, default ``"diagonal"``): a layer with one input
channel per group would, group by group, give each step a one-channel inner product, i.e.
one busy filter row of the tile and, in the position order, one busy lane of it. Instead,
``lanes`` consecutive channels become one tile group, lowered like a dense layer over those
channels whose weights are block diagonal: tile filter ``f`` holds the kernel of the
group's channel ``f`` (``f // m`` with a channel multiplier ``m``) in that channel's lane,
zeros in the others. Each activation brick then holds ``lanes`` channels at one kernel
position, every filter row produces an output of the layer each step, and the tile runs the
lowering unchanged; the last tile group's missing channels and filters are zeros whose
outputs are dropped. ``"group"`` keeps one group per channel.

Sampling (optional, deterministic): ``max_window_groups`` keeps evenly spaced window groups
(``np.linspace(0, WG - 1, n).round()``); ``sample_pairs`` bounds the work per layer and
design to about ``sample_pairs`` PE-lane evaluations: at most
``sample_pairs // (filters * windows * lanes)`` steps, drawn uniformly without replacement
(``np.random.default_rng(0)``) from all the layer's steps. The step cycles are scaled by
(all steps / sampled steps); run counts stay exact, and so do the totals of the designs
whose step cost does not depend on the values (baseline, Stripes).

Ideal ("potential") work follows :mod:`termwise.golden.potential`: every design's work per
MAC is a product ``fa(act) * fw(wgt)``, so the sum over the ``M x kg x Kg`` MACs of a group
is ``sum_k (sum_m fa[m, k]) * (sum_n fw[n, k])`` -- computed without broadcasting and tested
equal to :func:`termwise.golden.potential.total_work`. The sum runs over the layer's MACs
only: the zeros the ``"position"`` order pads each kernel position's channels with are
excluded (``valid``), while the factors are taken on the lowered rows, so a group precision
is that of a brick as the tile sees it. On a channel-diagonally packed depthwise layer which
products are MACs depends on the filter as well (:func:`lowered_mask`, per (group, filter,
column)): the block-diagonal zeros, padding channels and padding filters count nothing,
the mask multiplying the weight factors, ``sum_k (sum_m fa[m, k]) * (sum_n valid[n, k]
fw[n, k])``. A depthwise layer's ideal work is taken on that packed lowering in either
mapping (:data:`IDEAL_DEPTHWISE`), so it is a property of the layer, the same for
``"diagonal"`` and ``"group"``; with ``"group"`` the work factors' groups would otherwise be
one channel per brick. The value statistics (``layer_stats``) skip the bricks that hold no
MAC, and the traffic model (:mod:`.traffic`) counts the layer's outputs, not the padding
filters'.

Bit-Tactical (``tactical``, docs/papers.md#ideal-potential-work) has no entry in
:mod:`termwise.golden.potential`; its ideal work per MAC is its back end's with every zero
weight skipped: TCLp ``width_group(a) * (w != 0) * Ww`` (Dynamic Stripes' activation group
precision, group = ``cfg.lanes``), TCLe ``terms(a) * (w != 0) * Ww`` (Pragmatic's terms in
the preset's encoding, Booth for ``tactical-tcle-16x16``). Its cycles come from the
whole-layer hook :func:`termwise.golden.arch.tactical.layer_run_cycles` (the schedule of
each (group, filter group, chunk) is computed once and reused by every window group), exact
unless window groups are sampled (``max_window_groups``; ``sample_pairs`` does not apply).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..arch import model_of
from ..cycles import run_overhead
from ..lowering import (DEFAULT_DEPTHWISE, DEFAULT_ORDER, check_depthwise, check_order,
                        conv_k_index, conv_mac_mask, conv_operands, is_depthwise)
from ..work import MODEL_ENCODING, grouped_precision, layer_precision
from ..terms import essential_bits, precision_needed, term_count
# The designs and their presets live in .presets; read here through this module too, as
# they were before the split (gen/flows/tune/space.py, gen/flows/simulation/options.py).
from .presets import REFERENCE

__all__ = ["lowered_operands", "lowered_columns", "lowered_mask", "layer_cycles",
           "layer_potential", "IDEAL_DEPTHWISE", "layer_is_depthwise", "layer_fc_columns",
           "fc_layer_cycles", "layer_stats", "layer_runtime", "LAYER_REGISTERS",
           "simulate_layer", "SIGNED_DIGITS", "check_signed_digits", "LayerResult",
           "steps_independent"]


def layer_fc_columns(cfg, layer) -> bool:
    """Whether ``layer`` runs as ``fc`` runs on ``cfg``: a fully-connected layer at batch 1
    on a tile with per-column weight registers."""
    return cfg.has_fc_columns and layer.kind == "fc" and np.shape(layer.act)[0] == 1


def fc_layer_cycles(cfg, x, w, rt) -> dict:
    """Cycles of a batch-1 fully-connected layer (``x`` (K,), ``w`` (N, K)) as ``fc`` runs
    (:func:`termwise.golden.lowering.iter_fc_columns`). ``rtl_cycles`` is exact
    (:func:`termwise.golden.cycles.fc_run_cycles`); ``cycles``, the steady-state basis of
    the other layers, costs every round ``max(c_k, windows)`` (its compute, or its weight
    reads when those take longer: :func:`termwise.golden.cycles.fc_step_cycles`), leaving
    out each run's fixed overhead and the first round's weight reads, which a host
    streaming weights without a break would overlap. For the arrays that take a round into
    registers of their own (Pragmatic, Laconic: their models' ``fc_run_cycles``) a round
    can also start before a long predecessor ends, so their ``cycles`` is an upper bound
    and ``rtl_cycles`` the exact count."""
    from ..cycles import fc_run_cycles, fc_step_cycles
    from ..lowering import iter_fc_columns
    total = runs = steps = steady = 0
    for run in iter_fc_columns(cfg, x, w):
        total += fc_run_cycles(cfg, run.act, run.wgt, rt)
        steady += int(np.maximum(fc_step_cycles(cfg, run.act, run.wgt, rt),
                                 cfg.windows).sum())
        runs += 1
        steps += run.k // cfg.lanes
    return {"cycles": steady, "rtl_cycles": total, "runs": runs, "steps": steps,
            "step_cycles": steady, "sampled": False, "scale": 1.0}


def _out_width(layer) -> int:
    """Output columns per row (Diffy's deltas restart at each row); 1 for an fc layer."""
    if layer.kind == "fc":
        return 1
    from ..lowering import conv_output_size
    return conv_output_size(np.shape(layer.act)[3], np.shape(layer.wgt)[3], layer.stride,
                            layer.padding, layer.dilation)


#: The lowering a depthwise layer's ideal work is counted on, whatever its mapping: the
#: channel-diagonal packing, whose bricks hold ``lanes`` channels at one kernel position as a
#: dense layer's do, so that a group precision (Dynamic Stripes, Loom, TCLp) is that of the
#: same ``lanes`` values in both mappings; the per-(filter, column) MAC mask leaves only
#: the layer's MACs. The ideal work is a property of the layer, not of its mapping.
IDEAL_DEPTHWISE = "diagonal"


def layer_is_depthwise(layer) -> bool:
    """Whether ``layer`` is a depthwise convolution (one input channel per group)."""
    return layer.kind == "conv" and is_depthwise(np.shape(layer.wgt)[1], layer.groups)


def lowered_operands(layer, order: str = DEFAULT_ORDER, lanes: int = 16,
                     depthwise: str = DEFAULT_DEPTHWISE) -> tuple[np.ndarray, np.ndarray]:
    """The per-group matrices a layer is lowered to: ``A`` (G, M, Kg) and ``Wm`` (G, kg, Kg),
    exactly those :func:`termwise.golden.lowering.lower_conv2d` lowers with brick ``order``
    and depthwise mapping ``depthwise`` on a ``lanes``-lane tile
    (:func:`termwise.golden.lowering.conv_operands`; a fully-connected layer is one group,
    M = batch, its K the input vector in any order)."""
    check_order(order)
    check_depthwise(depthwise)
    x = np.asarray(layer.act, dtype=np.int64)
    w = np.asarray(layer.wgt, dtype=np.int64)
    if layer.kind == "fc":
        return x.reshape(1, x.shape[0], -1), w.reshape(1, w.shape[0], -1)
    return conv_operands(x, w, stride=layer.stride, padding=layer.padding,
                         dilation=layer.dilation, groups=layer.groups, lanes=lanes,
                         order=order, depthwise=depthwise)


def lowered_columns(layer, order: str = DEFAULT_ORDER, lanes: int = 16,
                    depthwise: str = DEFAULT_DEPTHWISE) -> np.ndarray:
    """For every position of :func:`lowered_operands`' inner dimension, the column of the
    lowered group's channel-major row it holds (-1: a padding zero of the ``"position"``
    order). A channel-diagonally packed depthwise layer's group has ``lanes`` channels
    (:func:`termwise.golden.lowering.pack_depthwise`); which of its products are MACs is
    per filter (:func:`lowered_mask`)."""
    if layer.kind == "fc":
        return np.arange(int(np.prod(np.shape(layer.wgt)[1:])))
    _, cg, r, s = np.shape(layer.wgt)
    if check_depthwise(depthwise) == "diagonal" and layer_is_depthwise(layer):
        cg = lanes
    return conv_k_index(cg, r, s, lanes, order)


def lowered_mask(layer, order: str = DEFAULT_ORDER, lanes: int = 16,
                 depthwise: str = DEFAULT_DEPTHWISE) -> np.ndarray:
    """Which products of :func:`lowered_operands` are MACs of the layer: bool, broadcastable
    to (G, kg, Kg) (:func:`termwise.golden.lowering.conv_mac_mask`): ``(1, 1, Kg)`` (the
    brick order's padding zeros excluded) unless a depthwise layer is packed
    channel-diagonally, then per (group, filter, column)."""
    if layer.kind == "fc":
        return np.ones((1, 1, int(np.prod(np.shape(layer.wgt)[1:]))), dtype=bool)
    k, cg, r, s = np.shape(layer.wgt)
    return conv_mac_mask(k, cg, r, s, layer.groups, lanes, order, depthwise)


def steps_independent(cfg) -> bool:
    """Whether the design's step costs depend only on their own bricks (its golden model's
    ``steps_independent(cfg)`` or ``STEPS_INDEPENDENT``, default True)."""
    mod = model_of(cfg)
    if hasattr(mod, "steps_independent"):
        return bool(mod.steps_independent(cfg))
    return getattr(mod, "STEPS_INDEPENDENT", True)


def _sample_groups(wg: int, limit: int | None) -> np.ndarray:
    if limit is None or wg <= limit:
        return np.arange(wg)
    return np.unique(np.linspace(0, wg - 1, limit).round().astype(np.int64))


def layer_cycles(cfg, a, wm, rt=None, *, max_window_groups: int | None = None,
                 sample_pairs: int | None = None, block_elems: int = 1 << 22) -> dict:
    """Cycles of one lowered layer (``a`` (G, M, K), ``wm`` (G, kg, K)) on ``cfg``.

    Returns ``{"cycles", "runs", "steps", "step_cycles", "sampled", "scale"}``; ``cycles``
    is exact unless window groups were sampled (then ``step_cycles * scale`` rounded).
    """
    rt = rt or cfg.runtime_values()
    mod = model_of(cfg)
    a = np.asarray(a, dtype=np.int64)
    wm = np.asarray(wm, dtype=np.int64)
    g, m, k = a.shape
    kg = wm.shape[1]
    lanes, win, fil = cfg.lanes, cfg.windows, cfg.filters
    st = math.ceil(k / lanes)
    chunks = math.ceil(st / cfg.depth)
    wgc, fgc = math.ceil(m / win), math.ceil(kg / fil)
    runs = g * chunks * fgc * wgc
    sel = _sample_groups(wgc, max_window_groups)
    scale = wgc / len(sel)

    if hasattr(mod, "layer_run_cycles"):   # a vectorised whole-layer model (Cnvlutin)
        total = mod.layer_run_cycles(cfg, a[:, :, :], wm, rt, sel) * scale
        return {"cycles": int(round(total)),
                "rtl_cycles": int(round(total)) + run_overhead(cfg) * runs, "runs": runs,
                "steps": g * chunks * fgc * wgc, "step_cycles": total,
                "sampled": scale != 1, "scale": scale}
    if not steps_independent(cfg):
        return _layer_cycles_per_run(cfg, a, wm, rt, sel, scale, runs)

    ap = np.zeros((g, wgc * win, st * lanes), dtype=np.int64)
    ap[:, :m, :k] = a
    act_t = ap.reshape(g, wgc, win, st, lanes)[:, sel].transpose(2, 0, 1, 3, 4)
    nsel = len(sel)
    act_t = np.ascontiguousarray(act_t).reshape(win, g * nsel * st, lanes)
    del ap
    wp = np.zeros((g, fgc * fil, st * lanes), dtype=np.int64)
    wp[:, :kg, :k] = wm
    wgt_t = np.ascontiguousarray(wp.reshape(g, fgc, fil, st, lanes).transpose(2, 0, 1, 3, 4))
    wgt_t = wgt_t.reshape(fil, g * fgc * st, lanes)
    del wp

    total_steps = g * fgc * nsel * st
    order = None
    if sample_pairs is not None:
        cap = max(1, sample_pairs // (fil * win * lanes))
        if total_steps > cap:
            rng = np.random.default_rng(0)
            order = np.sort(rng.choice(total_steps, cap, replace=False))
            scale *= total_steps / cap
    n_eval = total_steps if order is None else len(order)
    block = max(1, block_elems // ((win + fil) * lanes))
    acc = 0
    for start in range(0, n_eval, block):
        idx = np.arange(start, min(start + block, n_eval))
        if order is not None:
            idx = order[idx]
        gi, fi, wi, si = np.unravel_index(idx, (g, fgc, nsel, st))
        act = np.take(act_t, (gi * nsel + wi) * st + si, axis=1)
        wgt = np.take(wgt_t, (gi * fgc + fi) * st + si, axis=1)
        cyc = np.asarray(mod.step_cycles(cfg, act, wgt, rt), dtype=np.int64)
        acc += int(np.maximum(cyc, 1).sum())
    step_total = acc * scale
    return {"cycles": int(round(step_total)),
            "rtl_cycles": int(round(step_total)) + run_overhead(cfg) * runs, "runs": runs,
            "steps": int(round(n_eval * scale)), "step_cycles": step_total,
            "sampled": scale != 1, "scale": scale}


def _layer_cycles_per_run(cfg, a, wm, rt, sel, scale, runs) -> dict:
    """Fallback for designs whose steps depend on each other: lower_matmul per group and one
    run_cycles per run (only the sampled window groups)."""
    from ..cycles import run_cycles
    from ..lowering import lower_matmul
    acc, steps = 0, 0
    keep = set(int(s) for s in sel)
    for gi in range(a.shape[0]):
        for run in lower_matmul(cfg, a[gi], wm[gi]):
            if int(run.rows[0]) // cfg.windows not in keep:
                continue
            acc += run_cycles(cfg, run.act, run.wgt, rt) - run_overhead(cfg)
            steps += run.k // cfg.lanes
    step_total = acc * scale
    return {"cycles": int(round(step_total)),
            "rtl_cycles": int(round(step_total)) + run_overhead(cfg) * runs, "runs": runs,
            "steps": int(round(steps * scale)), "step_cycles": step_total,
            "sampled": scale != 1, "scale": scale}


#: Runtime registers a layer sets (from its precision profile); the others are per run.
LAYER_REGISTERS = ("precision", "wgt_precision", "act_signed", "fc")


def layer_runtime(cfg, layer) -> dict:
    """Runtime registers of a layer: Stripes' ``precision`` = the layer's activation
    precision, Loom's ``wgt_precision`` = its weight precision (lossless on the data when
    the workload gives none), and ``act_signed`` = whether the layer's input activations
    are two's complement (unsigned after a ReLU: no sign bit to detect or process)."""
    p = layer.act_precision or layer_precision(layer.act, cfg.act_bits, layer.act_signed)
    pw = layer.wgt_precision or layer_precision(layer.wgt, cfg.wgt_bits, True)
    sign = {"act_signed": bool(layer.act_signed)} if "act_signed" in cfg.runtime else {}
    return cfg.runtime_values(precision=min(p, cfg.act_bits),
                              wgt_precision=min(pw, cfg.wgt_bits), **sign)


def layer_potential(cfg, a, wm, rt, cache=None, valid=None) -> int:
    """Ideal single-bit-product work of ``cfg``'s design over the layer's MACs (per group
    ``M x kg x Kg``, no padding), as :func:`termwise.golden.potential.total_work` counts it
    with ``group = cfg.lanes``, ``act_signed`` the layer's (``rt``), the configuration's encoding
    and the runtime precisions: the golden model's ``work_factors``
    (:mod:`termwise.golden.work`), taken on the lowered rows. ``valid`` (default all) marks
    the products that are MACs of the layer: bool (Kg,) per inner-dimension position (the
    padding zeros of the ``"position"`` brick order, ``lowered_columns(...) < 0``, count no
    work), or broadcastable to (G, kg, Kg) per filter and position (:func:`lowered_mask`:
    also the block-diagonal zeros and padding filters of a channel-diagonally packed
    depthwise layer). Since the mask is on the weights' side, the sum stays
    ``sum_k (sum_m fa[m, k]) * (sum_n valid[n, k] fw[n, k])``. ``cache`` (a dict) shares
    per-operand factors between the designs of one layer."""
    cache = {} if cache is None else cache
    fa, fw = model_of(cfg).work_factors(cfg, a, wm, rt, cache)
    g, m, k = a.shape
    n = wm.shape[1]
    valid = None if valid is None else np.asarray(valid, dtype=bool)
    sa = np.asarray(fa, dtype=np.int64).sum(axis=1) if np.ndim(fa) else np.full((g, k), fa * m)
    if valid is not None and valid.ndim == 3:
        mask = np.broadcast_to(valid, (g, n, k))
        sw = ((np.asarray(fw, dtype=np.int64) * mask).sum(axis=1) if np.ndim(fw)
              else mask.sum(axis=1, dtype=np.int64) * fw)
        valid = None
    else:
        sw = np.asarray(fw, dtype=np.int64).sum(axis=1) if np.ndim(fw) else \
            np.full((g, k), fw * n)
    prod = sa.astype(np.int64) * sw.astype(np.int64)
    if valid is not None:
        prod = prod[..., valid]
    return int(prod.sum())


def layer_stats(layer, a, bits: int = 16, group: int = 16, valid=None) -> dict:
    """Value statistics that explain a layer's speedups (on the layer's input activations
    and weights, not on the im2col copies; group precision on the lowered rows' bricks, of
    the bricks that hold a MAC of the layer when ``valid`` (:func:`lowered_mask`) is given:
    a brick of only padding, e.g. of a channel-diagonal packing's padding channels in the
    ``"channel"`` order, is not about the layer)."""
    x = np.asarray(layer.act, dtype=np.int64)
    w = np.asarray(layer.wgt, dtype=np.int64)
    gp = grouped_precision(a, bits, layer.act_signed, group)[..., ::group]   # (G, M, B)
    if valid is not None:
        mask = np.asarray(valid, dtype=bool)
        mask = mask.reshape((1,) * (3 - mask.ndim) + mask.shape).any(axis=1)  # (G|1, Kg)
        k = mask.shape[-1]
        pad = np.zeros(mask.shape[:-1] + ((-k) % group,), dtype=bool)
        bricks = np.concatenate([mask, pad], axis=-1).reshape(mask.shape[0], -1, group)
        bricks = np.broadcast_to(bricks.any(axis=-1)[:, np.newaxis, :], gp.shape)
        if bricks.any():
            gp = gp[bricks]
    return {
        "act_zero_fraction": float((x == 0).mean()),
        "wgt_zero_fraction": float((w == 0).mean()),
        "act_precision": layer_precision(x, bits, layer.act_signed),
        "wgt_precision": layer_precision(w, bits, True),
        "act_group_precision_mean": float(np.mean(gp)),
        "act_value_precision_mean": float(precision_needed(x, bits, layer.act_signed).mean()),
        "act_essential_bits_mean": float(essential_bits(x, bits).mean()),
        "act_booth_terms_mean": float(term_count(x, bits, "booth", signed=True).mean()),
        "wgt_booth_terms_mean": float(term_count(w, bits, "booth", signed=True).mean()),
    }


@dataclass
class LayerResult:
    name: str
    shape: str
    macs: int
    stats: dict
    designs: dict = field(default_factory=dict)   # design -> {cycles, runs, work, rt, ...}
    seconds: float = 0.0                           # wall time of the layer (all designs)



#: ``signed_digits`` values: the hardware's radix-4 Booth, or the model-only CSD of ``|x|``.
SIGNED_DIGITS = ("booth", "csd")


def check_signed_digits(value: str) -> str:
    """``value`` if it is one of :data:`SIGNED_DIGITS` (else a one-line ValueError)."""
    if value not in SIGNED_DIGITS:
        raise ValueError(f"signed_digits: must be one of {', '.join(SIGNED_DIGITS)}, got "
                         f"{value!r}")
    return value


def simulate_layer(layer, cfgs, *, order: str = DEFAULT_ORDER,
                   depthwise: str = DEFAULT_DEPTHWISE, max_window_groups=None,
                   sample_pairs=None, signed_digits: str = "booth") -> LayerResult:
    """One layer on every design of ``cfgs`` (``{design: TileConfig}``), lowered in brick
    ``order`` (:data:`termwise.golden.lowering.ORDERS`), a depthwise layer in mapping
    ``depthwise`` (:data:`termwise.golden.lowering.DEPTHWISE_MAPPINGS`). The ideal work of a
    depthwise layer is counted on the :data:`IDEAL_DEPTHWISE` lowering in either mapping.
    ``signed_digits``: ``"booth"`` (the hardware's), or the model-only ``"csd"`` for the
    Booth-coded designs (:data:`termwise.golden.work.MODEL_ENCODING`)."""
    t0 = time.perf_counter()
    check_order(order)
    check_depthwise(depthwise)
    check_signed_digits(signed_digits)
    ideal_mapping = IDEAL_DEPTHWISE if layer_is_depthwise(layer) else depthwise
    # The lowering depends on the lanes (the "position" order pads to whole bricks, the
    # channel-diagonal packing takes `lanes` channels): one per lane count of the designs,
    # (a, wm, MAC mask), and the one the ideal work is counted on with its own cache of
    # per-operand work factors.
    lowered = {}

    def lower(lanes, mapping):
        if (lanes, mapping) not in lowered:
            a, wm = lowered_operands(layer, order, lanes, mapping)
            lowered[lanes, mapping] = (a, wm, lowered_mask(layer, order, lanes, mapping), {})
        return lowered[lanes, mapping]

    def operands(cfg):
        return lower(cfg.lanes, depthwise)

    # The statistics are taken at the reference design's width and brick (the baseline's,
    # else the first design's): the hardware's width and 16 lanes for the 16x16 presets.
    ref = cfgs.get(REFERENCE) or next(iter(cfgs.values()))
    ref_a, _, ref_mask, _ = operands(ref)
    stats = layer_stats(layer, ref_a, ref.act_bits, ref.lanes, valid=ref_mask)
    # The precisions the runtime registers get (the workload's profile, else lossless).
    stats["profile_act_precision"] = layer.act_precision or stats["act_precision"]
    stats["profile_wgt_precision"] = layer.wgt_precision or stats["wgt_precision"]
    res = LayerResult(layer.name, layer.shape_text(), layer.macs, stats)
    for design, cfg in cfgs.items():
        a, wm, _, _ = operands(cfg)
        mod = model_of(cfg)
        rt = layer_runtime(cfg, layer)
        if signed_digits != "booth":
            rt[MODEL_ENCODING] = signed_digits
        if hasattr(mod, "layer_registers"):
            rt = dict(rt, **mod.layer_registers(cfg, layer, out_width=_out_width(layer)))
        if layer_fc_columns(cfg, layer):        # batch-1 fc on every window column
            rt["fc"] = True
            cyc = fc_layer_cycles(cfg, a[0, 0], wm[0], rt)
        elif hasattr(mod, "layer_cycles"):      # an exact whole-layer model (Diffy)
            cyc = dict(mod.layer_cycles(cfg, a, wm, rt), sampled=False, scale=1.0)
        else:
            cyc = layer_cycles(cfg, a, wm, rt, max_window_groups=max_window_groups,
                               sample_pairs=sample_pairs)
        ia, iwm, valid, cache = lower(cfg.lanes, ideal_mapping)
        cyc["work"] = layer_potential(cfg, ia, iwm, rt, cache, valid=valid)
        # MACs the tile could do per cycle (the utilisation's denominator, per cycle).
        cyc["mac_slots"] = cfg.filters * cfg.windows * cfg.lanes
        cyc["seconds"] = time.perf_counter() - t0
        cyc["rt"] = {r: rt[r] for r in cfg.runtime if r in rt and r in LAYER_REGISTERS}
        res.designs[design] = cyc
    res.seconds = time.perf_counter() - t0
    return res
