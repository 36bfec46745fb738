"""Lowering of matrix products and convolutions onto tile runs.

A tile run holds at most ``depth * lanes`` values of the inner dimension K, ``windows``
output positions and ``filters`` output channels. :func:`lower_matmul` splits
``out = act @ wgt.T`` into runs: zero-padded to whole bricks, one run per
(K chunk, filter group, window group). The host adds the partial results of successive K
chunks. :func:`lower_conv2d` first forms the im2col matrix of a convolution (per group)
and lays its inner dimension out in bricks (:func:`conv_operands`, ``order``):

``"position"`` (the default; the papers' bricks, docs/papers.md#mapping-conventions)
    For each kernel position ``(r, s)`` (row-major) the group's ``Cg`` channels, zero padded
    to a multiple of ``lanes``: ``ceil(Cg / lanes) * R * S`` bricks per window, and no brick
    mixes two kernel positions.
``"channel"``
    The channel-major im2col row (``c, r, s`` order, like ``w.reshape(K, -1)``), zero
    padded once at the end: ``ceil(Cg * R * S / lanes)`` bricks, which may mix kernel
    positions.

Both give the same products (the padding is zero on both sides); the brick contents, and so
a value-dependent design's cycles, differ. Fully-connected layers (:func:`lower_matmul`) have
no kernel positions. At batch 1 a tile with per-column weight registers (the ``fc_columns``
option) deals the input vector's bricks over its window columns instead, as the papers do
(:func:`lower_fc_columns`): each column adds up a share of the inner product and the host
sums the columns. The weights of a filter group stay in the tile across window groups, so
a driver loads them once (``Run.same_weights_as_previous``).

A depthwise convolution (one input channel per group, ``groups > 1``) has a one-channel
inner product per group, which a tile whose activations are broadcast to every filter row
would run on one filter row (and, in the ``"position"`` order, one lane). ``depthwise``
chooses its mapping (:data:`DEPTHWISE_MAPPINGS`):

``"diagonal"`` (the default)
    Channel-diagonal packing (:func:`pack_depthwise`): ``lanes`` consecutive channels form
    one *tile group*, lowered as a dense grouped convolution whose weights are block
    diagonal: tile filter ``j`` of a tile group carries the kernel of the group's channel
    ``j // m`` (``m = K / groups``, the channel multiplier) at that channel's lane and zeros
    at the other lanes. Every filter row then does useful work each step; the last tile
    group is padded with zero channels and zero filters, whose outputs the assembly drops.
    ``ceil(C / lanes)`` groups of ``lanes * m`` filters, ``R * S`` bricks per window in the
    ``"position"`` order.
``"group"``
    One group per channel with its ``m`` filters, as any grouped convolution.

Only the MACs of the layer are work: :func:`conv_mac_mask` marks, per lowered group,
filter and inner-dimension position, the products that are the layer's (not brick padding,
not the block-diagonal zeros, not padding channels or filters).
"""

from __future__ import annotations

import bisect
import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["Run", "FcRun", "lower_fc_columns", "iter_fc_columns", "assemble_fc_columns",
           "ConvLowering", "lower_matmul", "assemble_matmul", "im2col", "lower_conv2d",
           "assemble_conv2d", "conv_output_size", "ORDERS", "DEFAULT_ORDER", "check_order",
           "conv_k_index", "conv_operands", "DEPTHWISE_MAPPINGS", "DEFAULT_DEPTHWISE",
           "check_depthwise", "is_depthwise", "pack_depthwise", "conv_lowered_shape",
           "conv_mac_mask", "lower_layer", "LazyRuns"]

#: Brick orders of a convolution's inner dimension (see the module docstring).
ORDERS = ("position", "channel")
#: The papers' order: channels innermost at each kernel position.
DEFAULT_ORDER = "position"
#: Mappings of a depthwise convolution (see the module docstring).
DEPTHWISE_MAPPINGS = ("diagonal", "group")
#: Channel-diagonal packing: ``lanes`` channels per tile group, block-diagonal weights.
DEFAULT_DEPTHWISE = "diagonal"


