"""Drive a generated tile from cocotb: fill its buffers, start a run, collect its results.

Python touches the design only while loading rows and reading results; while the tile
computes, the testbench waits on ``out.valid`` (no per-cycle Python), and the run's cycle
count is measured from simulation time.
"""

from __future__ import annotations

import time

import cocotb
import numpy as np
from cocotb.triggers import First, ReadOnly, RisingEdge, Timer
from cocotb.utils import get_sim_time

from ..golden.fixedpoint import to_unsigned

__all__ = ["TileDriver", "pack_row", "unpack_row", "act_rows", "wgt_rows"]

PERIOD_NS = 10


def pack_row(values, bits: int) -> int:
    """Concatenate ``values`` (element 0 in the least significant bits) into one integer."""
    word = 0
    for v in reversed(to_unsigned(np.asarray(values).ravel(), bits).tolist()):
        word = (word << bits) | v
    return word


def unpack_row(word: int, count: int, bits: int) -> list[int]:
    """Split ``word`` into ``count`` signed ``bits``-wide fields (field 0 least significant)."""
    mask, sign = (1 << bits) - 1, 1 << (bits - 1)
    fields = [(word >> (i * bits)) & mask for i in range(count)]
    return [f - (1 << bits) if f & sign else f for f in fields]


def act_rows(cfg, act) -> list[int]:
    """The ``act`` stream's rows of a run's activations (windows, K): row i is brick i of
    every window (window 0 in the least significant bits)."""
    act = np.asarray(act).reshape(cfg.windows, -1, cfg.lanes)   # (W, bricks, L)
    return [pack_row(act[:, i, :], cfg.act_bits) for i in range(act.shape[1])]


def wgt_rows(cfg, wgt) -> list[int]:
    """The ``wgt`` stream's rows of a run's weights (filters, K): row i is brick i of every
    filter; for an fc run's per-column weights (windows, filters, K), row ``r * windows +
    c``: column ``c``'s bricks of round ``r``."""
    wgt = np.asarray(wgt)
    if wgt.ndim == 3:
        wgt = wgt.reshape(cfg.windows, cfg.filters, -1, cfg.lanes)
        return [pack_row(wgt[c, :, r, :], cfg.wgt_bits)
                for r in range(wgt.shape[2]) for c in range(cfg.windows)]
    wgt = wgt.reshape(cfg.filters, -1, cfg.lanes)
    return [pack_row(wgt[:, i, :], cfg.wgt_bits) for i in range(wgt.shape[1])]


class TileDriver:
    def __init__(self, dut, cfg, manifest):
        self.dut, self.cfg = dut, cfg
        self.command_layout = manifest["command_layout"]
        self.compute_wall = 0.0     # wall seconds spent while the tile computes alone

    async def reset(self):
        dut = self.dut
        for name in ("wgt__valid", "act__valid", "cmd__valid"):
            getattr(dut, name).value = 0
        dut.out__ready.value = 1
        dut.rst.value = 1
        for _ in range(2):
            await RisingEdge(dut.clk)
        dut.rst.value = 0
        await RisingEdge(dut.clk)

    async def _feed_residual(self, residual):
        """The residual stream, a row per window in order, each held until the tile takes
        it (``valid & ready`` at a clock edge)."""
        dut, cfg = self.dut, self.cfg
        for window in range(cfg.windows):
            row = np.zeros(cfg.filters, np.int64) if residual is None else residual[window]
            dut.residual__payload.value = pack_row(row, cfg.acc_bits)
            dut.residual__valid.value = 1
            while True:
                await ReadOnly()
                taken = bool(dut.residual__ready.value)
                await RisingEdge(dut.clk)
                if taken:
                    break
        dut.residual__valid.value = 0

    async def _write(self, stream: str, rows: list[int]):
        valid = getattr(self.dut, f"{stream}__valid")
        payload = getattr(self.dut, f"{stream}__payload")
        ready = getattr(self.dut, f"{stream}__ready")
        for row in rows:
            payload.value = row
            valid.value = 1
            await ReadOnly()
            if not ready.value:
                raise AssertionError(f"{stream}.ready is low: the buffer refused a row")
            await RisingEdge(self.dut.clk)
        valid.value = 0

    def act_rows(self, act) -> list[int]:
        """:func:`act_rows` of this tile."""
        return act_rows(self.cfg, act)

    def wgt_rows(self, wgt) -> list[int]:
        """:func:`wgt_rows` of this tile."""
        return wgt_rows(self.cfg, wgt)

    def command(self, bricks: int, rt: dict) -> int:
        fields = {"bricks": bricks, **rt}
        word = 0
        for name, f in self.command_layout.items():
            word |= (fields[name] & ((1 << f["width"]) - 1)) << f["offset"]
        return word

    async def run(self, act, wgt, rt=None, *, load_weights=True, timeout_cycles=None,
                  bias=None, residual=None):
        """One tile run on zero-padded operands with runtime registers ``rt``; returns
        (outputs (W, F), cycles). ``wgt`` is (filters, K), or for an fc run (``rt["fc"]``)
        each column's weights (windows, filters, K). ``bias`` (filters,) is loaded first when given;
        ``residual`` (windows, filters) is streamed beside the output rows."""
        cfg, dut = self.cfg, self.dut
        k = act.shape[1]
        pad = (-k) % cfg.lanes
        act = np.pad(np.asarray(act), ((0, 0), (0, pad)))
        wgt = np.asarray(wgt)   # (filters, K), or an fc run's (windows, filters, K)
        wgt = np.pad(wgt, ((0, 0),) * (wgt.ndim - 1) + ((0, pad),))
        bricks = act.shape[1] // cfg.lanes
        if bias is not None:
            await self._write("bias", [pack_row(bias, cfg.acc_bits)])
        if load_weights:
            await self._write("wgt", self.wgt_rows(wgt))
        await self._write("act", self.act_rows(act))
        dut.cmd__payload.value = self.command(bricks, rt or cfg.runtime_values())
        dut.cmd__valid.value = 1
        await ReadOnly()
        if not dut.cmd__ready.value:
            raise AssertionError("cmd.ready is low while the tile should be idle")
        await RisingEdge(dut.clk)
        t0 = get_sim_time("ns")
        dut.cmd__valid.value = 0
        # An unsigned run's act_bits-bit values take up to an (act_bits + 1)-bit signed
        # value's steps (e.g. one more Booth digit): bound by that width.
        # An fc run's round takes at least `windows` cycles (its weight reads).
        worst = cfg.worst_brick_cycles(max(cfg.act_bits + 1, cfg.wgt_bits))
        if wgt.ndim == 3:
            worst = max(worst, cfg.windows)
        limit = timeout_cycles or (bricks * worst + cfg.windows + 64)
        w0 = time.perf_counter()
        feeder = cocotb.start_soon(self._feed_residual(residual)) if cfg.residual else None
        fired = await First(RisingEdge(dut.out__valid), Timer(limit * PERIOD_NS, unit="ns"))
        self.compute_wall += time.perf_counter() - w0
        if not dut.out__valid.value:
            raise AssertionError(f"no result within {limit} cycles")
        cycles = round((get_sim_time("ns") - t0) / PERIOD_NS)
        rows = []
        for w in range(cfg.windows):
            await ReadOnly()
            if not dut.out__valid.value:
                raise AssertionError("out.valid dropped before every window was read")
            rows.append(unpack_row(int(dut.out__payload.value), cfg.filters,
                                   cfg.out_value_bits))
            await RisingEdge(dut.clk)
        if feeder is not None:
            await feeder
        del fired
        return np.array(rows, dtype=np.int64), cycles
