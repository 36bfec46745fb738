"""Fused convolution operators, each the golden model of one fused kernel.

* :func:`conv_bias_act` - conv + bias + activation (+ requantisation).
* :func:`conv_bias_add_act` - conv + bias + residual add + activation (+ requantisation).
* :func:`conv_bn_act` - conv + batch-norm + activation, batch-norm folded into the filters.

The fused forms compute differently from the unfused sequence on purpose, as a fused
kernel would: bias (and the residual) initialise the accumulator, and for ReLU / ReLU6
followed by a requantisation with a non-negative multiplier the activation is folded into
the saturation bounds (``requant`` is monotone with ``requant(0) == 0``, so
``requant(clip(a, 0, cap)) == clip(requant(a), 0, requant(cap))``). Tests check them
against the unfused sequence conv -> + bias -> activation -> requantise.
"""

from __future__ import annotations

import numpy as np

from .activation import activate
from .quant import Requant, requantise
from .registry import get_algorithm

__all__ = ["conv_bias_act", "conv_bias_add_act", "conv_bn_act", "fold_batchnorm"]


def _conv_acc(x, w, init, conv_kw, algorithm):
    """Convolution without bias, plus ``init`` (broadcast) in the accumulator dtype."""
    acc = get_algorithm(algorithm)(x, w, None, **conv_kw)
    if init is not None:
        acc = acc + init
    return acc


def _output_stage(acc, activation, alpha, cap, requant: Requant | None):
    if requant is None:
        return activate(acc, activation, alpha=alpha, cap=cap)
    is_int = acc.dtype.kind in "iu"
    if activation in ("relu", "relu6") and is_int and requant.multiplier >= 0:
        lo, hi = requant.range
        lo = max(lo, 0)
        if activation == "relu6":
            if not isinstance(cap, (int, np.integer)):
                raise ValueError(f"relu6: integer input needs an integer cap, got {cap!r}")
            hi = min(hi, int(requant(np.array([cap]))[0]))
        # requantise into a range wide enough to be the identity, then clip once
        q = requantise(acc, requant.multiplier, requant.shift, 63, True)
        return np.clip(q, lo, hi)
    return requant(activate(acc, activation, alpha=alpha, cap=cap))


def conv_bias_act(x, w, bias=None, *, activation="relu", alpha=0.01, cap=6, requant=None,
                  stride=1, padding=0, dilation=1, groups=1, algorithm="direct"):
    """Fused ``requant(act(conv(x, w) + bias))``.

    Parameters
    ----------
    x, w, bias, stride, padding, dilation, groups
        As :func:`~termwise.golden.primitives.direct.conv2d_direct`.
    activation : {"relu", "relu6", "leaky_relu", "identity", None}
    alpha : float or (int, int)
        Leaky ReLU slope (a ``(multiplier, shift)`` pair or dyadic float for integers).
    cap : int or float
        ReLU6 upper bound, in accumulator units (6 by default).
    requant : Requant, optional
        Output requantisation (:class:`~termwise.golden.primitives.quant.Requant`).
    algorithm : str
        Registered convolution algorithm computing the accumulators.

    Returns
    -------
    numpy.ndarray, shape (N, K, OH, OW)
        int64 after an integer requantisation, else the accumulator dtype.
    """
    conv_kw = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    init = None if bias is None else np.asarray(bias).reshape(1, -1, 1, 1)
    if init is not None and init.shape[1] != np.shape(w)[0]:
        raise ValueError(f"bias: expected shape ({np.shape(w)[0]},), got {np.shape(bias)}")
    acc = _conv_acc(x, w, init, conv_kw, algorithm)
    return _output_stage(acc, activation, alpha, cap, requant)


def conv_bias_add_act(x, w, bias, residual, *, activation="relu", alpha=0.01, cap=6,
                      requant=None, stride=1, padding=0, dilation=1, groups=1,
                      algorithm="direct"):
    """Fused ``requant(act(conv(x, w) + bias + residual))`` (a ResNet block tail).

    ``residual`` has the output shape (N, K, OH, OW) and is in accumulator units (for
    integers: already rescaled to the accumulator's scale). Other parameters as
    :func:`conv_bias_act`.
    """
    conv_kw = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    residual = np.asarray(residual)
    init = residual if bias is None else residual + np.asarray(bias).reshape(1, -1, 1, 1)
    acc = get_algorithm(algorithm)(x, w, None, **conv_kw)
    if residual.shape != acc.shape:
        raise ValueError(f"residual: expected shape {acc.shape}, got {residual.shape}")
    return _output_stage(acc + init, activation, alpha, cap, requant)


def fold_batchnorm(w, bias, mean, var, gamma, beta, eps=1e-5):
    """Fold inference batch-norm into filters: returns ``(w', b')`` in float64.

    ``bn(y) = gamma * (y - mean) / sqrt(var + eps) + beta`` per output channel, so
    ``w' = w * s`` and ``b' = (bias - mean) * s + beta`` with ``s = gamma / sqrt(var + eps)``.
    """
    w = np.asarray(w, dtype=np.float64)
    k = w.shape[0]
    b = np.zeros(k) if bias is None else np.asarray(bias, dtype=np.float64)
    arrs = [np.asarray(a, dtype=np.float64) for a in (mean, var, gamma, beta)]
    for name, a in zip(("mean", "var", "gamma", "beta"), arrs):
        if a.shape != (k,):
            raise ValueError(f"{name}: expected shape ({k},), got {a.shape}")
    mean, var, gamma, beta = arrs
    s = gamma / np.sqrt(var + eps)
    return w * s.reshape(k, 1, 1, 1), (b - mean) * s + beta


def conv_bn_act(x, w, bias, mean, var, gamma, beta, *, eps=1e-5, activation="relu",
                alpha=0.01, cap=6, stride=1, padding=0, dilation=1, groups=1,
                algorithm="direct"):
    """Fused ``act(batchnorm(conv(x, w) + bias))`` with batch-norm folded into the filters.

    Float only; computed in float64 on the folded filters, then cast to the input float
    dtype (float32 or float64).
    """
    x = np.asarray(x)
    if x.dtype.kind != "f":
        raise ValueError(f"conv_bn_act: float input required, got {x.dtype}")
    wf, bf = fold_batchnorm(w, bias, mean, var, gamma, beta, eps)
    out_dtype = np.float64 if x.dtype == np.float64 else np.float32
    y = get_algorithm(algorithm)(x.astype(np.float64), wf, bf, stride=stride, padding=padding,
                                 dilation=dilation, groups=groups)
    return activate(y, activation, alpha=alpha, cap=cap).astype(out_dtype)
