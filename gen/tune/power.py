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


from ..spec import ConfigError

__all__ = ["read_reports", "db_records", "record_all", "choose"]

def read_reports(root: str) -> dict:
    """``{top: {activity: (config, record)}}`` of the ``power_report.json`` files under
    ``root`` (recursively, in sorted order; the first report of a (tile, activity) wins). A
    missing directory, none found or a malformed report: :class:`ConfigError`
    ``power_reports``."""
    from ...golden.netsim.energy import check_power_record
    from ..config import from_mapping
    from ..reports.files import POWER_REPORT, json_reports, power_record, report_value
    found = {}
    for path, rel, doc in json_reports(root, POWER_REPORT, "power_reports"):
        config = report_value(doc, path, ("config",), "power_reports")
        try:
            cfg = from_mapping(config)
        except (ConfigError, TypeError) as err:
            raise ConfigError("power_reports", f"{path}: config: {err}") from None
        rec = power_record(dict(doc, preset=str(doc.get("preset") or cfg.top_name)), path,
                           rel, "power_reports")
        act = rec["activity"]
        rec = check_power_record(cfg.top_name, rec, field="power_reports")
        found.setdefault(cfg.top_name, {}).setdefault(act, (cfg, rec))
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
