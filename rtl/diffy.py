"""Diffy array (Mahmoud et al., "Diffy: a Deja vu-Free Differential Deep Neural Network
Accelerator", MICRO 2018): differential convolution on the Bit-Pragmatic datapath.

The windows of a run are consecutive output columns. Instead of the activations, the PEs
process the *deltas* between a window's activation brick and its predecessor's
(docs/papers.md#diffy: ``delta = a(x) - a(x - stride)``), which in smooth feature maps have
far fewer terms; a reconstruction unit turns the PEs' partial results back into outputs
(``out(x) = out(x - 1) + W * delta``).

This module is a front end and a back end around the Bit-Pragmatic array of
:mod:`.pragmatic`, which it reuses unchanged (pallet synchronisation, radix-4 Booth terms):

* :class:`DeltaFrontEnd` -- per window ``w`` and lane, ``delta_w = a_w - a_{w-1}`` for
  ``w >= 1``; for ``w = 0`` the predecessor is the previous run's last window, whose
  bricks the front end keeps in a small *predecessor store* (``depth`` entries of one
  brick) as they stream by. Where the run's ``restart`` bit of a window is set (the window
  starts an output row, or the previous run is not its predecessor) the predecessor is 0:
  ``delta_w = a_w``. Bricks beyond the previous run's length read as 0. Deltas are
  ``act_bits + 1`` bit two's complement values, formed combinationally between the
  activation buffer and the term serialisers: no extra cycle.
* the Pragmatic datapath (:class:`~.pragmatic.PragmaticArray`, built for a configuration
  with ``act_bits + 1`` signed activations and Booth encoding) computes per window and
  filter the partial result ``p_w = W . delta_w``.
* :class:`ReconstructionUnit` -- ``out_w = p_w + (restart_w ? 0 : out_{w-1})``, with
  ``out_{-1}`` the previous run's last output row, kept in a register per filter (latched
  on the next run's ``start`` cycle, while the PE accumulators still hold that run's
  partials). A combinational prefix chain over the windows: no extra cycle.

So a run costs exactly what Pragmatic costs on the deltas:
``1 + sum over steps of max over windows of the brick's Booth-term cycles``
(:mod:`termwise.golden.arch.diffy`). Outputs equal the plain dot products (modulo
``2**acc_bits``) whenever the host's restart bits are consistent with the data it sent:
a window 0 without restart must follow a run with the same weights and length whose last
window is its predecessor.

Submodules (for the synthesis area breakdown, ``synth/kinds.py``): ``front_end`` with its
``predecessor_store``, ``datapath`` and ``reconstruction``.

``delta_source = "stored"`` (the host sends precomputed deltas) is not built, so the
configuration does not accept it (gen/designs/diffy.py).
"""

from amaranth import Cat, Module, Mux, Signal, signed, unsigned
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..gen.config import TileConfig
from .array import array_signature
from .buffer import RowStore
from .library import ModuleLibrary
from .pragmatic import PragmaticArray
from .rows import acc_layout, act_brick_layout, act_bricks, act_value

__all__ = ["DiffyArray", "DeltaFrontEnd", "ReconstructionUnit", "delta_config"]


def delta_config(cfg) -> TileConfig:
    """The Bit-Pragmatic configuration of Diffy's datapath (its twin): the same geometry,
    accumulators and first stage, Booth encoding, pallet synchronisation, on
    ``act_bits + 1`` bit signed deltas (the spec has already checked that the accumulators
    hold a brick of deltas)."""
    return cfg.twin("pragmatic", act_bits=cfg.act_bits + 1,
                    acc_bits=cfg.acc_bits, encoding="booth", sync="pallet",
                    column_registers=0)


