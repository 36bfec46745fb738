"""amaranth.sim tests of rtl/encoders.py against the NumPy references of golden/terms.py.

Combinational encoders: exhaustive over every 8-bit value (signed and unsigned), sampled at
16 bits. Serializers: every term checked in order, cycle by cycle, and the number of cycles
per value checked to be ``max(terms, 1)``; exhaustive at 8 bits.
"""

import numpy as np
import pytest
from amaranth.sim import Simulator

from termwise.golden import terms as gold
from termwise.rtl.encoders import (
    BoothEncoder, BoothTermSerializer, DigitSerializer, LeadingOneDetector, OneffsetEncoder,
    PrecisionDetector, PriorityEncoder, booth_digit_count,
)


def _run(dut, testbench, *, clocked=False):
    sim = Simulator(dut)
    if clocked:
        sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()


def _all_values(bits, is_signed):
    lo, hi = gold.value_range(bits, is_signed)
    return list(range(lo, hi + 1))


def _sampled(bits, is_signed, n, seed):
    """Random values with random magnitudes (so short and long values both occur), plus the
    range ends."""
    rng = np.random.default_rng(seed)
    lo, hi = gold.value_range(bits, is_signed)
    width = rng.integers(1, bits + 1, size=n)
    vals = rng.integers(lo, hi + 1, size=n, dtype=np.int64)
    vals = np.clip(vals >> (bits - width), lo, hi) if is_signed else vals >> (bits - width)
    return [lo, hi, 0, 1] + ([-1] if is_signed else []) + [int(v) for v in vals]


# ---------------------------------------------------------------- combinational helpers

def test_leading_one_detector_exhaustive():
    dut = LeadingOneDetector(8)
    seen = []

    async def tb(ctx):
        for v in range(256):
            ctx.set(dut.value, v)
            seen.append(ctx.get(dut.length))

    _run(dut, tb)
    assert seen == [v.bit_length() for v in range(256)]


def test_priority_encoder_exhaustive():
    dut = PriorityEncoder(8)
    seen, want = [], []

    async def tb(ctx):
        for v in range(256):
            ctx.set(dut.value, v)
            seen.append((ctx.get(dut.valid), ctx.get(dut.pos), ctx.get(dut.onehot),
                         ctx.get(dut.rest)))
            low = v & -v
            want.append((int(v != 0), max(low.bit_length() - 1, 0), low, v & ~low))

    _run(dut, tb)
    assert seen == want


# ------------------------------------------------------------------ precision detector

def _check_precision(n, bits, is_signed, groups):
    """One detector; each group's bit patterns on ``values`` and the runtime ``is_signed``
    port set as the group's signedness says (``is_signed`` a bool for every group, or one
    bool per group, so a run of groups may switch between both readings)."""
    dut = PrecisionDetector(n, bits)
    modes = [is_signed] * len(groups) if isinstance(is_signed, bool) else list(is_signed)
    seen = []

    async def tb(ctx):
        for group, signed in zip(groups, modes):
            for i, v in enumerate(group):
                ctx.set(dut.values[i], v & ((1 << bits) - 1))      # the stored pattern
            ctx.set(dut.is_signed, int(signed))
            seen.append(ctx.get(dut.precision))

    _run(dut, tb)
    want = [int(gold.group_precision(np.array(g), bits=bits, signed=signed))
            for g, signed in zip(groups, modes)]
    assert seen == want


@pytest.mark.parametrize("is_signed", [False, True])
def test_precision_detector_single_exhaustive(is_signed):
    _check_precision(1, 8, is_signed, [[v] for v in _all_values(8, is_signed)])


@pytest.mark.parametrize("is_signed", [False, True])
@pytest.mark.parametrize("n,bits", [(4, 8), (16, 16), (3, 5)])
def test_precision_detector_groups(n, bits, is_signed):
    vals = _sampled(bits, is_signed, 150 * n, seed=n * 100 + bits)
    groups = [vals[i:i + n] for i in range(0, len(vals) - n + 1, n)]
    groups.append([0] * n)
    if is_signed:
        groups.append([-1] * n)
    _check_precision(n, bits, is_signed, groups)


def test_precision_detector_spec_examples():
    # 0 -> 1, -1 -> 1, 1 -> 2, -2 -> 2, 3 -> 3 (signed); widest of the group wins.
    _check_precision(1, 8, True, [[0], [-1], [1], [-2], [3], [-128], [127]])
    assert gold.precision_needed([0, -1, 1, -2, 3], 8, True).tolist() == [1, 1, 2, 2, 3]
    _check_precision(3, 8, False, [[0, 0, 0], [1, 0, 0], [0, 4, 1], [255, 0, 3]])
    _check_precision(3, 8, True, [[0, -1, 0], [1, -2, 0], [-3, 2, 1], [0, 0, -128]])


