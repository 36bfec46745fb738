"""The shipped measured results (synth/measured_store.py): a lookup finds an entry only under
its own key and only when the store is on; the entries shipped are whole and their folder
names are the keys of their own settings / inputs; ``add`` copies exactly a report's entries
and refuses one the caches lack."""

import json
import os

import pytest

from termwise.synth import api, cache, measured_store
from termwise.synth.power import keys
from termwise.synth.power.cache import load_report

SETTINGS = {"flow": "asic", "verilog_sha256": "ab" * 32, "clock_ns": 10.0}


def _asic_entry(folder, settings=SETTINGS, area=123.0):
    os.makedirs(folder, exist_ok=True)
    files = {"settings.json": settings, "result.json": {"area_um2": area},
             "stat.json": {}, "sta.log": "", "synth_report.json": {"top": "t", "preset": "p"}}
    for name, doc in files.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))


@pytest.fixture
def store(tmp_path, monkeypatch):
    root = tmp_path / "measured"
    monkeypatch.setenv("TERMWISE_MEASURED", str(root))
    return root


def _never(_d):
    raise AssertionError("the flow ran although the store has the result")


def test_a_synthesis_is_found_under_its_key_only(store, tmp_path):
    key = cache.cache_key(SETTINGS)
    _asic_entry(str(store / "asic" / key))
    res, info = api._run_cached("asic", str(tmp_path / "cache"), SETTINGS, _never, True,
                                refresh=lambda r, d: dict(r, folder=d))
    assert res["area_um2"] == 123.0 and info["hit"] and info["measured_store"]
    assert res["folder"] == str(store / "asic" / key)        # refresh reads the shipped files
    other = dict(SETTINGS, verilog_sha256="cd" * 32)          # another Verilog: a miss
    res, info = api._run_cached("asic", str(tmp_path / "cache"), other,
                                lambda d: {"area_um2": 7.0}, True)
    assert res["area_um2"] == 7.0 and not info["hit"]


def test_a_run_that_needs_the_netlist_synthesises_past_the_store(store, tmp_path):
    """A power run needs the netlist, which the store does not ship: the shipped entry is
    not a hit for it (a FileNotFoundError on netlist.v.gz before), the run's result is
    cached locally and found there next time."""
    key = cache.cache_key(SETTINGS)
    _asic_entry(str(store / "asic" / key))
    local = str(tmp_path / "cache")
    res, info = api._run_cached("asic", local, SETTINGS, lambda d: {"area_um2": 123.0},
                                True, shipped=False)
    assert not info["hit"] and info["dir"] == os.path.join(local, key)
    res, info = api._run_cached("asic", local, SETTINGS, _never, True, shipped=False)
    assert info["hit"] and "measured_store" not in info


def test_the_local_cache_comes_first_and_no_cache_measures(store, tmp_path):
    key = cache.cache_key(SETTINGS)
    _asic_entry(str(store / "asic" / key))
    local = tmp_path / "cache"
    _asic_entry(str(local / key), area=5.0)
    res, info = api._run_cached("asic", str(local), SETTINGS, _never, True)
    assert res["area_um2"] == 5.0 and "measured_store" not in info
    res, info = api._run_cached("asic", str(tmp_path / "c2"), SETTINGS,
                                lambda d: {"area_um2": 9.0}, False)
    assert res["area_um2"] == 9.0 and not info["hit"]


def test_the_store_can_be_turned_off(store, tmp_path, monkeypatch):
    key = cache.cache_key(SETTINGS)
    _asic_entry(str(store / "asic" / key))
    monkeypatch.setenv("TERMWISE_MEASURED", "0")
    res, info = api._run_cached("asic", str(tmp_path / "cache"), SETTINGS,
                                lambda d: {"area_um2": 1.0}, True)
    assert res["area_um2"] == 1.0 and not info["hit"]
    assert cache.lookup_measured(key) is None


def test_an_incomplete_entry_is_not_an_entry(store):
    key = cache.cache_key(SETTINGS)
    _asic_entry(str(store / "asic" / key))
    os.remove(store / "asic" / key / "sta.log")
    assert measured_store.synthesis_dir(key) is None and cache.lookup_measured(key) is None


