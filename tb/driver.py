"""Drive a generated tile from cocotb: fill its buffers, start a run, collect its results.

Python touches the design only while loading rows and reading results; while the tile
computes, the testbench waits on ``out.valid`` alone (no per-cycle Python), and the run's
cycle count is measured from simulation time.

A run is bounded (:meth:`TileDriver.run`): a result later than the bound fails the run,
and a tile that never answers is caught by the driver's watchdog, one task per test that
looks every :attr:`TileDriver.watchdog_cycles` cycles. The bound is not a second trigger
beside ``out.valid`` on every run (``First(RisingEdge, Timer)``): that spawns and cancels
two tasks per run, 40% of baseline-16x16's wall while it computes (``make bench``,
docs/toolchain.md#cocotb-and-the-raw-harness).

Two ways to load a run's operand rows (:attr:`TileDriver.backdoor`):

* the stream path (the protocol): one row per clock through the ``wgt``/``act`` streams,
  each checked against ``ready``;
* the backdoor (issue 17, "fast stimulus"): the rows written straight into the operand
  buffers' memories (``wgt_buffer.mem`` / ``act_buffer.mem``, made public by the runner's
  control file, :func:`termwise.tb.runner.operand_memories`) through VPI in zero simulated
  time, then the command with one await. The tile reads its buffers only by address
  (``rtl/tile.py``), and its write pointers rewind after every run, so a run sees the same
  rows at the same addresses either way; the run's cycles count from the command, so they
  are the same too (the test ``tb/test_backdoor.py`` compares both paths run by run).

The backdoor does not fit tiles whose array owns its operands (``OWNS_OPERANDS``:
Cnvlutin, Bit-Tactical), which process rows on the way in and have no operand buffers: they
always take the stream path. fc runs on ``fc_columns`` tiles fit (their per-column weight
rows are rows of the same weight buffer), as do Diffy (its predecessor store is filled from
the buffer's read side while running) and the bf16 tiles. The bias row (a register, not a
buffer) and the residual rows (consumed with the outputs) always go through their streams.
"""

from __future__ import annotations

import os
import time

import cocotb
import numpy as np
from cocotb.triggers import ReadOnly, RisingEdge, Timer
from cocotb.utils import get_sim_time

from ..golden.packing import act_rows, pack_row, pack_rows, unpack_row, wgt_rows

__all__ = ["TileDriver", "pack_row", "pack_rows", "unpack_row", "act_rows", "wgt_rows",
           "BACKDOOR_FAULT_ENV", "BACKDOOR_FAULTS", "WATCHDOG_CYCLES", "WATCHDOG_ENV"]

PERIOD_NS = 10

#: Environment variable that makes the backdoor load deliberately wrong (to show that the
#: regression catches a bad load): one of :data:`BACKDOOR_FAULTS`.
BACKDOOR_FAULT_ENV = "TERMWISE_BACKDOOR_FAULT"
#: ``shift``: every row written one address too high; ``drop``: a load's last row not
#: written (the address keeps an earlier run's row).
BACKDOOR_FAULTS = ("shift", "drop")


#: Cycles between the watchdog's looks at the run in progress: one Python wake per this many
#: simulated cycles.
WATCHDOG_CYCLES = 1024
#: Environment variable setting it (the test of the watchdog looks every few cycles).
WATCHDOG_ENV = "TERMWISE_WATCHDOG_CYCLES"


