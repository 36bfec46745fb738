"""amaranth.sim tests of the Bit-Pragmatic PE and window encoder (rtl/pragmatic.py), each
against a pure-Python reference written here from the paper's rule (MICRO 2017): per cycle
``base`` = the lowest remaining term position among the lanes, each lane retires its lowest
term if it lies in ``[base, base + 2**B - 1]``; the PE adds
``sum_l +-(w_l << offset_l) << base``."""

import numpy as np
import pytest

from termwise.gen.config import TileConfig
from termwise.golden.twos_complement import wrap
from termwise.golden.terms import terms
from termwise.rtl.pragmatic import PragmaticPE, PragmaticWindowEncoder, term_positions
from termwise.tb.amaranth_sim import run_simulation as _sim


def _cfg(**kw):
    base = dict(arch="pragmatic", filters=1, windows=1, lanes=4, act_bits=8, wgt_bits=8)
    base.update(kw)
    return TileConfig(**base)


def _schedule(values, cfg, signed):
    """Reference: per cycle, the list of (lane, sign, exponent) retired and the base;
    ``signed``: the run's act_signed."""
    pending = [list(terms(int(v), cfg.act_bits, cfg.encoding, signed=signed))
               for v in values]
    cycles = []
    while any(pending):
        base = min(p[0][1] for p in pending if p)
        taken = []
        for lane, p in enumerate(pending):
            if p and p[0][1] <= base + (1 << cfg.first_stage_bits) - 1:
                taken.append((lane, *p.pop(0)))
        cycles.append((base, taken))
    return cycles or [(None, [])]          # a zero brick: one cycle retiring nothing


@pytest.mark.parametrize("B", [0, 2, 4])
def test_pe_against_reference(B):
    cfg = _cfg(first_stage_bits=B, lanes=3, acc_bits=20, depth=4)
    dut = PragmaticPE(cfg)
    rng = np.random.default_rng(B)
    positions = term_positions(cfg)

    async def tb(ctx):
        ref = 0
        for step in range(300):
            wgt = rng.integers(-128, 128, cfg.lanes)
            wgt[rng.random(cfg.lanes) < .1] = -128
            take = rng.integers(0, 2, cfg.lanes)
            neg = rng.integers(0, 2, cfg.lanes)
            off = rng.integers(0, 1 << B, cfg.lanes)
            base = int(rng.integers(0, positions))
            en, clear = int(rng.random() < .9), int(step == 0 or rng.random() < .03)
            for lane in range(cfg.lanes):
                ctx.set(dut.wgt[lane], int(wgt[lane]))
                ctx.set(dut.offset[lane], int(off[lane]))
            ctx.set(dut.take, int(sum(int(t) << i for i, t in enumerate(take))))
            ctx.set(dut.neg, int(sum(int(t) << i for i, t in enumerate(neg))))
            ctx.set(dut.base, base)
            ctx.set(dut.en, en)
            ctx.set(dut.clear, clear)
            await ctx.tick()
            term = sum(int(t) * (-1) ** int(n) * (int(w) << int(o))
                       for t, n, w, o in zip(take, neg, wgt, off)) << base
            ref = 0 if clear else int(wrap(ref + (term if en else 0), cfg.acc_bits))
            assert ctx.get(dut.acc) == ref, step
    _sim(dut, tb)


def _bricks(cfg, rng, n, signed):
    lo, hi = (-(1 << cfg.act_bits - 1), (1 << cfg.act_bits - 1) - 1) if signed \
        else (0, (1 << cfg.act_bits) - 1)
    vals = rng.integers(lo, hi + 1, size=(n, cfg.lanes))
    vals[rng.random(vals.shape) < 0.25] = 0
    vals[0] = 0                                   # a zero brick first
    vals[1] = lo                                  # most negative / zero
    vals[2] = hi
    return vals


