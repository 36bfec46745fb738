"""Direct convolution and fully-connected layers: THE reference implementation.

Written with plain loops over the filter taps and an ``einsum`` over channels, with no
shared code with the fast algorithms beyond argument validation.

Exactness
---------
Integer (and bool) inputs are computed in ``int64``. The result is exact whenever
``max|x| * max|w| * (C/groups * R * S) + max|bias| <= 2**63 - 1``; this bound is checked
before computing and ``OverflowError`` is raised otherwise (e.g. 16-bit operands are exact
for up to 2**33 products per output). Float inputs are computed in float32 if every float
operand is float32 or narrower, else float64, accumulating over the filter taps in
row-major (r, s) order and over channels inside each tap.
"""

from __future__ import annotations

import numpy as np

from ._args import check_int64_range, compute_dtype, normalize_conv, pad_input

__all__ = ["conv2d_direct", "fc"]


def conv2d_direct(x, w, bias=None, *, stride=1, padding=0, dilation=1, groups=1):
    """Reference 2-D convolution (cross-correlation, NCHW / KCRS).

    Parameters
    ----------
    x : array_like, shape (N, C, H, W)
        Input activations.
    w : array_like, shape (K, C // groups, R, S)
        Filters.
    bias : array_like, shape (K,), optional
        Added to every output of filter ``k``.
    stride, padding, dilation : int or (int, int)
        Per-dimension (h, w) stride (>= 1), symmetric zero padding (>= 0) and dilation (>= 1).
    groups : int
        Number of channel groups; ``groups == C == K`` is depthwise.

    Returns
    -------
    numpy.ndarray, shape (N, K, OH, OW)
        ``OH = (H + 2*padH - dilH*(R-1) - 1) // strH + 1`` (likewise OW). ``int64`` for
        integer inputs, else float32 / float64 (see module docstring).

    Raises
    ------
    ValueError
        On inconsistent shapes or parameters, e.g. ``"groups: C=6 is not divisible by
        groups=4"``.
    OverflowError
        If integer inputs could overflow int64.
    """
    x, w, bias, a, dtype = normalize_conv(
        x, w, bias, stride=stride, padding=padding, dilation=dilation, groups=groups
    )
    xp = pad_input(x, a)
    sh, sw = a.stride
    dh, dw = a.dilation
    out = np.zeros((a.n, a.k, a.oh, a.ow), dtype=dtype)
    for g in range(a.groups):
        cs = slice(g * a.cg, (g + 1) * a.cg)
        ks = slice(g * a.kg, (g + 1) * a.kg)
        acc = np.zeros((a.n, a.kg, a.oh, a.ow), dtype=dtype)
        for r in range(a.r):
            h0 = r * dh
            for s in range(a.s):
                w0 = s * dw
                patch = xp[:, cs, h0 : h0 + (a.oh - 1) * sh + 1 : sh,
                           w0 : w0 + (a.ow - 1) * sw + 1 : sw]
                acc += np.einsum("nchw,kc->nkhw", patch, w[ks, :, r, s])
        out[:, ks] = acc
    if bias is not None:
        out += bias.reshape(1, a.k, 1, 1)
    return out


def fc(x, w, bias=None):
    """Fully-connected layer ``y = x @ w.T + bias``.

    Parameters
    ----------
    x : array_like, shape (N, C)
    w : array_like, shape (K, C)
    bias : array_like, shape (K,), optional

    Returns
    -------
    numpy.ndarray, shape (N, K)
        Exact ``int64`` for integer inputs (range checked as for :func:`conv2d_direct`
        with ``C`` terms), else float32 / float64.
    """
    x = np.asarray(x)
    w = np.asarray(w)
    b = None if bias is None else np.asarray(bias)
    if x.ndim != 2:
        raise ValueError(f"x: expected 2-D (N, C), got shape {x.shape}")
    if w.ndim != 2:
        raise ValueError(f"w: expected 2-D (K, C), got shape {w.shape}")
    if x.shape[1] != w.shape[1]:
        raise ValueError(f"w: expected C={x.shape[1]} columns to match x, got w.shape={w.shape}")
    if b is not None and b.shape != (w.shape[0],):
        raise ValueError(f"bias: expected shape ({w.shape[0]},), got {b.shape}")
    for name, arr in (("x", x), ("w", w), ("bias", b)):
        if arr is not None and arr.dtype.kind not in "iubf":
            raise ValueError(f"{name}: unsupported dtype {arr.dtype}")
    dtype = compute_dtype(x, w, b)
    if dtype == np.int64:
        check_int64_range(x, w, b, x.shape[1])
    x = x.astype(dtype, copy=False)
    w = w.astype(dtype, copy=False)
    out = np.einsum("nc,kc->nk", x, w)
    if b is not None:
        out = out + b.astype(dtype, copy=False)
    return out.astype(dtype, copy=False)
