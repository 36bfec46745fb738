"""The tile: operand buffers, a command, a PE array and an output stream.

Protocol (one run)
------------------
1. Write ``n`` weight rows through ``wgt`` and ``n`` activation rows through ``act`` (row
   ``i`` holds brick ``i`` of every filter / window; lane 0 in the least significant bits).
   Rows already loaded may be kept: each run rewinds the write pointers.
2. Send a command ``{bricks: n, precision: P, wgt_precision: Pw, ...}`` (the runtime
   registers, :func:`command_layout`; with ``fc`` set, ``n`` rounds and ``n * windows``
   weight rows, :mod:`.column_weights`). Both precisions are
   clamped to 1..act_bits / 1..wgt_bits; arrays without runtime precisions ignore them.
3. The array runs with no host involvement; then ``out`` delivers ``windows`` rows, window
   0 first, each holding one accumulator per filter (filter 0 in the least significant bits).

The number of cycles from the command transfer to the first ``out.valid`` is predicted
exactly by :mod:`termwise.golden.cycles`.
"""

import importlib
from types import SimpleNamespace

from amaranth import Cat, Module, Mux, Signal, signed, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..gen.config import ConfigError, clog2
from .buffer import OperandBuffer
from .column_stagger import StaggeredColumnWeights
from .column_weights import ColumnSlot, ColumnWeights
from .library import ModuleLibrary
from .output_stage import MULTIPLIER_BITS, SHIFT_BITS, OutputStage

__all__ = ["Tile", "command_layout", "array_class"]


def array_class(cfg):
    """The PE array of ``cfg``'s design: ``ARRAY`` of the RTL module its spec names
    (``rtl/<spec.rtl>.py``, e.g. ``baseline_bf16`` for the bf16 baseline)."""
    name = cfg.spec.rtl
    try:
        return importlib.import_module(f"{__package__}.{name}").ARRAY
    except ModuleNotFoundError as err:
        if err.name == f"{__package__}.{name}":
            raise ConfigError("arch", f"no RTL for {name!r} yet") from None
        raise


def command_layout(cfg) -> data.StructLayout:
    """The command's fields: the run length and the runtime registers (the output stage's
    only when the tile has one)."""
    fields = {
        "bricks": unsigned(clog2(cfg.depth + 1)),
        "precision": unsigned(clog2(cfg.act_bits + 1)),
        "wgt_precision": unsigned(clog2(cfg.wgt_bits + 1)),
    }
    if "act_signed" in cfg.runtime:   # the run's activations: two's complement or unsigned
        fields["act_signed"] = unsigned(1)
    if "fc" in cfg.runtime:           # an fc run: input bricks dealt over the columns
        fields["fc"] = unsigned(1)
    if "restart" in cfg.runtime:      # Diffy: one restart bit per window
        fields["restart"] = unsigned(cfg.windows)
    if cfg.out_bits:
        fields["multiplier"] = unsigned(MULTIPLIER_BITS)
        fields["shift"] = unsigned(SHIFT_BITS)
    if cfg.activation == "relu6":
        fields["cap"] = signed(cfg.out_value_bits)
    return data.StructLayout(fields)


def _clamp(value, top):
    """``value`` clamped to ``1..top`` (0 reads as 1). A field that cannot exceed ``top``
    needs no upper clamp: no constant compare."""
    if (1 << len(value)) - 1 <= top:
        return Mux(value == 0, 1, value)
    return Mux(value == 0, 1, Mux(value > top, top, value))


