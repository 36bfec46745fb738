"""The earlier results ``termwise report --reports DIR`` reuses: synth and power reports
found under a folder, matched to a design by its tile's top name."""

from __future__ import annotations

from ...errors import ConfigError

__all__ = ["find_reports", "power_record_of"]


def find_reports(root: str | None, name: str) -> dict:
    """``top -> report`` of every ``name`` file under ``root`` (the first of a top by path
    order wins; a malformed file is a :class:`ConfigError` naming ``reports``)."""
    from ..reports.files import json_reports
    found = {}
    if root is None:
        return found
    for path, _rel, doc in json_reports(root, name, "reports", required=False):
        top = doc.get("top") if isinstance(doc, dict) else None
        if not isinstance(top, str):
            raise ConfigError("reports", f"{path} is not a termwise {name} (no top)")
        found.setdefault(top, doc)
    return found


def power_record_of(rep: dict, top: str) -> dict:
    """The energy model's power record of ``rep`` (:func:`termwise.gen.flows.reports.files.
    power_record`), its source text saying how the power was obtained."""
    from ..reports.files import power_record
    from ..reports.ppa import method_text
    rec = power_record(rep, f"the power report of {top}", top, "reports")
    act = rep.get("activity", {})
    rec["source"] = (f"termwise power ({method_text(rep)}), activity of {rec['activity']}: "
                     f"{act.get('runs_completed')} runs, {act.get('cycles_simulated')} cycles")
    return rec
