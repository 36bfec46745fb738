"""Typed operand rows: the layouts of what the tile's buffers hold and its arrays read.

A buffer row is a plain bit vector on the tile's ports and streams (lane 0 of window or
filter 0 in the least significant bits); inside an array it is read through one of these
layouts, so a value is ``row[window][lane]`` (or ``row[filter][lane]``) instead of a hand
computed slice. Views cost nothing in the netlist: they only name bits.

* activation row: an array of ``windows`` bricks of ``lanes`` activations
  (:func:`act_row_layout`, brick :func:`act_brick_layout`);
* weight row: an array of ``filters`` bricks of ``lanes`` weights
  (:func:`wgt_row_layout`, brick :func:`wgt_brick_layout`);
* accumulators: ``windows`` output rows of ``filters`` accumulators (:func:`acc_layout`,
  one output row :func:`acc_row_layout`).
"""

import operator

from amaranth import Shape, signed, unsigned
from amaranth.lib import data

__all__ = ["act_shape", "act_brick_layout", "wgt_brick_layout", "act_row_layout",
           "wgt_row_layout", "acc_row_layout", "acc_layout", "act_bricks", "wgt_bricks"]


def act_shape(cfg) -> Shape:
    """One activation: ``act_bits`` wide, two's complement when ``act_signed``."""
    return signed(cfg.act_bits) if cfg.act_signed else unsigned(cfg.act_bits)


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
