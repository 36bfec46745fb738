"""The sweep grid (gen/flows/sweep/grid.py): points counted and ordered by hand, every field
checked as a configuration file is, refusals naming grid[i].field."""

import pytest

from termwise.gen.config import preset
from termwise.gen.spec import ConfigError
from termwise.gen.flows.sweep.grid import check_jobs, parse_grid


def test_points_are_the_product_in_written_order():
    g = parse_grid({"workload": "digits-cnn", "precision": 8,
                    "grid": [{"preset": "stripes-4x4", "windows": [2, 4], "depth": [16, 64]},
                             {"preset": "baseline-4x4", "lanes": 8}]})
    # 2 x 2 from the first table (depth fastest), 1 from the second.
    want = [preset("stripes-4x4").replace(windows=w, depth=d) for w in (2, 4) for d in (16, 64)]
    want.append(preset("baseline-4x4").replace(lanes=8))
    assert list(g.points) == want
    assert (g.workload, g.precision, g.jobs, g.clock_ns) == ("digits-cnn", 8, ("sim",), 10.0)
    assert g.sim == {"order": "position", "depthwise": "diagonal", "sample_pairs": 1 << 23}


def test_equal_points_are_kept_once_and_arch_without_preset():
    g = parse_grid({"jobs": ["synth"], "grid": [
        {"arch": "baseline", "filters": 1, "windows": 1, "lanes": [2, 2, 4], "act_bits": 4,
         "wgt_bits": 4, "depth": 4},
        {"arch": "baseline", "filters": 1, "windows": 1, "lanes": 2, "act_bits": 4,
         "wgt_bits": 4, "depth": 4}]})
    assert [c.lanes for c in g.points] == [2, 4]
    assert g.workload is None                # synth only: no workload needed


@pytest.mark.parametrize("data, field, words", [
    ({"grid": [{"preset": "nosuch-4x4"}]}, "grid[0].preset", "must be one of"),
    ({"grid": [{"preset": "stripes-4x4", "arch": ["stripes", "warp"]}]}, "grid[0].arch",
     "must be one of"),
    ({"grid": [{"preset": "stripes-4x4", "bogus": 1}]}, "grid[0].bogus", "unknown field"),
    ({"grid": [{"preset": "stripes-4x4", "serial_bits": [1, 2]}]}, "grid[0].serial_bits",
     "applies only to arch loom"),
    ({"grid": [{"preset": "loom-4x4", "serial_bits": [1, 3]}]}, "grid[0].serial_bits",
     "must be one of 1, 2, 4 for loom, got 3 (at serial_bits = 3)"),
    ({"grid": [{"preset": "stripes-4x4", "windows": []}]}, "grid[0].windows", "empty list"),
    ({"grid": []}, "grid", "is empty"),
    ({}, "grid", "is empty"),
    ({"grid": [{"preset": "stripes-4x4"}], "worklaod": "x"}, "worklaod",
     "unknown grid setting"),
    ({"workload": "nonet", "grid": [{"preset": "stripes-4x4"}]}, "workload", "must be one of"),
    ({"precision": 12, "grid": [{"preset": "stripes-4x4"}]}, "precision", "must be 8 or 16"),
    ({"jobs": ["place"], "grid": [{"preset": "stripes-4x4"}]}, "jobs", "must be one or more"),
])
def test_refusals_name_the_field(data, field, words):
    data = {"workload": "digits-cnn", **data} if "workload" not in data else data
    with pytest.raises(ConfigError) as err:
        parse_grid(data)
    assert err.value.field == field, str(err.value)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_check_jobs():
    assert check_jobs("synth,sim") == ("sim", "synth")
    with pytest.raises(ConfigError, match="jobs"):
        check_jobs("")
