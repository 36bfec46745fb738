"""The stream words of a run's operands: pure functions of the configuration and the
values, shared by the cocotb driver (:mod:`termwise.tb.driver`) and the gate-level power stimulus
(:mod:`termwise.synth.power.workload`).

Kept apart from the driver so that what makes a power run's stimulus is this file alone:
a change here that moves a stimulus word is a new power flow version
(:data:`termwise.synth.power.keys.POWER_FLOW_VERSION`), the driver's is not.
"""

from __future__ import annotations

import numpy as np

from .twos_complement import to_unsigned

__all__ = ["pack_rows", "pack_row", "unpack_row", "act_rows", "wgt_rows"]


def pack_rows(values, bits: int) -> list[int]:
    """:func:`pack_row` of every row of the 2-D ``values`` (rows, fields), vectorised: each
    field's ``bits`` low bits (two's complement), field 0 in the least significant bits."""
    u = to_unsigned(np.asarray(values).reshape(len(values), -1), bits)
    if bits in (8, 16, 32):
        raw = u.astype(f"<u{bits // 8}")
    else:
        raw = np.packbits(((u[:, :, None] >> np.arange(bits)) & 1).astype(np.uint8)
                          .reshape(len(u), -1), axis=1, bitorder="little")
    return [int.from_bytes(row.tobytes(), "little") for row in raw]


def pack_row(values, bits: int) -> int:
    """Concatenate ``values`` (element 0 in the least significant bits) into one integer."""
    return pack_rows(np.asarray(values).reshape(1, -1), bits)[0]


def unpack_row(word: int, count: int, bits: int) -> list[int]:
    """Split ``word`` into ``count`` signed ``bits``-wide fields (field 0 least significant)."""
    mask, sign = (1 << bits) - 1, 1 << (bits - 1)
    fields = [(word >> (i * bits)) & mask for i in range(count)]
    return [f - (1 << bits) if f & sign else f for f in fields]


def act_rows(cfg, act) -> list[int]:
    """The ``act`` stream's rows of a run's activations (windows, K): row i is brick i of
    every window (window 0 in the least significant bits)."""
    act = np.asarray(act).reshape(cfg.windows, -1, cfg.lanes)   # (W, bricks, L)
    return pack_rows(act.transpose(1, 0, 2), cfg.act_bits)


def wgt_rows(cfg, wgt) -> list[int]:
    """The ``wgt`` stream's rows of a run's weights (filters, K): row i is brick i of every
    filter; for an fc run's per-column weights (windows, filters, K), row ``r * windows +
    c``: column ``c``'s bricks of round ``r``."""
    wgt = np.asarray(wgt)
    if wgt.ndim == 3:
        wgt = wgt.reshape(cfg.windows, cfg.filters, -1, cfg.lanes)     # (C, F, rounds, L)
        return pack_rows(wgt.transpose(2, 0, 1, 3).reshape(-1, cfg.filters, cfg.lanes),
                         cfg.wgt_bits)
    wgt = wgt.reshape(cfg.filters, -1, cfg.lanes)
    return pack_rows(wgt.transpose(1, 0, 2), cfg.wgt_bits)
