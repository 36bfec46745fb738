"""The shared proof harness: one run of a PE array on the generic contract of
:mod:`termwise.rtl.array`, on free operands, with the reference and the assertions
(:class:`ArrayHarness`), and the parts of a proof's case split (:class:`Case`,
:func:`case_split`).

:class:`ArrayHarness` builds one array (``ARRAY`` of ``rtl/<arch>.py``, PEs inlined through
:class:`~termwise.tb.amaranth_sim.InlineLibrary`) driven by the tile's side of the contract
-- a ``start`` pulse, then brick ``i`` of ``n`` presented with ``valid`` until the array
raises ``advance``, then waiting for ``busy`` to fall -- with the operands, ``n``, both
precisions and ``act_signed`` free constants (``AnyConst``) and everything the array may not
read (the rows while ``valid`` is low, ``act_signed`` on the ``start`` cycle) free on every
cycle (``AnySeq``). The harness computes the reference from the same constants with plain
arithmetic (narrowed as the design's :class:`~termwise.gen.spec.FormalSpec` says) and
asserts that ``acc`` equals it from the cycle after the run finishes (when the tile reads
it), and that the run has finished by the golden cycle model's worst case
(:func:`~termwise.tb.formal.bound.cycle_bound`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from amaranth import Cat, Elaboratable, Module, Mux, ResetSignal, Signal, signed
from amaranth.asserts import AnyConst, AnySeq
from amaranth.hdl import Assert, Assume

from ...golden.cycles import run_overhead
from ...golden.twos_complement import wrap
from ...rtl.tile import array_class
from ..amaranth_sim import InlineLibrary
from .bound import bmc_depth, cycle_bound
from .hooks import formal_spec

__all__ = ["Case", "case_split", "operand_value", "free_run", "reference_sum",
           "reference_operands", "ArrayHarness", "AccView"]


@dataclass(frozen=True)
class Case:
    """One part of a proof's case split: runs with this ``act_signed`` and this many
    ``bricks``, checking the accumulator of PE ``output`` = (window, filter) (None: any
    run, every PE). Each part is a proof of its own; together they cover every run and
    every PE. The split is for the solver's sake: one query over free signedness and
    length, or over several PEs, is many times harder than the sum of its parts
    (measured: Stripes, 1 x 1 PE, two bricks: 102 s unsplit, 18 s for the signed runs).
    """

    act_signed: bool | None = None
    bricks: int | None = None
    output: tuple[int, int] | None = None

    def __str__(self) -> str:
        sign = {None: "any", True: "signed", False: "unsigned"}[self.act_signed]
        where = "every PE" if self.output is None else "PE w{}f{}".format(*self.output)
        return f"{sign} act, {'any' if self.bricks is None else self.bricks} bricks, {where}"


def case_split(cfg) -> list[Case]:
    """The parts of ``cfg``'s proof: both signednesses times every run length 0..depth
    times every PE (an empty run: all PEs in one part, the accumulators must be 0)."""
    pes = list(itertools.product(range(cfg.windows), range(cfg.filters)))
    return [Case(act_signed, bricks, output)
            for act_signed in (True, False) for bricks in range(cfg.depth + 1)
            for output in ([None] if bricks == 0 else pes)]


def operand_value(m, pattern, bits: int, precision, is_signed, name: str):
    """The value of the ``bits``-bit ``pattern`` as the design multiplies it: its
    ``precision`` least significant bits (all when ``precision`` is None), two's
    complement when ``is_signed``, else unsigned. One case per precision, plain slices."""
    value = Signal(signed(bits + 1), name=name)
    if precision is None:
        m.d.comb += value.eq(Mux(is_signed, pattern.as_signed(), pattern))
        return value
    with m.Switch(precision):
        for p in range(1, bits + 1):
            with m.Case(p):
                low = pattern[:p]
                m.d.comb += value.eq(Mux(is_signed, low.as_signed(), low))
    return value


def free_run(m, cfg, case: "Case", *, wgt_rows: int | None = None):
    """A run's free constants, shared by every harness: its bricks ``n`` (0..depth), both
    precisions (1..bits), ``act_signed``, ``depth`` activation rows and ``wgt_rows``
    weight rows (default ``depth``), with ``case``'s signedness and length assumed.

    Returns
    -------
    (n, precision, wgt_precision, act_signed, act_rows, wgt_rows)
    """
    n = AnyConst(range(cfg.depth + 1))                    # the run's bricks
    precision = AnyConst(range(cfg.act_bits + 1))
    wgt_precision = AnyConst(range(cfg.wgt_bits + 1))
    act_signed = AnyConst(1)
    act_rows = [AnyConst(cfg.act_row_bits) for _ in range(cfg.depth)]
    wgts = [AnyConst(cfg.wgt_row_bits) for _ in range(cfg.depth if wgt_rows is None
                                                      else wgt_rows)]
    m.d.comb += [
        Assume(n <= cfg.depth),
        Assume((precision >= 1) & (precision <= cfg.act_bits)),
        Assume((wgt_precision >= 1) & (wgt_precision <= cfg.wgt_bits)),
    ]
    if case.act_signed is not None:
        m.d.comb += Assume(act_signed == int(case.act_signed))
    if case.bricks is not None:
        m.d.comb += Assume(n == case.bricks)
    return n, precision, wgt_precision, act_signed, act_rows, wgts


def reference_sum(m, cfg, n, act_rows, wgt_rows, act_signed, precision=None,
                  wgt_precision=None):
    """``ref[w][f] = sum over bricks b < n and lanes of act * wgt``, each operand read from
    the rows (lane 0 of window / filter 0 in the least significant bits) as
    :func:`operand_value` reads it (the activations with the run's signedness and
    ``precision``, the weights two's complement with ``wgt_precision``; None: every bit);
    wrapped to ``acc_bits`` as the accumulators are. Returns ``ref[window][filter]``."""
    ab, wb, lanes = cfg.act_bits, cfg.wgt_bits, cfg.lanes
    p, pw = precision, wgt_precision
    ref = [[Signal(signed(cfg.acc_bits), name=f"ref_w{w}_f{f}") for f in range(cfg.filters)]
           for w in range(cfg.windows)]
    for w, f in itertools.product(range(cfg.windows), range(cfg.filters)):
        terms = []
        for b, lane in itertools.product(range(cfg.depth), range(lanes)):
            at = (w * lanes + lane) * ab
            wt = (f * lanes + lane) * wb
            a = operand_value(m, act_rows[b][at:at + ab], ab, p, act_signed,
                              f"a_b{b}_w{w}_l{lane}")
            x = operand_value(m, wgt_rows[b][wt:wt + wb], wb, pw, 1, f"x_b{b}_f{f}_l{lane}")
            terms.append(Mux(b < n, a * x, 0))
        m.d.comb += ref[w][f].eq(sum(terms))
    return ref


def reference_operands(cfg, act, wgt, rt) -> tuple[np.ndarray, np.ndarray]:
    """The values the design multiplies, as its spec's
    :class:`~termwise.gen.spec.FormalSpec` (``act_precision``, ``wgt_precision``) says (the
    semantics the harness's reference follows), from ``act_bits``-bit activation values of
    the run's signedness and ``wgt_bits``-bit weights; for checking the spec against the
    golden models."""
    act, wgt = np.asarray(act, dtype=np.int64), np.asarray(wgt, dtype=np.int64)
    semantics = formal_spec(cfg)
    if semantics.act_precision:
        act = wrap(act, rt["precision"], rt["act_signed"])
    if semantics.wgt_precision:
        wgt = wrap(wgt, rt["wgt_precision"], True)
    return act, wgt


class ArrayHarness(Elaboratable):
    """One run of ``cfg``'s array on free operands, with the reference and the assertions
    (module docstring).

    Parameters
    ----------
    cfg : TileConfig
        A design on the generic array contract (:func:`termwise.rtl.array.array_signature`).
    worst_step : int
        Cycles of the costliest step (:func:`~termwise.tb.formal.bound.worst_step_cycles`).
    case : Case, optional
        The part of the case split this harness covers (default: every run).
    library : InlineLibrary, optional
        Where the array's PEs come from (e.g. a :class:`FaultyLibrary`); default inlined.
    prior_run : bool
        Run a *prior* run first (free operands, length, signedness of its own, from the
        initial state; not checked) and check the run after it, which starts on the cycle
        after the prior run is seen finished: for a design whose runs carry state into the
        next (Diffy's predecessor store and previous output row). ``prior`` then holds the
        prior run's free constants, as :func:`free_run` returns them.
    """

    def __init__(self, cfg, worst_step: int, case: "Case | None" = None,
                 library: InlineLibrary | None = None, *, prior_run: bool = False):
        self.cfg = cfg
        self.worst_step = worst_step
        self.case = case or Case()
        self.prior_run = prior_run
        self.array = array_class(cfg)(cfg, library or InlineLibrary({}))
        if getattr(self.array, "OWNS_OPERANDS", False):
            raise ValueError(f"{cfg.arch}: the array owns its operands; the harness drives "
                             "the generic contract (rtl/array.py array_signature) only")

    @property
    def steps(self) -> int:
        """BMC depth (:func:`bmc_depth`; after a prior run, its worst case and the cycle
        on which it is seen finished first)."""
        before = cycle_bound(self.cfg, self.cfg.depth, self.worst_step) + 1 \
            if self.prior_run else 0
        return before + bmc_depth(self.cfg, self.case.bricks, self.worst_step)

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        # The run starts from the registers' initial values: reset is never asserted.
        # (The clock must stay a port: sby steps every flip-flop once per step, but yosys
        # would remove flip-flops on an undriven clock.)
        m.d.comb += Assume(~ResetSignal())
        m.submodules.array = array = self.array

        run = free_run(m, cfg, self.case)
        n, precision, wgt_precision, act_signed, act_rows, wgt_rows = run
        # A per-window restart register (rtl/array.py array_signature(restart=True), e.g.
        # Diffy's), valid on the start cycle only: any bits
        # (the first run after reset has no predecessor: its outputs are the plain dot
        # products whatever the bits say).
        self.restart = AnyConst(cfg.windows) if hasattr(array, "restart") else None

        started = Signal()
        index = Signal(range(cfg.depth + 1))                  # the brick on the array
        if self.prior_run:
            self.prior = free_run(m, cfg, Case())
            self.prior_restart = AnyConst(cfg.windows) if self.restart is not None else None
            prior_started = Signal(name="prior_started")
            prior_index = Signal(range(cfg.depth + 1), name="prior_index")
            ready = self.ready = Signal(name="prior_seen_finished")   # the checked run may start
            prior_finished = self._finished(m, array, prior_started, prior_index,
                                            self.prior[0], "prior")
            with m.If(prior_finished):
                m.d.sync += ready.eq(1)
            with m.If(ready):
                self._drive(m, array, started, index, run, self.restart, ready)
            with m.Else():
                self._drive(m, array, prior_started, prior_index, self.prior,
                            self.prior_restart, 1)
        else:
            ready = 1
            self._drive(m, array, started, index, run, self.restart, ready)
        self.started = started

        reference = self._reference(m, n, act_rows, wgt_rows, precision, wgt_precision,
                                    act_signed)
        self._check(m, array, n, index, started, reference)
        return m

    def _drive(self, m, array, started, index, run, restart, ready) -> None:
        """The tile's side of the contract for one run (``run``: :func:`free_run`'s
        constants): ``start`` on the first cycle on which ``ready`` (once ``started`` is
        low), then brick ``index`` of ``n`` with ``valid`` until the array takes it."""
        cfg = self.cfg
        n, precision, wgt_precision, act_signed, act_rows, wgt_rows = run
        start = Signal(name=f"{started.name}_start")
        valid = Signal(name=f"{started.name}_valid")
        m.d.comb += [start.eq(~started), valid.eq(started & (index < n))]
        if isinstance(ready, int):
            m.d.sync += started.eq(1)
        else:
            with m.If(ready):
                m.d.sync += started.eq(1)
        with m.If(valid & array.advance):
            m.d.sync += index.eq(index + 1)
        act_row = Signal(cfg.act_row_bits, name=f"{started.name}_act_row")
        wgt_row = Signal(cfg.wgt_row_bits, name=f"{started.name}_wgt_row")
        m.d.comb += [act_row.eq(AnySeq(cfg.act_row_bits)), wgt_row.eq(AnySeq(cfg.wgt_row_bits))]
        for b in range(cfg.depth):
            with m.If(valid & (index == b)):
                m.d.comb += [act_row.eq(act_rows[b]), wgt_row.eq(wgt_rows[b])]
        m.d.comb += [
            array.start.eq(start),
            array.valid.eq(valid),
            array.act_row.eq(act_row),
            array.wgt_row.eq(wgt_row),
            array.precision.eq(precision),
            array.wgt_precision.eq(wgt_precision),
            # valid from the cycle after start only (rtl/array.py)
            array.act_signed.eq(Mux(start, AnySeq(1), act_signed)),
        ]
        if restart is not None:
            m.d.comb += array.restart.eq(Mux(start, restart, AnySeq(cfg.windows)))

    def _finished(self, m, array, started, index, n, name: str = "run"):
        """A signal: the run has started, taken every brick and the array is idle (with
        ``pe_stages``, idle for that many cycles: as the tile does, the run ends only once
        the PEs have seen their last input)."""
        cfg = self.cfg
        settled = 1
        if cfg.pe_stages:
            active = Signal(name=f"{name}_active")
            recent = Signal(cfg.pe_stages, name=f"{name}_recent")
            m.d.comb += active.eq(~started | array.busy | (index < n))
            m.d.sync += recent.eq(Cat(active, recent[:-1]))
            settled = ~recent.any()
        finished = Signal(name=f"{name}_finished")
        m.d.comb += finished.eq(started & (index >= n) & ~array.busy & settled)
        return finished

    def _reference(self, m, n, act_rows, wgt_rows, precision, wgt_precision, act_signed):
        """:func:`reference_sum` with the operands narrowed as the design's
        :class:`~termwise.gen.spec.FormalSpec` says (``act_precision``, ``wgt_precision``;
        :func:`reference_operands`)."""
        semantics = formal_spec(self.cfg)
        return reference_sum(m, self.cfg, n, act_rows, wgt_rows, act_signed,
                             precision if semantics.act_precision else None,
                             wgt_precision if semantics.wgt_precision else None)

    def _check(self, m, array, n, index, started, reference):
        """The run finishes (every brick taken, ``busy`` low) by :func:`cycle_bound`, and
        from the next cycle on ``acc`` holds the reference."""
        cfg = self.cfg
        horizon = bmc_depth(cfg, self.case.bricks, self.worst_step)
        cycle = Signal(range(horizon + 1))                   # 0 on the start cycle
        counting = cycle < horizon
        if self.prior_run:             # from the checked run's start cycle
            counting = counting & self.ready
        with m.If(counting):
            m.d.sync += cycle.eq(cycle + 1)
        done = Signal()                                       # finished on an earlier cycle
        # The PEs see every input pe_stages cycles late (rtl/pe_stage.py).
        finished = self._finished(m, array, started, index, n)
        with m.If(finished):
            m.d.sync += done.eq(1)
        # cycle_bound(n), as hardware: the fixed overhead plus n worst steps
        bound = Signal(range(horizon + 1))
        m.d.comb += bound.eq(Mux(n == 0, 1 + cfg.pipeline_latency,
                                 run_overhead(cfg) + n * self.worst_step))
        m.d.comb += Assert(~(cycle >= bound) | finished | done)
        # The tile reads the results from the cycle after it sees the run finish (its
        # FSM's OUT state): Bit-Pragmatic lowers busy on its last cycle, whose terms reach
        # the accumulators at that cycle's edge.
        outputs = itertools.product(range(cfg.windows), range(cfg.filters))
        with m.If(done):
            for w, f in ([self.case.output] if self.case.output else outputs):
                m.d.comb += Assert(array.acc[w][f] == reference[w][f])


@dataclass
class AccView:
    """What :meth:`ArrayHarness._check` reads of an array: another ``acc``."""

    acc: object
    busy: object
