"""Formal proof (:mod:`termwise.tb.formal`, :class:`DiffyHarness`: the generic
:class:`ArrayHarness` with the ``restart`` register free on the start cycle) that Diffy's
whole array -- the delta front end, the Bit-Pragmatic datapath on ``act_bits + 1`` bit
Booth-encoded deltas and the reconstruction unit -- computes the plain dot products
``sum act x wgt`` for every operand value, signedness and restart pattern, and finishes
within the golden cycle model's worst case (the costliest step over every pair of a
window's and its predecessor's bricks and every restart pattern,
:func:`termwise.tb.formal.worst_step_cycles`).

Assume-guarantee, in three parts (one query through the RTL did not finish in 10 minutes
for PE w1f0 with z3):

1. ``partials``: the datapath's accumulators hold ``P_w = W . d_w``, the deltas
   ``d_w = a_w - (restart_w ? 0 : a_{w-1})`` written in the harness, and the run ends
   within the bound;
2. ``outputs``: assuming 1, the array's ``acc`` is ``R_w = P_w + (restart_w ? 0 :
   R_{w-1})``, the paper's reconstruction computed in the harness;
3. ``R`` is ``sum act x wgt`` modulo ``2**acc_bits`` for every operand value, signedness
   and restart pattern (NumPy enumeration, no RTL).

What the harness covers: one run from the initial state, so window 0's predecessor store
is empty (reads 0) and the reconstruction's previous row is 0; windows ``w >= 1`` without
their restart bit are differenced against window ``w - 1`` and reconstructed from it. A run
that continues the previous run's row (window 0 against the stored last window) is not
covered: that needs a harness of two runs.

Broken variants that must fail (sby ``FAIL``): a PE's term sign stuck at 0 (part 1); the
front end missing window 1's restart bit, so a restarted window is differenced against
its neighbour (part 1); the reconstruction missing window 1's restart bit, so it adds the
neighbour's output to a restarted window (part 2).

2 filters x 2 windows x 2 lanes, 3-bit operands (4-bit deltas), 8-bit accumulators, runs
of 0 or 1 brick. Times with z3 (2 cores shared): part 1 184 s (``slow``; 10 parts, BMC
depth 5, the window-1 parts 26-46 s each), part 2 31 s (4 parts), part 3 0.4 s; the broken
variants fail in 5-8 s each (``make test``: 50 s in all).
"""

import pytest

import termwise.rtl.diffy as diffy
from termwise.gen.config import TileConfig
from termwise.tb import formal

#: 3-bit activations make 4-bit deltas; the accumulators must hold a brick of them.
SMALL = dict(filters=2, windows=2, lanes=2, act_bits=3, wgt_bits=3, depth=1, acc_bits=8)


def _cfg(**fields) -> TileConfig:
    return TileConfig("diffy", **{**SMALL, **fields})


def _fails(proof: formal.Proof) -> None:
    status, result = proof.status, proof.parts[-1][1]
    assert status == "FAIL" and result.returncode == 2, proof.summary()
    assert "Assert failed" in result.log


def _prove(part: str, **kw) -> formal.Proof:
    cfg = _cfg()
    worst = formal.worst_step_cycles(cfg)
    return formal.prove_array(cfg, harness=lambda case, library: formal.DiffyHarness(
        cfg, worst, case, library, part=part), **kw)


def _passes(proof: formal.Proof) -> None:
    assert proof.passed, proof.summary() + "\n" + proof.parts[-1][1].log[-3000:]


@pytest.mark.slow
def test_datapath_computes_the_delta_partials():
    _passes(_prove("partials"))


def test_reconstruction_of_the_partials():
    """Every PE in one part per signedness and run length (the datapath is assumed, so
    the query is small: 4 parts instead of 10)."""
    cases = [formal.Case(s, b) for s in (True, False) for b in range(SMALL["depth"] + 1)]
    _passes(_prove("outputs", cases=cases))


def test_reconstruction_is_the_reference():
    assert formal.diffy_reconstruction_is_the_reference(_cfg())


def test_reconstruction_check_can_fail():
    """The enumeration is not vacuous: a reconstruction that adds the neighbour's output
    to a restarted window too differs from the reference."""
    assert not formal.diffy_reconstruction_is_the_reference(_cfg(), ignore_restart=True)


def test_broken_pe_fails():
    _fails(_prove("partials", fault=formal.StuckAt(port="neg")))


def _losing_restart_bit_1(real):
    """A stand-in for the component class ``real`` whose ``restart`` input loses bit 1
    (window 1's)."""
    return formal.masked_part(real, "restart", 0b10)


def test_broken_front_end_fails(monkeypatch):
    """Only the signed 1-brick part of PE (window 1, filter 0) is checked."""
    monkeypatch.setattr(diffy, "DeltaFrontEnd", _losing_restart_bit_1(diffy.DeltaFrontEnd))
    _fails(_prove("partials", cases=[formal.Case(True, 1, (1, 0))]))


def test_broken_reconstruction_fails(monkeypatch):
    """Only the signed 1-brick part of PE (window 1, filter 0) is checked."""
    monkeypatch.setattr(diffy, "ReconstructionUnit",
                        _losing_restart_bit_1(diffy.ReconstructionUnit))
    _fails(_prove("outputs", cases=[formal.Case(True, 1, (1, 0))]))


def test_worst_step_covers_deltas():
    """The bound is enumerated over the deltas (4-bit values from 3-bit activations of
    either signedness), not the activations: at least Booth Pragmatic's worst step on
    3-bit activations (both 2 cycles here: a 4-bit delta has 2 radix-4 digits, and so
    has a 3-bit activation of either signedness)."""
    cfg = _cfg()
    assert formal.worst_step_cycles(cfg) >= formal.worst_step_cycles(
        TileConfig("pragmatic", **{**SMALL, "encoding": "booth"}))
