"""FFT convolution (narrow applicability: stride 1).

Each padded input plane (Hp x Wp) and each filter (dilated by inserting zeros, then zero
padded to Hp x Wp) is transformed with a real 2-D FFT; the per-frequency products are
summed over the input channels of the group and transformed back. Circular correlation
of size Hp x Wp equals linear correlation on the valid outputs (no wrap-around because
``OH = Hp - dilH*(R-1)``), so no extra padding is needed.

Float-based: float32 inputs are transformed in single precision (complex64) and float64
inputs in double precision. Integer inputs are computed in float64 and returned as
float64 (not rounded): FFT results are not exact by construction.
"""

from __future__ import annotations

import numpy as np

from ._args import pad_input
from .base import ConvAlgorithm
from .problem import ConvProblem

__all__ = ["FFTConv"]


class FFTConv(ConvAlgorithm):
    """Convolution by 2-D real FFTs of the whole padded plane."""

    name = "fft"
    integer_exact = False
    float_exact_on_integers = False
    summary = "stride 1x1 (any padding, dilation, groups, bias); integer inputs give float64"

    def check(self, problem: ConvProblem) -> str | None:
        if problem.stride != (1, 1):
            return (f"needs stride 1x1, got {problem.stride[0]}x{problem.stride[1]} "
                    f"(FFT computes every stride-1 output)")
        return None

    def _compute(self, x, w, bias, args, dtype):
        fdtype = np.float64 if dtype == np.int64 else dtype
        x = x.astype(fdtype, copy=False)
        w = w.astype(fdtype, copy=False)
        xp = pad_input(x, args)
        hp, wp = xp.shape[2], xp.shape[3]
        dh, dw = args.dilation
        wf = np.zeros((args.k, args.cg, hp, wp), dtype=fdtype)
        wf[:, :, : dh * (args.r - 1) + 1 : dh, : dw * (args.s - 1) + 1 : dw] = w
        xs = np.fft.rfft2(xp)  # (N, C, Hp, Wp//2+1)
        ws = np.conj(np.fft.rfft2(wf))  # correlation: conj of the filter spectrum
        out = np.empty((args.n, args.k, args.oh, args.ow), dtype=fdtype)
        for g in range(args.groups):
            cs = slice(g * args.cg, (g + 1) * args.cg)
            ks = slice(g * args.kg, (g + 1) * args.kg)
            prod = np.einsum("ncf...,kcf...->nkf...", xs[:, cs], ws[ks])
            y = np.fft.irfft2(prod, s=(hp, wp))
            out[:, ks] = y[:, :, : args.oh, : args.ow]
        if bias is not None:
            out += bias.astype(fdtype).reshape(1, args.k, 1, 1)
        return out
