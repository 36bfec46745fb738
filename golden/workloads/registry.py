"""The workload registry: name -> loader(bits, **options) -> :class:`~.base.Workload`.

Loaders import their network lazily (EfficientNet needs torch only when it is used).
"""

from __future__ import annotations

from ...gen.spec import ConfigError
from .base import PRECISIONS, Workload

__all__ = ["WORKLOADS", "check_workload", "load_workload"]


def _efficientnet(bits, **kw):
    from .efficientnet import load
    return load(bits, **kw)


def _shapes(name):
    def loader(bits, **kw):
        from .shapes import load
        return load(name, bits, **kw)
    return loader


def _digits(bits, **kw):
    from .digits import load
    return load(bits, **kw)


def _dncnn(bits, **kw):
    from .dncnn import load
    return load(bits, **kw)


def _ffdnet(bits, **kw):
    from .ffdnet import load
    return load(bits, **kw)


def _pruned():
    from .pruning import registry
    return registry()


#: name -> loader(bits, **options) -> Workload
WORKLOADS = {
    "efficientnet-lite0": _efficientnet,
    "effnet-lite0": _efficientnet,          # the short name the issue tracker uses
    "alexnet": _shapes("alexnet"),
    "vgg16": _shapes("vgg16"),
    "resnet50": _shapes("resnet50"),
    "digits-cnn": _digits,
    "dncnn": _dncnn,
    "ffdnet": _ffdnet,                      # FFDNet, trained weights (the workloads extra)
    **_pruned(),                            # <network>-p50|p70|p90
}


def check_workload(name, field: str = "workload", why: str = "") -> str:
    """``name`` if it names a workload, else a :class:`ConfigError` naming ``field``
    (``why``, e.g. " (sim jobs run on it)", is said after the list of names): every command
    and flow that takes a workload checks it here."""
    if name not in WORKLOADS:
        raise ConfigError(field, f"must be one of {', '.join(WORKLOADS)}{why}, got {name!r}")
    return name


def load_workload(name: str, bits: int = 16, **kw) -> Workload:
    """Load (or build and cache) a workload quantised to ``bits`` (8 or 16)."""
    check_workload(name)
    if isinstance(bits, bool) or bits not in PRECISIONS:
        raise ConfigError("precision", f"must be one of {', '.join(map(str, PRECISIONS))}, "
                          f"got {bits!r}")
    return WORKLOADS[name](bits, **kw)
