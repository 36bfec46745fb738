"""What the formal proofs ask of a design: its spec's :class:`~termwise.gen.spec.FormalSpec`
and the hooks of its own formal module (``spec.formal.module``). Shared code asks here and
never names a design."""

from __future__ import annotations

import importlib

from ...gen.spec import FormalSpec

__all__ = ["formal_spec", "design_hook"]

#: A design the formal proofs know nothing of: no fault, no narrowing, no own module.
_NONE = FormalSpec()


def formal_spec(cfg) -> FormalSpec:
    """``cfg``'s :attr:`~termwise.gen.spec.DesignSpec.formal` (an empty one when its spec
    gives none)."""
    return cfg.spec.formal or _NONE


def design_hook(cfg, name: str):
    """Hook ``name`` of ``cfg``'s own formal module (``harness``, ``worst_step_cycles``),
    or None when the design has no module or its module does not define it."""
    module = formal_spec(cfg).module
    if module is None:
        return None
    return getattr(importlib.import_module(module), name, None)