@dataclass
class Run:
    """One tile run: ``act`` (windows, k) and ``wgt`` (filters, k), zero padded."""
    act: np.ndarray
    wgt: np.ndarray
    rows: np.ndarray        # output row (window) index per tile window, -1 = padding
    cols: np.ndarray        # output column (filter) index per tile filter, -1 = padding
    chunk: int
    same_weights_as_previous: bool

    @property
    def k(self) -> int:
        """Inner-product length of the run (a whole number of bricks)."""
        return self.act.shape[1]


def lower_matmul(cfg, act, wgt) -> list[Run]:
    """Split ``act`` (M, K) x ``wgt`` (N, K) -> (M, N) into tile runs: K padded to whole
    bricks and cut into chunks of at most ``depth`` bricks, each chunk's filters in groups
    of ``filters``, each group's rows in groups of ``windows`` (innermost), every run
    zero-padded to the tile (:class:`LazyRuns`, listed)."""
    return list(LazyRuns(cfg, [(act, wgt)]))


class LazyRuns(Sequence):
    """The tile runs of each group's ``(act, wgt)`` matrix product, one group after the
    other, each built when it is indexed (:func:`lower_matmul` and :func:`lower_conv2d`
    list them): a power stimulus draws a few dozen runs of a layer whose lowering onto a
    one-filter, one-window part is hundreds of thousands (EfficientNet-Lite0 on
    baseline-16x16's row: 108 s to list them all). ``spans`` are ``(first run, run count,
    group)``."""

    def __init__(self, cfg, operands):
        self.filters, self.windows = cfg.filters, cfg.windows
        self.lanes, self.max_k = cfg.lanes, cfg.depth * cfg.lanes
        self._groups, self.spans = [], []
        total = 0
        for g, (act, wgt) in enumerate(operands):
            act = np.asarray(act, dtype=np.int64)
            wgt = np.asarray(wgt, dtype=np.int64)
            m, k = act.shape
            n = wgt.shape[0]
            k_pad = math.ceil(k / self.lanes) * self.lanes
            act = np.pad(act, ((0, 0), (0, k_pad - k)))
            wgt = np.pad(wgt, ((0, 0), (0, k_pad - k)))
            per_chunk = math.ceil(n / self.filters) * math.ceil(m / self.windows)
            count = len(range(0, k_pad, self.max_k)) * per_chunk
            self._groups.append((total, act, wgt, per_chunk, math.ceil(m / self.windows)))
            self.spans.append((total, count, g))
            total += count
        self._len = total
        self._weights = (None, None, None)      # the last filter group's (key, cols, w)
        self._firsts = [grp[0] for grp in self._groups]

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._len))]
        i = operator.index(i)
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError(f"run {i} of {self._len}")
        g = bisect.bisect_right(self._firsts, i) - 1
        first, act, wgt, per_chunk, mgroups = self._groups[g]
        chunk, rest = divmod(i - first, per_chunk)
        ni, mi = divmod(rest, mgroups)
        k0 = chunk * self.max_k
        k1 = min(k0 + self.max_k, act.shape[1])
        if self._weights[0] != (g, chunk, ni):      # one weight block per filter group
            cols = np.arange(ni * self.filters, (ni + 1) * self.filters)
            cols[cols >= wgt.shape[0]] = -1
            w = np.zeros((self.filters, k1 - k0), dtype=np.int64)
            w[cols >= 0] = wgt[cols[cols >= 0], k0:k1]
            self._weights = ((g, chunk, ni), cols, w)
        _, cols, w = self._weights
        rows = np.arange(mi * self.windows, (mi + 1) * self.windows)
        rows[rows >= act.shape[0]] = -1
        a = np.zeros((self.windows, k1 - k0), dtype=np.int64)
        a[rows >= 0] = act[rows[rows >= 0], k0:k1]
        # the runs of one (chunk, filter group) are consecutive, windows innermost
        return Run(a, w, rows, cols, chunk, mi > 0)


