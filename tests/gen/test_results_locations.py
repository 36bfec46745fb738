"""gen/results/locations.py: every store's root, from the environment or the package."""

import os
import pathlib

import pytest

from termwise.gen.results import locations

PACKAGE = pathlib.Path(__file__).resolve().parents[2]      # the checkout: gen/, synth/


@pytest.fixture
def clean_env(monkeypatch):
    for name in ("TERMWISE_MEASURED", "TERMWISE_PERFDB", "XDG_CACHE_HOME",
                 "TERMWISE_WORKLOADS"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_package_root_holds_the_packages():
    assert pathlib.Path(locations.PACKAGE_ROOT) == PACKAGE
    assert (PACKAGE / "gen" / "results" / "locations.py").is_file()


def test_synthesis_and_power_caches(tmp_path):
    assert locations.synth_cache_root() == os.path.join("build", "synth-cache")
    assert locations.synth_cache_root(str(tmp_path / "sc")) == str(tmp_path / "sc")
    assert locations.power_cache_dir(str(tmp_path / "sc")) == str(tmp_path / "power-cache")
    assert locations.power_cache_dir(None) == os.path.join(os.getcwd(), "build",
                                                           "power-cache")


def test_measured_store(clean_env, tmp_path):
    assert locations.measured_root() == str(PACKAGE / "synth" / "measured")
    assert locations.measured_enabled()
    for switch in ("0", "1"):
        clean_env.setenv("TERMWISE_MEASURED", switch)
        assert locations.measured_root() == str(PACKAGE / "synth" / "measured")
        assert locations.measured_enabled() is (switch == "1")
    clean_env.setenv("TERMWISE_MEASURED", str(tmp_path))
    assert locations.measured_root() == str(tmp_path) and locations.measured_enabled()


def test_perfdbs(clean_env, tmp_path):
    home = pathlib.Path(os.path.expanduser("~"))
    assert locations.user_db_path() == str(home / ".cache" / "termwise" / "perfdb.sqlite")
    clean_env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert locations.user_db_path() == str(tmp_path / "xdg" / "termwise" / "perfdb.sqlite")
    clean_env.setenv("TERMWISE_PERFDB", str(tmp_path / "my.sqlite"))
    assert locations.user_db_path() == str(tmp_path / "my.sqlite")
    assert locations.system_db_path() == str(PACKAGE / "gen" / "flows" / "perfdb" /
                                             "system.sqlite")


def test_workload_trace_cache(clean_env, tmp_path):
    assert locations.workload_cache_dir() == str(PACKAGE / "build" / "workloads")
    clean_env.setenv("TERMWISE_WORKLOADS", str(tmp_path / "wl"))
    assert locations.workload_cache_dir() == str(tmp_path / "wl")


def test_the_stores_use_these_roots(clean_env, tmp_path):
    from termwise.gen.flows.perfdb import system_db_path, user_db_path
    from termwise.synth import cache, measured_store
    from termwise.synth.power.cache import power_cache_dir
    clean_env.setenv("TERMWISE_MEASURED", str(tmp_path / "m"))
    clean_env.setenv("TERMWISE_PERFDB", str(tmp_path / "u.sqlite"))
    assert measured_store.root() == str(tmp_path / "m")
    assert user_db_path() == str(tmp_path / "u.sqlite")
    assert system_db_path() == locations.system_db_path()
    assert cache.DEFAULT_ROOT == locations.SYNTH_CACHE_DEFAULT
    assert power_cache_dir(str(tmp_path / "s")) == str(tmp_path / "power-cache")
