"""Guard of RTL_VERSION (gen/results/versions.py): the Verilog emitted for every small
preset (``*-4x4``, every design) and of its SRAM-macro variant is the Verilog recorded for the current RTL_VERSION, so a
change of the emitted Verilog that forgot to bump the version fails ``make test``.

The table (tests/gen/rtl_sha256.json) maps each RTL_VERSION to ``{preset: sha256 of the
Verilog}``. After a deliberate change of the Verilog: bump RTL_VERSION, then record the new
version's hashes with::

    .venv/bin/python tests/gen/test_results_rtl_guard.py

which adds the current version's entry and refuses to change an entry already recorded.
"""

import hashlib
import json
import pathlib
import sys

import pytest

from termwise.gen.config import load_presets, preset, storage_variant
from termwise.gen.emit import render
from termwise.gen.results.versions import RTL_VERSION

TABLE = pathlib.Path(__file__).with_name("rtl_sha256.json")
BUMP = "emitted Verilog changed: bump RTL_VERSION in gen/results/versions.py and record"
SMALL = sorted(name for name in load_presets() if name.endswith("-4x4"))
#: Each small preset, and (from RTL_VERSION 2) its SRAM-macro variant where the design has
#: one (``<preset> macros``, :func:`termwise.gen.config.storage_variant`).
MACROS = " macros"
PRESETS = sorted(SMALL + [name + MACROS for name in SMALL
                          if storage_variant(preset(name), "macros", False).buffers == "macros"])


def _config(name: str):
    if name.endswith(MACROS):
        return storage_variant(preset(name[:-len(MACROS)]), "macros", False)
    return preset(name)


def _sha(name: str) -> str:
    text, _ = render(_config(name))
    return hashlib.sha256(text.encode()).hexdigest()


def _table() -> dict:
    return json.loads(TABLE.read_text(encoding="utf-8"))


def test_every_design_has_a_small_preset():
    from termwise.gen import designs
    covered = {preset(n).arch for n in SMALL}
    assert covered == set(designs.archs()), sorted(set(designs.archs()) - covered)


def test_the_current_version_is_recorded_for_every_small_preset():
    recorded = _table().get(str(RTL_VERSION))
    assert recorded is not None, (f"RTL_VERSION {RTL_VERSION} has no recorded hashes: run "
                                  f"`.venv/bin/python {pathlib.Path(__file__).name}` "
                                  "(tests/gen) to record them")
    assert sorted(recorded) == PRESETS, "the small presets changed: record them"


@pytest.mark.parametrize("name", PRESETS)
def test_emitted_verilog_is_the_recorded_one(name):
    recorded = _table().get(str(RTL_VERSION), {})
    assert name in recorded, f"{name}: no hash recorded for RTL_VERSION {RTL_VERSION}"
    assert _sha(name) == recorded[name], f"{name}: {BUMP}"


def record() -> dict:
    """Add the current RTL_VERSION's hashes to the table; an entry already recorded must
    be what the Verilog is now (a change needs a new version, not a rewrite)."""
    table = _table() if TABLE.exists() else {}
    now = {name: _sha(name) for name in PRESETS}
    old = table.get(str(RTL_VERSION))
    if old is not None and old != now:
        sys.exit(f"RTL_VERSION {RTL_VERSION} is recorded with other hashes: {BUMP}")
    table[str(RTL_VERSION)] = now
    TABLE.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return now


if __name__ == "__main__":
    print(json.dumps(record(), indent=1))
