"""Formal proof (SymbiYosys, :class:`termwise.tb.formal.TacticalHarness`) that Bit-Tactical's
array -- which owns its operands: dense activation rows, and per kept step a packed weight
row and a metadata row (a select per filter and lane, the step's original index) -- computes
``sum over kept steps j and lanes l of W_j[f][l] x A_w[t_j + dt][(l + dl) mod lanes]`` (the
promotion source ``(dt, dl)`` that the select names; the reference is written from the
paper's semantics, not from the RTL) for every weight, metadata and activation value the
offline schedule can produce (selects name a source, a non-zero weight's activation row
exists), both signednesses, and finishes within ``2 + K x`` a dense step's cycles.

Configuration: 1 filter x 2 windows x 2 lanes, 3-bit operands, ``depth = 2`` (two
activation rows, so a kept step at ``t = 0`` may take its activations from row 1), shape
``L`` with lookahead 1 and lookaside 1 (sources ``(1, 0)`` and ``(1, -1)``: ahead, and ahead
and one lane aside), runs of 0 or 1 kept step.

Back end TCLp (Dynamic Stripes' serial datapath) only: the TCLe run of the same
configuration (Bit-Pragmatic's encoders over 4 candidates) did not finish within 15
minutes and was stopped; TCLe is not proven.

Broken variants that must fail (sby ``FAIL``): lane 0's activation bit of a PE stuck at 0;
the front end's candidate index of (filter 0, lane 0) losing bit 0, so a slot reads the
wrong candidate.

Times with z3 (2 cores shared): the proof 82 s in the solver (6 parts, BMC depth 13: 4
load cycles, the run, 2 more; 17-21 s per 1-step part), ``slow``; the broken variants
fail in 2-6 s (``make test``).
"""

import pytest

import termwise.rtl.tactical as tactical
from termwise.gen.config import TileConfig
from termwise.tb import formal

SMALL = dict(filters=1, windows=2, lanes=2, act_bits=3, wgt_bits=3, depth=2, shape="L",
             lookahead=1, lookaside=1)

#: backend: (the broken variant's PE fault, slow with z3). TCLe is not proven: its run
#: (the same configuration, ``backend = "tcle"``) did not finish within 15 minutes.
BACKENDS = {
    "tclp": (formal.StuckAt(port="act_bit"), True),
}


def _cfg(backend: str) -> TileConfig:
    return TileConfig("tactical", backend=backend, **SMALL)


def _one_step(cfg) -> list:
    """The case split's runs of 0 or 1 kept step."""
    return [case for case in formal.case_split(cfg) if case.bricks <= 1]


def _fails(proof: formal.Proof) -> None:
    status, result = proof.status, proof.parts[-1][1]
    assert status == "FAIL" and result.returncode == 2, proof.summary()
    assert "Assert failed" in result.log


@pytest.mark.parametrize("backend", [pytest.param(b, marks=pytest.mark.slow) if v[1] else b
                                     for b, v in BACKENDS.items()])
def test_tactical_equals_reference(backend):
    cfg = _cfg(backend)
    proof = formal.prove_array(cfg, cases=_one_step(cfg))
    assert proof.passed, proof.summary() + "\n" + proof.parts[-1][1].log[-3000:]


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_broken_pe_fails(backend):
    cfg = _cfg(backend)
    _fails(formal.prove_array(cfg, cases=_one_step(cfg), fault=BACKENDS[backend][0]))


def test_broken_candidate_select_fails(monkeypatch):
    """Only the signed 1-step part of PE (window 0, filter 0) of TCLp is checked."""
    # the candidate index of slot (filter 0, lane 0), bit 0
    monkeypatch.setattr(tactical, "TacticalFrontEnd",
                        formal.masked_part(tactical.TacticalFrontEnd, "index", 1))
    cfg = _cfg("tclp")
    _fails(formal.prove_array(cfg, cases=[formal.Case(True, 1, (0, 0))]))


def test_worst_step_is_the_spec_dense_cost():
    """The bound's dense step for TCLp is the precision (3 cycles at 3 bits), the design
    spec's worst step too."""
    cfg = _cfg("tclp")
    assert formal._tactical_worst_step(cfg) == 3 == cfg.spec.worst_step_cycles(cfg, 3)
