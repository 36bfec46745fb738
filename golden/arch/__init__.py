"""Per-architecture golden models: what each design computes and how long it takes.

Each module ``golden/arch/<arch>.py`` (one per entry of :data:`termwise.gen.config.ARCHS`)
defines, independently of the RTL and citing its paper:

``RUN_OVERHEAD``
    Cycles a run costs beyond its steps (pipeline fill/drain of this implementation).
``step_cycles(cfg, act, wgt, rt) -> np.ndarray``
    Cycles of every step, vectorised: ``act`` is (windows, steps, lanes), ``wgt``
    (filters, steps, lanes), ``rt`` the runtime registers (``cfg.runtime_values()``).
    A step is one brick of every window and every filter, processed together.
``effective_operands(cfg, act, wgt, rt) -> (act, wgt)`` (optional)
    The values the design actually multiplies (e.g. Stripes uses the ``precision`` low
    bits of each activation). Defaults to the operands themselves.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["model"]


def model(arch: str) -> ModuleType:
    """The golden model module of ``arch``."""
    try:
        return importlib.import_module(f"{__name__}.{arch}")
    except ModuleNotFoundError as err:
        if err.name == f"{__name__}.{arch}":
            raise ValueError(f"arch: no golden model for {arch!r} yet") from None
        raise
