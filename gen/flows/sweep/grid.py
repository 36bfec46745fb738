"""A sweep's grid: a TOML file of tile configurations to evaluate, validated up front.

::

    workload = "digits-cnn"      # the layers the cycle model runs (jobs with "sim")
    precision = 8                # the workload's fixed-point bits: 8 or 16 (default 16)
    jobs = ["sim"]               # "sim" and/or "synth" (default ["sim"]; --jobs wins)
    clock_ns = 10.0              # synthesis clock (default 10)
    brick_order = "position"     # sim: termwise.golden.lowering.ORDERS (default position)
    depthwise = "diagonal"       # sim: DEPTHWISE_MAPPINGS (default diagonal)
    sample_pairs = 8388608       # sim: PE-lane evaluations per layer bound (default as sim)

    [[grid]]                     # one or more sub-grids; their points are joined
    preset = "stripes-4x4"       # the base (optional: else give arch and the fields)
    windows = [4, 8, 16]         # a list is an axis ...
    depth = [16, 64]
    lanes = 4                    # ... a value is fixed

A point is the base preset's table with one value of every axis (the cartesian product, in
the order the axes are written, the last varying fastest), built with
:func:`termwise.gen.config.from_mapping`, so every field and option is checked exactly as
``termwise gen --config`` checks it. Equal points are kept once. An unknown key, design,
option or value, an empty axis or a grid without points is a :class:`ConfigError` naming
``grid[i].field`` before anything runs.
"""

from __future__ import annotations

import itertools
import math
import tomllib
from dataclasses import dataclass

from ... import designs
from ...config import CORE_FIELDS, TileConfig, from_mapping, load_presets
from ...spec import ConfigError

__all__ = ["Grid", "JOBS", "load_grid", "read_grid_table", "parse_grid", "check_jobs"]

#: What a point can be put through: the cycle model on the workload, synthesis.
JOBS = ("sim", "synth")
#: Top-level keys of a grid file, with their defaults.
SETTINGS = {"workload": None, "precision": 16, "jobs": ["sim"], "clock_ns": 10.0,
            "brick_order": None, "depthwise": None, "sample_pairs": 1 << 23}


@dataclass(frozen=True)
class Grid:
    """A validated grid.

    Attributes
    ----------
    points : tuple of TileConfig
        Every configuration, in grid order, each once.
    workload : str or None
        The workload of the ``sim`` jobs.
    precision : int
        The workload's bits (8 or 16).
    jobs : tuple of str
        Subset of :data:`JOBS`.
    clock_ns : float
        The synthesis clock.
    sim : dict
        The cycle model's options: ``order``, ``depthwise``, ``sample_pairs``.
    """

    points: tuple
    workload: str | None
    precision: int
    jobs: tuple
    clock_ns: float
    sim: dict


def check_jobs(jobs) -> tuple:
    """``jobs`` (a list, or text ``sim,synth``) validated, in :data:`JOBS` order."""
    if isinstance(jobs, str):
        jobs = [j.strip() for j in jobs.split(",") if j.strip()]
    if not isinstance(jobs, (list, tuple)) or not jobs or any(j not in JOBS for j in jobs):
        raise ConfigError("jobs", f"must be one or more of {', '.join(JOBS)}, got {jobs!r}")
    return tuple(j for j in JOBS if j in jobs)


def load_grid(path: str, *, jobs=None) -> Grid:
    """Read and validate the grid file at ``path`` (``jobs`` overrides the file's)."""
    return parse_grid(read_grid_table(path), jobs=jobs)


