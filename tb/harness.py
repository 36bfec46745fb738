"""The cocotb harness every design's testbench uses (run through
:func:`termwise.tb.runner.run_regression`).

A testbench module subclasses :class:`TB` (or another design's TB, inheriting its suites),
names its driver, registers its own suites and exposes one cocotb test::

    class DiffyTB(TB):
        driver = DiffyDriver

    @DiffyTB.suite("random")
    async def random_chains(tb, suite):
        ...                      # tb.run_case(suite, name, act, wgt, rt) per run

    diffy_regression = DiffyTB.cocotb_test("diffy_regression")

The test starts the tile (configuration from the manifest, clock, driver out of reset),
runs every suite named in ``TERMWISE_SUITES`` in that order and fails with every mismatch
and the seed. :meth:`TB.run_case` runs one case and compares its outputs exactly with the
golden functional model (:meth:`TB.golden`, :meth:`TB.equal`) and its measured cycles with
the golden cycle model (:meth:`TB.model_cycles`); :meth:`TB.check` records any result and
formats its failures, so every design reports the same way.

Every testbench has the ``edges`` suite (registered here, on :class:`TB`): each field of the
tile's command at its edge values (:mod:`termwise.tb.edges`), through the testbench's own
driver and golden side (its operands from :meth:`TB.edge_operands`, its registers from
:meth:`TB.case_runtime`).

Operand loading (:meth:`TB.load_path`, issue 17): every suite loads the operand buffers
through the driver's backdoor (VPI writes in zero time, :mod:`termwise.tb.driver`) except
the suites of :attr:`TB.stream_suites` (``corners``, bf16's ``specials``, ``stream``), which
keep the real stream path, so every design's default regression still drives the protocol;
tiles the backdoor does not fit (``OWNS_OPERANDS`` arrays: Cnvlutin, Bit-Tactical) take the
stream path in every suite. ``TERMWISE_LOAD`` (:data:`LOAD_ENV`) = ``stream`` or
``backdoor`` overrides the choice for every suite.

Environment: ``TERMWISE_MANIFEST`` (the generated manifest.json), ``TERMWISE_SUITES``
(comma-separated suite names), ``TERMWISE_SEED``, ``TERMWISE_LOAD``, ``TERMWISE_REPORT``
(where the record goes: ``{"seed": s, "runs": [{"suite", "case", "outputs_match", "cycles",
"model_cycles", "load", ...}]}``, rewritten after every run so a failure keeps it; designs
add keys; ``load`` is ``backdoor`` or ``stream``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.handle import Immediate

from ..gen.config import from_mapping
from ..golden import cycles as cycle_model
from ..golden.lowering import DEFAULT_ORDER, assemble_conv2d, lower_conv2d
from ..golden.primitives import conv2d_direct
from ..golden.tile_model import fc_column_outputs, tile_outputs
from . import edges
from .driver import PERIOD_NS, TileDriver

__all__ = ["TB", "Record", "Lowered", "differs", "LOAD_ENV", "LOAD_MODES"]

#: Environment variable overriding how every suite loads the operand buffers.
LOAD_ENV = "TERMWISE_LOAD"
#: Its values: ``auto`` (the default: :attr:`TB.stream_suites` on the streams, every other
#: suite through the backdoor), ``stream``, ``backdoor``.
LOAD_MODES = ("auto", "stream", "backdoor")


class Record:
    """Every run's result, written to ``path`` after each one (nothing when ``None``)."""

    def __init__(self, seed: int, path: str | None = None):
        self.path = path
        self.data = {"seed": seed, "runs": []}

    def add(self, **entry) -> None:
        self.data["runs"].append(entry)
        if self.path:
            with open(self.path, "w", encoding="utf-8") as f:
                json.dump(self.data, f, indent=1)


@dataclass
class Lowered:
    """What :meth:`TB.run_lowered` measured: every run's outputs (and golden outputs when
    compared), summed cycles, and ``(run index, mismatch)`` of the runs that differ."""

    outputs: list = field(default_factory=list)
    expected: list = field(default_factory=list)
    cycles: int = 0
    model_cycles: int = 0
    mismatches: list = field(default_factory=list)


