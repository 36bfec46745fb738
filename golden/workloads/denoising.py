"""What the two denoiser workloads (:mod:`.dncnn`, :mod:`.ffdnet`) share: a stack of 3x3
convolutions run in NumPy with the trace pipeline's hooks, the PSNR that is their quality
criterion, the quantised network evaluated on image pairs from any layer on (what the
PSNR profile search of :mod:`.precision_search` drives), and the notes of their traces.

Parameters are ``{"w0", "b0", "w1", ...}``: layer ``i``'s float32 weights (K, C, 3, 3)
and bias; every layer but the last is followed by a ReLU.
"""

from __future__ import annotations

import numpy as np

from ..primitives import conv2d_direct, gemm_taps

__all__ = ["PSNR_MARGIN_DB", "n_layers", "psnr", "float_forward", "PsnrModel", "profile_and_delta_notes"]

#: Profile criterion of the denoisers (16 bits): the mean PSNR (denoised vs clean) of the
#: network with lowered per-layer precisions stays within this many dB of the full
#: ``bits``-bit fixed-point model. A denoiser has no top-1 class to keep, so the image
#: quality it delivers is the quantity that must not move.
PSNR_MARGIN_DB = 0.1


def n_layers(params) -> int:
    """The number of convolutions in ``params``."""
    return sum(1 for k in params if k.startswith("w"))


def psnr(ref, x, peak: float = 1.0) -> float:
    """Peak signal-to-noise ratio in dB of ``x`` against ``ref`` (``x`` clipped to [0, peak])."""
    ref = np.asarray(ref, np.float64)
    x = np.clip(np.asarray(x, np.float64), 0.0, peak)
    mse = float(np.mean((ref - x) ** 2))
    return float("inf") if mse == 0 else 10.0 * np.log10(peak * peak / mse)


def float_forward(params, x, *, act_hook=None, wgts=None, record=None, start=0, stop=None,
                  conv=conv2d_direct):
    """The conv stack on ``x`` (N, C, H, W): the last layer's float32 output.

    ``act_hook(i, x)`` transforms (fake-quantises) each layer's input, ``wgts[i]`` replaces
    its weights, ``record(i, x)`` sees the input after the hook. ``start`` / ``stop`` run
    layers ``start .. stop - 1`` only: ``x`` is then layer ``start``'s input (before the
    hook) and the result layer ``stop``'s input (after the ReLU), which lets the profile
    search resume from a cached prefix. ``conv`` is the convolution (``conv(x, w, bias,
    padding=1)``)."""
    n = n_layers(params)
    for i in range(start, n if stop is None else stop):
        if act_hook is not None:
            x = act_hook(i, x)
        if record is not None:
            record(i, x)
        w = params[f"w{i}"] if wgts is None else wgts[i]
        x = np.asarray(conv(x, w, params[f"b{i}"], padding=1), np.float32)
        if i < n - 1:
            x = np.maximum(x, 0)
    return x


class PsnrModel:
    """The quantised network on image pairs, evaluated from any layer on: the interface
    :func:`.precision_search.profile_search` drives (``n``, ``bits``, ``start``,
    ``advance``, ``psnr``, ``evaluations``).

    ``pairs`` is ``{name: (clean, noisy)}``, batched by image shape (sorted);
    ``formats(aprec, wprec) -> (hook, wq)`` gives the fake-quantised network of a precision
    setting; ``to_input(noisy batch)`` is the network's input, ``from_output(output)`` the
    predicted noise in the images' shape. The arithmetic is float32 on fake-quantised
    values, equal to the integer model up to float rounding (far below a code's step);
    the convolutions are :func:`~termwise.golden.primitives.gemm_taps`."""

    def __init__(self, params, pairs, bits, formats, to_input, from_output, conv=gemm_taps):
        self.params, self.bits, self.formats, self.conv = params, bits, formats, conv
        self.from_output = from_output
        self.n = n_layers(params)
        shapes = sorted({clean.shape for clean, _ in pairs.values()})
        self.batches = [(np.stack([c for c, _ in pairs.values() if c.shape == sh]),
                         np.stack([z for c, z in pairs.values() if c.shape == sh]))
                        for sh in shapes]
        self.inputs = [to_input(noisy) for _, noisy in self.batches]
        self.evaluations = 0

    def start(self) -> list:
        """Layer 0's inputs (the noisy images)."""
        return list(self.inputs)

    def advance(self, aprec, wprec, xs, i) -> list:
        """Layer ``i + 1``'s inputs from layer ``i``'s ``xs``."""
        hook, wq = self.formats(aprec, wprec)
        return [float_forward(self.params, x, act_hook=hook, wgts=wq, start=i, stop=i + 1,
                              conv=self.conv) for x in xs]

    def psnr(self, aprec, wprec, xs=None, i=0) -> float:
        """Mean PSNR (dB, denoised vs clean) with layer ``i``'s inputs ``xs`` (default:
        from the images)."""
        hook, wq = self.formats(aprec, wprec)
        xs = self.start() if xs is None else xs
        vals = []
        for (clean, noisy), x in zip(self.batches, xs):
            out = self.from_output(float_forward(self.params, x, act_hook=hook, wgts=wq,
                                                 start=i, conv=self.conv))
            vals += [psnr(c, z - o) for c, z, o in zip(clean, noisy, out)]
        self.evaluations += 1
        return float(np.mean(vals))


def profile_and_delta_notes(meta: dict, bits: int, n_layers: int) -> list[str]:
    """The notes an imaging trace carries about its precision profile (when it has one) and
    its Diffy delta statistics."""
    notes = []
    prof = meta.get("profile")
    if prof:
        notes.append(f"{bits}-bit per-layer profile (criterion: {prof['criterion']}; "
                     f"{prof['reference_psnr']:.3f} -> {prof['psnr']:.3f} dB): activations "
                     f"{prof['act_profile']} bits, weights {prof['wgt_profile']} bits "
                     f"(conv1..conv{n_layers}); Stripes p "
                     f"{[info['act_precision'] for info in meta['layers']]}, Loom Pw "
                     f"{[info['wgt_precision'] for info in meta['layers']]}")
    tot = meta["deltas"]["total_macs"]
    notes.append(f"Diffy deltas along x (Booth, MAC-weighted over the simulated tiles): "
                 f"{tot['act_terms']:.2f} terms per activation, {tot['delta_terms']:.2f} per "
                 f"delta (ratio {tot['ratio']:.2f})")
    return notes
