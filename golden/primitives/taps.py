"""Tap-major convolutions: the filter taps ``(r, s)`` are the outer loop.

The network workloads (:mod:`termwise.golden.workloads`) run hundreds of float forward
passes at HD while they calibrate and profile; these three algorithms are the fast ones
they use. Each computes what :func:`~termwise.golden.primitives.direct.conv2d_direct`
computes, in another summation order (float results differ at rounding level; integer
results are exact):

``tap_gemm``
    stride-1 convolution as one matrix product per image, the unfolded rows ordered
    ``(r, s, c)`` (tap-major, unlike :class:`~.im2col.Im2colGemm`'s ``(c, r, s)``).
``tap_gemm_bands``
    ``tap_gemm`` on bands of :attr:`TapGemmBands.rows` output rows, which bounds the
    unfolded buffer of an HD frame to a band.
``depthwise_taps``
    depthwise convolution (groups = C = K) as a loop over the taps, vectorised over
    channels: the grouped algorithms loop (or batch tiny GEMMs) over the groups, seconds
    per layer on EfficientNet's 240-channel layers.

The functions keep the workloads' float32 interface (:func:`gemm_taps` and
:func:`gemm_taps_bands` compute in ``dtype``, float32 by default); the registered
algorithms compute in the operands' compute dtype (``int64`` for integers, exact).
"""

from __future__ import annotations

import numpy as np

from ._args import pad_input
from .base import ConvAlgorithm
from .problem import ConvProblem

__all__ = ["gemm_taps", "gemm_taps_bands", "depthwise_taps", "TapGemm", "TapGemmBands",
           "DepthwiseTaps", "BAND_ROWS"]

#: Output rows per band of :func:`gemm_taps_bands` (a 64-channel 3x3 layer's unfolded
#: band at 640 columns is 64 x 9 x 64 x 640 float32, 94 MB).
BAND_ROWS = 64


def gemm_taps(x, w, bias=None, padding=1, dtype=np.float32) -> np.ndarray:
    """Stride-1 convolution as one matrix product per image.

    Parameters
    ----------
    x : array_like, shape (N, C, H, W)
    w : array_like, shape (K, C, R, S)
    bias : array_like, shape (K,), optional
    padding : int
        Zero padding on every side.
    dtype : numpy dtype
        Compute (and result) dtype; operands are cast to it.

    Returns
    -------
    numpy.ndarray, shape (N, K, H + 2 padding - R + 1, W + 2 padding - S + 1)
    """
    x = np.asarray(x, dtype)
    w = np.asarray(w, dtype)
    n, c, h, ww = x.shape
    k, _, r, s = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    oh, ow = h + 2 * padding - r + 1, ww + 2 * padding - s + 1
    wm = w.transpose(0, 2, 3, 1).reshape(k, r * s * c)
    out = np.empty((n, k, oh, ow), dtype)
    cols = np.empty((r, s, c, oh, ow), dtype)
    for b in range(n):
        for i in range(r):
            for j in range(s):
                cols[i, j] = xp[b, :, i:i + oh, j:j + ow]
        out[b] = (wm @ cols.reshape(r * s * c, oh * ow)).reshape(k, oh, ow)
    if bias is not None:
        out += np.asarray(bias, dtype)[:, None, None]
    return out


def gemm_taps_bands(x, w, bias=None, padding=1, rows: int = BAND_ROWS,
                    dtype=np.float32) -> np.ndarray:
    """:func:`gemm_taps` on bands of ``rows`` output rows (the same sums per output)."""
    x = np.asarray(x, dtype)
    r = np.asarray(w).shape[2]
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    oh = xp.shape[2] - r + 1
    if oh <= rows:
        return gemm_taps(xp, w, bias, padding=0, dtype=dtype)
    return np.concatenate([gemm_taps(xp[:, :, y:min(y + rows, oh) + r - 1], w, bias,
                                     padding=0, dtype=dtype)
                           for y in range(0, oh, rows)], axis=2)


def depthwise_taps(x, w, bias, stride, padding) -> np.ndarray:
    """Depthwise convolution (``w`` (C, 1, R, S), groups = C) as a loop over the taps.

    ``stride`` and ``padding`` are ints or (vertical, horizontal) pairs; the result has
    the operands' result dtype."""
    sh, sw = (stride, stride) if np.isscalar(stride) else stride
    ph, pw = (padding, padding) if np.isscalar(padding) else padding
    n, c, h, wd = x.shape
    _, _, r, s = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    oh = (h + 2 * ph - r) // sh + 1
    ow = (wd + 2 * pw - s) // sw + 1
    out = np.zeros((n, c, oh, ow), dtype=np.result_type(x, w))
    for i in range(r):
        for j in range(s):
            out += xp[:, :, i:i + sh * (oh - 1) + 1:sh,
                      j:j + sw * (ow - 1) + 1:sw] * w[None, :, 0, i, j, None, None]
    if bias is not None:
        out += np.asarray(bias).reshape(1, c, 1, 1)
    return out


def _plain_stride1(problem: ConvProblem) -> str | None:
    if problem.stride != (1, 1):
        return f"needs stride 1, got {problem.stride[0]}x{problem.stride[1]}"
    if problem.dilation != (1, 1):
        return f"needs dilation 1, got {problem.dilation[0]}x{problem.dilation[1]}"
    if problem.groups != 1:
        return f"needs groups 1, got {problem.groups}"
    return None


class TapGemm(ConvAlgorithm):
    """One GEMM per image over tap-major unfolded rows (:func:`gemm_taps`)."""

    name = "tap_gemm"
    integer_exact = True
    summary = "stride 1, dilation 1, groups 1 (any padding, bias)"

    def check(self, problem: ConvProblem) -> str | None:
        return _plain_stride1(problem)

    def _compute(self, x, w, bias, args, dtype):
        return gemm_taps(pad_input(x, args), w, bias, padding=0, dtype=dtype)


class TapGemmBands(ConvAlgorithm):
    """:class:`TapGemm` on bands of :attr:`rows` output rows (:func:`gemm_taps_bands`)."""

    name = "tap_gemm_bands"
    integer_exact = True
    summary = "stride 1, dilation 1, groups 1 (any padding, bias), bands of output rows"
    rows = BAND_ROWS

    def check(self, problem: ConvProblem) -> str | None:
        return _plain_stride1(problem)

    def _compute(self, x, w, bias, args, dtype):
        return gemm_taps_bands(pad_input(x, args), w, bias, padding=0, rows=self.rows,
                               dtype=dtype)


class DepthwiseTaps(ConvAlgorithm):
    """Depthwise convolution as a loop over the taps (:func:`depthwise_taps`)."""

    name = "depthwise_taps"
    integer_exact = True
    summary = "depthwise (groups = C = K), dilation 1 (any stride, padding, bias)"

    def check(self, problem: ConvProblem) -> str | None:
        if not problem.groups == problem.c == problem.k:
            return (f"needs groups = C = K, got groups {problem.groups}, C {problem.c}, "
                    f"K {problem.k}")
        if problem.dilation != (1, 1):
            return f"needs dilation 1, got {problem.dilation[0]}x{problem.dilation[1]}"
        return None

    def _compute(self, x, w, bias, args, dtype):
        return np.ascontiguousarray(
            depthwise_taps(pad_input(x, args), w, bias, args.stride, 0).astype(dtype,
                                                                             copy=False))
