"""Synthetic workload layers of every kind a lowering meets, for tests that compare two ways
of computing the same thing over a lowering (no trained network needed: EfficientNet's
trace needs torch to build)."""

import numpy as np

from termwise.golden.workloads import Layer


def layers_of_every_kind(seed: int = 3) -> list:
    """A depthwise 5x5 (groups = channels), a strided 3x3, a 1x1 whose K spans several
    depth chunks on a 4x4 tile (300 > 64 rows x 4 lanes), a grouped conv and an fc layer
    (K = 700), random 8-bit values."""
    rng = np.random.default_rng(seed)

    def ints(*shape):
        return rng.integers(-128, 128, shape)
    return [Layer("dw", "conv", ints(1, 24, 9, 9), ints(24, 1, 5, 5), 8, padding=2,
                  groups=24),
            Layer("c3s2", "conv", ints(1, 5, 11, 11), ints(7, 5, 3, 3), 8, stride=2,
                  padding=1),
            Layer("pw", "conv", ints(1, 300, 3, 3), ints(40, 300, 1, 1), 8),
            Layer("grouped", "conv", ints(1, 8, 6, 6), ints(12, 4, 3, 3), 8, groups=2),
            Layer("fc", "fc", ints(1, 700), ints(37, 700), 8)]
