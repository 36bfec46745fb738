"""Laconic's term sources (:mod:`termwise.rtl.laconic_terms`): a brick's lanes each emit
their value's Booth terms, lowest first, against :func:`termwise.golden.terms.booth_terms`;
each lane loads and advances on its own bits; a kept brick reloads the digits it took."""

import numpy as np
import pytest

from termwise.golden.terms import booth_term_count, booth_terms
from termwise.rtl.laconic_terms import TermBrick
from termwise.tb.amaranth_sim import run_simulation


@pytest.mark.parametrize("keep", [False, True])
def test_brick_lanes_serialise_their_booth_terms(keep):
    """Random bricks (extremes included), each lane advanced on random cycles of its own:
    every cycle each lane shows the next of its value's terms (``valid`` low once they are
    spent) and its term count; with ``keep``, a ``load`` without ``take`` restarts a lane on
    the value taken last, whatever ``value`` holds now."""
    bits, lanes = 7, 3
    dut = TermBrick(bits, lanes, keep=keep)
    rng = np.random.default_rng(3 + keep)
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    async def tb(ctx):
        taken = [0] * lanes             # the value each lane holds terms of
        left = [[] for _ in range(lanes)]
        bricks = [[lo] * lanes, [hi] * lanes, [0, -1, 1]] + \
            [list(rng.integers(lo, hi + 1, lanes)) for _ in range(12)]
        for brick in bricks:
            for lane, v in enumerate(brick):
                ctx.set(dut.value[lane], int(v))
            ctx.set(dut.load, (1 << lanes) - 1)
            ctx.set(dut.advance, 0)
            if keep:
                ctx.set(dut.take, 1)
            for lane, v in enumerate(brick):
                assert ctx.get(dut.count[lane]) == booth_term_count([int(v)], bits)[0]
            await ctx.tick()
            taken = [int(v) for v in brick]
            left = [booth_terms(v, bits) for v in taken]
            ctx.set(dut.load, 0)
            if keep:
                ctx.set(dut.take, 0)
            for cycle in range(12):
                for lane in range(lanes):
                    term = dut.term[lane]
                    if left[lane]:
                        sign, exp = left[lane][0]
                        assert (ctx.get(term.valid), ctx.get(term.neg), ctx.get(term.exp)) \
                            == (1, int(sign < 0), exp), (brick, lane, cycle)
                    else:
                        assert ctx.get(term.valid) == 0, (brick, lane, cycle)
                advance = [int(rng.random() < .6) for _ in range(lanes)]
                reload = keep and cycle == 6
                if reload:      # lane 1 restarts on the value it took; `value` is another
                    ctx.set(dut.value[1], taken[1] ^ 0x15)
                    advance[1] = 0
                    ctx.set(dut.load, 0b010)
                ctx.set(dut.advance, sum(a << lane for lane, a in enumerate(advance)))
                await ctx.tick()
                for lane in range(lanes):
                    if reload and lane == 1:
                        left[lane] = booth_terms(taken[lane], bits)
                    elif advance[lane] and left[lane]:
                        left[lane] = left[lane][1:]
                ctx.set(dut.load, 0)

    run_simulation(dut, tb)
