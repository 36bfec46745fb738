"""The regression flows: ``termwise verify`` (a configuration's cocotb regression, every
output and every run's cycles against the golden models) and ``termwise demo`` (the main
job: the regression, then the synthesis), each printing the same summary lines
(:mod:`termwise.tb.summary`) and writing its record."""

from __future__ import annotations

import json
import os
import shlex
import time

from ..config import TileConfig, to_toml
from ..emit import write_atomically
from ..errors import ConfigError

__all__ = ["run_verify", "run_demo"]


def run_verify(cfg, outdir: str | None, *, suites=None, seed: int = 1,
               waves: bool = False) -> int:
    """Run ``cfg``'s cocotb regression (``suites``, default the design's), print its summary
    lines and write ``outdir``/config.toml and verify.json (the record); 0 when every output
    and every run's cycles matched the golden models, else 1."""
    from ...tb.runner import run_regression
    from ...tb.summary import print_regression
    from ...tb.testbenches import testbench_for

    bench = testbench_for(cfg)
    try:
        chosen = bench.check_suites(suites) if suites is not None else bench.default
    except ValueError as err:
        raise ConfigError("suites", str(err)) from None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
        raise ConfigError("seed", f"must be an integer in 0..{2**32 - 1}, got {seed!r}")
    outdir = outdir or os.path.join("build", "verify", cfg.name or cfg.top_name)

    result = run_regression(cfg, chosen, seed=seed, waves=waves, test_module=bench.module)
    os.makedirs(outdir, exist_ok=True)
    config_path = os.path.join(outdir, "config.toml")
    write_atomically(config_path, to_toml(cfg))
    print(f"termwise verify: {cfg.name or cfg.top_name} ({cfg.arch}, testbench "
          f"{bench.module.rsplit('.', 1)[1]})")
    record = print_regression(cfg, result)
    record.update(config=cfg.to_dict(), preset=cfg.name, testbench=bench.module)
    write_atomically(os.path.join(outdir, "verify.json"), json.dumps(record, indent=1))
    if not result.passed:
        rerun = ["termwise", "verify", "--config", config_path, "--suites", ",".join(chosen),
                 "--seed", str(seed), "--waves", "-o", outdir]
        print(f"  rerun      {shlex.join(rerun)}")
    print(f"  wrote      {config_path} and {os.path.join(outdir, 'verify.json')}")
    return 0 if result.passed else 1


def run_demo(cfg: TileConfig, outdir: str, *, synth: bool = True) -> int:
    """The main job on ``cfg``: its regression (the design's default suites) and, with
    ``synth``, its ASIC synthesis; prints the summary lines and writes ``outdir``/
    summary.json; 0 when the regression passed, else 1."""
    from ...synth.api import synthesise
    from ...tb.runner import run_regression
    from ...tb.summary import line, print_regression
    from ...tb.testbenches import testbench_for
    t_start = time.perf_counter()
    os.makedirs(outdir, exist_ok=True)
    summary: dict = {"config": cfg.to_dict(), "preset": cfg.name}

    bench = testbench_for(cfg)
    result = run_regression(cfg, bench.default, test_module=bench.module)
    print(f"termwise demo: {cfg.name or cfg.top_name} ({cfg.arch})")
    summary["regression"] = print_regression(cfg, result)

    if synth:
        t0 = time.perf_counter()
        rep = synthesise(cfg, os.path.join(outdir, "synth"), target="asic")
        a = rep["asic"]
        line("synthesis", f"OSU 0.18um: {a['area_um2'] / 1e6:.3f} mm2 "
             f"({a['flops']} flops), Fmax {a['fmax_mhz']:.1f} MHz, critical path "
             f"{a['critical_path'].get('delay_ns', 0):.2f} ns "
             f"({time.perf_counter() - t0:.0f} s; report {outdir}/synth/synth_report.md)")
        summary["synth"] = {"asic": {k: a[k] for k in ("area_um2", "flops", "fmax_mhz")}}

    write_atomically(os.path.join(outdir, "summary.json"), json.dumps(summary, indent=2))
    line("total", f"{time.perf_counter() - t_start:.0f} s; summary in {outdir}/summary.json")
    return 0 if result.passed else 1
