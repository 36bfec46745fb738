"""A proof of one array: the harness of a configuration (:func:`harness_for`: the shared
:class:`~termwise.tb.formal.ArrayHarness` or the design's own, named by its spec's
:class:`~termwise.gen.spec.FormalSpec`), checked part by part of its case split
(:func:`prove_array`), each part one sby run (:func:`prove_case`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from amaranth.back import rtlil

from ..amaranth_sim import InlineLibrary
from .bound import worst_step_cycles
from .faults import FaultyLibrary, StuckAt
from .harness import ArrayHarness, Case, case_split
from .hooks import design_hook
from .owning import owns_operands
from .sby import ProofResult, run_sby

__all__ = ["harness_for", "Proof", "prove_harness", "prove_case", "prove_array"]


def harness_for(cfg, case: "Case | None" = None, library: InlineLibrary | None = None,
                worst_step: int | None = None):
    """The harness of ``cfg``'s array: the design's own (the ``harness`` hook of its
    spec's ``formal.module``) when it has one, else :class:`ArrayHarness` (``worst_step``
    default :func:`worst_step_cycles`). An array that owns its operands has no shared
    harness (:class:`~termwise.tb.formal.OwningArrayHarness` drives only its loads)."""
    own = design_hook(cfg, "harness")
    if own is not None:
        return own(cfg, case, library, worst_step)
    if owns_operands(cfg):
        raise ValueError(f"{cfg.arch}: the array owns its operands; its spec's formal "
                         "module must define harness(cfg, case, library, worst_step)")
    if worst_step is None:
        worst_step = worst_step_cycles(cfg)
    return ArrayHarness(cfg, worst_step, case, library)


@dataclass(frozen=True)
class Proof:
    """A proof of one array: the result of every part of its case split, in order
    (:func:`case_split`; a failed part ends the proof)."""

    cfg: object
    parts: tuple

    @property
    def status(self) -> str:
        """``PASS`` when every part passed, else the first other status."""
        return next((r.status for _, r in self.parts if not r.passed), "PASS")

    @property
    def passed(self) -> bool:
        return self.status == "PASS"

    @property
    def seconds(self) -> float:
        return sum(r.seconds for _, r in self.parts)

    @property
    def depth(self) -> int:
        """The deepest part's steps."""
        return max(r.depth for _, r in self.parts)

    def summary(self) -> str:
        return "; ".join(f"{case}: {r.status} at depth {r.depth} in {r.seconds:.1f} s"
                         for case, r in self.parts)


def prove_harness(harness, *, solver: str | None = None, timeout: float = 600,
                  keep: Path | None = None) -> ProofResult:
    """Check ``harness`` (an :class:`ArrayHarness`, :class:`OwningArrayHarness` or any
    elaboratable with a ``steps`` BMC depth) with sby."""
    text = rtlil.convert(harness, ports=[])
    return run_sby(text, harness.steps, solver=solver, timeout=timeout, keep=keep)


def prove_case(cfg, case: Case, worst_step: int | None, *, fault: StuckAt | None = None,
               solver: str | None = None, timeout: float = 600,
               keep: Path | None = None, harness=None) -> ProofResult:
    """One part of the proof of ``cfg``'s array (:func:`harness_for`), checked to the
    depth that covers its worst-case run (the harness's ``steps``); with ``fault``, of the
    array with that PE input bit stuck at 0. ``harness(case, library)`` builds another
    harness (e.g. one with a deliberately wrong cycle model)."""
    library = FaultyLibrary(fault) if fault else None
    built = harness(case, library) if harness else harness_for(cfg, case, library, worst_step)
    return prove_harness(built, solver=solver, timeout=timeout, keep=keep)


def prove_array(cfg, *, fault: StuckAt | None = None, solver: str | None = None,
                timeout: float = 600, harness=None, cases=None) -> Proof:
    """Prove ``cfg``'s array against the reference for every run (:func:`case_split`, or
    ``cases``), part by part, stopping at the first part that does not pass; ``timeout``
    is per part. With ``fault`` the proof must fail. ``harness``: as :func:`prove_case`."""
    worst = None if harness or owns_operands(cfg) else worst_step_cycles(cfg)
    parts = []
    for case in (case_split(cfg) if cases is None else cases):
        result = prove_case(cfg, case, worst, fault=fault, solver=solver, timeout=timeout,
                            harness=harness)
        parts.append((case, result))
        if not result.passed:
            break
    return Proof(cfg, tuple(parts))
