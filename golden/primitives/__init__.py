"""Golden models of DNN primitives (convolution algorithms, fused operators, bfloat16).

Follows the MIOpen "primitives discipline": one reference (:func:`conv2d_direct`), several
fast algorithms cross-checked against it through a registry, a problem key per
convolution (:class:`ConvProblem`), fused operators checked against their unfused
sequence, requantisation as the golden model of an integer output stage, and bfloat16
with float32 accumulation.

Modules
-------
direct      reference convolution and fully-connected layer
problem     ConvProblem and the MIOpen-style key
base        ConvAlgorithm interface and NotApplicable
im2col      im2col + GEMM, 1x1 GEMM, implicit GEMM
winograd    Winograd F(2x2,3x3) and F(4x4,3x3)
fft         FFT convolution
taps        tap-major GEMM (whole or in row bands) and depthwise tap loop (the workloads')
registry    ALGORITHMS, applicable_algorithms, conv2d dispatch
quant       requantise (fixed-point multiplier + shift, round-half-even, saturate)
activation  ReLU, ReLU6, leaky ReLU for float and integer tensors
fused       conv+bias+act(+requant), conv+bias+residual+act, conv+BN+act
bf16        float32 <-> bfloat16 and bf16 convolution with fp32 accumulation
verify      normalised RMS error metric, thresholds, checkerboard test data
"""

from .activation import activate, leaky_relu, relu, relu6
from .base import ConvAlgorithm, NotApplicable
from .bf16 import bf16_to_f32, conv2d_bf16, f32_to_bf16, round_to_bf16
from .direct import conv2d_direct, fc
from .fused import conv_bias_act, conv_bias_add_act, conv_bn_act, fold_batchnorm
from .problem import ConvProblem, parse_key
from .quant import Requant, quantize_multiplier, requantise, requantise_float, saturate
from .taps import depthwise_taps, gemm_taps, gemm_taps_bands
from .registry import ALGORITHMS, applicable_algorithms, conv2d, explain, get_algorithm
from .verify import (
    BF16_THRESHOLD,
    FP32_THRESHOLD,
    FP64_THRESHOLD,
    assert_close,
    assert_exact,
    checkerboard_ints,
    normalized_rms_error,
)

__all__ = [
    "conv2d_direct",
    "gemm_taps",
    "gemm_taps_bands",
    "depthwise_taps",
    "fc",
    "ConvProblem",
    "parse_key",
    "ConvAlgorithm",
    "NotApplicable",
    "ALGORITHMS",
    "applicable_algorithms",
    "explain",
    "conv2d",
    "get_algorithm",
    "requantise",
    "requantise_float",
    "quantize_multiplier",
    "saturate",
    "Requant",
    "activate",
    "relu",
    "relu6",
    "leaky_relu",
    "conv_bias_act",
    "conv_bias_add_act",
    "conv_bn_act",
    "fold_batchnorm",
    "f32_to_bf16",
    "bf16_to_f32",
    "round_to_bf16",
    "conv2d_bf16",
    "normalized_rms_error",
    "assert_close",
    "assert_exact",
    "checkerboard_ints",
    "FP32_THRESHOLD",
    "FP64_THRESHOLD",
    "BF16_THRESHOLD",
]
