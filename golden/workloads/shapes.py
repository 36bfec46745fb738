"""Hard-coded layer shapes of AlexNet, VGG-16 and ResNet-50 with SYNTHETIC values.

For shape-only studies: the operands come from :func:`.base.synthetic_values` (seeded by
the layer name), not from a trained network, and every report labels them "synthetic".
Batch 1. AlexNet follows the Caffe model (227x227, groups 2 in conv2/4/5,
docs/papers.md#workload-shapes); VGG-16 the 13 3x3 convs + 3 FCs at 224x224; ResNet-50 the
bottleneck stages 3-4-6-3 at 224x224 (stride on the 3x3 conv, projection shortcuts).
"""

from __future__ import annotations

from .base import Layer, Workload, synthetic_values

__all__ = ["SHAPES", "load", "shape_table"]


def _alexnet():
    # (name, C, H, K, R, stride, pad, groups)
    return [("conv1", 3, 227, 96, 11, 4, 0, 1), ("conv2", 96, 27, 256, 5, 1, 2, 2),
            ("conv3", 256, 13, 384, 3, 1, 1, 1), ("conv4", 384, 13, 384, 3, 1, 1, 2),
            ("conv5", 384, 13, 256, 3, 1, 1, 2),
            ("fc6", 9216, 1, 4096, 1, 1, 0, 1), ("fc7", 4096, 1, 4096, 1, 1, 0, 1),
            ("fc8", 4096, 1, 1000, 1, 1, 0, 1)]


def _vgg16():
    cfg = [(64, 224), (64, 224), (128, 112), (128, 112), (256, 56), (256, 56), (256, 56),
           (512, 28), (512, 28), (512, 28), (512, 14), (512, 14), (512, 14)]
    out, c = [], 3
    for i, (k, h) in enumerate(cfg):
        out.append((f"conv{i + 1}", c, h, k, 3, 1, 1, 1))
        c = k
    return out + [("fc6", 25088, 1, 4096, 1, 1, 0, 1), ("fc7", 4096, 1, 4096, 1, 1, 0, 1),
                  ("fc8", 4096, 1, 1000, 1, 1, 0, 1)]


def _resnet50():
    out = [("conv1", 3, 224, 64, 7, 2, 3, 1)]
    c, h = 64, 56
    for stage, (width, blocks, stride) in enumerate(((64, 3, 1), (128, 4, 2), (256, 6, 2),
                                                      (512, 3, 2))):
        for b in range(blocks):
            s = stride if b == 0 else 1
            p = f"res{stage + 2}{chr(ord('a') + b)}"
            out.append((f"{p}.1x1a", c, h, width, 1, 1, 0, 1))
            out.append((f"{p}.3x3", width, h, width, 3, s, 1, 1))
            ho = (h + 2 - 3) // s + 1
            out.append((f"{p}.1x1b", width, ho, 4 * width, 1, 1, 0, 1))
            if b == 0:
                out.append((f"{p}.proj", c, h, 4 * width, 1, s, 0, 1))
            c, h = 4 * width, ho
    return out + [("fc", 2048, 1, 1000, 1, 1, 0, 1)]


SHAPES = {"alexnet": _alexnet, "vgg16": _vgg16, "resnet50": _resnet50}


def shape_table(name: str) -> list[tuple]:
    """(name, C, H(=W), K, R(=S), stride, padding, groups); FCs have H = R = 1."""
    return SHAPES[name]()


def load(name: str, bits: int = 16, *, images: int = 1, **_) -> Workload:
    layers = []
    for lname, c, h, k, r, stride, pad, groups in shape_table(name):
        seed = f"{name}/{lname}/{bits}"
        if lname.startswith("fc"):
            act = synthetic_values((images, c), bits, "act", seed + "/act")
            wgt = synthetic_values((k, c), bits, "wgt", seed + "/wgt")
            layers.append(Layer(lname, "fc", act, wgt, bits, synthetic=True))
            continue
        act = synthetic_values((images, c, h, h), bits, "act", seed + "/act")
        wgt = synthetic_values((k, c // groups, r, r), bits, "wgt", seed + "/wgt")
        layers.append(Layer(lname, "conv", act, wgt, bits, stride=stride, padding=pad,
                            groups=groups, synthetic=True))
    note = (f"SYNTHETIC values: {name} layer shapes only; activations ReLU(N(0, 2^{bits - 4})), "
            f"weights N(0, 2^{bits - 5}), rounded, {bits}-bit, seeded by layer name")
    return Workload(name, bits, layers, synthetic=True, notes=[note])