@dataclass
class FcRun:
    """One fully-connected run on per-column weights (an ``fc`` run, ``rtl/column_weights.py``).

    ``act`` (windows, k): column ``c`` holds input bricks ``r * windows + c`` of the run's
    rounds ``r``; ``wgt`` (windows, filters, k): column ``c``'s weights for those bricks;
    ``cols`` the output (filter) index per tile filter (-1 = padding). The run's result
    (windows, filters) holds each column's share; the output is their sum.
    """
    act: np.ndarray
    wgt: np.ndarray
    cols: np.ndarray
    chunk: int
    same_weights_as_previous: bool = False

    @property
    def k(self) -> int:
        return self.act.shape[1]


def lower_fc_columns(cfg, x, wgt) -> list[FcRun]:
    """Split the batch-1 product ``wgt`` (N, K) @ ``x`` (K,) into ``fc`` runs of ``cfg``
    (``fc_columns = 1``): the input's bricks dealt round-robin over the ``windows`` columns,
    up to ``cfg.fc_rounds`` rounds per run, one run per (K chunk, filter group)."""
    return list(iter_fc_columns(cfg, x, wgt))


def iter_fc_columns(cfg, x, wgt):
    """:func:`lower_fc_columns` one run at a time (a large layer's runs need not all be
    held at once)."""
    if not cfg.has_fc_columns:
        raise ValueError("fc_columns: the configuration has no per-column weight registers")
    x = np.asarray(x, dtype=np.int64).ravel()
    wgt = np.asarray(wgt, dtype=np.int64)
    n, k = wgt.shape
    if x.shape[0] != k:
        raise ValueError(f"k: the input has {x.shape[0]} values, the weights {k}")
    lanes, cols = cfg.lanes, cfg.windows
    rounds = max(1, math.ceil(k / (lanes * cols)))
    k_pad = rounds * cols * lanes
    xb = np.pad(x, (0, k_pad - k)).reshape(rounds, cols, lanes).transpose(1, 0, 2)
    wb = np.pad(wgt, ((0, 0), (0, k_pad - k))).reshape(n, rounds, cols, lanes)
    wb = wb.transpose(2, 0, 1, 3)                                  # (cols, N, rounds, lanes)
    for chunk, r0 in enumerate(range(0, rounds, cfg.fc_rounds)):
        r1 = min(r0 + cfg.fc_rounds, rounds)
        act = xb[:, r0:r1].reshape(cols, -1)
        for n0 in range(0, n, cfg.filters):
            ids = np.arange(n0, n0 + cfg.filters)
            ids[ids >= n] = -1
            w = np.zeros((cols, cfg.filters, (r1 - r0) * lanes), dtype=np.int64)
            w[:, ids >= 0] = wb[:, ids[ids >= 0], r0:r1].reshape(cols, int((ids >= 0).sum()),
                                                                 -1)
            yield FcRun(act, w, ids, chunk)


def assemble_fc_columns(runs: list[FcRun], results: list[np.ndarray], n: int) -> np.ndarray:
    """The (N,) output: every run's columns summed into its filters' outputs."""
    out = np.zeros(n, dtype=np.int64)
    for run, res in zip(runs, results):
        keep = run.cols >= 0
        out[run.cols[keep]] += np.asarray(res).sum(axis=0)[keep]
    return out


def assemble_matmul(runs: list[Run], results: list[np.ndarray], m: int, n: int) -> np.ndarray:
    """Add each run's (windows, filters) result into the (M, N) output."""
    out = np.zeros((m, n), dtype=np.int64)
    for run, res in zip(runs, results):
        r, c = run.rows >= 0, run.cols >= 0
        out[np.ix_(run.rows[r], run.cols[c])] += np.asarray(res)[np.ix_(r, c)]
    return out


def conv_output_size(size: int, kernel: int, stride: int, padding: int, dilation: int) -> int:
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def im2col(x, kernel, stride=1, padding=0, dilation=1) -> np.ndarray:
    """Patches of ``x`` (N, C, H, W) as rows (N*OH*OW, C*R*S), channel-major like the
    weights' ``reshape(K, -1)``."""
    x = np.asarray(x)
    n, c, h, w = x.shape
    r, s = kernel
    oh = conv_output_size(h, r, stride, padding, dilation)
    ow = conv_output_size(w, s, stride, padding, dilation)
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    cols = np.empty((n, oh, ow, c, r, s), dtype=x.dtype)
    for i in range(r):
        for j in range(s):
            hi, wj = i * dilation, j * dilation
            cols[:, :, :, :, i, j] = xp[:, :, hi:hi + stride * oh:stride,
                                        wj:wj + stride * ow:stride].transpose(0, 2, 3, 1)
    return cols.reshape(n * oh * ow, c * r * s)


