"""Quantisation formats of the traced networks: symmetric fixed point, per tensor or per
output channel.

Power-of-two formats (:func:`frac_bits_for`, :func:`quantise`, :func:`pow2_formats`): a
``bits``-wide signed number with ``frac`` fraction bits represents ``q * 2**-frac``,
``|q| <= 2**(bits-1) - 1`` (symmetric: the most negative code is unused); the integer bits
(sign included) are ``bits - frac``. Calibration picks the largest ``frac`` whose range
holds the calibrated maximum magnitude. The digits CNN, DnCNN and EfficientNet's
``scales="pow2"`` use this rule.

Scaled formats (:func:`quant_format`, :class:`QuantFormat`): ``value = code * scale``,
``scales="channel"`` one max-abs scale per output channel of the weights and one per
layer input (EfficientNet's and FFDNet's default), or ``"pow2"`` the scales of the
power-of-two rule. The integer convolution is the same with either: the scales only enter
when the accumulators are dequantised (:func:`dequantise_accumulators`).

A precision ``p < bits`` of a layer drops ``bits - p`` low-order bits (the range stays the
calibrated one) in both families.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["frac_bits_for", "quantise", "dequantise", "fake_quant", "pow2_formats",
           "SCALES", "channel_scales", "quantise_scaled", "QuantFormat", "quant_format",
           "fake_quant_model", "dequantise_accumulators", "drop_low_bits"]

#: Weight/activation scale schemes of :func:`quant_format`.
SCALES = ("channel", "pow2")


def frac_bits_for(amax: float, bits: int) -> int:
    """Fraction bits of a ``bits``-wide format whose range holds ``amax`` (``2**(bits-1) - 1``
    codes above zero); may be negative for huge ranges or exceed ``bits`` for tiny ones."""
    if not amax > 0:
        return bits - 1
    return int(math.floor(math.log2(((1 << (bits - 1)) - 1) / amax)))


def quantise(x, bits: int, frac: int) -> np.ndarray:
    """Round half to even, saturate symmetrically, as int64 codes."""
    hi = (1 << (bits - 1)) - 1
    return np.clip(np.rint(np.asarray(x, dtype=np.float64) * 2.0 ** frac), -hi, hi).astype(
        np.int64)


def dequantise(q, frac: int) -> np.ndarray:
    return np.asarray(q, dtype=np.float32) * np.float32(2.0 ** -frac)


def fake_quant(x, bits: int, frac: int) -> np.ndarray:
    """``dequantise(quantise(x))`` in float32."""
    return dequantise(quantise(x, bits, frac), frac)


def pow2_formats(weights, amax, bits, act_prec=None, wgt_prec=None):
    """Per-tensor power-of-two formats of a network.

    Parameters
    ----------
    weights : list of numpy.ndarray
        Every layer's float weights, in order.
    amax : list of float
        Calibrated maximum |input| of every layer.
    bits : int
        Base width.
    act_prec, wgt_prec : list of int, optional
        Per-layer precisions below ``bits`` (fraction bits dropped).

    Returns
    -------
    tuple
        ``(act_frac, wgt_frac, fake-quantised weights, hook, act_prec, wgt_prec)``;
        ``hook(i, v)`` fake-quantises layer ``i``'s input.
    """
    n = len(weights)
    afrac = [frac_bits_for(a, bits) for a in amax]
    wfrac = [frac_bits_for(float(np.abs(w).max()), bits) for w in weights]
    if act_prec is not None:
        afrac = [f - (bits - p) for f, p in zip(afrac, act_prec)]
    if wgt_prec is not None:
        wfrac = [f - (bits - p) for f, p in zip(wfrac, wgt_prec)]
    aprec = list(act_prec) if act_prec is not None else [bits] * n
    wprec = list(wgt_prec) if wgt_prec is not None else [bits] * n
    wq = [fake_quant(w, wprec[i], wfrac[i]) for i, w in enumerate(weights)]

    def hook(i, v):
        return fake_quant(v, aprec[i], afrac[i])
    return afrac, wfrac, wq, hook, aprec, wprec


def channel_scales(w, bits: int) -> np.ndarray:
    """Symmetric per-output-channel scales of ``w`` (K, ...): ``max |w[k]| / (2**(bits-1)-1)``
    (1.0 for an all-zero channel, whose codes are zero whatever the scale), float64 (K,)."""
    w = np.asarray(w, dtype=np.float64)
    m = np.abs(w.reshape(w.shape[0], -1)).max(axis=1)
    return np.where(m > 0, m, (1 << (bits - 1)) - 1) / ((1 << (bits - 1)) - 1)


def quantise_scaled(x, bits: int, scale) -> np.ndarray:
    """Codes ``clip(round_half_even(x / scale), +-(2**(bits-1) - 1))`` as int64.

    ``scale`` is a scalar (per tensor) or a (K,) array applied along axis 0 (per output
    channel of a weight tensor). A power-of-two scale ``2**-frac`` gives exactly
    :func:`quantise` ``(x, bits, frac)``.
    """
    x = np.asarray(x, dtype=np.float64)
    s = np.asarray(scale, dtype=np.float64)
    if s.ndim == 1:
        s = s.reshape((-1,) + (1,) * (x.ndim - 1))
    hi = (1 << (bits - 1)) - 1
    return np.clip(np.rint(x / s), -hi, hi).astype(np.int64)


@dataclass
class QuantFormat:
    """Formats of the integer model, per layer ``i``.

    ``act_scale[i]`` (float) and ``act_prec[i]`` (bits) of the layer's input codes;
    ``wgt_scale[i]`` ((K,) float64, one per output channel; equal entries for per-tensor
    formats) and ``wgt_prec[i]`` of its weight codes. A value is ``code * scale``.
    """

    scales: str
    bits: int
    act_scale: list
    wgt_scale: list
    act_prec: list
    wgt_prec: list

    def act_codes(self, i: int, v) -> np.ndarray:
        return quantise_scaled(v, self.act_prec[i], self.act_scale[i])

    def wgt_codes(self, i: int, w) -> np.ndarray:
        return quantise_scaled(w, self.wgt_prec[i], self.wgt_scale[i])


def quant_format(weights, amax, bits: int, scales: str = "channel", act_prec=None,
                 wgt_prec=None) -> QuantFormat:
    """The integer model's formats.

    Parameters
    ----------
    weights : list of numpy.ndarray
        Every layer's float weights (K, ...), in order.
    amax : list of float
        Calibrated maximum |input| of every layer.
    bits : int
        Base width of every code.
    scales : {"channel", "pow2"}
        ``"channel"``: per-output-channel max-abs weight scales, per-tensor max-abs
        activation scales. ``"pow2"``: per-tensor power-of-two scales for both
        (:func:`pow2_formats`' rule).
    act_prec, wgt_prec : list of int, optional
        Per-layer precisions below ``bits``: ``bits - p`` low-order bits are dropped (the
        scale grows by ``2**(bits - p)``, the range stays the calibrated one).
    """
    if scales not in SCALES:
        raise ValueError(f"scales must be one of {', '.join(SCALES)}, got {scales!r}")
    n = len(weights)
    hi = (1 << (bits - 1)) - 1
    aprec = list(act_prec) if act_prec is not None else [bits] * n
    wprec = list(wgt_prec) if wgt_prec is not None else [bits] * n
    if scales == "pow2":
        afrac, wfrac, _, _, _, _ = pow2_formats(weights, amax, bits)
        ascale = [2.0 ** -f for f in afrac]
        wscale = [np.full(w.shape[0], 2.0 ** -f) for w, f in zip(weights, wfrac)]
    else:
        ascale = [a / hi if a > 0 else 1.0 for a in amax]
        wscale = [channel_scales(w, bits) for w in weights]
    ascale = [s * 2.0 ** (bits - p) for s, p in zip(ascale, aprec)]
    wscale = [s * 2.0 ** (bits - p) for s, p in zip(wscale, wprec)]
    return QuantFormat(scales, bits, ascale, wscale, aprec, wprec)


def fake_quant_model(weights, fmt: QuantFormat):
    """(weights, hook) of the float model that equals the integer one: every layer's
    weights as ``codes * scale`` and a hook doing the same to its input. Equal (up to
    float32 rounding) to the integer model: the convolution of codes times ``s_a *
    s_w[k]`` (:func:`dequantise_accumulators`)."""
    wq = []
    for i, w in enumerate(weights):
        s = fmt.wgt_scale[i].reshape((-1,) + (1,) * (w.ndim - 1))
        wq.append((fmt.wgt_codes(i, w) * s).astype(np.float32))

    def hook(i, v):
        return (fmt.act_codes(i, v) * fmt.act_scale[i]).astype(np.float32)
    return wq, hook


def dequantise_accumulators(acc, act_scale: float, wgt_scale, bias=None, act=None):
    """The output stage of the integer model: integer accumulators (N, K, ...) of a layer
    back to real values, ``acc[:, k] * act_scale * wgt_scale[k] + bias[k]``, then the
    layer's activation (``"relu6"`` or None). The next layer requantises the result with
    its own per-tensor scale (:meth:`QuantFormat.act_codes`)."""
    acc = np.asarray(acc, dtype=np.float64)
    shape = (1, -1) + (1,) * (acc.ndim - 2)
    y = acc * (act_scale * np.asarray(wgt_scale, dtype=np.float64).reshape(shape))
    if bias is not None:
        y = y + np.asarray(bias, dtype=np.float64).reshape(shape)
    return np.clip(y, 0.0, 6.0) if act == "relu6" else y


def drop_low_bits(codes, bits: int, p: int) -> np.ndarray:
    """``bits``-bit codes requantised to ``p`` bits (the range kept): ``bits - p``
    low-order bits dropped, round half to even, saturated to the symmetric ``p``-bit
    range; int64."""
    codes = np.asarray(codes, dtype=np.int64)
    shift = bits - p
    if not shift:
        return codes
    out = np.rint(codes / float(1 << shift)).astype(np.int64)
    hi = (1 << (p - 1)) - 1 if p > 1 else 0
    return np.clip(out, -hi, hi)
