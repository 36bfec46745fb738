"""Reading the JSON reports other commands wrote: ``synth_report.json`` and
``power_report.json`` files found under a folder (``termwise sim --power-reports``,
``termwise tune --power-reports``, ``termwise report --reports``), and the power record
``termwise sim``'s energy model takes from a power report
(:func:`termwise.golden.netsim.energy.check_power_record`)."""

from __future__ import annotations

import json
import math
import os

from ...spec import ConfigError

__all__ = ["POWER_REPORT", "SYNTH_REPORT", "json_reports", "report_value", "power_record"]

#: The files ``termwise power`` and ``termwise synth`` write.
POWER_REPORT = "power_report.json"
SYNTH_REPORT = "synth_report.json"


def json_reports(root, name: str, field: str, *, required: bool = True) -> list:
    """Every file called ``name`` under ``root`` (recursively, folders in sorted order) as
    ``(path, path relative to root, parsed document)``.

    Parameters
    ----------
    root : str
        The folder searched.
    name : str
        The file name (:data:`POWER_REPORT`, :data:`SYNTH_REPORT`).
    field : str
        The option the errors name.
    required : bool
        Whether finding none is an error.

    Raises
    ------
    ConfigError
        ``root`` is not a directory, a file is not JSON, or (``required``) none was found.
    """
    if not isinstance(root, (str, os.PathLike)) or not os.path.isdir(root):
        raise ConfigError(field, f"must be a directory, got {root!r}")
    found = []
    for top, dirs, files in os.walk(root):
        dirs.sort()
        if name not in files:
            continue
        path = os.path.join(top, name)
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, UnicodeDecodeError, ValueError) as err:
            raise ConfigError(field, f"{path}: malformed {name.split('.')[0].replace('_', ' ')}: "
                                     f"{str(err).splitlines()[0]}") from None
        found.append((path, os.path.relpath(path, root), doc))
    if required and not found:
        raise ConfigError(field, f"no {name} under {root}")
    return found


def report_value(doc, path: str, keys: tuple, field: str, what: str = "power report"):
    """``doc[keys[0]][keys[1]]...``, or a :class:`ConfigError` naming the file and key."""
    v = doc
    for k in keys:
        if not isinstance(v, dict) or k not in v:
            raise ConfigError(field, f"{path}: malformed {what}: no {'.'.join(keys)}")
        v = v[k]
    return v


def power_record(doc, path: str, rel: str, field: str) -> dict:
    """The energy model's power record of a ``termwise power`` report: ``preset``,
    ``tile_w`` (``power_w.tile``), ``buffers_w`` (``by_kind_w.buffers.total_w``: the
    flip-flop operand buffers, which the energy model prices as SRAM macros instead; 0 for a
    tile without them), ``clock_mhz`` (``clock.mhz``), ``activity`` (``activity.source``),
    a ``source`` text naming the file (``rel``) and its activity, and when the report has
    its ``clock_network`` estimate, ``clock_w`` and ``clock_without_buffers_w`` (the network
    of every tile sink, and of those outside the flop buffers), and when it measured busy,
    load and idle cycles apart (``phases``), their fields
    (:data:`termwise.golden.netsim.energy.PHASE_KEYS`).
    A missing or ill-typed value is a :class:`ConfigError` naming ``field`` and the file."""
    preset = report_value(doc, path, ("preset",), field)
    tile_w = report_value(doc, path, ("power_w", "tile"), field)
    mhz = report_value(doc, path, ("clock", "mhz"), field)
    activity = report_value(doc, path, ("activity", "source"), field)
    for key, v in (("preset", preset), ("activity.source", activity)):
        if not isinstance(v, str) or not v:
            raise ConfigError(field, f"{path}: malformed power report: {key} must be text, "
                                     f"got {v!r}")
    for key, v in (("power_w.tile", tile_w), ("clock.mhz", mhz)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                or v <= 0:
            raise ConfigError(field, f"{path}: malformed power report: {key} must be a "
                                     f"positive number, got {v!r}")
    kinds = report_value(doc, path, ("by_kind_w",), field)
    buffers = kinds.get("buffers", {"total_w": 0.0}) if isinstance(kinds, dict) else None
    buffers_w = buffers.get("total_w") if isinstance(buffers, dict) else None
    if isinstance(buffers_w, bool) or not isinstance(buffers_w, (int, float)) \
            or not 0 <= buffers_w < tile_w:
        raise ConfigError(field, f"{path}: malformed power report: by_kind_w.buffers.total_w "
                                 f"must be a number from 0 to below power_w.tile, got "
                                 f"{buffers_w!r}")
    act = "random operands" if activity == "random" else f"workload {activity}"
    rec = {"preset": preset, "tile_w": float(tile_w), "buffers_w": float(buffers_w),
           "clock_mhz": float(mhz), "activity": activity,
           "source": f"termwise power {rel}: tile power at {mhz:g} MHz, activity of {act}"}
    phases = doc.get("phases")
    if isinstance(phases, dict):
        from ....golden.netsim.energy import PHASE_KEYS
        for key in PHASE_KEYS:
            rec[key] = report_value(doc, path, ("phases", key), field)
        rec["source"] += "; busy, load and idle cycles measured apart"
    net = doc.get("clock_network")
    if net is None:
        rec["source"] += "; no clock-network estimate in this report (none added)"
    else:
        for key, part in (("clock_w", "tile"), ("clock_without_buffers_w", "without_buffers")):
            rec[key] = report_value(doc, path, ("clock_network", part, "total_w"), field)
    return rec
