"""Formal proof (SymbiYosys, :class:`termwise.tb.cnvlutin_formal.CnvlutinHarness`, on the
shared :class:`termwise.tb.formal.OwningArrayHarness`'s loads) that Cnvlutin's array --
which owns its operands: zero-free activation lane stores written through its own encoder,
per-lane weight stores -- computes the bit-parallel reference ``sum act x wgt``
over the run's bricks for every operand value and signedness, ignores the rows past the
run's ``bricks``, and takes *exactly* the golden model's cycles (``max(1, longest lane
stream) + 2``: ``busy`` high until then, low on that cycle).

Broken variants that must fail (sby ``FAIL``, exit 2): a PE's weight bit stuck at 0; a
lane's stream offset bit stuck at 0 (the lane reads brick 0's weight for brick 1's
activation: a fault outside the PEs, in the zero-free store); the cycle model one cycle
short or one cycle long (the cycle check is exact both ways).

Times with z3 (2 cores shared; the first sby run of a fresh venv spends ~90 s compiling
yowasp's WebAssembly once, not counted):

* 2 filters x 2 windows x 2 lanes, 3-bit operands, runs of 0 or 1 brick (10 parts, BMC
  depth 6: 1 load cycle, at most 3 run cycles, 2 more): 31 s in pytest (18 s of it in
  the solver), in ``make test``; each broken variant fails in 2-5 s.
* 1 filter x 2 windows x 2 lanes, 3-bit operands, runs of up to 2 bricks (depth 8: a
  lane's offset selects between two weight rows, a lane stream may skip brick 0): 242 s
  (the four 2-brick parts 60-100 s each), ``slow``. The same at 2 x 2 PEs costs about
  twice that; 4-bit operands, 2 x 2 PEs, runs of 1 brick 7-25 s per part, of 2 bricks
  90-130 s per part (measured, not in the suite).
"""

import numpy as np
import pytest

import termwise.rtl.cnvlutin as cnvlutin
from termwise.gen.config import TileConfig
from termwise.golden.cycles import run_cycles, run_overhead
from termwise.tb import cnvlutin_formal, formal

SMALL = dict(filters=2, windows=2, lanes=2, act_bits=3, wgt_bits=3, depth=1)
#: Measured with z3: see the module docstring.
TWO_BRICKS = dict(filters=1, windows=2, lanes=2, act_bits=3, wgt_bits=3, depth=2)


def _cfg(**fields) -> TileConfig:
    return TileConfig("cnvlutin", **fields)


def _check(proof: formal.Proof) -> None:
    assert proof.passed, proof.summary() + "\n" + proof.parts[-1][1].log[-3000:]


def _fails(proof: formal.Proof) -> None:
    status, result = proof.status, proof.parts[-1][1]
    assert status == "FAIL" and result.returncode == 2, proof.summary()
    assert "Assert failed" in result.log


def test_cnvlutin_equals_reference():
    _check(formal.prove_array(_cfg(**SMALL)))


@pytest.mark.slow
def test_cnvlutin_equals_reference_two_bricks():
    _check(formal.prove_array(_cfg(**TWO_BRICKS)))


def test_broken_pe_fails():
    """PE (filter 0, window 0)'s lane-0 weight LSB stuck at 0."""
    cfg = _cfg(**SMALL)
    _fails(formal.prove_array(cfg, fault=formal.fault_for(cfg)))




def test_broken_offset_fails(monkeypatch):
    """A fault outside the PEs: lane 0's stream offset loses bit 0, so an activation of
    brick 1 meets brick 0's weight (needs runs of 2 bricks; only the signed 2-brick part
    of PE w0f0 is checked: the counterexample is found in seconds)."""
    # lane 0's `offset` output (the address of the lane's weight read), bit 0
    monkeypatch.setattr(cnvlutin, "ZeroFreeStore",
                        formal.masked_part(cnvlutin.ZeroFreeStore, "offset", 1))
    cfg = _cfg(**TWO_BRICKS)
    _fails(formal.prove_array(cfg, cases=[formal.Case(True, 2, (0, 0))]))


@pytest.mark.parametrize("slack", [-1, 1])
def test_wrong_cycle_model_fails(slack):
    """The cycle check is exact: a model one cycle short (busy is still high) or one cycle
    long (busy has already fallen) fails."""
    cfg = _cfg(**SMALL)
    proof = formal.prove_array(cfg, cases=[formal.Case(True, 1, (0, 0))],
                               harness=lambda case, library:
                               cnvlutin_formal.CnvlutinHarness(cfg, case, library,
                                                               cycle_slack=slack))
    _fails(proof)


def test_harness_cycle_formula_is_the_golden_model():
    """The harness expects ``max(1, L) + run_overhead`` cycles, ``L`` the most non-zero
    activations of any lane of any window: the golden ``run_cycles`` agree on random
    sparse runs (and on empty ones)."""
    cfg = _cfg(filters=2, windows=3, lanes=4, act_bits=3, wgt_bits=3, depth=5)
    rng = np.random.default_rng(17)
    for n in range(cfg.depth + 1):
        for _ in range(20):
            act = rng.integers(-4, 4, (cfg.windows, n * cfg.lanes))
            act[rng.random(act.shape) < 0.5] = 0
            wgt = rng.integers(-4, 4, (cfg.filters, n * cfg.lanes))
            lanes = act.reshape(cfg.windows, n, cfg.lanes)
            longest = int(np.count_nonzero(lanes, axis=1).max()) if n else 0
            assert run_cycles(cfg, act, wgt) == max(1, longest) + run_overhead(cfg)


def test_owning_harness_refuses_the_generic_contract():
    with pytest.raises(ValueError, match="generic contract"):
        formal.OwningArrayHarness(TileConfig("baseline", **SMALL))
    assert formal.owns_operands(_cfg(**SMALL))
    assert not formal.owns_operands(TileConfig("baseline", **SMALL))
