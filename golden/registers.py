"""The runtime registers of a run as the tile reads them from its command.

The command carries each register in a field of its own width (``rtl/tile.py``,
``command_layout``), and a precision field is wider than the datapath's legal range: a
4-bit ``precision`` on 8-bit activations can say 0 or 9..15. ``rtl/tile.py`` promises what
the tile does with those (its docstring and its ``clamp``): *both precisions are clamped
to 1..act_bits / 1..wgt_bits*. The functional model (:mod:`.tile_model`) and the cycle
model (:mod:`.cycles`) both read the registers through :func:`command_registers`, so they
state that clamping once, here, from the promise (not from the RTL's code).

Every other register is read as sent: the output stage's ``multiplier``, ``shift`` and
``cap``, Diffy's ``restart``, ``act_signed`` and ``fc`` have no values outside their legal
ranges that their fields can carry (``cap`` aside, whose field is signed: a negative cap is
not legal and nothing is promised for it).
"""

from __future__ import annotations

__all__ = ["clamp_precision", "command_registers"]


def clamp_precision(value, top: int) -> int:
    """A command's precision as the tile uses it: 0 reads as 1, anything above the
    datapath's ``top`` bits as ``top`` (rtl/tile.py: "Both precisions are clamped to
    1..act_bits / 1..wgt_bits").

    Parameters
    ----------
    value : int
        The field's value as sent (0 .. the field's largest value).
    top : int
        The datapath's width: ``act_bits`` for ``precision``, ``wgt_bits`` for
        ``wgt_precision``.

    Returns
    -------
    int
        ``value`` clamped to ``1..top``.
    """
    return min(max(int(value), 1), int(top))


def command_registers(cfg, rt: dict) -> dict:
    """The runtime registers ``rt`` (as the command sends them) as the tile reads them: a
    copy with ``precision`` clamped to ``1..cfg.act_bits`` and ``wgt_precision`` to
    ``1..cfg.wgt_bits`` (:func:`clamp_precision`), every other register as sent.

    Legal registers (:meth:`~termwise.gen.config.TileConfig.runtime_values`) come back
    unchanged, so a model may apply it to any ``rt`` it is given.
    """
    out = dict(rt)
    for name, top in (("precision", cfg.act_bits), ("wgt_precision", cfg.wgt_bits)):
        if name in out:
            out[name] = clamp_precision(out[name], top)
    return out
