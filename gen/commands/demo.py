"""``termwise demo``: the main job on one configuration, end to end.

1. generate the Verilog and manifest;
2. build it with Verilator and run the cocotb regression (random operands, corners, one
   real convolution layer lowered onto the tile), outputs checked exactly against the golden
   models and every run's cycles against the golden cycle model;
3. synthesise it (ASIC: Yosys + OSU 0.18um + OpenSTA);
4. print a short summary and write it to ``DIR/summary.json``.
"""

from __future__ import annotations

import json
import os
import time

from ..config import TileConfig
from .args import add_config_arguments, config_from_args
from ...tb.summary import line, print_regression

__all__ = ["run_demo", "register"]

#: Position in ``termwise --help``.
ORDER = 30


def run_demo(cfg: TileConfig, outdir: str, *, synth: bool = True) -> int:
    from ...tb.runner import run_regression
    from ...tb.testbenches import testbench_for
    t_start = time.perf_counter()
    os.makedirs(outdir, exist_ok=True)
    summary: dict = {"config": cfg.to_dict(), "preset": cfg.name}

    bench = testbench_for(cfg)
    result = run_regression(cfg, bench.default, test_module=bench.module)
    print(f"termwise demo: {cfg.name or cfg.top_name} ({cfg.arch})")
    summary["regression"] = print_regression(cfg, result)

    if synth:
        from ...synth.api import synthesise
        t0 = time.perf_counter()
        rep = synthesise(cfg, os.path.join(outdir, "synth"), target="asic")
        a = rep["asic"]
        line("synthesis", f"OSU 0.18um: {a['area_um2'] / 1e6:.3f} mm2 "
             f"({a['flops']} flops), Fmax {a['fmax_mhz']:.1f} MHz, critical path "
             f"{a['critical_path'].get('delay_ns', 0):.2f} ns "
             f"({time.perf_counter() - t0:.0f} s; report {outdir}/synth/synth_report.md)")
        summary["synth"] = {"asic": {k: a[k] for k in ("area_um2", "flops", "fmax_mhz")}}

    with open(os.path.join(outdir, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
    line("total", f"{time.perf_counter() - t_start:.0f} s; summary in {outdir}/summary.json")
    return 0 if result.passed else 1


def register(subparsers) -> None:
    p = subparsers.add_parser("demo", help="generate, run the cocotb regression, synthesise, "
                              "summarise")
    add_config_arguments(p)
    p.add_argument("-o", "--output", default="build/demo", metavar="DIR")
    p.add_argument("--no-synth", action="store_true", help="skip synthesis")
    p.set_defaults(func=lambda args: run_demo(config_from_args(args), args.output,
                                              synth=not args.no_synth))
