"""Golden models of DNN primitives (convolution algorithms, fused operators, bfloat16).

Follows the MIOpen "primitives discipline": one reference (:func:`conv2d_direct`), several
fast algorithms cross-checked against it, a problem key per convolution, fused operators
checked against their unfused sequence, and bfloat16 with fp32 accumulation.
"""

from .direct import conv2d_direct, fc

__all__ = ["conv2d_direct", "fc"]
