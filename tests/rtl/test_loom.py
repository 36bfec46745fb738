"""Unit tests of the Loom PE and array (Sharify et al., DAC 2018) in Amaranth's simulator,
against a pure-Python reference of the weight-bit x activation-chunk serial dot product.

The array is simulated whole (serialisers, precision detector, both sequencers, PEs) by a
library that adds each PE as a plain submodule instead of an ``Instance``, on small and
odd configurations the tile presets do not cover (act_bits not a multiple of serial_bits,
1-bit weights, one lane).
"""

import numpy as np
import pytest
from amaranth import signed as signed_shape

from termwise.gen.config import TileConfig
from termwise.golden.arch import loom as golden
from termwise.golden.twos_complement import to_unsigned, value_range, wrap
from termwise.rtl.loom import LoomArray, LoomPE, act_chunks
from termwise.tb.amaranth_sim import run_simulation as _sim


# ---- pure-Python reference ----------------------------------------------------------------

def chunks_of(value: int, act_bits: int, sb: int, pa: int, is_signed: bool) -> list[int]:
    """The activation chunks Loom feeds for ``value`` at detected precision ``pa``, top
    chunk first: ``value`` sign- (or zero-) extended to ``ceil(pa / sb) * sb`` bits, cut in
    ``sb``-bit chunks; the top chunk is signed for signed activations."""
    n = -(-pa // sb)
    raw = value & ((1 << (n * sb)) - 1)
    out = []
    for c in range(n - 1, -1, -1):
        ch = (raw >> (c * sb)) & ((1 << sb) - 1)
        if is_signed and c == n - 1 and ch >> (sb - 1):
            ch -= 1 << sb
        out.append(ch)
    return out


def loom_dot(act, wgt, act_bits, sb, pa, pw, is_signed) -> int:
    """sum over weight bits j (MSB first, bit pw-1 negative) of 2**j * sum over chunks c of
    2**(sb*c) * sum_lanes chunk_c(a) * bit_j(w): the serial evaluation Loom performs."""
    outer = 0
    for j in range(pw - 1, -1, -1):
        inner = 0
        chunk_lists = [chunks_of(int(a), act_bits, sb, pa, is_signed) for a in act]
        for c in range(len(chunk_lists[0])):
            term = sum(cl[c] for cl, w in zip(chunk_lists, wgt) if (int(w) >> j) & 1)
            inner = (inner << sb) + term
        outer = 2 * outer + (-inner if j == pw - 1 else inner)
    return outer


@pytest.mark.parametrize("sb", [1, 2, 4])
@pytest.mark.parametrize("is_signed", [True, False])
def test_reference_is_the_dot_product(sb, is_signed):
    """The reference itself: exact activations, weights read as pw-bit two's complement."""
    rng = np.random.default_rng(sb)
    for act_bits in (5, 8):
        for _ in range(60):
            pa = int(rng.integers(2 if is_signed else 1, act_bits + 1))
            pw = int(rng.integers(1, 7))
            lo, hi = value_range(pa, is_signed)
            a = rng.integers(lo, hi + 1, 3)
            w = rng.integers(-32, 32, 3)
            expected = int(np.dot(a, wrap(w, pw, True)))
            assert loom_dot(a, w, act_bits, sb, pa, pw, is_signed) == expected


# ---- the PE alone -------------------------------------------------------------------------

@pytest.mark.parametrize("sb,is_signed", [(1, True), (2, True), (4, True), (1, False),
                                          (2, False), (4, False)])
def test_pe_nested_accumulation(sb, is_signed):
    """Drive the PE with the array's schedule (weight bits outer, chunks inner, each commit
    one cycle after its loop) over several bricks of varied precisions. ``is_signed``: the
    run's act_signed, which decides the chunks the array feeds (the PE takes both kinds:
    ``signed(serial_bits + 1)`` chunks)."""
    cfg = TileConfig("loom", 1, 1, 3, 7, 6, depth=8, serial_bits=sb)
    dut = LoomPE(cfg)
    assert dut.act_chunk.shape().elem_shape == signed_shape(sb + 1)
    assert LoomPE.inner_width(cfg) == cfg.act_bits + 1 + 2      # + clog2(3 lanes)
    rng = np.random.default_rng(10 * sb + is_signed)
    bricks = []
    for _ in range(6):
        pa = int(rng.integers(2 if is_signed else 1, cfg.act_bits + 1))
        pw = int(rng.integers(1, cfg.wgt_bits + 1))
        lo, hi = value_range(pa, is_signed)
        bricks.append((pa, pw, rng.integers(lo, hi + 1, 3), rng.integers(-32, 32, 3)))
    bricks.append((1, 1, np.zeros(3, np.int64), np.zeros(3, np.int64)))   # shortest step
    # The schedule, one entry per cycle: (chunks, weight bits, first chunk, last chunk,
    # sign weight bit, last weight bit); then two idle cycles to drain the commits.
    schedule = []
    for pa, pw, a, w in bricks:
        chunk_lists = [chunks_of(int(v), cfg.act_bits, sb, pa, is_signed) for v in a]
        n = len(chunk_lists[0])
        for j in range(pw - 1, -1, -1):
            bits = sum(((int(w[lane]) >> j) & 1) << lane for lane in range(3))
            for c in range(n):
                schedule.append(([cl[c] for cl in chunk_lists], bits, c == 0, c == n - 1,
                                 j == pw - 1, j == 0))
    idle = ([0, 0, 0], 0, False, False, False, False)
    schedule += [idle, idle]

    async def tb(ctx):
        ctx.set(dut.clear, 1)
        await ctx.tick()
        ctx.set(dut.clear, 0)
        for t, (chunks, bits, first, _, _, _) in enumerate(schedule):
            for lane in range(3):
                ctx.set(dut.act_chunk[lane], chunks[lane])
            ctx.set(dut.wgt_bit, bits)
            ctx.set(dut.en, int(t < len(schedule) - 2))
            ctx.set(dut.first, int(first))
            prev = schedule[t - 1] if t >= 1 else idle
            prev2 = schedule[t - 2] if t >= 2 else idle
            ctx.set(dut.commit, int(prev[3]))                  # chunk loop done last cycle
            ctx.set(dut.wgt_first, int(prev[4]))
            ctx.set(dut.acc_commit, int(prev2[3] and prev2[5]))  # brick done 2 cycles ago
            await ctx.tick()
        expected = sum(loom_dot(a, w, cfg.act_bits, sb, pa, pw, is_signed)
                       for pa, pw, a, w in bricks)
        assert expected == sum(int(np.dot(a, wrap(w, pw, True))) for pa, pw, a, w in bricks)
        assert ctx.get(dut.acc) == expected
    _sim(dut, tb)


# ---- the whole array ----------------------------------------------------------------------

class _SimLibrary:
    """Stands in for :class:`termwise.rtl.library.ModuleLibrary`: each PE becomes an
    ordinary submodule, so Amaranth's simulator sees inside it."""

    def __init__(self):
        self.modules = {}

    def add(self, name, component):
        component._MustUse__silence = True      # only its class and cfg are used here
        self.modules[name] = component
        return name

    def instantiate(self, m, name, instance_name, *, clocked=True):
        pe = type(self.modules[name])(self.modules[name].cfg)
        m.submodules[instance_name] = pe
        return pe


def _row(values, bits):
    return sum(int(v) << (i * bits) for i, v in enumerate(to_unsigned(values, bits).ravel()))


@pytest.mark.parametrize("cfg_kw,signed", [
    (dict(serial_bits=2, act_bits=5, wgt_bits=4), True),
    (dict(serial_bits=4, act_bits=6, wgt_bits=3), True),
    (dict(serial_bits=1, act_bits=4, wgt_bits=4), True),
    (dict(serial_bits=4, act_bits=7, wgt_bits=1), False),
    (dict(serial_bits=2, act_bits=3, wgt_bits=5), False),
    (dict(serial_bits=2, act_bits=5, wgt_bits=4), False),
    (dict(serial_bits=4, act_bits=6, wgt_bits=3), "alternate"),
    (dict(serial_bits=2, act_bits=3, wgt_bits=5), "alternate"),
])
def test_array_results_and_step_cycles(cfg_kw, signed):
    """Feed rows as the tile controller does (a row held until ``advance``), measure each
    step's cycles and the final accumulators against the golden model. ``signed``: the
    runs' act_signed register (``"alternate"``: one array runs both kinds in turn)."""
    cfg = TileConfig("loom", 2, 3, 3, depth=8, **cfg_kw)
    dut = LoomArray(cfg, _SimLibrary())
    rng = np.random.default_rng(cfg.act_bits * 10 + cfg.serial_bits)
    steps = 5
    runs = []
    pws = sorted({1, cfg.wgt_bits, max(1, cfg.wgt_bits - 1)})
    if signed == "alternate":
        pws = [pw for pw in pws for _ in range(2)]
    for i, pw in enumerate(pws):
        sign = signed if signed != "alternate" else i % 2 == 0
        width = int(rng.integers(2 if sign else 1, cfg.act_bits + 1))
        act = rng.integers(*value_range(width, sign), size=(cfg.windows, steps, cfg.lanes),
                           endpoint=True)
        act[:, 2] = 0                                   # an all-zero step
        act[0, 3, 0] = value_range(cfg.act_bits, sign)[0 if sign else 1]
        wgt = rng.integers(*value_range(cfg.wgt_bits, True), size=(cfg.filters, steps,
                                                                    cfg.lanes), endpoint=True)
        runs.append((pw, act, wgt, sign))

    async def tb(ctx):
        for pw, act, wgt, sign in runs:
            rt = {"precision": cfg.act_bits, "wgt_precision": pw, "act_signed": sign}
            ctx.set(dut.wgt_precision, pw)
            ctx.set(dut.act_signed, int(sign))
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            measured = []
            for s in range(steps):
                ctx.set(dut.act_row, _row(act[:, s], cfg.act_bits))
                ctx.set(dut.wgt_row, _row(wgt[:, s], cfg.wgt_bits))
                ctx.set(dut.valid, 1)
                n = 1
                while not ctx.get(dut.advance):
                    await ctx.tick()
                    n += 1
                    assert n < 100
                await ctx.tick()
                measured.append(n)
            ctx.set(dut.valid, 0)
            ctx.set(dut.act_row, 0)
            drain = 0
            while ctx.get(dut.busy):
                await ctx.tick()
                drain += 1
            assert drain == 2            # the two commit stages (RUN_OVERHEAD = 2 + 1)
            assert measured == list(golden.step_cycles(cfg, act, wgt, rt))
            a, w = golden.effective_operands(cfg, act.reshape(cfg.windows, -1),
                                             wgt.reshape(cfg.filters, -1), rt)
            expected = wrap(a @ w.T, cfg.acc_bits)
            got = np.array([[ctx.get(dut.acc[i][f]) for f in range(cfg.filters)]
                            for i in range(cfg.windows)])
            assert np.array_equal(got, expected), (pw, sign, got, expected)
    _sim(dut, tb)


def test_array_chunk_count():
    cfg = TileConfig("loom", 1, 1, 1, 7, 8, serial_bits=4)
    assert act_chunks(cfg) == 2
    assert act_chunks(cfg.replace(serial_bits=1)) == 7


def test_emits_verilog():
    from termwise.gen.emit import emit_verilog
    for kw in (dict(serial_bits=4, act_bits=2, wgt_bits=1), dict(serial_bits=1, act_bits=3,
                                                                 wgt_bits=2)):
        cfg = TileConfig("loom", 2, 2, 2, depth=4, **kw)
        text = emit_verilog(cfg)
        assert f"module {cfg.top_name}__pe" in text
        assert text.count(f"module {cfg.top_name}__pe(") <= 1