def test_a_power_report_is_found_after_the_local_cache(store, tmp_path):
    (store / "power" / "k1").mkdir(parents=True)
    (store / "power" / "k1" / "power_report.json").write_text('{"power_w": {"tile": 2.5}}')
    reports = tmp_path / "reports"
    assert load_report(str(reports), "k1") == {"power_w": {"tile": 2.5}}
    assert load_report(str(reports), "k2") is None
    (reports / "k1").mkdir(parents=True)
    (reports / "k1" / "power_report.json").write_text('{"power_w": {"tile": 1.0}}')
    assert load_report(str(reports), "k1") == {"power_w": {"tile": 1.0}}


def _report_dirs(tmp_path, synth_key, power_key):
    d = tmp_path / "out" / "designs" / "baseline"
    d.mkdir(parents=True)
    (d / "synth_report.json").write_text(json.dumps(
        {"top": "t", "preset": "p", "cache": {"asic": {"key": synth_key}}}))
    (d / "power_report.json").write_text(json.dumps({"top": "t", "cache": {"key": power_key}}))
    return tmp_path / "out"


def test_add_copies_a_reports_entries(store, tmp_path):
    sc, pc = tmp_path / "synth-cache", tmp_path / "power-cache"
    key = cache.cache_key(SETTINGS)
    _asic_entry(str(sc / key))
    (sc / key / "netlist.v.gz").write_bytes(b"big")              # not shipped
    (pc / "reports" / "pk").mkdir(parents=True)
    for n in measured_store.POWER_FILES:
        (pc / "reports" / "pk" / n).write_text("{}")
    out = _report_dirs(tmp_path, key, "pk")
    added = measured_store.add([str(out)], synth_cache=str(sc), power_cache=str(pc),
                               log=lambda m: None)
    assert sorted(k for k, _, _ in added) == ["asic", "power"]
    shipped = sorted(os.listdir(store / "asic" / key))
    assert shipped == sorted(measured_store.ASIC_FILES + ("synth_report.json",
                                                          measured_store.PROVENANCE))
    prov = measured_store.load(str(store / "asic" / key), measured_store.PROVENANCE)
    assert prov["from"] == key and prov["measured"].endswith("UTC")
    # the report itself is kept beside the entry (its config, commit and date)
    assert json.loads((store / "asic" / key / "synth_report.json").read_text())["cache"] \
        == {"asic": {"key": key}}
    assert measured_store.add([str(out)], synth_cache=str(sc), power_cache=str(pc)) == []


def test_add_refuses_a_report_the_caches_lack(store, tmp_path):
    pc = tmp_path / "pc"
    (pc / "reports" / "pk").mkdir(parents=True)
    for n in measured_store.POWER_FILES:
        (pc / "reports" / "pk" / n).write_text("{}")
    out = _report_dirs(tmp_path, "nosuchkey", "pk")
    with pytest.raises(ValueError, match="asic entry nosuchkey is not in"):
        measured_store.add([str(out)], synth_cache=str(tmp_path / "sc"), power_cache=str(pc))
    assert not store.exists()           # the power entry it has was not copied either


def test_the_default_store_is_the_packages(monkeypatch):
    for v in ("", "1"):
        monkeypatch.setenv("TERMWISE_MEASURED", v)
        assert measured_store.root() == measured_store.ROOT
        assert measured_store.ROOT.endswith(os.path.join("synth", "measured"))


SHIPPED = measured_store.entries()


@pytest.mark.parametrize("kind, key, folder", SHIPPED or [pytest.param(
    None, None, None, marks=pytest.mark.skip(reason="no shipped results"))])
def test_every_shipped_entry_is_whole_and_named_by_its_key(kind, key, folder):
    if kind == "asic":
        assert measured_store.synthesis_dir(key) == folder
        assert cache.cache_key(measured_store.load(folder, "settings.json")) == key
        assert os.path.isfile(os.path.join(folder, "synth_report.json"))
        rep = measured_store.load(folder, "synth_report.json")
        assert rep["cache"]["asic"]["key"] == key
        assert rep["asic"]["area_um2"] == measured_store.load(folder, "result.json")["area_um2"]
    else:
        assert keys.report_key(measured_store.load(folder, "inputs.json")) == key
        assert measured_store.power_report(key) is not None