def read_grid_table(path: str) -> dict:
    """The TOML table of the grid file at ``path``, not yet validated (a missing file or
    invalid TOML is a :class:`ConfigError` naming ``grid``)."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as err:
        raise ConfigError("grid", f"cannot read {path}: {err.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ConfigError("grid", f"{path} is not valid TOML ({err})") from None
    return data


def _entry_fields() -> set:
    return set(CORE_FIELDS) | set(designs.options()) | {"preset"}


def _points(i: int, entry) -> list[TileConfig]:
    where = f"grid[{i}]"
    if not isinstance(entry, dict):
        raise ConfigError(where, "must be a table of fields")
    known = _entry_fields()
    for key in entry:
        if key not in known:
            raise ConfigError(f"{where}.{key}", f"unknown field (valid: "
                                                f"{', '.join(sorted(known))})")
    base = {}
    if "preset" in entry:
        presets = load_presets()
        name = entry["preset"]
        if not isinstance(name, str) or name not in presets:
            raise ConfigError(f"{where}.preset", f"must be one of {', '.join(presets)}, got "
                                                 f"{name!r}")
        base = {k: v for k, v in presets[name].items() if k != "description"}
    axes = {k: v for k, v in entry.items() if k != "preset" and isinstance(v, list)}
    fixed = {k: v for k, v in entry.items() if k != "preset" and not isinstance(v, list)}
    for key, values in axes.items():
        if not values:
            raise ConfigError(f"{where}.{key}", "is an empty list: give one or more values")
    points = []
    for combo in itertools.product(*axes.values()):
        fields = {**base, **fixed, **dict(zip(axes, combo))}
        try:
            points.append(from_mapping(fields))
        except ConfigError as err:
            text = str(err)[len(err.field) + 2:]
            shown = ", ".join(f"{k} = {v!r}" for k, v in zip(axes, combo))
            raise ConfigError(f"{where}.{err.field}", text + (f" (at {shown})" if shown
                                                              else "")) from None
    return points


def parse_grid(data: dict, *, jobs=None) -> Grid:
    """Validate a grid's TOML table (see the module's docstring)."""
    for key in data:
        if key not in SETTINGS and key != "grid":
            raise ConfigError(key, f"unknown grid setting (valid: "
                                   f"{', '.join([*SETTINGS, 'grid'])})")
    s = {**SETTINGS, **{k: v for k, v in data.items() if k != "grid"}}
    job_list = check_jobs(s["jobs"] if jobs is None else jobs)
    precision = s["precision"]
    if isinstance(precision, bool) or precision not in (8, 16):
        raise ConfigError("precision", f"must be 8 or 16, got {precision!r}")
    clock = s["clock_ns"]
    if isinstance(clock, bool) or not isinstance(clock, (int, float)) \
            or not math.isfinite(clock) or not 0 < clock <= 1000:
        raise ConfigError("clock_ns", f"must be a clock period in ns, > 0 and <= 1000, got "
                                      f"{clock!r}")
    workload = s["workload"]
    if "sim" in job_list:
        from ....golden.workloads import check_workload
        check_workload(workload, why=" (sim jobs run on it)")
    from ....golden.lowering import (DEFAULT_DEPTHWISE, DEFAULT_ORDER, DEPTHWISE_MAPPINGS,
                                    ORDERS)
    order = DEFAULT_ORDER if s["brick_order"] is None else s["brick_order"]
    if order not in ORDERS:
        raise ConfigError("brick_order", f"must be one of {', '.join(ORDERS)}, got {order!r}")
    mapping = DEFAULT_DEPTHWISE if s["depthwise"] is None else s["depthwise"]
    if mapping not in DEPTHWISE_MAPPINGS:
        raise ConfigError("depthwise", f"must be one of {', '.join(DEPTHWISE_MAPPINGS)}, got "
                                       f"{mapping!r}")
    pairs = s["sample_pairs"]
    if isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 1:
        raise ConfigError("sample_pairs", f"must be a positive integer, got {pairs!r}")
    entries = data.get("grid")
    if isinstance(entries, dict):
        entries = [entries]
    if not entries or not isinstance(entries, list):
        raise ConfigError("grid", "is empty: give one or more [[grid]] tables of fields")
    points = {}
    for i, entry in enumerate(entries):
        for cfg in _points(i, entry):
            points.setdefault((cfg.top_name, tuple(sorted(cfg.to_dict().items()))), cfg)
    return Grid(tuple(points.values()), workload if "sim" in job_list else None, precision,
                job_list, float(clock), {"order": order, "depthwise": mapping,
                                         "sample_pairs": pairs})
