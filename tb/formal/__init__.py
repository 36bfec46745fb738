"""Formal proofs (SymbiYosys) that a PE array computes the bit-parallel reference for every
operand value of a small configuration, and finishes within its cycle model's worst case.

One module per concept:

- :mod:`.bound`: the cycle bound, from the golden cycle model's worst step
  (:func:`worst_step_cycles`, :func:`cycle_bound`, :func:`bmc_depth`);
- :mod:`.faults`: deliberately broken designs, for proofs that must fail
  (:class:`StuckAt`, :class:`FaultyLibrary`, :func:`masked_part`);
- :mod:`.harness`: the shared harness of an array on the generic contract
  (:class:`ArrayHarness`) and the case split (:class:`Case`, :func:`case_split`);
- :mod:`.owning`: the loads of an array that owns its operands (:class:`OwningArrayHarness`);
- :mod:`.sby`: running ``yowasp-sby`` (:func:`run_sby`, :func:`tool_env`,
  :func:`default_solver`);
- :mod:`.prove`: a proof, part by part (:func:`harness_for`, :func:`prove_array`);
- :mod:`.hooks`: what the proofs ask of a design's spec.

What a design brings is in its spec (:class:`termwise.gen.spec.FormalSpec`: the fault of its
broken variant, which operand bits it multiplies, and its own formal module
``termwise.tb.<arch>_formal`` for a harness or a worst step the shared ones do not cover);
nothing here names a design.

A proof builds the harness (one array, PEs inlined through
:class:`~termwise.tb.amaranth_sim.InlineLibrary`, driven by the tile's side of the contract
with free operands) and splits it into parts (:func:`case_split`), each a run of sby of its
own. The harness runs one run from the initial state; bounded model checking to a depth
past the bound (:func:`bmc_depth`) therefore covers every cycle of every such run: within
this harness the proof is complete, not a sample. It writes the RTLIL and an ``.sby`` file
into a temporary directory and runs ``yowasp-sby`` with the ``smtbmc`` engine on z3 or Yices
(:func:`default_solver`; docs/toolchain.md#formal-verification-tooling: there is no
``yosys-abc`` in the wheel).
"""

from .bound import act_values, bmc_depth, bricks_of, cycle_bound, every_pair, worst_step_cycles
from .faults import FaultyLibrary, StuckAt, fault_for, masked_part
from .harness import (AccView, ArrayHarness, Case, case_split, free_run, operand_value,
                      reference_operands, reference_sum)
from .hooks import design_hook, formal_spec
from .owning import OwningArrayHarness, max_of, owns_operands
from .prove import Proof, harness_for, prove_array, prove_case, prove_harness
from .sby import ProofResult, default_solver, run_sby, sby_script, tool_env

__all__ = ["reference_operands", "reference_sum", "worst_step_cycles", "cycle_bound",
           "bmc_depth", "bricks_of", "act_values", "every_pair", "StuckAt", "FaultyLibrary",
           "fault_for", "masked_part", "Case", "case_split", "operand_value", "free_run",
           "ArrayHarness", "AccView", "OwningArrayHarness", "owns_operands", "max_of",
           "formal_spec", "design_hook", "harness_for", "sby_script", "default_solver",
           "tool_env", "ProofResult", "run_sby", "Proof", "prove_harness", "prove_case",
           "prove_array"]
