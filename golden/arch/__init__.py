"""Per-architecture golden models: what each design computes and how long it takes.

Each design's spec (:mod:`termwise.gen.designs`) names its module here
(``golden/arch/<spec.golden>.py``), which defines, independently of the RTL and citing its
paper:

``RUN_OVERHEAD``
    Cycles a run costs beyond its steps (pipeline fill/drain of this implementation).
``step_cycles(cfg, act, wgt, rt) -> np.ndarray``
    Cycles of every step, vectorised: ``act`` is (windows, steps, lanes), ``wgt``
    (filters, steps, lanes), ``rt`` the runtime registers (``cfg.runtime_values()``).
    A step is one brick of every window and every filter, processed together.
``effective_operands(cfg, act, wgt, rt) -> (act, wgt)`` (optional)
    The values the design actually multiplies (e.g. Stripes uses the ``precision`` low
    bits of each activation). Defaults to the operands themselves.
``run_cycles(cfg, act, wgt, rt)`` (optional)
    For designs whose lanes are not in lockstep per step (Cnvlutin): a run's cycles.
``STEPS_INDEPENDENT`` or ``steps_independent(cfg)`` (optional, default True)
    Whether a step's cost depends only on its own bricks (the network simulator then
    evaluates steps in large vectorised blocks).
``layer_run_cycles`` / ``layer_cycles`` / ``layer_registers`` (optional)
    Whole-layer hooks of the network simulator (:mod:`termwise.golden.netsim`).
``work_factors`` / ``ideal_work`` (optional)
    The ideal ("potential") work, see :mod:`termwise.golden.work`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ...gen import designs

__all__ = ["model", "model_of"]


def model(arch: str, dtype: str = "int") -> ModuleType:
    """The golden model module of the design ``arch`` (``dtype`` selects a variant)."""
    spec = designs.lookup(arch, dtype)
    if spec is None:
        raise ValueError(f"arch: no golden model for {arch!r} yet")
    return importlib.import_module(f"{__name__}.{spec.golden}")


def model_of(cfg) -> ModuleType:
    """The golden model module of configuration ``cfg``'s design and operand type (e.g. the
    pipelined bf16 baseline's, not the integer baseline's)."""
    return model(cfg.arch, cfg.dtype)
