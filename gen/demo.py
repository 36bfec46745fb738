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

from .config import TileConfig

__all__ = ["run_demo"]


def _line(label: str, text: str) -> None:
    print(f"  {label:<11s}{text}")


def run_demo(cfg: TileConfig, outdir: str, *, synth: bool = True) -> int:
    from ..tb.runner import run_regression
    t_start = time.perf_counter()
    os.makedirs(outdir, exist_ok=True)
    summary: dict = {"config": cfg.to_dict(), "preset": cfg.name}

    result = run_regression(cfg, ("random", "corners", "conv"))
    gen, b = result.build.generated, result.build
    man = gen.manifest
    print(f"termwise demo: {cfg.name or cfg.top_name} ({cfg.arch})")
    _line("generated", f"{gen.verilog} ({man['verilog']['bytes']} bytes, sha256 "
          f"{man['verilog']['sha256'][:12]}); {cfg.pes} PEs of {cfg.lanes} lanes, "
          f"{cfg.act_bits}b {'signed' if cfg.act_signed else 'unsigned'} activations x "
          f"{cfg.wgt_bits}b weights, {cfg.acc_bits}b accumulators")
    _line("verilator", f"model in {b.directory} "
          f"({'cached' if b.seconds == 0 else f'built in {b.seconds:.1f} s'})")

    runs = result.runs
    matched = sum(r["outputs_match"] for r in runs)
    exact = sum(r["cycles"] == r["model_cycles"] for r in runs)
    _line("regression", f"{'PASSED' if result.passed else 'FAILED'}: {matched}/{len(runs)} "
          f"cases with outputs equal to the golden model, {exact}/{len(runs)} with cycles "
          f"equal to the cycle model (seed {result.seed}, {result.seconds:.1f} s)")
    for r in runs:
        if r["suite"] == "conv":
            macs_per_cycle = r["macs"] / r["cycles"]
            bits = (r["runtime"] or {}).get("precision") or cfg.act_bits
            _line("conv layer", f"{r['case']}: {r['runs']} tile runs, {r['cycles']} cycles "
                  f"measured = {r['model_cycles']} modelled; {macs_per_cycle:.1f} MAC/cycle "
                  f"(peak {cfg.peak_macs_per_cycle(bits):.1f} at {bits} bits)")
    for failure in result.failures:
        _line("failure", failure.splitlines()[0][:300])
    summary["regression"] = {"passed": result.passed, "seed": result.seed, "runs": runs}

    if synth:
        from ..synth.api import synthesise
        t0 = time.perf_counter()
        rep = synthesise(cfg, os.path.join(outdir, "synth"), target="asic")
        a = rep["asic"]
        _line("synthesis", f"OSU 0.18um: {a['area_um2'] / 1e6:.3f} mm2 "
              f"({a['flops']} flops), Fmax {a['fmax_mhz']:.1f} MHz, critical path "
              f"{a['critical_path'].get('delay_ns', 0):.2f} ns "
              f"({time.perf_counter() - t0:.0f} s; report {outdir}/synth/synth_report.md)")
        summary["synth"] = {"asic": {k: a[k] for k in ("area_um2", "flops", "fmax_mhz")}}

    with open(os.path.join(outdir, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
    _line("total", f"{time.perf_counter() - t_start:.0f} s; summary in {outdir}/summary.json")
    return 0 if result.passed else 1