def check_order(order: str) -> str:
    """``order`` if it is one of :data:`ORDERS`, else ``ValueError``."""
    if order not in ORDERS:
        raise ValueError(f"brick order must be one of {', '.join(ORDERS)}, got {order!r}")
    return order


def check_depthwise(depthwise: str) -> str:
    """``depthwise`` if it is one of :data:`DEPTHWISE_MAPPINGS`, else ``ValueError``."""
    if depthwise not in DEPTHWISE_MAPPINGS:
        raise ValueError(f"depthwise mapping must be one of {', '.join(DEPTHWISE_MAPPINGS)}, "
                         f"got {depthwise!r}")
    return depthwise


def is_depthwise(cg: int, groups: int) -> bool:
    """Whether a convolution with ``cg`` input channels per group in ``groups`` groups is
    depthwise (one channel per group, more than one group)."""
    return cg == 1 and groups > 1


def _diagonal(cg: int, groups: int, depthwise: str) -> bool:
    """Whether :func:`pack_depthwise` applies (a depthwise layer, mapping ``"diagonal"``)."""
    return check_depthwise(depthwise) == "diagonal" and is_depthwise(cg, groups)


def conv_k_index(cg: int, r: int, s: int, lanes: int, order: str = DEFAULT_ORDER) -> np.ndarray:
    """The lowered inner dimension of one group of a convolution: for every position, the
    column of the channel-major im2col row it holds (``c * R * S + i * S + j``), -1 for a
    padding zero. ``"position"``: ``ceil(Cg / lanes) * lanes * R * S`` positions;
    ``"channel"``: ``Cg * R * S`` (:func:`lower_matmul` pads the end to a whole brick)."""
    check_order(order)
    rs = r * s
    if order == "channel":
        return np.arange(cg * rs)
    cgp = math.ceil(cg / lanes) * lanes
    c = np.arange(cgp)
    idx = c[np.newaxis, :] * rs + np.arange(rs)[:, np.newaxis]     # (R*S, Cg padded)
    idx[:, cg:] = -1
    return idx.reshape(-1)


