"""Typed operand rows: the layouts of what the tile's buffers hold and its arrays read.

A buffer row is a plain bit vector on the tile's ports and streams (lane 0 of window or
filter 0 in the least significant bits); inside an array it is read through one of these
layouts, so a value is ``row[window][lane]`` (or ``row[filter][lane]``) instead of a hand
computed slice. Views cost nothing in the netlist: they only name bits.

* activation row: an array of ``windows`` bricks of ``lanes`` activations
  (:func:`act_row_layout`, brick :func:`act_brick_layout`), each the ``act_bits`` bit
  pattern of its value: whether the pattern is two's complement or unsigned is the run's
  ``act_signed`` register, so a datapath that needs the value reads it through
  :func:`act_value` (one bit wider, :func:`act_value_shape`);
* weight row: an array of ``filters`` bricks of ``lanes`` weights
  (:func:`wgt_row_layout`, brick :func:`wgt_brick_layout`);
* accumulators: ``windows`` output rows of ``filters`` accumulators (:func:`acc_layout`,
  one output row :func:`acc_row_layout`).
"""

import operator

from amaranth import Mux, Shape, Signal, signed, unsigned
from amaranth.lib import data

__all__ = ["act_shape", "act_value_shape", "act_value", "act_value_brick_layout",
           "act_value_bricks", "act_brick_layout", "wgt_brick_layout", "act_row_layout",
           "wgt_row_layout", "acc_row_layout", "acc_layout", "act_bricks", "wgt_bricks"]


def act_shape(cfg) -> Shape:
    """One stored activation: its ``act_bits``-bit pattern (two's complement or unsigned as
    the run's ``act_signed`` register says)."""
    return unsigned(cfg.act_bits)


def act_value_shape(cfg) -> Shape:
    """One activation's value as a datapath multiplies it: ``signed(act_bits + 1)`` holds
    both an ``act_bits``-bit two's complement value and an unsigned one."""
    return signed(cfg.act_bits + 1)


def act_value(pattern, is_signed):
    """The value of the ``act_bits``-bit ``pattern`` (:func:`act_value_shape`): sign- or
    zero-extended as the runtime ``is_signed`` (1 bit) says."""
    return Mux(is_signed, pattern.as_signed(), pattern.as_unsigned())


def act_value_brick_layout(cfg, *, lanes: int | None = None) -> data.ArrayLayout:
    """A brick of activation values (:func:`act_value_shape`), lane 0 first."""
    lanes = cfg.lanes if lanes is None else operator.index(lanes)
    return data.ArrayLayout(act_value_shape(cfg), lanes)


def act_value_bricks(m, cfg, bricks, is_signed, *, name: str = "act_values"):
    """The values of every brick of ``bricks`` (``[brick][lane]`` patterns, e.g. a window
    row), extended once here and shared by all their readers: a signal of
    ``ArrayLayout(act_value_brick_layout, len(bricks))``."""
    layout = act_value_brick_layout(cfg, lanes=len(bricks[0]))
    values = Signal(data.ArrayLayout(layout, len(bricks)), name=name)
    for i in range(len(bricks)):
        for lane in range(len(bricks[0])):
            m.d.comb += values[i][lane].eq(act_value(bricks[i][lane], is_signed))
    return values


def act_brick_layout(cfg, *, lanes: int | None = None) -> data.ArrayLayout:
    """A brick of activations, lane 0 first.

    Parameters
    ----------
    cfg : TileConfig
    lanes : int, optional
        Values in the brick (default ``cfg.lanes``; e.g. Bit-Tactical's candidate window
        holds more).
    """
    lanes = cfg.lanes if lanes is None else operator.index(lanes)
    return data.ArrayLayout(act_shape(cfg), lanes)


def wgt_brick_layout(cfg) -> data.ArrayLayout:
    """A brick of ``lanes`` two's complement weights, lane 0 first."""
    return data.ArrayLayout(signed(cfg.wgt_bits), cfg.lanes)


def act_row_layout(cfg) -> data.ArrayLayout:
    """An activation buffer row: the brick of every window, window 0 first."""
    return data.ArrayLayout(act_brick_layout(cfg), cfg.windows)


def wgt_row_layout(cfg) -> data.ArrayLayout:
    """A weight buffer row: the brick of every filter, filter 0 first."""
    return data.ArrayLayout(wgt_brick_layout(cfg), cfg.filters)


def acc_row_layout(cfg) -> data.ArrayLayout:
    """One output row: an ``acc_bits`` accumulator per filter, filter 0 first."""
    return data.ArrayLayout(signed(cfg.acc_bits), cfg.filters)


def acc_layout(cfg) -> data.ArrayLayout:
    """Every PE's accumulator, ``acc[window][filter]``."""
    return data.ArrayLayout(acc_row_layout(cfg), cfg.windows)


def act_bricks(cfg, row) -> data.View:
    """``row`` (a plain ``act_row_bits`` value) read as :func:`act_row_layout`."""
    return data.View(act_row_layout(cfg), row)


def wgt_bricks(cfg, row) -> data.View:
    """``row`` (a plain ``wgt_row_bits`` value) read as :func:`wgt_row_layout`."""
    return data.View(wgt_row_layout(cfg), row)
