"""The power cache: where the power flow keeps what it computed, and its stored reports.

It lives beside the synthesis cache (``build/synth-cache`` -> ``build/power-cache``)::

    <power-cache>/<model key>/sim          a gate-level model (:mod:`.model`)
    <power-cache>/.run-*/                  a simulation in progress (:mod:`.measure`)
    <power-cache>/failed.run-*/            a failed run or build, kept for its logs
    <power-cache>/reports/<report key>/    power_report.json, inputs.json
    <power-cache>/reports/verilog-sha/     the Verilog sha256 memo (:mod:`.keys`)

A report missing here is looked up in the project's measured results
(:mod:`termwise.synth.measured_store`) under the same key.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile

from ...gen.results import locations

__all__ = ["power_cache_dir", "reports_dir", "verilog_memo_dir", "load_report",
           "store_report"]


def power_cache_dir(cache_root: str | None) -> str:
    """The power cache beside the synthesis cache ``cache_root``.

    Parameters
    ----------
    cache_root : str or None
        The synthesis cache's folder; None for its default
        (:data:`termwise.gen.results.locations.SYNTH_CACHE_DEFAULT`).

    Returns
    -------
    str
        The absolute path of its sibling ``power-cache``.
    """
    return locations.power_cache_dir(cache_root)


def reports_dir(power_cache: str) -> str:
    """The folder of the stored reports in ``power_cache``."""
    return os.path.join(power_cache, "reports")


def verilog_memo_dir(power_cache: str) -> str:
    """The folder of the Verilog sha256 memo (:func:`.keys.verilog_sha`) in
    ``power_cache``."""
    return os.path.join(reports_dir(power_cache), "verilog-sha")


def load_report(reports: str, key: str) -> dict | None:
    """The report stored under ``key``.

    Parameters
    ----------
    reports : str
        The stored reports' folder (:func:`reports_dir`).
    key : str
        The report's key (:func:`.keys.report_key`).

    Returns
    -------
    dict or None
        The report in ``reports``, else the one in the project's measured results
        (:func:`termwise.synth.measured_store.power_report`), else None.
    """
    from .. import measured_store
    try:
        with open(os.path.join(reports, key, "power_report.json"), encoding="utf-8") as f:
            return _simulator_named(json.load(f))
    except (OSError, ValueError):
        shipped = measured_store.power_report(key)
        return None if shipped is None else _simulator_named(shipped)


def _simulator_named(report: dict) -> dict:
    """A levelised simulation's report stored before its ``activity_source.simulator``
    named it (it said "Verilator, ..." while its ``simulator`` record said levelsim: the
    measurement is the same, the words were wrong) gets the record's words."""
    how = (report.get("simulator") or {}).get("how")
    if how and "activity_source" in report:
        report["activity_source"]["simulator"] = how
    return report


def store_report(reports: str, key: str, inputs: dict, report: dict) -> None:
    """Store ``report`` and the ``inputs`` its ``key`` hashes in ``reports/key/``.

    The entry is written in a fresh folder and renamed into place, so a reader never sees
    it half-written; a concurrent run that stored the same key first keeps its entry.
    """
    os.makedirs(reports, exist_ok=True)
    wd = tempfile.mkdtemp(prefix=".run-", dir=reports)
    try:
        for name, data in (("power_report.json", report), ("inputs.json", inputs)):
            with open(os.path.join(wd, name), "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1, sort_keys=name == "inputs.json")
        final = os.path.join(reports, key)
        if os.path.isdir(final):        # a concurrent run got there first: keep theirs
            shutil.rmtree(wd, ignore_errors=True)
        else:
            os.replace(wd, final)
    except BaseException:
        shutil.rmtree(wd, ignore_errors=True)
        raise