def conv_lowered_shape(k: int, cg: int, r: int, s: int, groups: int, lanes: int,
                       order: str = DEFAULT_ORDER,
                       depthwise: str = DEFAULT_DEPTHWISE) -> tuple[int, int, int]:
    """``(G, kg, Kg)``: the lowered groups, filters per group and inner-dimension length of
    a convolution with ``k`` filters of ``(cg, r, s)`` in ``groups`` groups
    (:func:`conv_operands`)."""
    if _diagonal(cg, groups, depthwise):
        return (math.ceil(groups / lanes), lanes * (k // groups),
                len(conv_k_index(lanes, r, s, lanes, order)))
    return groups, k // groups, len(conv_k_index(cg, r, s, lanes, order))


def conv_mac_mask(k: int, cg: int, r: int, s: int, groups: int, lanes: int,
                  order: str = DEFAULT_ORDER, depthwise: str = DEFAULT_DEPTHWISE) -> np.ndarray:
    """Which products of the lowered operands (:func:`conv_operands`) are MACs of the layer:
    a bool array broadcastable to ``(G, kg, Kg)`` (:func:`conv_lowered_shape`). Without
    depthwise packing it is ``(1, 1, Kg)``, false at the brick order's padding zeros
    (:func:`conv_k_index`); with it ``(G, kg, Kg)``, true only where tile filter ``j`` of a
    tile group meets its own channel's lane (``j // m``) and is a real filter."""
    if not _diagonal(cg, groups, depthwise):
        return (conv_k_index(cg, r, s, lanes, order) >= 0)[np.newaxis, np.newaxis, :]
    g, kg, _ = conv_lowered_shape(k, cg, r, s, groups, lanes, order, depthwise)
    m = k // groups
    idx = conv_k_index(lanes, r, s, lanes, order)
    lane = np.where(idx >= 0, idx // (r * s), -1)                   # channel lane per position
    j = np.arange(kg)
    real = (np.arange(g)[:, np.newaxis] * kg + j[np.newaxis, :]) < k   # (G, kg)
    return real[:, :, np.newaxis] & (lane[np.newaxis, np.newaxis, :] ==
                                     (j // m)[np.newaxis, :, np.newaxis])


def pack_depthwise(x, w, groups: int, lanes: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Channel-diagonal packing of a depthwise convolution ``x`` (N, C, H, W) * ``w``
    (K, 1, R, S), ``groups = C``, ``m = K / C`` filters per channel: the equivalent dense
    grouped convolution ``(x', w', T)`` with ``T = ceil(C / lanes)`` groups of ``lanes``
    channels (``x'`` zero padded to ``T * lanes`` channels) and ``lanes * m`` filters each,
    ``w'[f, (f // m) % lanes] = w[f]`` for the real filters ``f < K``, zero elsewhere (block
    diagonal). Filter ``f`` of ``w'`` is filter ``f`` of the layer; those from ``K`` on are
    padding."""
    x, w = np.asarray(x), np.asarray(w)
    n, c, h, wd = x.shape
    k, cg, r, s = w.shape
    if not is_depthwise(cg, groups) or c != groups or k % groups:
        raise ValueError(f"groups: C={c}, K={k}, {cg} channels per group is not a depthwise "
                         f"convolution in {groups} groups")
    m = k // groups
    t = math.ceil(c / lanes)
    xp = np.zeros((n, t * lanes, h, wd), dtype=x.dtype)
    xp[:, :c] = x
    wp = np.zeros((t * lanes * m, lanes, r, s), dtype=w.dtype)
    f = np.arange(k)
    wp[f, (f // m) % lanes] = w[:, 0]
    return xp, wp, t


def conv_operands(x, w, *, stride=1, padding=0, dilation=1, groups=1, lanes=16,
                  order: str = DEFAULT_ORDER,
                  depthwise: str = DEFAULT_DEPTHWISE) -> tuple[np.ndarray, np.ndarray]:
    """The per-group matrices a convolution is lowered to: activations ``(G, M, Kg)`` (rows:
    output positions ``(n, oh, ow)`` row-major) and weights ``(G, kg, Kg)``, the inner
    dimension laid out in ``order`` for ``lanes``-wide bricks (:func:`conv_k_index`). A
    depthwise convolution is first packed channel-diagonally when ``depthwise`` is
    ``"diagonal"`` (:func:`pack_depthwise`: ``G = ceil(C / lanes)``, ``kg = lanes * K / C``);
    otherwise ``G = groups``, ``kg = K / groups``."""
    check_order(order)
    check_depthwise(depthwise)
    x, w = np.asarray(x), np.asarray(w)
    c = x.shape[1]
    k, cg, r, s = w.shape
    if c != cg * groups or k % groups:
        raise ValueError(f"groups: C={c}, K={k} do not split into {groups} groups")
    if _diagonal(cg, groups, depthwise):
        x, w, groups = pack_depthwise(x, w, groups, lanes)
        k, cg, r, s = w.shape
    kg, rs = k // groups, r * s
    cols = im2col(x, (r, s), stride, padding, dilation)                # (M, C*R*S)
    m = cols.shape[0]
    if order == "channel":
        return (cols.reshape(m, groups, cg * rs).transpose(1, 0, 2),
                w.reshape(groups, kg, cg * rs))
    cgp = math.ceil(cg / lanes) * lanes
    a = np.zeros((groups, m, rs, cgp), dtype=cols.dtype)
    a[..., :cg] = cols.reshape(m, groups, cg, rs).transpose(1, 0, 3, 2)
    wm = np.zeros((groups, kg, rs, cgp), dtype=w.dtype)
    wm[..., :cg] = w.reshape(groups, kg, cg, rs).transpose(0, 1, 3, 2)
    return a.reshape(groups, m, rs * cgp), wm.reshape(groups, kg, rs * cgp)


@dataclass
class ConvLowering:
    runs: list[Run]
    groups: list[tuple[int, int, int]]  # (first run, run count, lowered group index)
    out_shape: tuple[int, int, int, int]
    order: str = DEFAULT_ORDER          # brick order of the inner dimension
    depthwise: str = DEFAULT_DEPTHWISE  # mapping asked for a depthwise layer
    group_filters: int | None = None    # filters per lowered group (default K / groups)
    packed: bool = False                # packed channel-diagonally (:func:`pack_depthwise`)


def lower_conv2d(cfg, x, w, *, stride=1, padding=0, dilation=1, groups=1,
                 order: str = DEFAULT_ORDER,
                 depthwise: str = DEFAULT_DEPTHWISE, lazily: bool = False) -> ConvLowering:
    """Runs for a convolution ``x`` (N, C, H, W) * ``w`` (K, C/groups, R, S), the inner
    dimension in brick ``order`` (:data:`ORDERS`, default the papers' ``"position"``), a
    depthwise layer in mapping ``depthwise`` (:data:`DEPTHWISE_MAPPINGS`, default the
    channel-diagonal packing): each lowered group's :func:`lower_matmul` runs, group after
    group (``lazily``: a :class:`LazyRuns`, each run built when indexed)."""
    x, w = np.asarray(x, dtype=np.int64), np.asarray(w, dtype=np.int64)
    n, c, h, wd = x.shape
    k, cg, r, s = w.shape
    oh = conv_output_size(h, r, stride, padding, dilation)
    ow = conv_output_size(wd, s, stride, padding, dilation)
    a, wm = conv_operands(x, w, stride=stride, padding=padding, dilation=dilation,
                          groups=groups, lanes=cfg.lanes, order=order, depthwise=depthwise)
    runs = LazyRuns(cfg, [(a[g], wm[g]) for g in range(a.shape[0])])
    return ConvLowering(runs if lazily else list(runs), runs.spans, (n, k, oh, ow), order,
                        depthwise, wm.shape[1], _diagonal(cg, groups, depthwise))


def assemble_conv2d(lowering: ConvLowering, results: list[np.ndarray], *, dtype=np.int64,
                    assemble=None) -> np.ndarray:
    """The (N, K, OH, OW) output from every run's (windows, filters) result; the outputs of
    the padding filters of a channel-diagonal packing (from K on) are dropped. ``dtype`` and
    ``assemble`` (default :func:`assemble_matmul`) let a floating-point design sum its
    partial results its own way."""
    assemble = assemble or assemble_matmul
    n, k, oh, ow = lowering.out_shape
    kg = lowering.group_filters or k // len(lowering.groups)
    out = np.zeros((n, kg * len(lowering.groups), oh, ow), dtype=dtype)
    for first, count, g in lowering.groups:
        mat = assemble(lowering.runs[first:first + count],
                       results[first:first + count], n * oh * ow, kg)
        out[:, g * kg:(g + 1) * kg] = mat.reshape(n, oh, ow, kg).transpose(0, 3, 1, 2)
    return out[:, :k]


def lower_layer(cfg, layer, *, lazily: bool = False) -> tuple[list[Run],
                                                              list[tuple[int, int, int]]]:
    """The tile runs of a workload layer (:class:`termwise.golden.workloads.Layer`), as the
    regressions' ``real`` suite and ``termwise power --workload`` lower it: a convolution by
    :func:`lower_conv2d` (the default brick order and depthwise mapping), a fully-connected
    layer by :func:`lower_matmul` (its batch rows as windows); and the ``(first run, run
    count, lowered group)`` spans of the groups (one group for an fc layer). ``lazily``:
    the runs as a :class:`LazyRuns`, each built when indexed."""
    if layer.kind == "conv":
        lowering = lower_conv2d(cfg, layer.act, layer.wgt, stride=layer.stride,
                                padding=layer.padding, dilation=layer.dilation,
                                groups=layer.groups, lazily=lazily)
        return lowering.runs, lowering.groups
    runs = LazyRuns(cfg, [(layer.act, layer.wgt)])
    return (runs if lazily else list(runs)), runs.spans
