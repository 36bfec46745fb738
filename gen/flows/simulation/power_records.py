"""The power records a simulation's energy model takes (tile power, clock, source): given
per design, or read from ``power_report.json`` files (``termwise power``) and matched to the
designs by their preset."""

from __future__ import annotations

from ...errors import ConfigError

__all__ = ["read_power_reports", "reports_for", "power_records"]


def read_power_reports(root: str) -> dict:
    """The ``power_report.json`` files under ``root`` (recursively) as ``{preset: {path
    relative to root: power record}}`` (:func:`termwise.gen.flows.reports.files.power_record`,
    checked as :func:`termwise.golden.netsim.check_power_record` takes them). A missing
    directory, one without reports or a malformed report is a :class:`ConfigError` naming
    ``power_reports``."""
    from ....golden.netsim import check_power_record
    from ..reports.files import POWER_REPORT, json_reports, power_record
    found = {}
    for path, rel, doc in json_reports(root, POWER_REPORT, "power_reports"):
        rec = power_record(doc, path, rel, "power_reports")
        checked = check_power_record(rec["preset"], rec)
        found.setdefault(checked["preset"], {})[rel] = checked
    return found


def reports_for(designs, bits: int, reports: dict) -> tuple[dict, list]:
    """``({design: power record}, [ignored presets])``: the reports of each design's preset
    (:func:`termwise.golden.netsim.design_preset`); two reports of one preset in use are a
    ConfigError (which one would be a guess)."""
    from ....golden.netsim import design_preset
    power = {}
    for d in designs:
        recs = reports.get(design_preset(d, bits), {})
        if len(recs) > 1:
            raise ConfigError("power_reports", f"{len(recs)} reports of preset "
                                               f"{design_preset(d, bits)} ({', '.join(recs)}): "
                                               "keep one")
        if recs:
            power[d] = next(iter(recs.values()))
    used = {design_preset(d, bits) for d in designs}
    return power, sorted(p for p in reports if p not in used)


def power_records(designs, bits: int, power: dict | None,
                  power_reports: str | None) -> tuple[dict, list]:
    """``({design: checked power record}, [presets of reports no design runs on])``.

    Parameters
    ----------
    designs : list of str
        The simulated designs, the reference first.
    bits : int
        The workload's (and hardware's) width.
    power : dict or None
        ``{design: record}`` given by the caller; each checked, and winning over a report's.
    power_reports : str or None
        A folder searched for ``power_report.json`` files (:func:`read_power_reports`).
    """
    from ....golden import netsim
    if power is not None and not isinstance(power, dict):
        raise ConfigError("power", f"must be a dict design -> power record, got {power!r}")
    given = {}
    for d, rec in (power or {}).items():
        if d not in designs:
            raise ConfigError("power", f"{d!r} is not a simulated design (designs: "
                                       f"{', '.join(designs)})")
        given[d] = netsim.check_power_record(d, rec, netsim.design_preset(d, bits))
    found, ignored = reports_for(designs, bits, read_power_reports(power_reports)) \
        if power_reports is not None else ({}, [])
    found.update(given)
    return found, ignored
