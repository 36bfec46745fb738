"""gen/results/versions.py: every flow version in one place, each saying when to bump it,
and the keys built on them read no source text (a docstring edit retires nothing)."""

import builtins
import hashlib
import io
import pathlib
import re
from importlib import metadata

import pytest

from termwise.gen.results import versions

SOURCE = pathlib.Path(versions.__file__).read_text(encoding="utf-8")


def test_the_shipped_versions():
    # The values the shipped results are keyed on: changing one retires them.
    assert versions.ALL == {"ASIC_SCRIPT_VERSION": "asic-7", "FPGA_SCRIPT_VERSION": "ecp5-1",
                            "POWER_FLOW_VERSION": 5, "POWER_REPORT_LAYOUT_VERSION": 4,
                            "CYCLE_MODEL_VERSION": 2, "RTL_VERSION": 7,
                            "WORKLOAD_KEYS_VERSION": 1}


@pytest.mark.parametrize("name", sorted(versions.ALL))
def test_each_version_says_when_to_bump_it(name):
    m = re.search(r"((?:^#:.*\n)+)" + name + " = ", SOURCE, re.M)
    assert m and "Bump it when" in m.group(1).replace("#: ", "").replace("\n", " "), name


def test_the_flows_use_these_constants():
    from termwise.synth import asic, fpga
    from termwise.synth.power import keys
    assert asic.SCRIPT_VERSION == versions.ASIC_SCRIPT_VERSION
    assert fpga.SCRIPT_VERSION == versions.FPGA_SCRIPT_VERSION
    assert keys.POWER_FLOW_VERSION == versions.POWER_FLOW_VERSION
    assert keys.REPORT_CACHE_VERSION == versions.POWER_REPORT_LAYOUT_VERSION


@pytest.fixture
def no_source_reads(monkeypatch):
    """Any read of a .py file fails the test: a key must not hash source text."""
    real_open = builtins.open

    def guarded(file, *args, **kw):
        if str(file).endswith(".py"):
            raise AssertionError(f"a key read source text: {file}")
        return real_open(file, *args, **kw)

    monkeypatch.setattr(builtins, "open", guarded)
    monkeypatch.setattr(io, "open", guarded)
    for name in ("read_bytes", "read_text"):
        monkeypatch.setattr(pathlib.Path, name, _guard_path(getattr(pathlib.Path, name)))


def _guard_path(real):
    def read(self, *args, **kw):
        if self.suffix == ".py":
            raise AssertionError(f"a key read source text: {self}")
        return real(self, *args, **kw)
    return read


def test_perfdb_cycles_versions_hold_no_source_text(no_source_reads):
    from termwise.gen.flows.sweep.jobs import versions as result_versions
    assert result_versions("cycles") == {"termwise": metadata.version("termwise"),
                                         "cycle_model": versions.CYCLE_MODEL_VERSION}


def test_perfdb_synth_versions_hold_no_source_text(no_source_reads, tmp_path):
    from termwise.gen.flows.sweep.jobs import versions as result_versions
    lib = tmp_path / "x.lib"
    lib.write_bytes(b"library (x) {}\n")
    v = result_versions("synth", liberty=str(lib))
    assert v["asic_script"] == versions.ASIC_SCRIPT_VERSION
    assert v["rtl"] == versions.RTL_VERSION
    assert v["liberty"] == hashlib.sha256(b"library (x) {}\n").hexdigest()[:16]
    assert set(v) == {"termwise", "tools", "asic_script", "liberty", "rtl"}


def test_workload_fingerprint_holds_no_source_text(no_source_reads, monkeypatch, tmp_path):
    from termwise.gen.flows.perfdb.workload_keys import fingerprint
    monkeypatch.setenv("TERMWISE_WORKLOADS", str(tmp_path))
    first = fingerprint("digits-cnn")
    (tmp_path / "digits-cnn_x.npz").write_bytes(b"12345")
    assert fingerprint("digits-cnn") != first           # a (re)built trace: another key
    assert fingerprint("dncnn") == fingerprint("dncnn")
    monkeypatch.setattr("termwise.gen.flows.perfdb.workload_keys.WORKLOAD_KEYS_VERSION", 99)
    assert fingerprint("digits-cnn") != first


def test_power_report_key_holds_no_source_text(no_source_reads):
    from termwise.gen.config import preset
    from termwise.synth.power.keys import report_key, report_key_inputs
    inputs = report_key_inputs(preset("stripes-4x4"), synth_key="s" * 24, part_synth_key=None,
                               mode="whole", cycles=100, seed=1, clock_mhz=None,
                               precision=8, workload=None, layers=None)
    assert inputs["power_flow"] == versions.POWER_FLOW_VERSION
    assert inputs["version"] == versions.POWER_REPORT_LAYOUT_VERSION
    assert len(report_key(inputs)) == 24
