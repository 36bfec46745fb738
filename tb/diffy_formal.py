"""Diffy's formal proof harness (its spec's ``formal.module``;
tests/formal/test_diffy_proof.py): :class:`DiffyHarness`, the shared
:class:`~termwise.tb.formal.ArrayHarness` in the two parts of an assume-guarantee proof;
:func:`diffy_reconstruction_is_the_reference`, the third part, by enumeration; and the
bound's costliest step over pairs of a window's and its predecessor's bricks
(:func:`worst_step_cycles`)."""

from __future__ import annotations

import itertools

import numpy as np
from amaranth import Mux, Signal, signed
from amaranth.hdl import Assume

from ..golden.arch import model_of
from ..golden.twos_complement import wrap
from .amaranth_sim import InlineLibrary
from .formal.bound import act_values, bricks_of, every_pair
from .formal.harness import AccView, ArrayHarness, Case, operand_value

__all__ = ["worst_step_cycles", "DiffyHarness", "diffy_reconstruction_is_the_reference"]


def worst_step_cycles(cfg) -> int:
    """The formal hook (:attr:`termwise.gen.spec.FormalSpec.module`): Diffy's costliest
    step. A step costs the most of its windows' delta bricks, and a window's delta depends
    on its own brick and its predecessor's (or none, with its restart bit), so every
    (predecessor brick, brick) pair of two windows under every restart pattern and
    signedness reaches the worst case (the golden model's ``step_cycles``; its weights and
    precisions do not matter)."""
    model = model_of(cfg)
    worst = 1
    for act_signed in (True, False):
        bricks = bricks_of(act_values(cfg, act_signed), cfg.lanes)
        first, second = every_pair(bricks, bricks)
        act = np.stack([first, second])                   # (2 windows, pairs, lanes)
        wgt = np.zeros((1,) + first.shape, dtype=np.int64)
        for restart in range(4):
            rt = dict(cfg.runtime_values(act_signed=act_signed), restart=restart)
            worst = max(worst, int(model.step_cycles(cfg, act, wgt, rt).max()))
    return worst


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
                    return operand_value(m, act_rows[b][at:at + ab], ab, None, act_signed,
                                  f"d_a_b{b}_w{window}_l{lane}_{w}_{f}")
                before = act(w - 1) if w else self._predecessor(m, b, lane, act_signed)
                delta = Signal(signed(ab + 2), name=f"delta_b{b}_w{w}_l{lane}_f{f}")
                m.d.comb += delta.eq(act(w) - Mux(self.restart[w], 0, before))
                wt = (f * lanes + lane) * wb
                x = operand_value(m, wgt_rows[b][wt:wt + wb], wb, None, 1,
                                  f"d_x_b{b}_f{f}_l{lane}")
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
        value = operand_value(m, prior_rows[b][at:at + cfg.act_bits], cfg.act_bits, None,
                       act_signed, f"prior_a_b{b}_l{lane}")
        return Mux(b < prior_n, value, 0)

    def _check(self, m, array, n, index, started, reference):
        datapath = array.datapath.acc
        if self.part == "partials":
            view = AccView(datapath, array.busy)
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
    wgts = bricks_of(np.arange(wlo, whi), lanes * filters).reshape(-1, filters, lanes)
    for act_signed in (True, False):
        lo, hi = (-(1 << (cfg.act_bits - 1)), 1 << (cfg.act_bits - 1)) if act_signed \
            else (0, 1 << cfg.act_bits)
        every = bricks_of(np.arange(lo, hi), lanes * (windows + extra)).reshape(
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
