"""Tile power for ``termwise tune``'s energy objectives: ``termwise power`` reports
(``power_report.json``) matched to candidates by their tile (top name and configuration),
recorded in and read back from the perf-db (result kind ``power``).

A report's record is ``{"tile_w": power_w.tile, "clock_mhz": clock.mhz, "source"}``, the
same record ``termwise sim --power-reports`` uses (:func:`termwise.golden.netsim.energy.
check_power_record`). In the perf-db it is filed under problem ``power-<activity>``
(``power-random``, ``power-workload-digits-cnn``, ...) with method ``{"activity"}``; a
candidate with records of several activities uses the one of the tuned workload, else the
random-operand one, else the first by name. No record, no energy: nothing is estimated.
"""

from __future__ import annotations

import json
import math
import os

from ..spec import ConfigError

__all__ = ["REPORT", "read_reports", "db_records", "record_all", "choose"]

#: The file ``termwise power`` writes.
REPORT = "power_report.json"


def _value(doc, path, keys):
    v = doc
    for k in keys:
        if not isinstance(v, dict) or k not in v:
            raise ConfigError("power_reports", f"{path}: malformed power report: no "
                                               f"{'.'.join(keys)}")
        v = v[k]
    return v


def _activity(doc, path) -> str:
    act = _value(doc, path, ("activity", "source"))
    if not isinstance(act, str) or not act:
        raise ConfigError("power_reports", f"{path}: malformed power report: activity.source "
                                           f"must be text, got {act!r}")
    return act


def read_reports(root: str) -> dict:
    """``{top: {activity: record}}`` of the ``power_report.json`` files under ``root``
    (recursively, in sorted order; the first report of a (tile, activity) wins). A missing
    directory, none found or a malformed report: :class:`ConfigError` ``power_reports``."""
    from ...golden.netsim.energy import check_power_record
    from ..config import from_mapping
    if not os.path.isdir(root):
        raise ConfigError("power_reports", f"must be a directory, got {root!r}")
    found = {}
    for top, dirs, files in os.walk(root):
        dirs.sort()
        if REPORT not in files:
            continue
        path = os.path.join(top, REPORT)
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, UnicodeDecodeError, ValueError) as err:
            raise ConfigError("power_reports", f"{path}: malformed power report: "
                                               f"{str(err).splitlines()[0]}") from None
        config = _value(doc, path, ("config",))
        try:
            cfg = from_mapping(config)
        except (ConfigError, TypeError) as err:
            raise ConfigError("power_reports", f"{path}: config: {err}") from None
        tile_w = _value(doc, path, ("power_w", "tile"))
        mhz = _value(doc, path, ("clock", "mhz"))
        for key, v in (("power_w.tile", tile_w), ("clock.mhz", mhz)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                    or v <= 0:
                raise ConfigError("power_reports", f"{path}: malformed power report: {key} "
                                                   f"must be a positive number, got {v!r}")
        act = _activity(doc, path)
        rel = os.path.relpath(path, root)
        rec = check_power_record(cfg.top_name, {
            "preset": str(doc.get("preset") or cfg.top_name), "tile_w": tile_w,
            "clock_mhz": mhz, "source": f"termwise power {rel}: tile power at {mhz:g} MHz, "
                                        f"activity {act}"}, field="power_reports")
        found.setdefault(cfg.top_name, {}).setdefault(act, (cfg, rec))
    if not found:
        raise ConfigError("power_reports", f"no {REPORT} under {root}")
    return found


def db_records(chain, candidates) -> dict:
    """``{top: {activity: record}}`` of the candidates' power results in the perf-db."""
    out = {}
    for c in candidates:
        fields = c.cfg.to_dict()
        for r in chain.results(top=c.top):
            if r["kind"] == "power" and r["status"] == "ok" and r["config"] == fields:
                out.setdefault(c.top, {}).setdefault(r["method"]["activity"], r["value"])
    return out


def record_all(chain, reports: dict) -> int:
    """Record every report's power in the user db; returns how many."""
    from ..perfdb import Record
    from ..sweep.jobs import versions
    v = {"termwise": versions("cycles")["termwise"]}
    records = [Record(f"power-{act}", "power", {"activity": act}, cfg, "power",
                      {"activity": act}, v, "ok", rec, 0.0)
               for acts in reports.values() for act, (cfg, rec) in sorted(acts.items())]
    if records:
        chain.record(records)
    return len(records)


def choose(by_activity: dict, workload: str) -> dict:
    """The record of the tuned workload's activity, else the random one, else the first."""
    for act in (workload, f"workload {workload}", "random"):
        if act in by_activity:
            return by_activity[act]
    return by_activity[sorted(by_activity)[0]]