class DeltaFrontEnd(wiring.Component):
    """Deltas of one activation row, with the predecessor store (see the module docstring).

    Attributes
    ----------
    act_row : In(unsigned(windows * lanes * act_bits))
        The row on the buffer output (brick ``index`` of every window).
    restart : In(windows)
        The run's restart bits (already latched / muxed by the array).
    is_signed : In(1)
        The run's ``act_signed``: the activations are two's complement (else unsigned).
    start : In(1)
        A run starts: the brick index returns to 0, and the length of the run that just
        ended becomes the predecessor store's valid length.
    load : In(1)
        The row is taken this cycle: window ``windows - 1``'s brick is written into the
        store at ``index`` (after window 0 read the old entry), and ``index`` advances.
    delta_row : Out(unsigned(windows * lanes * (act_bits + 1)))
        The deltas, laid out as an activation row of :func:`delta_config`.
    """

    def __init__(self, cfg):
        self.cfg = cfg
        super().__init__({
            "act_row": In(unsigned(cfg.act_row_bits)),
            "restart": In(cfg.windows),
            "is_signed": In(1),
            "start": In(1),
            "load": In(1),
            "delta_row": Out(unsigned(delta_config(cfg).act_row_bits)),
        })

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        act = act_bricks(cfg, self.act_row)
        brick_layout = act_brick_layout(cfg)

        index = Signal(range(cfg.depth + 1))        # brick of this run on the buffer output
        stored = Signal(range(cfg.depth + 1))       # bricks of the previous run in the store
        with m.If(self.start):
            m.d.sync += [index.eq(0), stored.eq(index)]
        with m.Elif(self.load):
            m.d.sync += index.eq(index + 1)

        # A submodule of its own so that synthesis counts the store as a buffer (a memory
        # mapped to flops, like the operand buffers), apart from the delta logic.
        m.submodules.predecessor_store = store = RowStore(brick_layout.size, cfg.depth)
        m.d.comb += [
            store.waddr.eq(index),
            store.wdata.eq(act[cfg.windows - 1]),
            store.wen.eq(self.load & (index < cfg.depth)),
            store.raddr[0].eq(index),
        ]
        pred0 = Signal(brick_layout)
        m.d.comb += pred0.as_value().eq(Mux(index < stored, store.rdata[0], 0))

        deltas = []
        for w in range(cfg.windows):
            cur = Signal(brick_layout, name=f"act_w{w}")
            m.d.comb += cur.eq(act[w])
            if w:
                prev = Signal(brick_layout, name=f"pred_w{w}")
                m.d.comb += prev.eq(act[w - 1])
            else:
                prev = pred0
            for lane in range(cfg.lanes):
                # Values of either signedness differ by less than 2**act_bits: the delta
                # of two act_bits-bit values fits in act_bits + 1 signed bits.
                now = act_value(cur[lane], self.is_signed)
                d = Signal(signed(cfg.act_bits + 1), name=f"delta_w{w}_l{lane}")
                m.d.comb += d.eq(Mux(self.restart[w], now,
                                     now - act_value(prev[lane], self.is_signed)))
                deltas.append(d)
        m.d.comb += self.delta_row.eq(Cat(*deltas))
        return m


class ReconstructionUnit(wiring.Component):
    """``out_w = partial_w + (restart_w ? 0 : out_{w-1})`` per filter, ``out_{-1}`` the
    previous run's last output row (a register per filter, loaded on ``latch``, the next
    run's start cycle). Sums wrap at ``acc_bits`` like the accumulators.

    Attributes
    ----------
    partial : In(ArrayLayout(ArrayLayout(signed(acc_bits), filters), windows))
    restart : In(windows)
    latch : In(1)
    out : Out(same layout as ``partial``)
    """

    def __init__(self, cfg):
        self.cfg = cfg
        row = acc_layout(cfg)
        super().__init__({
            "partial": In(row),
            "restart": In(cfg.windows),
            "latch": In(1),
            "out": Out(row),
        })

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        previous = [Signal(signed(cfg.acc_bits), name=f"out_prev_f{f}")
                    for f in range(cfg.filters)]
        for f in range(cfg.filters):
            carry = previous[f]
            for w in range(cfg.windows):
                m.d.comb += self.out[w][f].eq(
                    self.partial[w][f] + Mux(self.restart[w], 0, carry))
                carry = self.out[w][f]
            with m.If(self.latch):
                m.d.sync += previous[f].eq(carry)
        return m


class DiffyArray(wiring.Component):
    """``filters`` x ``windows`` Diffy PEs: :class:`DeltaFrontEnd`, the Pragmatic datapath
    on ``act_bits + 1`` bit Booth-encoded deltas, :class:`ReconstructionUnit`
    (see :func:`.array.array_signature` with ``restart``)."""

    def __init__(self, cfg, library: ModuleLibrary):
        self.cfg = cfg
        self.inner_cfg = delta_config(cfg)
        # The Bit-Pragmatic array on the deltas, its modules named after the Diffy tile.
        self.datapath = PragmaticArray(self.inner_cfg, library, top_name=cfg.top_name)
        super().__init__(array_signature(cfg, restart=True))

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        m.submodules.front_end = front = DeltaFrontEnd(cfg)
        m.submodules.datapath = dp = self.datapath
        m.submodules.reconstruction = recon = ReconstructionUnit(cfg)

        restart = Signal(cfg.windows, init=(1 << cfg.windows) - 1)
        with m.If(self.start):
            m.d.sync += restart.eq(self.restart)
        load = Signal()
        m.d.comb += [
            load.eq(self.valid & dp.advance),
            front.act_row.eq(self.act_row),
            front.restart.eq(Mux(self.start, self.restart, restart)),
            front.is_signed.eq(self.act_signed),
            front.start.eq(self.start),
            front.load.eq(load),
            dp.act_row.eq(front.delta_row),
            dp.wgt_row.eq(self.wgt_row),
            dp.valid.eq(self.valid),
            dp.start.eq(self.start),
            dp.act_signed.eq(1),          # deltas are two's complement in every run
            dp.precision.eq(self.inner_cfg.act_bits),
            dp.wgt_precision.eq(self.wgt_precision),
            self.advance.eq(dp.advance),
            self.busy.eq(dp.busy),
            recon.partial.eq(dp.acc),
            recon.restart.eq(restart),
            recon.latch.eq(self.start),
            self.acc.eq(recon.out),
        ]
        return m


ARRAY = DiffyArray
