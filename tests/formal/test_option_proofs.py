"""Formal proofs (:mod:`termwise.tb.formal`, the generic :class:`ArrayHarness`) of option
variants of the designs proven with their defaults in test_array_proofs.py: each array
computes the bit-parallel reference for every operand value, precision and signedness and
finishes within the golden cycle model's worst case (which the options change), and each
proof fails (sby ``FAIL``) with one PE input bit stuck at 0.

2 filters x 2 windows x 2 lanes, 3-bit operands, runs of 0 or 1 brick, as the default
proofs. Times with z3 (2 cores shared), proof / broken variant, in seconds:

* Bit-Pragmatic, ``encoding = "booth"``: 65 / 6 (proof ``slow``);
* Bit-Pragmatic, ``sync = "column"``, ``column_registers = 2``: 112 / 29 (both ``slow``);
* Bit-Pragmatic, ``first_stage_bits = 0`` (every term its own cycle): 79 / 4 (proof
  ``slow``);
* Stripes, ``pe_stages = 1`` (every PE input registered; the harness holds the run open
  as the tile does, the bound adds the stage): 40 / 5 (proof ``slow``);
* Loom, ``serial_bits = 2`` (2 activation bits a cycle; BMC depth 11): 346 / 10 (proof
  ``slow``);
* Loom, ``serial_bits = 4`` with 4-bit activations (one whole chunk a cycle, so every
  precision 1-4 is one chunk; BMC depth 8): 41 / 5 with Yices (the same at 3-bit
  activations, a partial chunk: also passes).
* Laconic, ``reduction = "onehot"`` (termwise's first PE; the default proof is the paper's
  histogram PE): 27 / 5.

So ``make test`` runs the broken variants but Bit-Pragmatic column sync's (15 s in all)
and Loom's 4-bit-chunk proof; ``make test-all`` the other proofs.
"""

import pytest

from termwise.gen.config import TileConfig
from termwise.tb import formal

SMALL = dict(filters=2, windows=2, lanes=2, act_bits=3, wgt_bits=3, depth=1)

#: name: (arch, options, the broken variant's fault, seconds with z3 (proof, broken;
#: wall time of the whole case split, elaboration included), slow: over a minute with z3
#: (Stripes' 40 s too, to keep make test's formal additions near 2 minutes), or the broken
#: variant over 20 s). Column synchronisation with runs of 1 brick checks
#: its slot logic with every window on the same brick only (runs of 2 bricks, where
#: windows run ahead: not proven). Loom's ``serial_bits`` were not measured in time.
VARIANTS = {
    "pragmatic-booth": ("pragmatic", dict(encoding="booth"), formal.StuckAt(port="neg"),
                        (65, 6), True),
    "pragmatic-column": ("pragmatic", dict(sync="column", column_registers=2),
                         formal.StuckAt(port="neg"), (112, 29), True),
    "pragmatic-fs0": ("pragmatic", dict(first_stage_bits=0), formal.StuckAt(port="neg"),
                      (79, 4), True),
    "stripes-pe-stages-1": ("stripes", dict(pe_stages=1), formal.StuckAt(port="act_bit"),
                            (40, 5), True),
    "loom-serial-2": ("loom", dict(serial_bits=2), formal.StuckAt(port="wgt_bit"),
                      (346, 10), True),
    "loom-serial-4": ("loom", dict(serial_bits=4, act_bits=4), formal.StuckAt(port="wgt_bit"),
                      (41, 5), False),
    "laconic-onehot": ("laconic", dict(reduction="onehot"), formal.StuckAt(port="act", bit=1),
                       (27, 5), False),
}


def _cfg(name: str) -> TileConfig:
    arch, options = VARIANTS[name][:2]
    return TileConfig(arch, **{**SMALL, **options})


def _params():
    return [pytest.param(n, marks=pytest.mark.slow) if v[4] else n
            for n, v in VARIANTS.items()]


@pytest.mark.parametrize("name", _params())
def test_variant_equals_reference(name):
    proof = formal.prove_array(_cfg(name))
    assert proof.passed, proof.summary() + "\n" + proof.parts[-1][1].log[-3000:]


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if v[3][1] > 20
                                  else n for n, v in VARIANTS.items()])
def test_broken_variant_fails(name):
    proof = formal.prove_array(_cfg(name), fault=VARIANTS[name][2])
    status, result = proof.status, proof.parts[-1][1]
    assert status == "FAIL" and result.returncode == 2, proof.summary()
    assert "Assert failed" in result.log


def test_variants_change_the_configuration():
    """Each variant's options reach the configuration (not silently the default)."""
    assert _cfg("pragmatic-booth").encoding == "booth"
    assert _cfg("pragmatic-column").sync == "column"
    assert _cfg("pragmatic-fs0").first_stage_bits == 0
    assert _cfg("stripes-pe-stages-1").pe_stages == 1
    assert _cfg("stripes-pe-stages-1").pipeline_latency == 1
    assert _cfg("loom-serial-2").serial_bits == 2
    assert (_cfg("loom-serial-4").serial_bits, _cfg("loom-serial-4").act_bits) == (4, 4)
