"""Design options of a tile configuration: resolving the given ones against the design's
spec, and reading one.

An option (:class:`termwise.gen.spec.Option`) belongs to the designs that declare it. A
configuration holds exactly its design's options, each given or at the spec's default; the
option of another design is not a field of it, so reading one fails
(:func:`unknown_option`) instead of silently giving a value the design never had. Shared
code that asks every design about an option says what a design without it means:
:meth:`termwise.gen.config.TileConfig.option`. This module imports only the spec layer
(:mod:`termwise.gen.spec`, :mod:`termwise.gen.designs`) and :mod:`termwise.gen.fields`.
"""

from __future__ import annotations

from . import designs
from .fields import MOVED_TO_RUNTIME
from .spec import ConfigError, DesignSpec

__all__ = ["design_spec", "resolve_options", "option_value", "unknown_option"]


def design_spec(arch: str, dtype: str) -> DesignSpec:
    """The spec of ``(arch, dtype)``; :class:`ConfigError` naming ``arch`` or ``dtype`` when
    there is none."""
    if arch not in designs.archs():
        raise ConfigError("arch", f"must be one of {', '.join(designs.archs())}, got "
                          f"{arch!r}")
    if dtype not in {d for _, d in designs.SPECS}:
        valid = " or ".join(dict.fromkeys(d for _, d in designs.SPECS))
        raise ConfigError("dtype", f"must be {valid}, got {dtype!r}")
    spec = designs.lookup(arch, dtype)
    if spec is None:
        users = [a for a, d in designs.SPECS if d == dtype]
        raise ConfigError("dtype", f"{dtype} applies only to arch "
                          f"{', '.join(users)}, not {arch}")
    return spec


def resolve_options(arch: str, dtype: str, given: dict) -> tuple:
    """The options of a configuration of ``(arch, dtype)`` from the ``given`` ones:
    ``((name, value), ...)`` in the spec's order, each at the spec's default unless given
    (``None`` counts as not given).

    Raises
    ------
    ConfigError
        For no such design, a field that is a runtime register now, an option of another
        design given a value, or a value the option does not accept.
    TypeError
        For a name no design declares (as for any unexpected keyword argument).
    """
    spec = design_spec(arch, dtype)
    known = designs.options()
    for option, value in given.items():
        if option in MOVED_TO_RUNTIME:
            raise ConfigError(option, MOVED_TO_RUNTIME[option])
        if option not in known:
            raise TypeError(f"TileConfig() got an unexpected keyword argument {option!r}")
        if value is not None and spec.option(option) is None:
            users = [s.arch for s in known[option]]
            raise ConfigError(option, f"applies only to arch {', '.join(users)}, "
                              f"not {arch}")
    resolved = []
    for opt in spec.options:
        value = given.get(opt.name)
        if value is None:
            value = opt.default
        elif isinstance(value, bool) or value not in opt.valid:
            raise ConfigError(opt.name, f"must be one of {opt.shown()} for {arch}, "
                              f"got {value!r}")
        resolved.append((opt.name, value))
    return tuple(resolved)


def unknown_option(arch: str, name: str) -> AttributeError:
    """The error for reading ``name`` from a configuration of ``arch`` that has no such
    option: another design's option (named with the designs that declare it), or no
    option at all."""
    users = designs.options().get(name)
    if users is None:
        return AttributeError(f"TileConfig has no field {name!r}")
    return AttributeError(
        f"TileConfig of {arch} has no option {name!r} (an option of "
        f"{', '.join(dict.fromkeys(s.arch for s in users))}); shared code reads it with "
        f"cfg.option({name!r}, default=...)")


def option_value(arch: str, options: tuple, name: str, default):
    """Option ``name`` from a configuration's resolved ``options`` (of design ``arch``), or
    ``default`` when the design does not declare it; AttributeError when no design does
    (a misspelled name fails rather than reading as the default)."""
    if name not in designs.options():
        raise unknown_option(arch, name)
    return dict(options).get(name, default)
