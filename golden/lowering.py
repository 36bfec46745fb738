"""Lowering of matrix products and convolutions onto tile runs.

A tile run holds at most ``depth * lanes`` values of the inner dimension K, ``windows``
output positions and ``filters`` output channels. :func:`lower_matmul` splits
``out = act @ wgt.T`` into runs: zero-padded to whole bricks, one run per
(K chunk, filter group, window group). The host adds the partial results of successive K
chunks. :func:`lower_conv2d` first forms the im2col matrix of a convolution (per group).
The weights of a filter group stay in the tile across window groups, so a driver loads
them once (``Run.same_weights_as_previous``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["Run", "ConvLowering", "lower_matmul", "assemble_matmul", "im2col", "lower_conv2d",
           "assemble_conv2d", "conv_output_size"]


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
    """Split ``act`` (M, K) x ``wgt`` (N, K) -> (M, N) into tile runs."""
    act = np.asarray(act, dtype=np.int64)
    wgt = np.asarray(wgt, dtype=np.int64)
    m, k = act.shape
    n = wgt.shape[0]
    lanes, max_k = cfg.lanes, cfg.depth * cfg.lanes
    k_pad = math.ceil(k / lanes) * lanes
    act = np.pad(act, ((0, 0), (0, k_pad - k)))
    wgt = np.pad(wgt, ((0, 0), (0, k_pad - k)))
    runs = []
    previous = None
    for chunk, k0 in enumerate(range(0, k_pad, max_k)):
        k1 = min(k0 + max_k, k_pad)
        for n0 in range(0, n, cfg.filters):
            cols = np.arange(n0, n0 + cfg.filters)
            cols[cols >= n] = -1
            w = np.zeros((cfg.filters, k1 - k0), dtype=np.int64)
            w[cols >= 0] = wgt[cols[cols >= 0], k0:k1]
            for m0 in range(0, m, cfg.windows):
                rows = np.arange(m0, m0 + cfg.windows)
                rows[rows >= m] = -1
                a = np.zeros((cfg.windows, k1 - k0), dtype=np.int64)
                a[rows >= 0] = act[rows[rows >= 0], k0:k1]
                key = (chunk, n0)
                runs.append(Run(a, w, rows, cols, chunk, previous == key))
                previous = key
    return runs


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


@dataclass
class ConvLowering:
    runs: list[Run]
    groups: list[tuple[int, int, int]]  # (first run, run count, group index)
    out_shape: tuple[int, int, int, int]


def lower_conv2d(cfg, x, w, *, stride=1, padding=0, dilation=1, groups=1) -> ConvLowering:
    """Runs for a convolution ``x`` (N, C, H, W) * ``w`` (K, C/groups, R, S)."""
    x, w = np.asarray(x, dtype=np.int64), np.asarray(w, dtype=np.int64)
    n, c, h, wd = x.shape
    k, cg, r, s = w.shape
    if c != cg * groups or k % groups:
        raise ValueError(f"groups: C={c}, K={k} do not split into {groups} groups")
    oh = conv_output_size(h, r, stride, padding, dilation)
    ow = conv_output_size(wd, s, stride, padding, dilation)
    kg = k // groups
    runs, spans = [], []
    for g in range(groups):
        cols = im2col(x[:, g * cg:(g + 1) * cg], (r, s), stride, padding, dilation)
        wg = w[g * kg:(g + 1) * kg].reshape(kg, -1)
        group_runs = lower_matmul(cfg, cols, wg)
        spans.append((len(runs), len(group_runs), g))
        runs.extend(group_runs)
    return ConvLowering(runs, spans, (n, k, oh, ow))


def assemble_conv2d(lowering: ConvLowering, results: list[np.ndarray]) -> np.ndarray:
    n, k, oh, ow = lowering.out_shape
    kg = k // len(lowering.groups)
    out = np.zeros((n, k, oh, ow), dtype=np.int64)
    for first, count, g in lowering.groups:
        mat = assemble_matmul(lowering.runs[first:first + count],
                              results[first:first + count], n * oh * ow, kg)
        out[:, g * kg:(g + 1) * kg] = mat.reshape(n, oh, ow, kg).transpose(0, 3, 1, 2)
    return out
