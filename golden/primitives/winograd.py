"""Winograd minimal-filtering convolution F(2x2,3x3) and F(4x4,3x3).

Applies to 3x3 filters with stride 1 and dilation 1 (any padding, groups, bias, batch).
The output is tiled into ``m x m`` tiles (``m`` = 2 or 4) read from ``(m+2) x (m+2)``
input tiles; ragged edges are handled by zero-extending the input and cropping.

Integer inputs are exact by construction: the filter transform ``G`` is scaled by an
integer ``q`` (2 for F(2,3), 24 for F(4,3)) so every transform has integer entries, the
whole computation runs in ``int64``, and the result is divided exactly by ``q**2``. The
intermediate magnitudes are bounded with the row-abs-sum norms of the transforms and an
``OverflowError`` is raised if the bound exceeds int64. Float inputs use the fractional
``G`` in the compute dtype (float32 or float64).

Matrices from Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks" (2016).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ._args import INT64_MAX, pad_input
from .base import ConvAlgorithm
from .problem import ConvProblem

__all__ = ["WinogradF2x3", "WinogradF4x3", "winograd_matrices"]

_F = Fraction
_MATRICES = {
    2: (
        [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]],
        [[1, 0, 0], [_F(1, 2), _F(1, 2), _F(1, 2)], [_F(1, 2), _F(-1, 2), _F(1, 2)], [0, 0, 1]],
        [[1, 1, 1, 0], [0, 1, -1, -1]],
        2,
    ),
    4: (
        [
            [4, 0, -5, 0, 1, 0],
            [0, -4, -4, 1, 1, 0],
            [0, 4, -4, -1, 1, 0],
            [0, -2, -1, 2, 1, 0],
            [0, 2, -1, -2, 1, 0],
            [0, 4, 0, -5, 0, 1],
        ],
        [
            [_F(1, 4), 0, 0],
            [_F(-1, 6), _F(-1, 6), _F(-1, 6)],
            [_F(-1, 6), _F(1, 6), _F(-1, 6)],
            [_F(1, 24), _F(1, 12), _F(1, 6)],
            [_F(1, 24), _F(-1, 12), _F(1, 6)],
            [0, 0, 1],
        ],
        [[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]],
        24,
    ),
}


def winograd_matrices(m: int, dtype=np.float64, *, scaled: bool = False):
    """Return ``(BT, G, AT)`` of F(m x m, 3x3) as arrays of ``dtype``.

    With ``scaled=True`` returns ``(BT, q*G, AT, q)`` with integer ``q*G``.
    """
    bt, g, at, q = _MATRICES[m]
    if scaled:
        gq = [[int(v * q) for v in row] for row in g]
        return (np.array(bt, dtype=dtype), np.array(gq, dtype=dtype),
                np.array(at, dtype=dtype), q)
    return (np.array(bt, dtype=dtype), np.array([[float(v) for v in row] for row in g], dtype=dtype),
            np.array(at, dtype=dtype))


def _rownorm(a) -> int:
    return int(np.abs(np.asarray(a, dtype=np.int64)).sum(axis=1).max())


class _Winograd(ConvAlgorithm):
    m: int = 2
    integer_exact = True

    @property
    def summary(self) -> str:  # type: ignore[override]
        return (f"3x3 filter, stride 1x1, dilation 1x1 (any padding, groups, bias); "
                f"{self.m}x{self.m} output tiles")

    def check(self, problem: ConvProblem) -> str | None:
        if (problem.r, problem.s) != (3, 3):
            return f"needs a 3x3 filter, got {problem.r}x{problem.s}"
        if problem.stride != (1, 1):
            return f"needs stride 1x1, got {problem.stride[0]}x{problem.stride[1]}"
        if problem.dilation != (1, 1):
            return f"needs dilation 1x1, got {problem.dilation[0]}x{problem.dilation[1]}"
        return None

    def _compute(self, x, w, bias, args, dtype):
        m, a = self.m, self.m + 2
        integer = dtype == np.int64
        if integer:
            bt, gm, at, q = winograd_matrices(m, np.int64, scaled=True)
            mx = max(abs(int(x.max())), abs(int(x.min())))
            mw = max(abs(int(w.max())), abs(int(w.min())))
            bound = _rownorm(at) ** 2 * args.cg * (_rownorm(bt) ** 2 * mx) * (_rownorm(gm) ** 2 * mw)
            if bound > INT64_MAX:
                raise OverflowError(f"winograd F({m}x{m},3x3): int64 bound {bound} exceeded")
        else:
            bt, gm, at = winograd_matrices(m, dtype)
            q = 1
        th = -(-args.oh // m)
        tw = -(-args.ow // m)
        xp = pad_input(x, args)
        # zero-extend so every tile is complete: need (t-1)*m + a rows
        need_h, need_w = (th - 1) * m + a, (tw - 1) * m + a
        xp = np.pad(xp, ((0, 0), (0, 0), (0, max(0, need_h - xp.shape[2])),
                         (0, max(0, need_w - xp.shape[3]))))
        tiles = np.lib.stride_tricks.sliding_window_view(xp, (a, a), axis=(2, 3))
        tiles = tiles[:, :, : (th - 1) * m + 1 : m, : (tw - 1) * m + 1 : m]  # (N,C,th,tw,a,a)
        v = np.einsum("ij,nctujk,lk->nctuil", bt, tiles, bt)  # B^T d B
        u = np.einsum("ij,kcjl,ml->kcim", gm, w, gm)  # G g G^T, (K, Cg, a, a)
        out = np.empty((args.n, args.k, th * m, tw * m), dtype=dtype)
        for g in range(args.groups):
            cs = slice(g * args.cg, (g + 1) * args.cg)
            ks = slice(g * args.kg, (g + 1) * args.kg)
            mm = np.einsum("kcij,nctuij->nktuij", u[ks], v[:, cs])
            y = np.einsum("pi,nktuij,qj->nktpuq", at, mm, at)  # A^T M A
            out[:, ks] = y.reshape(args.n, args.kg, th * m, tw * m)
        out = out[:, :, : args.oh, : args.ow]
        if integer:
            q2 = q * q
            if np.any(out % q2):
                raise AssertionError("winograd integer path: result not divisible by q**2")
            out = out // q2
        if bias is not None:
            out = out + bias.reshape(1, args.k, 1, 1)
        return np.ascontiguousarray(out)


class WinogradF2x3(_Winograd):
    """Winograd F(2x2, 3x3): 16 multiplies per 2x2 output tile instead of 36."""

    name = "winograd_f2x3"
    m = 2
    float_exact_on_integers = True  # G holds only 0, +-1/2, 1: dyadic, so exact


class WinogradF4x3(_Winograd):
    """Winograd F(4x4, 3x3): 36 multiplies per 4x4 output tile instead of 144."""

    name = "winograd_f4x3"
    m = 4
    float_exact_on_integers = False  # G holds 1/6, 1/12, 1/24
