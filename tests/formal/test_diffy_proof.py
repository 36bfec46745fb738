"""Formal proof (:mod:`termwise.tb.diffy_formal`, :class:`DiffyHarness`: the generic
:class:`ArrayHarness` with the ``restart`` register free on the start cycle) that Diffy's
whole array -- the delta front end, the Bit-Pragmatic datapath on ``act_bits + 1`` bit
Booth-encoded deltas and the reconstruction unit -- computes the plain dot products
``sum act x wgt`` for every operand value, signedness and restart pattern, and finishes
within the golden cycle model's worst case (the costliest step over every pair of a
window's and its predecessor's bricks and every restart pattern,
:func:`termwise.tb.diffy_formal.worst_step_cycles`, the hook of its spec's ``formal``).

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
their restart bit are differenced against window ``w - 1`` and reconstructed from it.

A run that continues the previous run's row: the same three parts with ``prior_run`` (a
harness of two runs: a prior run with operands, length, signedness and restart bits of
its own, then the checked run). Part 1 specifies window 0's delta against the prior run's
last window brick by brick (0 past the prior run's length, read with the checked run's
signedness); part 2 its reconstruction from the prior run's last output row as the tile
read it; part 3 enumerates (one predecessor brick more) that, for a host that continues a
row with the same length, weights and signedness, the outputs are the plain dot
products. The prior run starts from reset, so the proof covers every second run; a later
run differs only in the values its predecessor state can hold. Broken variants that must
fail, and pass the single-run proof: the predecessor store never written; the previous
output row never latched. Times (yices, loaded machine): part 1 24 s (6 parts, BMC depth
9), part 2 9 s, part 3 9 s, the broken variants 4-5 s each.

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
from termwise.tb import diffy_formal, formal

#: 3-bit activations make 4-bit deltas; the accumulators must hold a brick of them.
SMALL = dict(filters=2, windows=2, lanes=2, act_bits=3, wgt_bits=3, depth=1, acc_bits=8)


def _cfg(**fields) -> TileConfig:
    return TileConfig("diffy", **{**SMALL, **fields})


def _fails(proof: formal.Proof) -> None:
    status, result = proof.status, proof.parts[-1][1]
    assert status == "FAIL" and result.returncode == 2, proof.summary()
    assert "Assert failed" in result.log


def _prove(part: str, *, prior_run: bool = False, **kw) -> formal.Proof:
    cfg = _cfg()
    worst = formal.worst_step_cycles(cfg)
    return formal.prove_array(cfg, harness=lambda case, library: diffy_formal.DiffyHarness(
        cfg, worst, case, library, part=part, prior_run=prior_run), **kw)


#: The continued run's parts: window 0's PEs (window 1 is differenced against window 0 of
#: its own run, as in the single-run proof) per signedness and length, and the empty runs.
CONTINUED_PARTIALS = [formal.Case(s, b, None if b == 0 else (0, f))
                      for s in (True, False) for b in range(SMALL["depth"] + 1)
                      for f in (range(SMALL["filters"]) if b else [0])]
#: Every PE in one part per signedness and length (the datapath is assumed).
OUTPUT_CASES = [formal.Case(s, b) for s in (True, False) for b in range(SMALL["depth"] + 1)]


def _passes(proof: formal.Proof) -> None:
    assert proof.passed, proof.summary() + "\n" + proof.parts[-1][1].log[-3000:]


@pytest.mark.slow
def test_datapath_computes_the_delta_partials():
    _passes(_prove("partials"))


def test_reconstruction_of_the_partials():
    """Every PE in one part per signedness and run length (the datapath is assumed, so
    the query is small: 4 parts instead of 10)."""
    _passes(_prove("outputs", cases=OUTPUT_CASES))


def test_reconstruction_is_the_reference():
    assert diffy_formal.diffy_reconstruction_is_the_reference(_cfg())


def test_reconstruction_check_can_fail():
    """The enumeration is not vacuous: a reconstruction that adds the neighbour's output
    to a restarted window too differs from the reference."""
    assert not diffy_formal.diffy_reconstruction_is_the_reference(_cfg(), ignore_restart=True)


def test_broken_pe_fails():
    _fails(_prove("partials", fault=formal.fault_for(_cfg())))     # a PE's term sign


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


# A run that continues the prior run's row (DiffyHarness with prior_run): window 0 is
# differenced against the prior run's last window, and reconstructed from its output row.

def test_continued_run_partials():
    _passes(_prove("partials", prior_run=True, cases=CONTINUED_PARTIALS))


def test_continued_run_reconstruction():
    _passes(_prove("outputs", prior_run=True, cases=OUTPUT_CASES))


def test_continued_reconstruction_is_the_reference():
    assert diffy_formal.diffy_reconstruction_is_the_reference(_cfg(), continued=True)


def test_continued_reconstruction_check_can_fail():
    assert not diffy_formal.diffy_reconstruction_is_the_reference(_cfg(), continued=True,
                                                            ignore_restart=True)


def test_predecessor_store_never_written_fails(monkeypatch):
    """The front end's store never takes the last window's bricks: a continued window 0
    is differenced against 0 (the single-run proof cannot see this)."""
    monkeypatch.setattr(diffy, "RowStore", formal.masked_part(diffy.RowStore, "wen", 1))
    _passes(_prove("partials", cases=[formal.Case(True, 1, (0, 0))]))
    _fails(_prove("partials", prior_run=True, cases=[formal.Case(True, 1, (0, 0))]))


def test_previous_row_never_latched_fails(monkeypatch):
    """The reconstruction never latches the prior run's output row: a continued window 0
    adds 0 (the single-run proof cannot see this)."""
    monkeypatch.setattr(diffy, "ReconstructionUnit",
                        formal.masked_part(diffy.ReconstructionUnit, "latch", 1))
    _passes(_prove("outputs", cases=[formal.Case(True, 1)]))
    _fails(_prove("outputs", prior_run=True, cases=[formal.Case(True, 1)]))