class TileDriver:
    """The generic driver (module docstring: the stream path and the backdoor).

    Attributes
    ----------
    backdoor : bool
        Load the operand rows through the backdoor (when :attr:`backdoor_fits`; the
        harness sets it per suite, :meth:`termwise.tb.harness.TB.load_path`); else, and
        always on tiles it does not fit, through the streams.
    compute_wall, load_wall : float
        Wall seconds spent while the tile computes alone / while loading operand rows.
    watchdog_cycles : int
        How often the watchdog looks at the run in progress: a tile that never answers
        fails at most this many cycles past its run's bound (:data:`WATCHDOG_ENV`, else
        :data:`WATCHDOG_CYCLES`).
    """

    def __init__(self, dut, cfg, manifest):
        self.dut, self.cfg = dut, cfg
        self.command_layout = manifest["command_layout"]
        self.compute_wall = 0.0     # wall seconds spent while the tile computes alone
        self.load_wall = 0.0        # wall seconds spent loading operand rows
        self.backdoor = False
        self.backdoor_fault = os.environ.get(BACKDOOR_FAULT_ENV) or None
        if self.backdoor_fault not in (None, *BACKDOOR_FAULTS):
            raise ValueError(f"{BACKDOOR_FAULT_ENV}={self.backdoor_fault!r}: expected one "
                             f"of {', '.join(BACKDOOR_FAULTS)}")
        self._words = {}            # "wgt"/"act" -> the buffer memory's word handles
        self._fits = None
        watch = os.environ.get(WATCHDOG_ENV) or str(WATCHDOG_CYCLES)
        if not watch.isdigit() or int(watch) < 1:
            raise ValueError(f"{WATCHDOG_ENV}={watch!r}: expected a whole number of cycles "
                             f">= 1")
        self.watchdog_cycles = int(watch)
        self._watchdog = None       # the watchdog task, from the first reset on
        self._bound = None          # the run in progress: (start ns, bound in cycles)

    @property
    def backdoor_fits(self) -> bool:
        """The tile has operand buffers (its array does not own its operands): their
        memories are visible through VPI. Looked up once, on first use."""
        if self._fits is None:
            self._fits = self._find_memories()
        return self._fits

    @property
    def load_path(self) -> str:
        """How this run's rows are loaded: ``"backdoor"`` or ``"stream"``."""
        return "backdoor" if self.backdoor and self.backdoor_fits else "stream"

    def _find_memories(self) -> bool:
        """The word handles of ``wgt_buffer.mem`` and ``act_buffer.mem`` by address, into
        :attr:`_words`; ``False`` when the tile has no operand buffers (an ``OWNS_OPERANDS``
        array) or when they are SRAM macros (``buffers = macros``: loaded through their
        write port, which a backdoor would bypass), an error when it has them but the model
        keeps them private."""
        if self.cfg.buffers == "macros":
            return False
        try:
            for stream in ("wgt", "act"):
                mem = getattr(self.dut, f"{stream}_buffer").mem
                self._words[stream] = [mem[i] for i in range(self.cfg.depth)]
            return True
        except AttributeError:
            self._words.clear()
        from ..rtl.tile import array_class     # only here: importing the RTL takes time
        if getattr(array_class(self.cfg), "OWNS_OPERANDS", False):
            return False
        raise AssertionError("the operand buffers' memories are not visible through VPI: "
                             "the model was built without them public "
                             "(tb/runner.py:control_file)")

    def _poke(self, stream: str, rows: list[int]) -> None:
        """The backdoor: ``rows`` written into ``<stream>_buffer``'s memory at addresses
        0, 1, ... in zero simulated time (wrong on purpose with :data:`BACKDOOR_FAULT_ENV`)."""
        words = self._words[stream]
        if len(rows) > len(words):
            raise AssertionError(f"{stream}: {len(rows)} rows do not fit the buffer's "
                                 f"{len(words)}")
        addresses = range(len(rows))
        if self.backdoor_fault == "shift":
            addresses = [(a + 1) % len(words) for a in addresses]
        elif self.backdoor_fault == "drop":
            addresses = addresses[:-1]
        for a, row in zip(addresses, rows):
            words[a].value = row

    async def _load(self, stream: str, rows: list[int]) -> None:
        """A run's operand rows, by :attr:`load_path`."""
        w0 = time.perf_counter()
        if self.load_path == "backdoor":
            self._poke(stream, rows)
        else:
            await self._write(stream, rows)
        self.load_wall += time.perf_counter() - w0

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
        if self._watchdog is None:
            self._watchdog = cocotb.start_soon(self._watch())

    async def _watch(self):
        """Every :attr:`watchdog_cycles` cycles: fail the test (an exception in this task
        ends it) when the run in progress is past its bound with no result."""
        while True:
            await Timer(self.watchdog_cycles * PERIOD_NS, unit="ns")
            if self._bound is None:
                continue
            start, bound = self._bound
            waited = round((get_sim_time("ns") - start) / PERIOD_NS)
            if waited > bound:
                raise AssertionError(f"no result within {bound} cycles: still computing "
                                     f"{waited} cycles after the command")

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
        ``residual`` (windows, filters) is streamed beside the output rows. The operand
        rows are loaded by :attr:`load_path` (the backdoor: no simulated time)."""
        cfg, dut = self.cfg, self.dut
        k = act.shape[1]
        pad = (-k) % cfg.lanes
        act = np.pad(np.asarray(act), ((0, 0), (0, pad)))
        wgt = np.asarray(wgt)   # (filters, K), or an fc run's (windows, filters, K)
        wgt = np.pad(wgt, ((0, 0),) * (wgt.ndim - 1) + ((0, pad),))
        bricks = act.shape[1] // cfg.lanes
        if bias is not None:
            await self._write("bias", [pack_row(bias, cfg.acc_bits)])
        if bricks:      # a run of 0 bricks (the edges suite) has no rows to load
            if load_weights:
                await self._load("wgt", self.wgt_rows(wgt))
            await self._load("act", self.act_rows(act))
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
        self._bound = (t0, limit)
        await RisingEdge(dut.out__valid)
        self._bound = None
        self.compute_wall += time.perf_counter() - w0
        cycles = round((get_sim_time("ns") - t0) / PERIOD_NS)
        if cycles > limit:
            raise AssertionError(f"no result within {limit} cycles: it came after {cycles}")
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
        return np.array(rows, dtype=np.int64), cycles
