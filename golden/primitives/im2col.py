"""im2col + GEMM convolution, plain GEMM for 1x1 filters, and implicit GEMM.

All three are exact for integer inputs (``int64`` matrix products do not use BLAS and are
exact within the range checked by :func:`~termwise.golden.primitives._args.normalize_conv`).
"""

from __future__ import annotations

import numpy as np

from ._args import ConvArgs, pad_input
from .base import ConvAlgorithm
from .problem import ConvProblem

__all__ = ["im2col", "Im2colGemm", "Gemm1x1", "ImplicitGemm"]


def im2col(xp: np.ndarray, args: ConvArgs) -> np.ndarray:
    """Unfold padded input ``xp`` (N, C, Hp, Wp) into columns.

    Returns
    -------
    numpy.ndarray, shape (N, C * R * S, OH * OW)
        Row index ``(c * R + r) * S + s``; column index ``oh * OW + ow``.
    """
    sh, sw = args.stride
    dh, dw = args.dilation
    rows = np.arange(args.r)[:, None] * dh + np.arange(args.oh)[None, :] * sh  # (R, OH)
    cols = np.arange(args.s)[:, None] * dw + np.arange(args.ow)[None, :] * sw  # (S, OW)
    patches = xp[:, :, rows[:, None, :, None], cols[None, :, None, :]]  # (N, C, R, S, OH, OW)
    return patches.reshape(args.n, args.c * args.r * args.s, args.oh * args.ow)


def _finish(out: np.ndarray, bias, args: ConvArgs) -> np.ndarray:
    out = out.reshape(args.n, args.k, args.oh, args.ow)
    if bias is not None:
        out = out + bias.reshape(1, args.k, 1, 1)
    return np.ascontiguousarray(out)


class Im2colGemm(ConvAlgorithm):
    """Unfold the input (im2col), then one GEMM per group: ``W_g (Kg, Cg*R*S) @ cols``."""

    name = "im2col_gemm"
    integer_exact = True
    summary = "any problem (stride, padding, dilation, groups, bias)"

    def check(self, problem: ConvProblem) -> str | None:
        return None

    def _compute(self, x, w, bias, args, dtype):
        cols = im2col(pad_input(x, args), args)
        g, crs = args.groups, args.cg * args.r * args.s
        cols = cols.reshape(args.n, g, crs, args.oh * args.ow)
        wm = w.reshape(g, args.kg, crs)
        out = np.matmul(wm[None], cols)  # (N, G, Kg, OH*OW)
        return _finish(out, bias, args)


class Gemm1x1(ConvAlgorithm):
    """1x1 filters without padding: subsample the input by the stride, then a plain GEMM."""

    name = "gemm_1x1"
    integer_exact = True
    summary = "R = S = 1 and zero padding (any stride, groups, bias; dilation irrelevant)"

    def check(self, problem: ConvProblem) -> str | None:
        if (problem.r, problem.s) != (1, 1):
            return f"needs a 1x1 filter, got {problem.r}x{problem.s}"
        if problem.padding != (0, 0):
            return f"needs zero padding, got {problem.padding[0]}x{problem.padding[1]}"
        return None

    def _compute(self, x, w, bias, args, dtype):
        sh, sw = args.stride
        xs = x[:, :, : (args.oh - 1) * sh + 1 : sh, : (args.ow - 1) * sw + 1 : sw]
        xs = xs.reshape(args.n, args.groups, args.cg, args.oh * args.ow)
        wm = w.reshape(args.groups, args.kg, args.cg)
        return _finish(np.matmul(wm[None], xs), bias, args)


class ImplicitGemm(ConvAlgorithm):
    """GEMM ``(K) x (N*OH*OW)`` over the reduction ``Cg*R*S`` with B gathered on the fly.

    The reduction dimension is walked in blocks of :attr:`block` indices; each index is
    decoded into ``(c, r, s)`` and the matching input elements are gathered directly from
    the padded input, so the im2col matrix is never materialised.
    """

    name = "implicit_gemm"
    integer_exact = True
    summary = "any problem (stride, padding, dilation, groups, bias)"
    block = 16

    def check(self, problem: ConvProblem) -> str | None:
        return None

    def _compute(self, x, w, bias, args, dtype):
        xp = pad_input(x, args)
        sh, sw = args.stride
        dh, dw = args.dilation
        crs = args.cg * args.r * args.s
        oy = np.arange(args.oh)[:, None] * sh  # (OH, 1)
        ox = np.arange(args.ow)[None, :] * sw  # (1, OW)
        out = np.zeros((args.n, args.groups, args.kg, args.oh, args.ow), dtype=dtype)
        wm = w.reshape(args.groups, args.kg, crs)
        for g in range(args.groups):
            for k0 in range(0, crs, self.block):
                idx = np.arange(k0, min(k0 + self.block, crs))
                c = g * args.cg + idx // (args.r * args.s)
                r = (idx // args.s) % args.r
                s = idx % args.s
                # B block: (N, blk, OH, OW)
                b = xp[:, c[:, None, None], (r * dh)[:, None, None] + oy[None],
                       (s * dw)[:, None, None] + ox[None]]
                out[:, g] += np.einsum("kb,nbhw->nkhw", wm[g][:, idx], b)
        return _finish(out, bias, args)
