"""Proofs that the bfloat16 tile's arithmetic -- the bf16 x bf16 -> float32 multiplier,
the float32 adder of its adder trees and accumulators, and the float32 -> bf16 output
rounding -- is IEEE 754's round to nearest, ties to even, for every input
(:mod:`termwise.tb.fp_proof`: the adder and the rounding through Yosys ``write_smt2``
against z3's floating-point theory; the multiplier by exhaustion, its 2^32 operand pairs
against the host's float32); and that each check fails on a deliberately broken
component.

How the components compose (the PE's pairwise tree order, the accumulator) is not proven
here: it is exact-bit regression against the golden model (tb/bf16_tests.py), which runs
the same IEEE float32 operations in NumPy in the same order.

Times on 2 cores shared with background synthesis, in seconds: to_bf16 0.3; the adder
163 (alone) to 1,064 (niced under load) (``slow``); the multiplier's 2^32 pairs 744 on
the loaded machine (2^24 pairs take 0.8 alone, so about 200 unloaded; ``slow``), its
three slices of ``a`` in make test about 3 after one 20 s build (1 s with ccache warm);
the broken variants under 5 each.
"""

import pytest
from amaranth import Cat, Const, Module, Signal

import termwise.rtl.fp as fp
from termwise.tb.fp_proof import exhaustive_multiplier, prove_fp


def _ties_away(m, sign, exp, exp_field, mant, guard, sticky, name):
    """:func:`termwise.rtl.fp._round_half_even` with a classic bug: a tie rounds away from
    zero (the increment ignores the sticky bit and the mantissa's parity)."""
    rounded = Signal(31, name=f"{name}_rounded")
    m.d.comb += rounded.eq(Cat(mant[:23], exp_field) + guard)
    result = Signal(32, name=f"{name}_packed")
    m.d.comb += result.eq(fp.Mux(exp >= 255, Cat(Const(fp.F32_INF, 31), sign),
                                 Cat(rounded, sign)))
    return result


class _TruncatingToBF16(fp.FP32ToBF16):
    """The output conversion that drops the low half instead of rounding it."""

    def elaborate(self, platform):
        m = Module()
        is_nan = (self.f32[23:31] == 0xFF) & (self.f32[:23] != 0)
        m.d.comb += self.bf16.eq(fp.Mux(is_nan, self.f32[16:32] | 0x0040, self.f32[16:32]))
        return m


def _f32(bits: int):
    import numpy as np
    return np.array([bits], dtype=np.uint32).view(np.float32)[0]


def test_to_bf16_is_ieee_rne():
    result = prove_fp("to_bf16")
    assert result.passed, result


def test_truncating_to_bf16_fails():
    result = prove_fp("to_bf16", component=_TruncatingToBF16())
    assert result.status == "FAIL", result
    u, out = result.counterexample["f32"], result.counterexample["bf16"]
    # Truncated where RNE rounds up: past the half, or a tie with an odd kept part.
    low = u & 0xFFFF
    assert out == u >> 16 and (low > 0x8000 or (low == 0x8000 and out & 1))


@pytest.mark.slow
def test_adder_is_ieee_rne():
    result = prove_fp("add", timeout=1800)
    assert result.passed, result


def test_adder_rounding_ties_away_fails(monkeypatch):
    monkeypatch.setattr(fp, "_round_half_even", _ties_away)
    result = prove_fp("add")
    assert result.status == "FAIL", result
    a, b, out = (result.counterexample[p] for p in ("a", "b", "sum"))
    # The counterexample is a real difference from float32 arithmetic (NumPy, IEEE RNE).
    assert _f32(out) != _f32(a) + _f32(b)


#: Slices of the multiplier's operand ``a`` checked in make test against every ``b``: the
#: subnormals and small normals (products below the normal range: the rounding paths), and
#: [0.5, 2) with both signs (ordinary products, carries into the exponent).
MUL_SLICES = ((0x0000, 0x0100), (0x3F00, 0x4000), (0xBF00, 0xC000))


def test_multiplier_slices_are_ieee_rne():
    result = exhaustive_multiplier(a_ranges=MUL_SLICES)       # one build, three slices
    assert result.checked == sum(hi - lo for lo, hi in MUL_SLICES) << 16
    assert result.passed, result


def test_multiplier_ties_away_fails_the_exhaustive_check(monkeypatch):
    monkeypatch.setattr(fp, "_round_half_even", _ties_away)
    result = exhaustive_multiplier(component=fp.BF16Multiplier(), a_ranges=MUL_SLICES[:1])
    assert result.wrong > 0, result
    a, b = (_f32(result.first[p] << 16) for p in ("a", "b"))
    assert _f32(result.first["expected"]) == a * b != _f32(result.first["product"])


@pytest.mark.slow
def test_multiplier_is_ieee_rne_for_every_pair():
    result = exhaustive_multiplier()
    assert result.checked == 1 << 32 and result.passed, result
