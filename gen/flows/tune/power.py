"""Tile power for ``termwise tune``'s energy objectives: ``termwise power`` reports
(``power_report.json``) matched to candidates by their tile (top name and configuration),
the reports given (``--power-reports``) recorded in and read back from the perf-db (result
kind ``power``). Both modes also read the power reports shipped with termwise
(:func:`shipped_reports`) of the candidates the perf-db and ``--power-reports`` leave
without one, through the measured store (:mod:`termwise.synth.measured_store`) and only
while their keys are current; they are never copied into the perf-db, whose power rows are
keyed on termwise's version alone and would outlive a stale measurement.

A report's record is ``{"tile_w": power_w.tile, "buffers_w", "clock_mhz": clock.mhz,
"source"}`` (``buffers_w``: the flip-flop operand buffers' share), the
same record ``termwise sim --power-reports`` uses (:func:`termwise.golden.netsim.energy.
check_power_record`). In the perf-db it is filed under problem ``power-<activity>``
(``power-random``, ``power-workload-digits-cnn``, ...) with method ``{"activity"}``; a
candidate with records of several activities uses the one of the tuned workload, else the
random-operand one, else the first by name. No record, no energy: nothing is estimated.
"""

from __future__ import annotations


from ...spec import ConfigError

__all__ = ["read_reports", "shipped_reports", "db_records", "record_all", "choose"]

def read_reports(root: str) -> dict:
    """``{top: {activity: (config, record)}}`` of the ``power_report.json`` files under
    ``root`` (recursively, in sorted order; the first report of a (tile, activity) wins). A
    missing directory, none found or a malformed report: :class:`ConfigError`
    ``power_reports``."""
    from ..reports.files import POWER_REPORT, json_reports
    found = {}
    for path, rel, doc in json_reports(root, POWER_REPORT, "power_reports"):
        cfg, act, rec = _entry(path, rel, doc, "power_reports")
        found.setdefault(cfg.top_name, {}).setdefault(act, (cfg, rec))
    return found


def _entry(path: str, rel: str, doc: dict, field: str) -> tuple:
    """``(config, activity, record)`` of one power report (errors name ``field``)."""
    from ....golden.netsim.energy import check_power_record
    from ...config import from_mapping
    from ..reports.files import power_record, report_value
    config = report_value(doc, path, ("config",), field)
    try:
        cfg = from_mapping(config)
    except (ConfigError, TypeError) as err:
        raise ConfigError(field, f"{path}: config: {err}") from None
    rec = power_record(dict(doc, preset=str(doc.get("preset") or cfg.top_name)), path,
                       rel, field)
    act = rec["activity"]
    return cfg, act, check_power_record(cfg.top_name, rec, field=field)


def shipped_reports(tops, log=None) -> dict:
    """:func:`read_reports` of the power reports shipped with termwise (``synth/measured``,
    ``termwise measured list``) of the tiles ``tops``, each kept only if it is current for
    this checkout (the key it would have if measured now: same Verilog, tools and code;
    about 10 s per report, for the Verilog); a stale one is left out with a note."""
    from ....synth import measured_store
    from ....synth.power.keys import is_current
    log = log or (lambda msg: None)
    found = {}
    for kind, key, folder in measured_store.entries():
        if kind != "power":
            continue
        path = f"{folder}/power_report.json"
        doc = measured_store.load(folder, "power_report.json")
        cfg, act, rec = _entry(path, f"measured/power/{key}", doc, "power_reports")
        if cfg.top_name not in tops or act in found.get(cfg.top_name, {}):
            continue
        if not is_current(kind, folder, key):
            log(f"tune: the shipped power of {cfg.top_name} ({key}) is stale for this "
                "checkout: not used")
            continue
        found.setdefault(cfg.top_name, {})[act] = (cfg, rec)
    return found


def db_records(chain, candidates) -> dict:
    """``{top: {activity: record}}`` of the candidates' power results in the perf-db. A
    record without ``buffers_w`` (written before the energy model priced the tile buffers
    as SRAM macros) is not used: it cannot say which share of the power they replace."""
    out = {}
    for c in candidates:
        fields = c.cfg.to_dict()
        for r in chain.results(top=c.top):
            if r["kind"] == "power" and r["status"] == "ok" and r["config"] == fields \
                    and "buffers_w" in r["value"]:
                out.setdefault(c.top, {}).setdefault(r["method"]["activity"], r["value"])
    return out


def record_all(chain, reports: dict) -> int:
    """Record the power of every report given (``--power-reports``, :func:`read_reports`)
    in the user db; returns how many. The shipped reports are not recorded: they are read
    from the measured store (:func:`shipped_reports`)."""
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