class Tile(wiring.Component):
    """A complete tile for ``cfg`` (a :class:`termwise.gen.config.TileConfig`).

    Attributes
    ----------
    wgt, act : In(stream.Signature(unsigned(row bits)))
        Buffer fills, one row per transfer.
    cmd : In(stream.Signature(command_layout(cfg)))
    out : Out(stream.Signature(ArrayLayout(signed(out_value_bits), filters)))
    bias : In(stream.Signature(ArrayLayout(signed(acc_bits), filters)))
        Only with ``cfg.bias``: the bias of every filter, kept until the next transfer.
    residual : In(stream.Signature(ArrayLayout(signed(acc_bits), filters)))
        Only with ``cfg.residual``: one row per window, consumed with the ``out`` rows.
    busy : Out(1)
        A run is in progress (buffers do not accept writes).
    library : ModuleLibrary
        The leaf modules (PEs) to emit beside the tile's own Verilog.
    """

    def __init__(self, cfg):
        self.cfg = cfg
        self.library = ModuleLibrary()
        acc_row = data.ArrayLayout(signed(cfg.acc_bits), cfg.filters)
        members = {
            "wgt": In(stream.Signature(unsigned(cfg.wgt_row_bits))),
            "act": In(stream.Signature(unsigned(cfg.act_row_bits))),
            "cmd": In(stream.Signature(command_layout(cfg))),
            "out": Out(stream.Signature(
                data.ArrayLayout(signed(cfg.out_value_bits), cfg.filters))),
            "busy": Out(1),
        }
        if cfg.bias:
            members["bias"] = In(stream.Signature(acc_row))
        if cfg.residual:
            members["residual"] = In(stream.Signature(acc_row))
        super().__init__(members)
        # Built here, not in elaborate(), so the PE modules are known before emission.
        self.array = array_class(cfg)(cfg, self.library)

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        m.submodules.array = array = self.array
        owning = getattr(array, "OWNS_OPERANDS", False)
        wbuf, abuf = self._operand_buffers(m, array, owning)
        run = self._run_signals()
        m.d.comb += array.start.eq(run.start)
        self._runtime_flags(m, array, run.start)
        if owning:
            m.d.comb += array.bricks.eq(self.cmd.payload.bricks)
            finished, valid = ~array.busy, 0
        else:
            finished, valid = self._feed_from_buffers(m, array, wbuf, abuf, run)
        if cfg.pe_stages:
            finished = self._wait_for_pe_stages(m, array, run.start, valid, finished)
        p_clamped, pw_clamped = self._clamped_precisions(m, array, run)
        if cfg.output_stage:
            m.submodules.output_stage = self._stage = OutputStage(cfg)
        self._control(m, array, owning, (wbuf, abuf), run, finished, p_clamped, pw_clamped)
        self._output(m, array, run.window, run.start)
        return m

    def _operand_buffers(self, m, array, owning):
        """The operand buffers ``(wbuf, abuf)`` filled by ``wgt`` and ``act``; ``(None,
        None)`` for an array that keeps its operands its own way (rtl/array.py), which the
        fills go to instead."""
        cfg = self.cfg
        if owning:
            wiring.connect(m, wiring.flipped(self.wgt), array.wgt_write)
            wiring.connect(m, wiring.flipped(self.act), array.act_write)
            return None, None
        macros = self.library if cfg.buffers == "macros" else None
        m.submodules.wgt_buffer = wbuf = OperandBuffer(cfg.wgt_row_bits, cfg.depth, macros)
        m.submodules.act_buffer = abuf = OperandBuffer(cfg.act_row_bits, cfg.depth, macros)
        wiring.connect(m, wiring.flipped(self.wgt), wbuf.write)
        wiring.connect(m, wiring.flipped(self.act), abuf.write)
        return wbuf, abuf

    def _run_signals(self) -> SimpleNamespace:
        """The sequencer's registers and strobes of a run (made in this order, which the
        Verilog keeps): the command's ``bricks`` and precisions, the brick ``index`` on
        the array, the output ``window``, and ``start``, ``running``, ``consume``."""
        cfg = self.cfg
        bricks = Signal.like(self.cmd.payload.bricks)
        precision = Signal(range(cfg.act_bits + 1), init=cfg.act_bits)
        wgt_precision = Signal(range(cfg.wgt_bits + 1), init=cfg.wgt_bits)
        index = Signal(range(cfg.depth + 1))      # brick on the array this cycle
        index_next = Signal.like(index)
        window = Signal(range(max(cfg.windows, 2)))  # never zero bits wide (lint)
        start = Signal()
        running = Signal()
        consume = Signal()
        return SimpleNamespace(bricks=bricks, precision=precision, wgt_precision=wgt_precision,
                               index=index, index_next=index_next, window=window, start=start,
                               running=running, consume=consume)

    def _runtime_flags(self, m, array, start):
        """The runtime registers the array reads beside the precisions: ``act_signed`` and
        Diffy's per-window ``restart``, where the tile has them."""
        if "act_signed" in self.cfg.runtime:
            # Latched on the start cycle and seen from the next one on, when the first
            # operands reach the array: no array reads it on the start cycle, so the command
            # port is not on a path into the datapath (unlike the precisions, which the
            # sequencers load on the start cycle).
            act_signed = Signal(init=1)
            m.d.comb += array.act_signed.eq(act_signed)
            with m.If(start):
                m.d.sync += act_signed.eq(self.cmd.payload.act_signed)
        if "restart" in self.cfg.runtime:   # valid on the start cycle; the array latches it
            m.d.comb += array.restart.eq(self.cmd.payload.restart)

    def _feed_from_buffers(self, m, array, wbuf, abuf, run):
        """The buffers' rows to the array, brick by brick, as the array takes them. Returns
        ``(finished, valid)``: every brick taken and the array idle; a row on the array."""
        cfg = self.cfg
        fc_columns = cfg.has_fc_columns
        # In an fc run the rows are on the array only once their round's weights are
        # (`_column_weights`), else from the cycle after the read.
        rows_ready = Signal() if fc_columns else None
        wgt_addr = Signal.like(wbuf.read_addr) if fc_columns else run.index_next
        valid = run.running & (run.index < run.bricks)
        if fc_columns:
            valid = valid & rows_ready
        m.d.comb += [
            run.consume.eq(valid & array.advance),
            run.index_next.eq(Mux(run.start, 0, run.index + run.consume)),
            # Synchronous reads: the row addressed now is on the array next cycle.
            wbuf.read_addr.eq(wgt_addr),
            abuf.read_addr.eq(run.index_next),
            array.act_row.eq(abuf.read_data),
            array.wgt_row.eq(wbuf.read_data),
            array.valid.eq(valid),
        ]
        used = None
        if cfg.buffers == "macros":
            # The rows the array uses next cycle: a run's, from its start cycle to its last
            # brick (the macros read nothing else, :class:`.buffer.OperandBuffer`).
            bricks = Mux(run.start, self.cmd.payload.bricks, run.bricks)
            used = (run.start | run.running) & (run.index_next < bricks)
            m.d.comb += abuf.read_enable.eq(used)
            if not fc_columns:
                m.d.comb += wbuf.read_enable.eq(used)
        if fc_columns:
            self._column_weights(m, array, wbuf, run.start, run.running, run.bricks,
                                 run.consume, run.index_next, wgt_addr, rows_ready, used)
        m.d.sync += run.index.eq(run.index_next)
        return (run.index >= run.bricks) & ~array.busy, valid

    def _wait_for_pe_stages(self, m, array, start, valid, finished):
        """``finished`` delayed until the PE input stages are empty: the PEs see everything
        ``pe_stages`` cycles late (rtl/pe_stage.py), so the run ends only once the array
        has been idle that long, when its last inputs are in."""
        active = start | array.busy | valid
        recent = Signal(self.cfg.pe_stages, name="pe_stage_active")
        m.d.sync += recent.eq(Cat(active, recent[:-1]))
        return finished & ~recent.any()

    def _clamped_precisions(self, m, array, run):
        """The command's precisions, clamped to 1..act_bits and 1..wgt_bits. The array sees
        them on the start cycle already (its sequencer loads its first bit position then),
        the registers from the next one on. Returns the clamped command fields."""
        cfg = self.cfg
        p_clamped = Signal.like(run.precision)
        pw_clamped = Signal.like(run.wgt_precision)
        m.d.comb += [
            p_clamped.eq(_clamp(self.cmd.payload.precision, cfg.act_bits)),
            pw_clamped.eq(_clamp(self.cmd.payload.wgt_precision, cfg.wgt_bits)),
            array.precision.eq(Mux(run.start, p_clamped, run.precision)),
            array.wgt_precision.eq(Mux(run.start, pw_clamped, run.wgt_precision)),
        ]
        return p_clamped, pw_clamped

    def _control(self, m, array, owning, buffers, run, finished, p_clamped, pw_clamped):
        """The tile's state machine: IDLE takes a command (the buffers take fills), RUN
        lasts until ``finished``, OUT sends a row per window (through the fused stage if
        any) and returns to IDLE."""
        cfg = self.cfg
        wbuf, abuf = buffers
        with m.FSM():
            with m.State("IDLE"):
                m.d.comb += [self.cmd.ready.eq(1), run.start.eq(self.cmd.valid)]
                if owning:
                    m.d.comb += array.load_enable.eq(1)
                else:
                    m.d.comb += [wbuf.enable.eq(1), abuf.enable.eq(1)]
                with m.If(self.cmd.valid):
                    m.d.sync += [
                        run.bricks.eq(self.cmd.payload.bricks),
                        run.precision.eq(p_clamped),
                        run.wgt_precision.eq(pw_clamped),
                    ]
                    m.next = "RUN"
            with m.State("RUN"):
                m.d.comb += [run.running.eq(1), self.busy.eq(1)]
                with m.If(finished):
                    m.next = "OUT"
            with m.State("OUT"):
                m.d.comb += self.busy.eq(1)
                if cfg.output_stage:
                    with m.If(self._stage_rows(m, run.window)):
                        self._finish(m, array, owning, buffers, run.window)
                else:
                    row_ready = 1     # (kept as written before the stage: same Verilog)
                    m.d.comb += self.out.valid.eq(row_ready)
                    with m.If(self.out.ready & row_ready):
                        m.d.sync += run.window.eq(run.window + 1)
                        with m.If(run.window == cfg.windows - 1):
                            self._finish(m, array, owning, buffers, run.window)

    def _finish(self, m, array, owning, buffers, window):
        """In the OUT state, on the last row's transfer: rewind the operands (and clear the
        column weights) and return to IDLE."""
        m.d.sync += window.eq(0)
        if owning:
            m.d.comb += array.rewind.eq(1)
        else:
            wbuf, abuf = buffers
            m.d.comb += [wbuf.rewind.eq(1), abuf.rewind.eq(1)]
            if self.cfg.has_fc_columns:
                m.d.comb += m.submodules.column_weights.clear.eq(1)
        m.next = "IDLE"

    def _column_weights(self, m, array, wbuf, start, running, bricks, consume, index_next,
                        wgt_addr, rows_ready, used):
        """With the ``fc_columns`` option: the run's ``fc`` register and the per-column
        weight registers (:mod:`.column_weights`), which in an fc run drive the weight
        buffer's address ``wgt_addr`` (else ``index_next``), each column's weights and
        ``rows_ready`` (the round's weights are on the array; always outside an fc run).
        ``used``: the rows used next cycle outside an fc run, with macro buffers (else
        None); in an fc run the loader moves the address only to the rows it needs."""
        cfg = self.cfg
        stagger = array.FC_STAGGER
        m.submodules.column_weights = cw = (StaggeredColumnWeights(cfg) if stagger
                                             else ColumnWeights(cfg))
        # The fc register is latched on the command cycle; the loader reads its first row
        # on that cycle already, so it sees the command's value then.
        fc_reg = Signal()
        fc = Signal()
        with m.If(start):
            m.d.sync += fc_reg.eq(self.cmd.payload.fc)
        m.d.comb += [
            fc.eq(Mux(start, self.cmd.payload.fc, fc_reg)),
            cw.enable.eq(fc & (start | running)),
            cw.rounds.eq(Mux(start, self.cmd.payload.bricks, bricks)),
            cw.row.eq(wbuf.read_data),
            cw.take.eq(consume),
            wgt_addr.eq(Mux(fc, cw.read_addr, index_next)),
        ]
        if used is not None:    # the staggered loader reads only the rows it loads
            m.d.comb += wbuf.read_enable.eq(Mux(fc, cw.read if stagger else start | running,
                                                used))
        if stagger:     # the columns' registers are the array's
            m.d.comb += [cw.start.eq(start), array.wgt_load.eq(cw.load), array.fc.eq(fc_reg),
                         # the reference finishes a round only once the round's rows are read
                         rows_ready.eq(~(fc_reg & cw.reading & array.advance))]
        else:
            for c, column in enumerate(self._column_slots(m)):
                m.d.comb += [column.row.eq(wbuf.read_data), column.swap.eq(cw.swap),
                             column.fc.eq(fc_reg), array.wgt_cols[c].eq(column.weights)]
                if c < cfg.windows - 1:
                    m.d.comb += column.load.eq(cw.load[c])
            m.d.comb += rows_ready.eq(~fc_reg | cw.present)

    def _column_slots(self, m) -> list:
        """The window columns' fc weight registers of a double-buffered loader
        (:class:`.column_weights.ColumnSlot`), one module for the columns with a shadow row
        and one for the last, instantiated in ``m`` as ``fc_column<c>``; their
        interfaces."""
        cfg, names = self.cfg, []
        for what, shadow in (("fc_column", True), ("fc_column_last", False)):
            name = f"{cfg.top_name}__{what}"
            if name not in self.library.modules:    # elaborating twice records nothing new
                self.library.add(name, ColumnSlot(cfg, shadow=shadow))
            names.append(name)
        return [self.library.instantiate(m, names[c == cfg.windows - 1], f"fc_column{c}")
                for c in range(cfg.windows)]

    def _stage_rows(self, m, window):
        """In the OUT state of a tile with the fused output stage: the rows enter the
        pipelined stage window by window (each with its residual row) whenever it moves,
        and leave ``cfg.output_latency`` moves later on ``out``. Returns the last row's
        transfer."""
        cfg, stage = self.cfg, self._stage
        valid = [Signal(name=f"out_stage_valid{k}") for k in range(cfg.output_latency)]
        all_in = Signal()          # every window's row has entered
        sent = Signal(range(max(cfg.windows, 2)))
        move = Signal()
        enter = Signal()
        done = Signal()
        transfer = self.out.valid & self.out.ready
        m.d.comb += [
            self.out.valid.eq(valid[-1]),
            move.eq(~valid[-1] | self.out.ready),
            # With a residual input, a row enters only together with its residual row.
            enter.eq(move & ~all_in & (self.residual.valid if cfg.residual else 1)),
            stage.en.eq(move),
            done.eq(transfer & (sent == cfg.windows - 1)),
        ]
        if cfg.residual:
            m.d.comb += self.residual.ready.eq(enter)
        with m.If(move):
            m.d.sync += [valid[0].eq(enter)] + [valid[k].eq(valid[k - 1])
                                                for k in range(1, len(valid))]
        with m.If(enter):
            m.d.sync += window.eq(window + 1)
            with m.If(window == cfg.windows - 1):
                m.d.sync += [window.eq(0), all_in.eq(1)]
        with m.If(transfer):
            m.d.sync += sent.eq(sent + 1)
        with m.If(done):
            m.d.sync += [sent.eq(0), all_in.eq(0)]
        return done

    def _window_row(self, m, array, window):
        """Window ``window``'s accumulators, one case per window (0 past the last).

        Not ``array.acc[window]``: that is one variable part-select whose every output bit
        depends on every bit of ``acc``, and Amaranth's netlist checks walk each such edge
        (26M at loom-16x16, 64 windows: 40% of its emission time)."""
        row = Signal(array.acc.shape().elem_shape, name="window_acc")
        with m.Switch(window):
            for w in range(self.cfg.windows):
                with m.Case(w):
                    m.d.comb += row.eq(array.acc[w])
        return row

    def _output(self, m, array, window, start):
        """The output row: the window's accumulators, through the fused stage if any."""
        cfg = self.cfg
        row = self._window_row(m, array, window)
        if not cfg.output_stage:
            m.d.comb += self.out.payload.eq(row)
            return
        stage = self._stage
        m.d.comb += [stage.acc.eq(row), self.out.payload.eq(stage.result)]
        if cfg.bias:
            bias = Signal.like(stage.bias)
            m.d.comb += [self.bias.ready.eq(~self.busy), stage.bias.eq(bias)]
            with m.If(self.bias.valid & self.bias.ready):
                m.d.sync += bias.eq(self.bias.payload)
        if cfg.residual:
            m.d.comb += stage.residual.eq(self.residual.payload)
        # The stage's runtime registers, latched from the command.
        fields = {name for name, _ in command_layout(cfg)}
        for name in ("multiplier", "shift", "cap"):
            if name in fields:
                reg = Signal.like(getattr(stage, name), name=f"{name}_reg")
                m.d.comb += getattr(stage, name).eq(reg)
                with m.If(start):
                    m.d.sync += reg.eq(getattr(self.cmd.payload, name))
