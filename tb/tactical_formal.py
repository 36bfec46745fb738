"""Bit-Tactical's formal proof harness (its spec's ``formal.module``;
tests/formal/test_tactical_proof.py): the owning array's loads
(:class:`~termwise.tb.formal.OwningArrayHarness`) with the packed weight and metadata rows,
the reference from the paper's promotion semantics, and the bound's dense step of either
back end."""

from __future__ import annotations

import itertools

from amaranth import Mux, Signal, signed
from amaranth.hdl import Assert, Assume

from ..gen.designs.tactical import cfg_sources, meta_layout, window_candidates
from .amaranth_sim import InlineLibrary
from .formal.bound import worst_step_cycles as enumerated_worst_step
from .formal.harness import Case, operand_value
from .formal.owning import OwningArrayHarness

__all__ = ["TacticalHarness", "harness", "worst_step_cycles"]


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
            worst_step = worst_step_cycles(cfg)
        self.worst_step = worst_step

    @property
    def steps(self) -> int:
        n = self.cfg.depth if self.case.bricks is None else self.case.bricks
        return 3 * self.cfg.depth + self.overhead + n * self.worst_step + 2

    def _properties(self, m, array, n, act_rows, wgt_rows, act_signed, started, cycle):
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
                x = operand_value(m, weights[at:at + wb], wb, None, 1, f"x_j{j}_f{f}_l{lane}")
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


def worst_step_cycles(cfg) -> int:
    """The formal hook (:attr:`termwise.gen.spec.FormalSpec.module`): a dense kept step's
    most cycles, the bound's step. TCLp runs Dynamic Stripes' serial datapath on the
    involved activations (its worst step,
    :func:`termwise.tb.formal.worst_step_cycles`, over the values of either
    signedness); TCLe Bit-Pragmatic's over ``(h + 1) x lanes`` candidates (its worst step
    with that many lanes)."""
    base = dict(filters=1, windows=1, act_bits=cfg.act_bits, wgt_bits=cfg.wgt_bits, depth=1)
    if cfg.backend == "tclp":
        return enumerated_worst_step(cfg.twin("dstripes", lanes=1, **base))
    lanes = window_candidates(cfg_sources(cfg)) * cfg.lanes
    pragmatic = cfg.twin("pragmatic", lanes=lanes, encoding=cfg.encoding,
                         first_stage_bits=cfg.first_stage_bits, **base)
    return enumerated_worst_step(pragmatic, weights=False)


def harness(cfg, case: "Case | None" = None, library: InlineLibrary | None = None,
            worst_step: int | None = None) -> TacticalHarness:
    """The formal hook (:attr:`termwise.gen.spec.FormalSpec.module`): the harness of a
    Bit-Tactical configuration (``worst_step`` default :func:`worst_step_cycles`)."""
    return TacticalHarness(cfg, case, library, worst_step=worst_step)
