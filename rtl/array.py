"""The contract between the tile controller and an architecture's PE array.

The controller (:mod:`.tile`) owns the buffers, the command and the output stream; an array
owns the PEs and decides how many cycles each brick takes. Each cycle the controller
presents one activation row (a brick per window) and one weight row (a brick per filter);
the array raises ``advance`` on the cycle it has finished with them (it may also take them
into registers of its own and advance at once, working on them while the next rows wait).
``start`` pulses on the command cycle (clear the accumulators); ``precision`` and
``wgt_precision`` are the run's runtime registers, valid from the start cycle on;
``act_signed`` (the run's activations are two's complement, else unsigned; integer tiles
only) is valid from the cycle after ``start``, before any operand reaches the array; ``busy``
says that work is still in flight after the last row was taken; ``acc`` holds the results
once ``busy`` falls. The controller may hold ``valid`` low between two steps (an fc run
waits for its next round of weights, :mod:`.column_weights`); the array then holds still.

The rows are plain bit vectors here (as on the tile's buffers and streams); arrays read
them through the layouts of :mod:`.rows`. Each architecture's module ``rtl/<arch>.py``
names its array class ``ARRAY``, most of them a :class:`.grid.PEGrid`.
"""

from amaranth import unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from .rows import acc_layout

__all__ = ["array_signature", "owning_array_signature"]


def _act_signed(cfg) -> dict:
    """The ``act_signed`` runtime register, on integer tiles."""
    return {"act_signed": In(1)} if "act_signed" in cfg.runtime else {}


def _wgt_cols(cfg, stagger: bool) -> dict:
    """With the ``fc_columns`` option: ``wgt_cols``, each window column's own weight row
    (:mod:`.column_weights`; in a run without ``fc`` every column's is ``wgt_row``). One
    port per column, not one array-layout port: a 16x16 tile's columns hold 16 x 4096 bits,
    past the 65,536 bits Amaranth's netlist allows one signal. A staggered array keeps the
    columns' registers itself (:mod:`.column_stagger`): ``wgt_load``, bit ``c`` set when
    column ``c``'s row is on ``wgt_row``, and ``fc``, the run's fc register."""
    if not cfg.has_fc_columns:
        return {}
    if stagger:
        return {"wgt_load": In(cfg.windows), "fc": In(1)}
    return {"wgt_cols": In(unsigned(cfg.wgt_row_bits)).array(cfg.windows)}


def array_signature(cfg, *, restart: bool = False, stagger: bool = False
                    ) -> wiring.Signature:
    """``restart=True`` adds ``restart`` (``windows`` bits, valid on the ``start`` cycle:
    the command's per-window restart register, e.g. Diffy's). With the ``fc_columns``
    option the array reads each column's weights from ``wgt_cols`` instead of
    ``wgt_row`` (:meth:`.grid.PEGrid.column_rows`); ``stagger=True`` (an array whose
    columns are staggered in fc runs, :mod:`.column_stagger`) loads its columns' own
    registers from ``wgt_row`` on ``wgt_load`` instead, and adds ``fc``, the run's fc
    register, valid while the run works."""
    members = {
        "act_row": In(unsigned(cfg.act_row_bits)),
        "wgt_row": In(unsigned(cfg.wgt_row_bits)),
        **_wgt_cols(cfg, stagger),
        "valid": In(1),
        "start": In(1),
        "precision": In(range(cfg.act_bits + 1)),
        "wgt_precision": In(range(cfg.wgt_bits + 1)),
        **_act_signed(cfg),
        "advance": Out(1),
        "busy": Out(1),
        "acc": Out(acc_layout(cfg)),
    }
    if restart:
        members["restart"] = In(cfg.windows)
    return wiring.Signature(members)


def owning_array_signature(cfg) -> wiring.Signature:
    """The contract of an array that keeps its operands in a layout of its own (class
    attribute ``OWNS_OPERANDS = True``; e.g. Cnvlutin's zero-free activation bricks).

    The tile then creates no buffers: it forwards its ``wgt`` and ``act`` streams (one row
    per transfer, as always) to ``wgt_write`` / ``act_write``, accepted only while
    ``load_enable`` is high; ``rewind`` pulses when a run has delivered its results (the
    next loads start a new set of rows). On ``start`` the array latches ``bricks`` and
    begins; it holds ``busy`` high from the cycle after ``start`` until ``acc`` is final.
    """
    return wiring.Signature({
        "wgt_write": In(stream.Signature(unsigned(cfg.wgt_row_bits))),
        "act_write": In(stream.Signature(unsigned(cfg.act_row_bits))),
        "load_enable": In(1),
        "rewind": In(1),
        "bricks": In(range(cfg.depth + 1)),
        "start": In(1),
        "precision": In(range(cfg.act_bits + 1)),
        "wgt_precision": In(range(cfg.wgt_bits + 1)),
        **_act_signed(cfg),
        "busy": Out(1),
        "acc": Out(acc_layout(cfg)),
    })
