"""cocotb test of a Diffy tile on real imaging data: a few output rows of every layer of the
``dncnn`` workload's trace (run through :func:`termwise.tb.runner.run_regression` with
``test_module="termwise.tb.diffy_real_tests"``).

Each case is a crop of one of the trace's sampled tiles (:mod:`termwise.golden.workloads.
dncnn`: real integer activations of the trained denoiser on the HD frame, their halo
included, so the crop is convolved with padding 0): :data:`ROWS` output rows of
:data:`COLS` consecutive windows along x, at a position drawn from the seed. It goes
through :func:`termwise.tb.diffy_tests._conv_case` (the Diffy regression's own conv case,
not a copy): lowering onto the tile, restart masks at every output row start (and inside a
run wherever a row starts mid window group) and predecessors carried across runs by
:func:`termwise.golden.arch.diffy.run_runtimes`; the assembled output is compared exactly
with ``conv2d_direct`` on the crop and the measured cycles with the golden cycle model.

The trace must already be cached (the pytest runner builds it before starting the
simulator, which must not train a network).
"""

from __future__ import annotations

import cocotb
import numpy as np

from .diffy_tests import _conv_case
from .tile_tests import _check, _start

__all__ = ["ROWS", "COLS", "dncnn_crops", "diffy_dncnn"]

#: Output rows per crop: more than one, so that runs cross row starts.
ROWS = 3
#: Output windows per row: not a multiple of the 4x4 tile's 5 windows, so that window
#: groups straddle row starts (restart bits other than bit 0).
COLS = 12


def dncnn_crops(bits: int, seed: int, rows: int = ROWS, cols: int = COLS) -> list:
    """``(name, x, w)`` per dncnn layer: ``x`` (1, C, rows + 2, cols + 2) cut from one of
    the layer's trace tiles (tile and position from ``default_rng(seed)``), ``w`` its
    weights; convolve with stride 1, padding 0."""
    from ..golden.workloads.dncnn import load
    wl = load(bits, log=None)
    rng = np.random.default_rng(seed)
    out = []
    for layer in wl.layers:
        tiles, _, h, w = layer.act.shape
        t = int(rng.integers(tiles))
        y = int(rng.integers(0, h - (rows + 2) + 1))
        x = int(rng.integers(0, w - (cols + 2) + 1))
        crop = layer.act[t:t + 1, :, y:y + rows + 2, x:x + cols + 2]
        out.append((f"dncnn{bits}/{layer.name}/tile{t}_y{y}_x{x}_{rows}x{cols}", crop,
                    layer.wgt))
    return out


@cocotb.test()
async def diffy_dncnn(dut):
    """Every layer's crop through the tile; fail with every mismatch listed."""
    cfg, seed, drv, record = await _start(dut)
    geometry = dict(stride=1, padding=0, dilation=1, groups=1)
    failures = []
    for name, x, w in dncnn_crops(8 if cfg.act_bits <= 8 else 16, seed):
        failures += await _conv_case(drv, cfg, record, name, x, w, geometry,
                                     cfg.runtime_values())
    _check(seed, failures)