@pytest.mark.parametrize("encoding,signed,B", [
    ("plain", True, 2), ("plain", False, 2), ("plain", True, 0), ("booth", True, 2),
    ("booth", False, 1), ("booth", True, 4), ("plain", False, 3),
    ("plain", "alternate", 2), ("booth", "alternate", 2), ("booth", False, 4)])
def test_window_encoder_follows_the_greedy_schedule(encoding, signed, B):
    """``signed``: the run's act_signed on the encoder's ``is_signed`` port, the values
    their stored bit patterns (``"alternate"``: blocks of bricks of either kind, the port
    switched with the load of a block's first brick, as between two runs)."""
    cfg = _cfg(encoding=encoding, first_stage_bits=B)
    dut = PragmaticWindowEncoder(cfg)
    assert dut.positions == term_positions(cfg) == \
        (2 * ((cfg.act_bits + 2) // 2) if encoding == "booth" else cfg.act_bits)
    rng = np.random.default_rng(B + 3 * (signed is True) + 7 * (signed == "alternate"))
    if signed == "alternate":
        blocks = [(_bricks(cfg, rng, 8, sign), sign) for sign in (False, True) * 3]
    else:
        blocks = [(_bricks(cfg, rng, 40, signed), signed)]
    bricks = [b for block, _ in blocks for b in block]
    signs = [sign for block, sign in blocks for _ in block]
    mask = (1 << cfg.act_bits) - 1

    async def tb(ctx):
        # Load the first brick, then stream them back to back: the next brick is loaded on
        # the cycle ``done`` is seen, as the array does.
        for lane in range(cfg.lanes):
            ctx.set(dut.values[lane], int(bricks[0][lane]) & mask)
        ctx.set(dut.is_signed, int(signs[0]))
        ctx.set(dut.load, 1)
        await ctx.tick()
        for i, brick in enumerate(bricks):
            schedule = _schedule(brick, cfg, signs[i])
            for c, (base, taken) in enumerate(schedule):
                last = c == len(schedule) - 1
                nxt = bricks[i + 1] if last and i + 1 < len(bricks) else None
                for lane in range(cfg.lanes):
                    if nxt is not None:
                        ctx.set(dut.values[lane], int(nxt[lane]) & mask)
                if nxt is not None:
                    ctx.set(dut.is_signed, int(signs[i + 1]))
                ctx.set(dut.load, int(nxt is not None))
                take = ctx.get(dut.take)
                got = [(lane, -1 if (ctx.get(dut.neg) >> lane) & 1 else 1,
                        ctx.get(dut.base) + ctx.get(dut.offset[lane]))
                       for lane in range(cfg.lanes) if (take >> lane) & 1]
                assert got == taken, (i, brick.tolist(), c)
                if taken:
                    assert ctx.get(dut.base) == base
                assert ctx.get(dut.done) == int(last), (i, brick.tolist(), c)
                await ctx.tick()
        ctx.set(dut.load, 0)
        assert ctx.get(dut.take) == 0 and ctx.get(dut.done) == 1   # empty: nothing left
    _sim(dut, tb)


@pytest.mark.parametrize("name, once", [
    ("pragmatic-4x4", ("window_encoder",)),
    ("diffy-4x4", ("window_encoder",)),
    ("tactical-tcle-4x4", ("window_encoder", "term_mux")),
])
def test_window_modules_are_emitted_once(name, once):
    """The window encoder (and TCLe's term multiplexers) are one Verilog module each,
    instantiated per window: not a module per window as Amaranth writes submodules."""
    import re

    from termwise.gen.config import preset
    from termwise.gen.emit import render
    cfg = preset(name)
    verilog, tile = render(cfg)
    for part in once:
        module = f"{cfg.top_name}__{part}"
        assert module in tile.library.modules
        assert len(re.findall(rf"^module {re.escape(module)}\(", verilog, re.M)) == 1
        assert len(re.findall(rf"^\s*{re.escape(module)} \w+_w\d+ \(", verilog, re.M)) \
            == cfg.windows
    assert not re.search(r"^module \S*\.encoder_w\d+\(", verilog, re.M)