@pytest.mark.parametrize("n,bits", [(1, 8), (4, 8), (16, 16)])
def test_precision_detector_runtime_signedness_of_8(n, bits):
    """The issue's repro: a group whose widest value is 8 (a 4-bit unsigned value) needs 4
    bits in an unsigned run (the papers' post-ReLU detector) and 5 in a signed one (a sign
    bit on top); the same detector answers both, switched by its ``is_signed`` port."""
    dut = PrecisionDetector(n, bits)
    group = [8] + [(3, 0, 8, 5)[i % 4] for i in range(n - 1)]
    seen = {}

    async def tb(ctx):
        for i, v in enumerate(group):
            ctx.set(dut.values[i], v)
        for signed in (0, 1, 0):
            ctx.set(dut.is_signed, signed)
            seen.setdefault(signed, []).append(ctx.get(dut.precision))

    _run(dut, tb)
    assert seen == {0: [4, 4], 1: [5]}
    assert int(gold.group_precision(np.array(group), bits=bits, signed=False)) == 4
    assert int(gold.group_precision(np.array(group), bits=bits, signed=True)) == 5


def test_precision_detector_exhaustive_both_runtime_modes():
    """Every 8-bit pattern read both ways by one detector, the mode switching between
    consecutive checks: unsigned (0..255) and two's complement (-128..127), each against
    :func:`termwise.golden.terms.group_precision`. Pairs of patterns too (sampled), so the
    OR of sign-folded values is covered."""
    patterns = list(range(256))
    groups, modes = [], []
    for p in patterns:
        for signed in (False, True):
            groups.append([p - 256 if signed and p >= 128 else p])
            modes.append(signed)
    _check_precision(1, 8, modes, groups)
    rng = np.random.default_rng(8)
    pairs = rng.integers(0, 256, size=(600, 2))
    groups, modes = [], []
    for (a, b), signed in zip(pairs, rng.integers(0, 2, size=len(pairs))):
        signed = bool(signed)
        groups.append([int(v) - 256 if signed and v >= 128 else int(v) for v in (a, b)])
        modes.append(signed)
    _check_precision(2, 8, modes, groups)


# ------------------------------------------------------------------------ combinational

def _booth_digits_rtl(dut, values):
    nd = dut.ndigits
    seen = []

    async def tb(ctx):
        for v in values:
            ctx.set(dut.value, v)
            digits = []
            for i in range(nd):
                zero = ctx.get(dut.digits[i].zero)
                neg = ctx.get(dut.digits[i].neg)
                exp = ctx.get(dut.digits[i].exp)
                digits.append((zero, neg, exp))
            seen.append((digits, ctx.get(dut.nonzero), ctx.get(dut.count)))

    _run(dut, tb)
    return seen


def _booth_digits_gold(values, bits, is_signed):
    out = []
    for row in gold.booth_digits(np.array(values), bits, is_signed):
        digits, mask = [], 0
        for i, d in enumerate(int(x) for x in row):
            digits.append((int(d == 0), int(d < 0), 2 * i + int(abs(d) == 2)))
            mask |= int(d != 0) << i
        out.append((digits, mask, int(np.count_nonzero(row))))
    return out


@pytest.mark.parametrize("bits,is_signed", [(8, True), (8, False), (7, True), (5, False)])
def test_booth_encoder_exhaustive(bits, is_signed):
    values = _all_values(bits, is_signed)
    dut = BoothEncoder(bits, is_signed=is_signed)
    assert dut.ndigits == booth_digit_count(bits, is_signed)
    assert _booth_digits_rtl(dut, values) == _booth_digits_gold(values, bits, is_signed)


@pytest.mark.parametrize("is_signed", [True, False])
def test_booth_encoder_16bit_sampled(is_signed):
    values = _sampled(16, is_signed, 300, seed=16)
    dut = BoothEncoder(16, is_signed=is_signed)
    assert _booth_digits_rtl(dut, values) == _booth_digits_gold(values, 16, is_signed)


# ---------------------------------------------------------------------------- serializers

def _serialize(dut, values, *, stall_seed=None):
    """Stream ``values`` through a serializer with the module-docstring protocol.

    Returns, per value, the list of ``(neg, exp)`` of the valid terms and the number of
    cycles it occupied. With ``stall_seed``, ``next`` is randomly held low; a stalled cycle
    must present the same term again and is not counted.
    """
    rng = np.random.default_rng(stall_seed) if stall_seed is not None else None
    results = []

    async def tb(ctx):
        # After reset nothing is loaded: the idle state is valid = 0, last = 1.
        assert (ctx.get(dut.valid), ctx.get(dut.last)) == (0, 1)
        ctx.set(dut.value, values[0])
        ctx.set(dut.load, 1)
        await ctx.tick()
        for k in range(len(values)):
            ctx.set(dut.load, 0)
            ctx.set(dut.next, 0)
            terms, cycles = [], 0
            while True:
                valid, last = ctx.get(dut.valid), ctx.get(dut.last)
                term = (ctx.get(dut.term.neg), ctx.get(dut.term.exp))
                if rng is not None and rng.random() < 0.3:
                    ctx.set(dut.next, 0)
                    await ctx.tick()
                    again = (ctx.get(dut.valid), ctx.get(dut.last),
                             (ctx.get(dut.term.neg), ctx.get(dut.term.exp)))
                    assert again == (valid, last, term), "a stalled term changed"
                    continue
                cycles += 1
                if valid:
                    terms.append(term)
                ctx.set(dut.next, 1)
                if last:
                    if k + 1 < len(values):        # stream the next value, no bubble
                        ctx.set(dut.value, values[k + 1])
                        ctx.set(dut.load, 1)
                    await ctx.tick()
                    break
                await ctx.tick()
                assert cycles <= 64, "serializer never raised last"
            results.append((terms, cycles))
        # Everything consumed: back to idle.
        ctx.set(dut.load, 0)
        ctx.set(dut.next, 0)
        assert (ctx.get(dut.valid), ctx.get(dut.last)) == (0, 1)

    _run(dut, testbench=tb, clocked=True)
    return results


