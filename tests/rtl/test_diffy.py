"""amaranth.sim tests of Diffy's delta front end and reconstruction unit (rtl/diffy.py), each
against a pure-Python reference written here from the paper's rule (MICRO 2018):
``delta_w = a_w - a_{w-1}`` (window 0 against the previous run's last window, 0 where the
restart bit is set) and ``out_w = partial_w + (restart_w ? 0 : out_{w-1})``."""

import numpy as np
import pytest

from termwise.gen.config import ConfigError, TileConfig, preset
from termwise.golden.twos_complement import wrap
from termwise.rtl.diffy import DeltaFrontEnd, ReconstructionUnit, delta_config
from termwise.golden.packing import pack_row, unpack_row
from termwise.tb.amaranth_sim import run_simulation as _sim


def _cfg(**kw):
    base = dict(arch="diffy", filters=3, windows=3, lanes=2, act_bits=8, wgt_bits=8,
                depth=4)
    base.update(kw)
    return TileConfig(**base)


@pytest.mark.parametrize("signed", [True, False])
def test_front_end_against_reference(signed):
    cfg = _cfg()
    dut = DeltaFrontEnd(cfg)
    rng = np.random.default_rng(1)
    lo, hi = (-128, 128) if signed else (0, 256)

    async def tb(ctx):
        ctx.set(dut.is_signed, int(signed))        # the runs' act_signed register
        store = {}            # reference predecessor store: brick index -> last window brick
        stored = 0
        for run in range(12):
            bricks = int(rng.integers(1, cfg.depth + 1))
            restart = int(rng.integers(0, 1 << cfg.windows))
            act = rng.integers(lo, hi, (bricks, cfg.windows, cfg.lanes))
            if run % 4 == 3:   # extremes: +-255 deltas
                act[:] = lo
                act[:, 1::2] = hi - 1
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            ctx.set(dut.restart, restart)
            new_store = dict(store)
            for i in range(bricks):
                ctx.set(dut.act_row, pack_row(act[i], cfg.act_bits))
                # Idle cycles between loads must not disturb anything.
                if rng.random() < 0.3:
                    ctx.set(dut.load, 0)
                    await ctx.tick()
                got = np.array(unpack_row(ctx.get(dut.delta_row), cfg.windows * cfg.lanes,
                                          cfg.act_bits + 1)).reshape(cfg.windows, cfg.lanes)
                pred0 = store.get(i, np.zeros(cfg.lanes, np.int64)) if i < stored \
                    else np.zeros(cfg.lanes, np.int64)
                for w in range(cfg.windows):
                    prev = pred0 if w == 0 else act[i, w - 1]
                    ref = act[i, w] - (0 if restart >> w & 1 else prev)
                    assert got[w].tolist() == list(ref), (run, i, w)
                new_store[i] = act[i, -1]
                ctx.set(dut.load, 1)
                await ctx.tick()
                ctx.set(dut.load, 0)
            store, stored = new_store, bricks

    _sim(dut, tb)


def test_reconstruction_against_reference():
    cfg = _cfg(filters=2, windows=4, act_bits=4, wgt_bits=4, acc_bits=12)
    dut = ReconstructionUnit(cfg)
    rng = np.random.default_rng(2)

    async def tb(ctx):
        prev = np.zeros(cfg.filters, np.int64)
        for run in range(30):
            partial = rng.integers(-(1 << 11), 1 << 11, (cfg.windows, cfg.filters))
            restart = int(rng.integers(0, 1 << cfg.windows))
            for w in range(cfg.windows):
                for f in range(cfg.filters):
                    ctx.set(dut.partial[w][f], int(partial[w, f]))
            ctx.set(dut.restart, restart)
            ref, carry = [], prev
            for w in range(cfg.windows):
                carry = wrap(partial[w] + (0 if restart >> w & 1 else carry), 12, True)
                ref.append(carry)
            got = [[ctx.get(dut.out[w][f]) for f in range(cfg.filters)]
                   for w in range(cfg.windows)]
            assert got == np.array(ref).tolist(), run
            ctx.set(dut.latch, 1)            # the next run's start: keep the last row
            await ctx.tick()
            ctx.set(dut.latch, 0)
            prev = ref[-1]

    _sim(dut, tb)


def test_stored_delta_source_is_rejected_by_the_configuration():
    """What the RTL cannot build is refused when the configuration is made."""
    with pytest.raises(ConfigError, match="delta_source: must be one of on_the_fly"):
        preset("diffy-4x4").replace(delta_source="stored")


def test_datapath_is_pragmatic_booth_on_wider_deltas():
    inner = delta_config(preset("diffy-4x4"))
    assert (inner.arch, inner.encoding, inner.sync, inner.act_bits) == \
        ("pragmatic", "booth", "pallet", 9)
    # The deltas' signedness is the inner datapath's runtime register (the Diffy array
    # holds it at 1: deltas of either kind of activation are two's complement).
    assert "act_signed" in inner.runtime
    with pytest.raises(ConfigError, match="acc_bits"):
        delta_config(preset("diffy-4x4").replace(acc_bits=18))
