"""Formal proofs (SymbiYosys, bounded model checking; :mod:`termwise.tb.formal`) that the PE
arrays on the generic contract compute the bit-parallel reference for every operand value,
precision and signedness of a small configuration and finish within the golden cycle
model's worst case, and that the same proof fails on an array with one PE input bit stuck
at 0 (so no proof passes vacuously).

The fast proofs (2 filters x 2 windows x 2 lanes, 3-bit operands, runs of up to 1 brick,
10-20 s each with Yices, the default solver; Laconic 47 s and Loom 35 s on a loaded
machine) run in ``make test``; runs of up to 2 bricks (brick-to-brick pipelining) are
``slow``.
"""

import numpy as np
import pytest

from termwise.gen import designs
from termwise.gen.config import TileConfig
from termwise.golden.tile_model import effective_operands
from termwise.tb import formal

#: The designs on the generic array contract that are proven with the shared harness
#: (a spec whose ``formal`` gives a fault and no module of its own), each with the PE
#: input whose bit the broken variant loses (``formal.fault``: a lane's activation or
#: weight bit, or a sign).
FAULTS = {s.arch: s.formal.fault for s in designs.SPECS.values()
          if s.formal is not None and s.formal.fault is not None and s.formal.module is None}

SMALL = dict(filters=2, windows=2, lanes=2, act_bits=3, wgt_bits=3, depth=1)
TWO_BRICKS = dict(filters=1, windows=1, lanes=2, act_bits=3, wgt_bits=3, depth=2)


def _cfg(arch: str, **fields) -> TileConfig:
    return TileConfig(arch, **fields)


def _check(proof: formal.Proof) -> None:
    assert proof.passed, proof.summary() + "\n" + proof.parts[-1][1].log[-3000:]


@pytest.mark.parametrize("arch", list(FAULTS))
def test_array_equals_reference(arch):
    _check(formal.prove_array(_cfg(arch, **SMALL)))


#: The designs proven with runs of 2 bricks (``formal.two_bricks``; Bit-Pragmatic's first
#: 2-brick part took over 3 minutes with Yices; Laconic and Loom were not measured: not
#: yet proven).
TWO_BRICK_ARCHS = [a for a in FAULTS if designs.lookup(a).formal.two_bricks]


@pytest.mark.slow
@pytest.mark.parametrize("arch", TWO_BRICK_ARCHS)
def test_array_equals_reference_two_bricks(arch):
    _check(formal.prove_array(_cfg(arch, **TWO_BRICKS)))


@pytest.mark.parametrize("arch", list(FAULTS))
def test_broken_array_fails(arch):
    """One PE input bit stuck at 0 in PE (filter 0, window 0): the proof finds a
    counterexample (sby's FAIL, exit status 2)."""
    cfg = _cfg(arch, **SMALL)
    proof = formal.prove_array(cfg, fault=formal.fault_for(cfg))
    status, result = proof.status, proof.parts[-1][1]
    assert status == "FAIL" and result.returncode == 2, proof.summary()
    assert "Assert failed" in result.log


def test_stuck_bit_reaches_the_pe():
    """The fault is on the PE's input, not on the array's copy of it (a fault the array
    could not see would make the broken-design test meaningless)."""
    from amaranth.back import rtlil
    cfg = _cfg("baseline", **SMALL)
    harness = formal.ArrayHarness(cfg, 1, library=formal.FaultyLibrary(FAULTS["baseline"]))
    text = rtlil.convert(harness, ports=[])
    assert "pe_f0_w0_faulty__wgt" in text


@pytest.mark.parametrize("arch", list(FAULTS))
def test_reference_semantics_match_the_golden_model(arch):
    """The harness narrows operands as the spec's ``formal.act_precision`` /
    ``formal.wgt_precision`` say; the golden model's ``effective_operands`` agree for
    every precision and signedness."""
    cfg = _cfg(arch, **SMALL)
    rng = np.random.default_rng(17)
    wgt = rng.integers(-4, 4, (2, 64))
    for act_signed in (True, False):
        act = rng.integers(-4, 4, (2, 64)) if act_signed else rng.integers(0, 8, (2, 64))
        for p in range(1, cfg.act_bits + 1):
            for pw in range(1, cfg.wgt_bits + 1):
                rt = cfg.runtime_values(p, pw, act_signed=act_signed)
                want = effective_operands(cfg, act, wgt, rt)
                got = formal.reference_operands(cfg, act, wgt, rt)
                assert all(np.array_equal(g, w) for g, w in zip(got, want)), (p, pw)


def test_cycle_bound_is_the_models_worst_case():
    """Stripes at 3 bits: a step takes at most P = 3 cycles, a run 2 cycles more; Laconic:
    2 x 2 Booth terms (4 of an unsigned 3-bit activation's 4 bits need 2 digits)."""
    stripes = _cfg("stripes", **SMALL)
    assert formal.worst_step_cycles(stripes) == 3
    assert formal.cycle_bound(stripes, 2, 3) == 2 + 2 * 3
    assert formal.cycle_bound(stripes, 0, 3) == 1
    assert formal.worst_step_cycles(_cfg("baseline", **SMALL)) == 1
    assert formal.worst_step_cycles(_cfg("laconic", **SMALL)) == 4


def test_sby_script():
    script = formal.sby_script(7, solver="z3")
    assert "mode bmc" in script and "depth 7" in script and "smtbmc z3" in script


def test_case_split_covers_every_run_and_pe():
    cfg = _cfg("baseline", **SMALL)
    parts = formal.case_split(cfg)
    for sign in (True, False):
        assert formal.Case(sign, 0, None) in parts
        for w in range(cfg.windows):
            for f in range(cfg.filters):
                assert formal.Case(sign, 1, (w, f)) in parts
    assert len(parts) == 2 * (1 + cfg.windows * cfg.filters)