def _expected(term_lists):
    """``(sign, exp)`` golden terms -> ``(neg, exp)`` terms and ``max(terms, 1)`` cycles."""
    return [([(int(s < 0), e) for s, e in tl], max(len(tl), 1)) for tl in term_lists]


@pytest.mark.parametrize("bits", [8, 4])
def test_oneffset_encoder_exhaustive(bits):
    values = _all_values(bits, False)
    got = _serialize(OneffsetEncoder(bits), values)
    assert got == _expected([[(1, e) for e in gold.oneffsets(v, bits)] for v in values])
    assert [c for _, c in got] == np.maximum(gold.essential_bits(values, bits), 1).tolist()


def test_oneffset_encoder_16bit_sampled_with_stalls():
    values = _sampled(16, False, 120, seed=3)
    got = _serialize(OneffsetEncoder(16), values, stall_seed=1)
    assert got == _expected([[(1, e) for e in gold.oneffsets(v, 16)] for v in values])


@pytest.mark.parametrize("bits,is_signed", [(8, True), (8, False), (5, True)])
def test_booth_serializer_exhaustive(bits, is_signed):
    values = _all_values(bits, is_signed)
    got = _serialize(BoothTermSerializer(bits, is_signed=is_signed), values)
    want = [gold.booth_terms(v, bits, is_signed) for v in values]
    assert got == _expected(want)
    assert all(gold.terms_value(t) == v for t, v in zip(want, values))


def test_booth_serializer_16bit_sampled_with_stalls():
    values = _sampled(16, True, 120, seed=4)
    got = _serialize(BoothTermSerializer(16), values, stall_seed=2)
    assert got == _expected([gold.booth_terms(v, 16) for v in values])


def test_digit_serializer_radix4_masks():
    """Direct drive of the generic serializer: exponent = 2 * digit + shift."""
    dut = DigitSerializer(4, 2)
    seen = []

    async def tb(ctx):
        ctx.set(dut.nonzero, 0b1011)
        ctx.set(dut.neg, 0b0010)
        ctx.set(dut.shift, 0b1001)
        ctx.set(dut.load, 1)
        await ctx.tick()
        ctx.set(dut.load, 0)
        ctx.set(dut.next, 1)
        for _ in range(4):
            seen.append((ctx.get(dut.valid), ctx.get(dut.last), ctx.get(dut.term.neg),
                         ctx.get(dut.term.exp), ctx.get(dut.pending)))
            await ctx.tick()

    _run(dut, tb, clocked=True)
    assert seen == [(1, 0, 0, 1, 0b1011), (1, 0, 1, 2, 0b1010), (1, 1, 0, 7, 0b1000),
                    (0, 1, 0, 0, 0)]


# ------------------------------------------------------------ the checks can fail

def test_checks_detect_wrong_models():
    """The comparisons above are strict: a wrong order, a wrong sign or a missing null cycle
    for zero all fail them."""
    values = [0, 5, -3, 6, 2]
    got = _serialize(BoothTermSerializer(4), values)
    right = [gold.booth_terms(v, 4) for v in values]
    assert got == _expected(right)
    assert got != _expected([list(reversed(t)) for t in right])
    assert got != _expected([[(-s, e) for s, e in t] for t in right])
    assert got != [(t, len(t)) for t, _ in _expected(right)]      # zero takes 1 cycle
    assert got != _expected([gold.csd_terms(v, 4) for v in values])  # 2 = 4 - 2 in Booth


# ---------------------------------------------------------------------- emission

@pytest.mark.parametrize("make", [
    lambda: PrecisionDetector(16, 16),
    lambda: PrecisionDetector(16, 8),
    lambda: OneffsetEncoder(16),
    lambda: BoothEncoder(16),
    lambda: BoothTermSerializer(16, is_signed=False),
], ids=["precision-16", "precision-8", "oneffset", "booth", "booth-serial"])
def test_emits_verilog(make):
    from amaranth.back import verilog
    dut = make()
    text = verilog.convert(dut, name=type(dut).__name__)
    assert f"module {type(dut).__name__}" in text
