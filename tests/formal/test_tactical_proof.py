"""Formal proof (SymbiYosys, :class:`termwise.tb.tactical_formal.TacticalHarness`) that
Bit-Tactical's array -- which owns its operands: dense activation rows, and per kept step a
packed weight row and a metadata row (a select per filter and lane, the step's original
index) -- computes ``sum over kept steps j and lanes l of W_j[f][l] x A_w[t_j + dt][(l +
dl) mod lanes]`` (the promotion source ``(dt, dl)`` that the select names; the reference
is written from the paper's semantics, not from the RTL) for every weight, metadata and
activation value the offline schedule can produce (selects name a source, a non-zero
weight's activation row exists), both signednesses, and finishes within ``2 + K x`` a
dense step's cycles.

Configuration: 1 filter x 2 windows x 2 lanes, 3-bit operands, ``depth = 2`` (two
activation rows, so a kept step at ``t = 0`` may take its activations from row 1), shape
``L`` with lookahead 1 and lookaside 1 (sources ``(1, 0)`` and ``(1, -1)``: ahead, and ahead
and one lane aside), runs of 0 or 1 kept step.

Both back ends: TCLp (Dynamic Stripes' serial datapath) and TCLe (Bit-Pragmatic's Booth
encoders over the 4 candidates of each window's 2 lanes; its bound's dense step is
Bit-Pragmatic's worst step over every 4-candidate brick, which the cycle model costs from
the activations alone: enumerating every weight brick too, 1.7e7 pairs, kept an earlier
TCLe run from reaching the solver in 15 minutes).

Broken variants that must fail (sby ``FAIL``): lane 0's activation bit of a PE stuck at 0
(TCLp), a PE's term sign stuck at 0 (TCLe); the front end's candidate index of (filter 0,
lane 0) losing bit 0, so a slot reads the wrong candidate (both).

Times (2 cores shared with other jobs), the whole proof (6 parts, BMC depth 13: 4 load
cycles, the run, 2 more) / a broken variant, in seconds: TCLp 82 with z3 / 2-6; TCLe 41 with
Yices 2 (330 with z3) / 11-12 with Yices. The proofs are ``slow``, the broken variants in
``make test``.
"""

import pytest

import termwise.rtl.tactical as tactical
from termwise.gen.config import TileConfig
from termwise.tb import formal, tactical_formal

SMALL = dict(filters=1, windows=2, lanes=2, act_bits=3, wgt_bits=3, depth=2, shape="L",
             lookahead=1, lookaside=1)

#: backend: the proof slow (the broken variant's PE fault is the spec's,
#: ``formal.fault_for``: lane 0's activation bit for TCLp, its term sign for TCLe).
BACKENDS = {
    "tclp": True,
    "tcle": True,
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


@pytest.mark.parametrize("backend", [pytest.param(b, marks=pytest.mark.slow) if slow else b
                                     for b, slow in BACKENDS.items()])
def test_tactical_equals_reference(backend):
    cfg = _cfg(backend)
    proof = formal.prove_array(cfg, cases=_one_step(cfg))
    assert proof.passed, proof.summary() + "\n" + proof.parts[-1][1].log[-3000:]


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_broken_pe_fails(backend):
    cfg = _cfg(backend)
    _fails(formal.prove_array(cfg, cases=_one_step(cfg), fault=formal.fault_for(cfg)))


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_broken_candidate_select_fails(monkeypatch, backend):
    """Only the signed 1-step part of PE (window 0, filter 0) is checked."""
    # the candidate index of slot (filter 0, lane 0), bit 0
    monkeypatch.setattr(tactical, "TacticalFrontEnd",
                        formal.masked_part(tactical.TacticalFrontEnd, "index", 1))
    cfg = _cfg(backend)
    _fails(formal.prove_array(cfg, cases=[formal.Case(True, 1, (0, 0))]))


@pytest.mark.parametrize("backend, cycles", [("tclp", 3), ("tcle", 2)])
def test_worst_step_is_the_spec_dense_cost(backend, cycles):
    """The bound's dense step is the design spec's worst step too: for TCLp the precision
    (3 cycles at 3 bits), for TCLe the Booth digits of a 3-bit value (2)."""
    cfg = _cfg(backend)
    assert tactical_formal.worst_step_cycles(cfg) == cycles
    assert cfg.spec.worst_step_cycles(cfg, 3) == cycles
    assert formal.worst_step_cycles(cfg) == cycles      # the spec's hook


def test_worst_step_without_weights_is_the_same_for_pragmatic():
    """Bit-Pragmatic's step cycles read the activations only, so its worst step over every
    activation brick with one weight brick equals the one over every pair (the shortcut
    TCLe's bound takes), plain and Booth, 2 lanes at 3 bits."""
    for encoding in ("plain", "booth"):
        cfg = TileConfig("pragmatic", filters=1, windows=1, lanes=2, act_bits=3, wgt_bits=3,
                         depth=1, encoding=encoding)
        assert formal.worst_step_cycles(cfg, weights=False) == formal.worst_step_cycles(cfg)
