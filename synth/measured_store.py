"""The project's measured results, shipped with the package: syntheses and power reports of
the configurations behind the published tables (``termwise report``'s equal-peak tiles).

A 16x16 tile's synthesis takes 6-25 minutes on a 2-core machine and its gate-level power
20-45 more; the table of twelve designs is hours. The build caches
(``build/synth-cache``, ``build/power-cache``) hold such results on one machine; this store
holds the ones the project measured, so that a fresh checkout reuses them (the way the
system perf-db ships tuned results, :mod:`termwise.gen.flows.perfdb.locations`).

An entry is used only under the same key as a cache entry, and the keys hash everything a
result depends on (:mod:`termwise.synth.cache`: the Verilog's sha256, the flow's version,
the liberty's content, tool versions; :func:`termwise.synth.power.keys.report_key_inputs`:
the synthesis keys, the run's options, the power flow's version, the workload trace's
content hash, the Verilator version; never source text; the versions are in
:mod:`termwise.gen.results.versions`, the key function is
:func:`termwise.gen.results.keys.key`). So an entry whose Verilog, tools, flow version or
trace have changed is never read: it is stale, and ``measured list`` lists it.

Layout (``synth/measured/``)::

    asic/<synthesis key>/  settings.json result.json stat.json sta.log synth_report.json
                           provenance.json
    power/<report key>/    inputs.json power_report.json provenance.json

The netlists are not kept (tens of MB): a power run of a shipped synthesis with other
options synthesises again.

    termwise measured add DIR...   # keep the cache entries behind the reports under DIR
    termwise measured list         # every entry, and whether its key is current

``TERMWISE_MEASURED=0`` turns the store off (a lookup misses), for a run that must measure;
``TERMWISE_MEASURED=DIR`` uses another store (:mod:`termwise.gen.results.locations`).
"""

from __future__ import annotations

import json
import os
import shutil

from ..gen.results import locations

__all__ = ["ROOT", "root", "enabled", "synthesis_dir", "power_report", "add", "entries",
           "load"]

#: The store's folder in the package (the default of :func:`root`).
ROOT = locations.MEASURED_DEFAULT

#: The files of a synthesis entry: what :func:`termwise.synth.asic.refresh` reads, the
#: settings its key hashes and the run's result (from the cache), and the report that
#: names its configuration, commit and date (from the report folder).
ASIC_FILES = ("settings.json", "result.json", "stat.json", "sta.log")
#: The files of a power entry (as :func:`termwise.synth.power.cache.store_report` writes).
POWER_FILES = ("inputs.json", "power_report.json")
#: Written beside each entry by :func:`add`: when it was measured and added.
PROVENANCE = "provenance.json"


def root() -> str:
    """The store's folder: ``$TERMWISE_MEASURED`` if it names one (say, a lab's shared
    store), else :data:`ROOT` (:func:`termwise.gen.results.locations.measured_root`)."""
    return locations.measured_root()


def enabled() -> bool:
    """False when ``$TERMWISE_MEASURED`` is ``0``: every lookup misses."""
    return locations.measured_enabled()


def synthesis_dir(key: str) -> str | None:
    """The shipped folder of the ASIC synthesis under ``key``, or None."""
    if not enabled():
        return None
    d = os.path.join(root(), "asic", key)
    return d if all(os.path.isfile(os.path.join(d, f)) for f in ASIC_FILES) else None


def power_report(key: str) -> dict | None:
    """The shipped power report under ``key``, or None."""
    if not enabled():
        return None
    try:
        with open(os.path.join(root(), "power", key, "power_report.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _copy_entry(src: str, dst: str, names: tuple, report: str | None) -> None:
    """Copy ``names`` from the cache entry ``src`` (and the synth ``report``) into ``dst``,
    with ``provenance.json``: when the entry was measured (its last file's modification
    time in the cache) and when it was added."""
    import datetime
    tmp = dst + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    for n in names:
        shutil.copyfile(os.path.join(src, n), os.path.join(tmp, n))
    if report is not None:
        shutil.copyfile(report, os.path.join(tmp, "synth_report.json"))

    def iso(t):
        return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
            "%Y-%m-%d %H:%M UTC")
    measured = max(os.path.getmtime(os.path.join(src, n)) for n in names)
    with open(os.path.join(tmp, PROVENANCE), "w", encoding="utf-8") as f:
        json.dump({"measured": iso(measured), "added": iso(datetime.datetime.now().timestamp()),
                   "from": os.path.basename(src)}, f, indent=1)
    os.replace(tmp, dst)


def add(report_dirs, *, synth_cache: str, power_cache: str, log=print) -> list:
    """Copy into the store the cache entries behind every ``synth_report.json`` and
    ``power_report.json`` under ``report_dirs`` (a ``termwise report`` output, or
    ``termwise synth``/``power`` outputs); returns the entries added. A report whose entry is
    not in the caches given is an error (:class:`ValueError`)."""
    todo, store = {}, root()
    for top in report_dirs:
        for d, dirs, files in os.walk(top):
            dirs.sort()
            for name in sorted(files):
                if name not in ("synth_report.json", "power_report.json"):
                    continue
                path = os.path.join(d, name)
                with open(path, encoding="utf-8") as f:
                    doc = json.load(f)
                if name == "synth_report.json":
                    key = ((doc.get("cache") or {}).get("asic") or {}).get("key")
                    kind, names, src_root = "asic", ASIC_FILES, synth_cache
                else:
                    key = (doc.get("cache") or {}).get("key")
                    kind, names = "power", POWER_FILES
                    src_root = os.path.join(power_cache, "reports")
                if not isinstance(key, str) or not key:
                    raise ValueError(f"{path}: no cache key")
                dst = os.path.join(store, kind, key)
                if os.path.isdir(dst) or dst in todo:
                    continue
                src = os.path.join(src_root, key)
                if not all(os.path.isfile(os.path.join(src, n)) for n in names):
                    raise ValueError(f"{path}: its {kind} entry {key} is not in {src_root}")
                todo[dst] = (src, names, path if kind == "asic" else None, kind, key,
                             doc.get("top"))
    added = []          # every report checked first: nothing is copied for a refused one
    for dst, (src, names, report, kind, key, top) in todo.items():
        _copy_entry(src, dst, names, report)
        added.append((kind, key, top))
        log(f"added {kind}/{key} ({top})")
    return added


def entries() -> list:
    """``(kind, key, folder)`` of every shipped entry, sorted by kind and key."""
    out = []
    for kind in ("asic", "power"):
        base = os.path.join(root(), kind)
        if os.path.isdir(base):
            out += [(kind, key, os.path.join(base, key)) for key in sorted(os.listdir(base))
                    if os.path.isdir(os.path.join(base, key)) and not key.endswith(".tmp")]
    return out


def load(folder: str, name: str) -> dict:
    """The JSON file ``name`` of the entry in ``folder``."""
    with open(os.path.join(folder, name), encoding="utf-8") as f:
        return json.load(f)
