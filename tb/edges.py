"""The ``edges`` suite's runs: every field of the tile's command at its edge values (issue 39).

A command (``rtl/tile.py``, ``command_layout``) carries the run length ``bricks`` and the
runtime registers, each in a field of its own width, and a field can be wider than its
legal range (:meth:`~termwise.gen.config.TileConfig.register_ranges`): a 4-bit
``precision`` on 8-bit activations can also say 0 and 9..15. For every field the suite
sends 0, 1, the legal maximum and, where the field is wider, the value just above it and
the field's largest (:func:`field_edges`), one field at a time with the others at their
defaults; then every register at once at 0, and at its field's largest value. Each of
these runs twice, signed and unsigned, where the tile has ``act_signed`` (whose edges, 0
and 1, those are).

The expected outputs and cycles come from the golden models, which read the registers as
the tile promises to (:mod:`termwise.golden.registers`: a precision of 0 runs as 1, one
above the datapath's width at the width). So the suite fails when the tile stops clamping
a precision, and on every design, also those that ignore a precision field, it checks
that the field's edges change nothing they should not.

Per field:

``bricks``
    Runs of 0 bricks, 1 and ``depth`` (the buffers' rows). Values above ``depth`` are not
    sent: the tile does not clamp the run length and promises nothing for it (the buffers'
    read address is narrower than the field: such a run reads rows modulo the depth).
``fc`` (``fc_columns`` tiles)
    1 is an fc run (each window column with its own weights, ``fc_rounds`` rounds), 0 any
    other run.
``restart`` (Diffy)
    Every run but the bricks runs has the same length, so a run whose window 0 does not
    restart follows a run of its length and signedness whose last window is its predecessor
    (the testbench hands that to the cycle model, :meth:`termwise.tb.harness.TB.case_runtime`);
    it keeps that run's weights, as a layer's consecutive runs do (window 0's output is
    rebuilt from the previous run's last one).
output stage
    ``bias`` is sent as zeros (the tile keeps a bias until the next one: an earlier suite's
    would stay); outside the ``shift`` runs the shift is the smallest that keeps the run's
    largest possible sum from saturating, so a wrong precision still shows in the outputs.
"""

from __future__ import annotations

import numpy as np

from ..golden.twos_complement import value_range
from .cases import SIGNEDNESS, Case

__all__ = ["command_fields", "field_edges", "edge_cases", "integer_operands"]


def command_fields(cfg) -> dict:
    """``{field: (width, signed)}`` of the tile's command, from the RTL's own layout
    (``rtl/tile.py:command_layout``): which fields there are and how many values each can
    carry (the stimulus, never the expected values)."""
    from amaranth import Shape

    from ..rtl.tile import command_layout      # only here: importing the RTL takes time
    out = {}
    for name, field in command_layout(cfg):
        shape = Shape.cast(field.shape)
        out[name] = (shape.width, shape.signed)
    return out


def field_edges(cfg, fields: dict | None = None) -> dict:
    """``{field: edge values}`` of every command field: 0, 1, the legal maximum and, where
    the field carries more (``bricks`` aside, module docstring), the maximum + 1 and the
    field's largest value. Raises ``ValueError`` for a field with no legal range (a field
    added to the command must say its range, or this suite cannot send its edges)."""
    fields = command_fields(cfg) if fields is None else fields
    ranges = cfg.register_ranges()
    unknown = sorted(set(fields) - set(ranges))
    if unknown:
        raise ValueError(f"edges: no legal range for command field(s) {', '.join(unknown)} "
                         f"(add them to TileConfig.register_ranges)")
    out = {}
    for name, (width, signed) in fields.items():
        hi = ranges[name][1]
        top = (1 << (width - signed)) - 1       # the field's largest value
        values = {0, 1, hi}
        if top > hi and name != "bricks":
            values |= {hi + 1, top}
        out[name] = tuple(sorted(v for v in values if v <= top))
    return out


def integer_operands(cfg, rng, act_shape, wgt_shape, signed: bool):
    """Activations over the whole ``act_bits`` range of the run's signedness and weights
    over the whole ``wgt_bits`` range: every bit a precision can cut is in play."""
    lo, hi = value_range(cfg.act_bits, signed)
    act = rng.integers(lo, hi + 1, size=act_shape, dtype=np.int64)
    lo, hi = value_range(cfg.wgt_bits, True)
    return act, rng.integers(lo, hi + 1, size=wgt_shape, dtype=np.int64)


def _fitting_shift(cfg, act, wgt) -> int:
    """The smallest requantisation shift (multiplier 1) under which no sum of the run can
    saturate ``out_bits``."""
    k = max(act.shape[-1], 1)
    biggest = k * int(np.abs(act).max(initial=0)) * int(np.abs(wgt).max(initial=0))
    return max(0, biggest.bit_length() + 1 - cfg.out_bits)


def edge_cases(cfg, rng, operands=None, fields: dict | None = None) -> list[Case]:
    """The ``edges`` suite's runs (module docstring), named ``<field>=<value>`` (suffix
    ``_u``: unsigned run).

    Parameters
    ----------
    cfg : TileConfig
    rng : numpy.random.Generator
    operands : callable(cfg, rng, act_shape, wgt_shape, signed) -> (act, wgt), optional
        The operands of a run (default :func:`integer_operands`; a bf16 testbench gives
        bf16 bit patterns).
    fields : dict, optional
        :func:`command_fields` (read from the RTL when not given).
    """
    operands = operands or integer_operands
    edges = field_edges(cfg, fields)
    registers = [n for n in edges if n not in ("bricks", "act_signed")]
    lanes, w, f = cfg.lanes, cfg.windows, cfg.filters
    k = min(2 * lanes + 1, cfg.depth * lanes)     # a partial last brick
    signs = SIGNEDNESS if "act_signed" in edges else (True,)

    def case(name, signed, values, bricks=None):
        fc = bool(values.get("fc"))
        continues = not values.get("restart", 1) & 1     # window 0 does not restart
        if fc:          # an fc run: every round of the buffer, each column its own weights
            width = max(1, cfg.fc_rounds) * lanes
            act, wgt = operands(cfg, rng, (w, width), (w, f, width), signed)
        else:
            width = k if bricks is None else bricks * lanes
            act, wgt = operands(cfg, rng, (w, width), (f, width), signed)
        if continues:
            wgt = cases[-1].wgt
        stage = {"shift": _fitting_shift(cfg, act, wgt)} if cfg.out_bits else None
        regs = {n: bool(v) if n == "fc" else v for n, v in values.items()}
        return Case(name + ("" if signed else "_u"), act, wgt, act_signed=signed,
                    stage=stage, registers=regs, reload_weights=not continues,
                    bias=np.zeros(f, np.int64) if cfg.bias else None)

    cases = []          # appended one by one: a continuing run reads the one before
    for signed in signs:
        for name in registers:
            for v in edges[name]:
                cases.append(case(f"{name}={v}", signed, {name: v}))
        cases.append(case("all_registers=0", signed, {n: 0 for n in registers}))
        cases.append(case("all_registers=top", signed, {n: edges[n][-1] for n in registers}))
        for b in edges.get("bricks", ()):
            cases.append(case(f"bricks={b}", signed, {}, bricks=b))
    return cases
