"""The runtime registers of a tile's command: their legal values and one run's values,
validated.

:meth:`termwise.gen.config.TileConfig.register_ranges` and
:meth:`~termwise.gen.config.TileConfig.runtime_values` are these functions; which registers
a tile has is :attr:`~termwise.gen.config.TileConfig.runtime`. This module imports only the
spec layer (:mod:`termwise.gen.designs`) and :mod:`termwise.gen.fields`.
"""

from __future__ import annotations

from . import designs
from .fields import check_int
from .spec import ConfigError

__all__ = ["register_ranges", "runtime_values"]


def register_ranges(cfg) -> dict:
    """The legal values ``(lo, hi)`` of every field of ``cfg``'s command (see
    :meth:`termwise.gen.config.TileConfig.register_ranges`)."""
    ranges = {"bricks": (0, cfg.depth), "precision": (1, cfg.act_bits),
              "wgt_precision": (1, cfg.wgt_bits)}
    for flag in ("act_signed", "fc"):
        if flag in cfg.runtime:
            ranges[flag] = (0, 1)
    if "restart" in cfg.runtime:
        ranges["restart"] = (0, (1 << cfg.windows) - 1)
    if cfg.out_bits:
        ranges["multiplier"] = (0, (1 << 16) - 1)
        ranges["shift"] = (0, 63)
    if cfg.activation == "relu6":
        ranges["cap"] = (0, (1 << (cfg.out_value_bits - 1)) - 1)
    return ranges


def _flag(name: str, value, default: bool) -> bool:
    """A true-or-false register's value (``default`` when not given)."""
    value = default if value is None else value
    if not isinstance(value, bool):
        raise ConfigError(name, f"must be true or false, got {value!r}")
    return value


def runtime_values(cfg, precision: int | None = None, wgt_precision: int | None = None, *,
                   act_signed: bool | None = None, restart: int | None = None,
                   multiplier: int | None = None, shift: int | None = None,
                   cap: int | None = None, fc: bool | None = None) -> dict:
    """The runtime registers of one run of ``cfg``, validated (see
    :meth:`termwise.gen.config.TileConfig.runtime_values` for the defaults)."""
    rt = {"precision": cfg.act_bits, "wgt_precision": cfg.wgt_bits}
    ranges = register_ranges(cfg)
    if "act_signed" in cfg.runtime:
        rt["act_signed"] = bool(_flag("act_signed", act_signed, True))
    elif act_signed is not None:
        raise ConfigError("act_signed", f"is not a runtime register of a {cfg.dtype} tile")
    if "restart" in cfg.runtime:
        rt["restart"] = check_int("restart", 1 if restart is None else restart,
                                  *ranges["restart"])
    elif restart is not None:
        raise ConfigError("restart", f"is not a runtime register of {cfg.arch}")
    if "fc" in cfg.runtime:
        rt["fc"] = _flag("fc", fc, False)
    elif fc:
        raise ConfigError("fc", f"needs fc_columns = 1 (a design option of "
                          f"{', '.join(s.arch for s in designs.options()['fc_columns'])})")
    if precision is not None:
        rt["precision"] = check_int("precision", precision, *ranges["precision"])
    if wgt_precision is not None:
        rt["wgt_precision"] = check_int("wgt_precision", wgt_precision,
                                        *ranges["wgt_precision"])
    if cfg.out_bits:
        rt["multiplier"] = check_int("multiplier", 1 if multiplier is None else multiplier,
                                     *ranges["multiplier"])
        rt["shift"] = check_int("shift", 0 if shift is None else shift, *ranges["shift"])
    if cfg.activation == "relu6":
        rt["cap"] = check_int("cap", ranges["cap"][1] if cap is None else cap,
                              *ranges["cap"])
    return rt