def differs(got, expected, reference: str) -> str | None:
    """``None`` when the arrays are equal, else where they first differ."""
    got, expected = np.asarray(got), np.asarray(expected)
    if got.shape != expected.shape:
        return f"output shape {got.shape} differs from {reference}'s {expected.shape}"
    if np.array_equal(got, expected):
        return None
    return f"output differs from {reference} at {np.argwhere(got != expected)[0].tolist()}"


class TB:
    """One regression in the simulator: the configuration, the seed, the driver, the
    record and the failures so far.

    Subclasses set :attr:`driver` and override the golden side where the design's differs
    (:meth:`golden`, :meth:`model_cycles`, :meth:`equal`, :meth:`show`, :meth:`describe`).
    """

    #: The driver class (:class:`~termwise.tb.driver.TileDriver` or a design's own).
    driver = TileDriver
    #: Suites run when ``TERMWISE_SUITES`` is not set.
    default_suites = ("random",)
    #: Suites that load the operand buffers through the real streams (the protocol) even
    #: where the backdoor fits: the corner cases (``specials``: bf16's) and ``stream``.
    stream_suites = frozenset({"corners", "specials", "stream"})
    _own: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._own = {}

    @classmethod
    def suite(cls, *names: str):
        """Register ``async fn(tb, suite_name)`` as the suite(s) ``names`` of this TB and
        its subclasses."""
        def register(fn):
            for name in names:
                cls._own[name] = fn
            return fn
        return register

    @classmethod
    def suites(cls) -> dict:
        """Suite name -> function: this TB's and its parents' (the nearest wins)."""
        out = {}
        for klass in reversed(cls.__mro__):
            out.update(vars(klass).get("_own", {}))
        return out

    @classmethod
    def cocotb_test(cls, name: str):
        """The module's cocotb test (assign it to ``name`` in the testbench module)."""
        async def regression(dut):
            tb = await cls.start(dut)
            await tb.run_suites(os.environ.get("TERMWISE_SUITES") or
                                ",".join(cls.default_suites))
        regression.__name__ = regression.__qualname__ = name
        regression.__module__ = cls.__module__
        regression.__doc__ = (f"Every {cls.__name__} suite named in TERMWISE_SUITES; fails "
                              f"with every mismatch listed and the seed.")
        return cocotb.test(regression)

    def __init__(self, dut, cfg, manifest: dict, seed: int, record: Record):
        self.dut, self.cfg, self.seed, self.record = dut, cfg, seed, record
        self.drv = self.driver(dut, cfg, manifest)
        self.failures: list[str] = []

    @classmethod
    async def start(cls, dut) -> "TB":
        """Configuration and seed from the environment, clock, driver out of reset."""
        with open(os.environ["TERMWISE_MANIFEST"], encoding="utf-8") as f:
            manifest = json.load(f)
        seed = int(os.environ.get("TERMWISE_SEED", "1"))
        # The clock in C (cocotb's GPI clock): cocotb 2.1's default is a Python coroutine
        # woken every half period unless COCOTB_TRUST_INERTIAL_WRITES is set. Measured by
        # make bench (stripes-4x4, backdoor, loaded machine): running cycles/s 143k with
        # the Python clock, 239k and 103k (C++ 414k, 492k, 242k) with this one: running
        # ratio 2.90x -> 2.06x, 2.35x.
        # Written Immediate (vpiNoDelay), not the default Deposit: Verilator holds an
        # inertial write until after one evaluation of the time step, so every clock edge
        # cost two evaluations of the whole model, the first with nothing changed.
        # Clock-edge callbacks run before the edge's evaluation either way, and the
        # testbench's own writes stay Deposits (applied in the ReadWrite phase). Measured
        # (baseline-16x16, backdoor, 200 runs): running cycles/s 150k -> 186k.
        Clock(dut.clk, PERIOD_NS, unit="ns", impl="gpi", set_action=Immediate).start()
        tb = cls(dut, from_mapping(manifest["config"]), manifest, seed,
                 Record(seed, os.environ.get("TERMWISE_REPORT")))
        await tb.drv.reset()
        return tb

    def load_path(self, suite: str) -> str:
        """How ``suite`` loads the operand buffers, ``"backdoor"`` or ``"stream"``
        (module docstring); the driver falls back to the streams where the backdoor does
        not fit."""
        mode = os.environ.get(LOAD_ENV) or "auto"
        if mode not in LOAD_MODES:
            raise ValueError(f"{LOAD_ENV}={mode!r}: expected one of {', '.join(LOAD_MODES)}")
        if mode == "auto":
            return "stream" if suite in self.stream_suites else "backdoor"
        return mode

    async def run_suites(self, names: str) -> None:
        """Run the comma-separated suites; fail with the first mismatches and the seed."""
        registered = self.suites()
        for name in names.split(","):
            if name not in registered:
                self.failures.append(f"unknown suite {name!r} (registered: "
                                     f"{', '.join(registered)})")
                continue
            self.drv.backdoor = self.load_path(name) == "backdoor"
            await registered[name](self, name)
        if self.failures:
            raise AssertionError(f"seed {self.seed}: " + "; ".join(self.failures[:5]))

    def rng(self) -> np.random.Generator:
        """A fresh generator from the seed (each suite draws its own)."""
        return np.random.default_rng(self.seed)

    # The golden side: what a run should give.

    def golden(self, act, wgt, rt: dict, **operands) -> np.ndarray:
        if rt.get("fc"):        # an fc run: each column with its own weights
            return fc_column_outputs(self.cfg, act, wgt, rt)
        return tile_outputs(self.cfg, act, wgt, rt, **operands)

    def model_cycles(self, act, wgt, rt: dict) -> int:
        if rt.get("fc"):
            return cycle_model.fc_run_cycles(self.cfg, act, wgt, rt)
        return cycle_model.run_cycles(self.cfg, act, wgt, rt)

    def equal(self, got, expected) -> np.ndarray:
        """Elementwise: which outputs match."""
        return np.asarray(got) == np.asarray(expected)

    def show(self, value) -> str:
        """An output value as a failure message writes it."""
        return str(value)

    def describe(self, act, wgt, rt: dict, expected) -> dict:
        """Extra record keys of a :meth:`run_case`."""
        return {"runtime": rt, "k": int(np.asarray(act).shape[1])}

    def mismatch(self, got, expected) -> str | None:
        """``None`` when ``got`` matches, else the first output that does not."""
        got, expected = np.asarray(got), np.asarray(expected)
        if got.shape != expected.shape:
            return f"outputs of shape {got.shape}, golden {expected.shape}"
        same = self.equal(got, expected)
        if same.all():
            return None
        w, f = (int(i) for i in np.argwhere(~same)[0])
        return (f"out[w={w}][f={f}] = {self.show(got[w, f])}, "
                f"golden {self.show(expected[w, f])}")

    # Running and recording.

    def check(self, suite: str, case: str, *, mismatch: str | None, cycles: int,
              model_cycles: int, **extra) -> bool:
        """Record a result (outputs match when ``mismatch`` is ``None``) and its failures."""
        self.record.add(suite=suite, case=case, outputs_match=mismatch is None,
                        cycles=cycles, model_cycles=model_cycles,
                        load=getattr(self.drv, "load_path", "stream"), **extra)
        if mismatch is not None:
            self.fail(suite, case, mismatch)
        if cycles != model_cycles:
            self.fail(suite, case, f"{cycles} cycles measured, model says {model_cycles}")
        return mismatch is None and cycles == model_cycles

    def fail(self, suite: str, case: str, message: str) -> None:
        self.failures.append(f"{suite}/{case}: {message}")

    async def drive(self, act, wgt, rt: dict, *, load_weights: bool = True, **operands):
        """One run through the driver: ``(outputs, measured cycles, model cycles)``."""
        got, cycles = await self.drv.run(act, wgt, rt, load_weights=load_weights, **operands)
        return got, cycles, self.model_cycles(act, wgt, rt)

    async def run_case(self, suite: str, name: str, act, wgt, rt: dict | None = None, *,
                       load_weights: bool = True, **operands) -> np.ndarray:
        """Run, compare with the golden models, record; returns the outputs."""
        rt = self.cfg.runtime_values() if rt is None else rt
        got, cycles, model = await self.drive(act, wgt, rt, load_weights=load_weights,
                                              **operands)
        expected = self.golden(act, wgt, rt, **operands)
        self.check(suite, name, mismatch=self.mismatch(got, expected), cycles=cycles,
                   model_cycles=model, **self.describe(act, wgt, rt, expected))
        return got

    async def run_cases(self, suite: str, cases) -> None:
        """:meth:`run_case` of every :class:`~termwise.tb.cases.Case`, with the registers
        of :meth:`case_runtime`."""
        previous = None
        for case in cases:
            await self.run_case(suite, case.name, case.act, case.wgt,
                                self.case_runtime(case, previous),
                                load_weights=case.reload_weights, bias=case.bias,
                                residual=case.residual)
            previous = case

    def case_runtime(self, case, previous) -> dict:
        """The runtime registers of ``case`` run right after ``previous`` (``None`` for a
        suite's first run): the case's own; a design whose run depends on the one before
        adds what its models need (Diffy: the predecessor of a window 0 that does not
        restart)."""
        return case.runtime(self.cfg)

    def edge_operands(self, cfg, rng, act_shape, wgt_shape, signed: bool):
        """Random operands of an ``edges`` run (:mod:`termwise.tb.edges`): integers over
        the operands' whole ranges; a design with other operands (bf16) gives its own."""
        return edges.integer_operands(cfg, rng, act_shape, wgt_shape, signed)

    async def run_lowered(self, runs, rt, *, reload: bool = False, operands=None,
                          compare: bool = False) -> Lowered:
        """Run tile runs (:class:`~termwise.golden.lowering.Run`) in order, weights loaded
        when they change (every run with ``reload``). ``rt``: the runtime registers, or a
        list of them per run; ``operands(run)``: extra driver operands (bias, residual);
        ``compare``: check each run against the golden model. Nothing is recorded."""
        done = Lowered()
        for i, run in enumerate(runs):
            run_rt = rt[i] if isinstance(rt, (list, tuple)) else rt
            extra = operands(run) if operands else {}
            got, cycles, model = await self.drive(
                run.act, run.wgt, run_rt,
                load_weights=reload or not run.same_weights_as_previous, **extra)
            done.outputs.append(got)
            done.cycles += cycles
            done.model_cycles += model
            if compare:
                expected = self.golden(run.act, run.wgt, run_rt, **extra)
                done.expected.append(expected)
                bad = self.mismatch(got, expected)
                if bad is not None:
                    done.mismatches.append((i, bad))
        return done

    async def run_conv(self, suite: str, name: str, x, w, geometry: dict, rt, *,
                       lowering=None, order: str = DEFAULT_ORDER, **extra) -> bool:
        """A convolution lowered onto the tile (``lowering``, or :func:`~termwise.golden.
        lowering.lower_conv2d` in brick ``order``), assembled and compared exactly with
        ``conv2d_direct``, summed cycles with the model; recorded with ``runs``, ``macs``,
        ``brick_order`` and ``extra``."""
        lowering = lowering or lower_conv2d(self.cfg, x, w, order=order, **geometry)
        done = await self.run_lowered(lowering.runs, rt)
        out = assemble_conv2d(lowering, done.outputs)
        expected = conv2d_direct(x, w, **geometry)
        return self.check(suite, name, mismatch=differs(out, expected, "conv2d_direct"),
                          cycles=done.cycles, model_cycles=done.model_cycles,
                          runs=len(lowering.runs), brick_order=lowering.order,
                          macs=int(np.prod(expected.shape) * np.prod(w.shape[1:])), **extra)


@TB.suite("edges")
async def edges_suite(tb, suite):
    """Every command field at its edge values (:mod:`termwise.tb.edges`), on every
    testbench: outputs and cycles against the golden models, which read the registers as
    the tile promises (a precision of 0 runs as 1, one above the datapath's width at the
    width)."""
    await tb.run_cases(suite, edges.edge_cases(tb.cfg, tb.rng(), tb.edge_operands))
