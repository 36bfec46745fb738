"""A perf-db as a JSON document and back (``termwise db export`` / ``import``): the
document is checked whole before any db is opened or created, and an export is written
atomically, so a bad file or folder leaves nothing half-written."""

from __future__ import annotations

import json
import os

from ...errors import ConfigError

__all__ = ["export_db", "read_export", "import_export", "result_summary"]


def export_db(path: str, out: str) -> dict:
    """Write the db at ``path`` as a JSON document to the file ``out``; returns the
    document. A folder or a file in a missing folder is a :class:`ConfigError` naming
    ``output``."""
    from ...emit import write_atomically
    from .store import PerfDB
    if os.path.isdir(out):
        raise ConfigError("output", f"{out} is a directory; give a file name")
    with PerfDB(path, readonly=True) as db:
        doc = db.export()
    parent = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(parent):
        raise ConfigError("output", f"folder {parent} does not exist")
    write_atomically(out, json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return doc


def read_export(file: str) -> dict:
    """The exported document in ``file``, checked whole (:func:`.store.parse_export`)
    before any db is opened or created; an unreadable or malformed file is a
    :class:`ConfigError` naming ``import``."""
    from .store import parse_export
    try:
        with open(file, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as err:
        raise ConfigError("import", f"cannot read {file}: {err.strerror}") from None
    except (UnicodeDecodeError, ValueError) as err:
        raise ConfigError("import", f"{file} is not JSON ({str(err).splitlines()[0]})") \
            from None
    parse_export(doc, file)
    return doc


def import_export(path: str, doc: dict, file: str) -> dict:
    """Merge ``doc`` (:func:`read_export` of ``file``) into the db at ``path`` (created if
    absent); returns ``{"results", "added_ok"}``."""
    from .store import PerfDB
    with PerfDB(path, create=True) as db:
        return db.import_document(doc, file)


def result_summary(r: dict) -> str:
    """One result row in a few words (``termwise db list``)."""
    v = r["value"]
    if r["status"] != "ok":
        return f"failed: {v.get('error', '?')}"
    if r["kind"] == "cycles":
        return f"cycles {v['cycles']}"
    if r["kind"] == "power":
        return f"tile power {v['tile_w']:.4g} W at {v['clock_mhz']:g} MHz"
    return f"area {v['area_um2']:.0f} um2, fmax {v['fmax_mhz']:.1f} MHz"
