"""The summary lines of one cocotb regression (:func:`~.runner.run_regression`), shared by
``termwise demo`` and ``termwise verify`` so both report a regression the same way."""

from __future__ import annotations

__all__ = ["line", "print_regression"]


def line(label: str, text: str) -> None:
    """One summary line: a label column, then the text."""
    print(f"  {label:<11s}{text}")


def print_regression(cfg, result) -> dict:
    """Print what was generated, built and checked by ``result`` (a
    :class:`~termwise.tb.runner.RegressionResult`); return the record for a summary file."""
    gen, b = result.build.generated, result.build
    man = gen.manifest
    line("generated", f"{gen.verilog} ({man['verilog']['bytes']} bytes, sha256 "
         f"{man['verilog']['sha256'][:12]}); {cfg.pes} PEs of {cfg.lanes} lanes, "
         f"{cfg.act_bits}b activations (signed or unsigned per run) x "
         f"{cfg.wgt_bits}b weights, {cfg.acc_bits}b accumulators"
         + (f" ({cfg.dtype})" if cfg.dtype != "int" else ""))
    line("verilator", f"model in {b.directory} "
         f"({'cached' if b.seconds == 0 else f'built in {b.seconds:.1f} s'})")
    runs = result.runs
    matched = sum(bool(r.get("outputs_match")) for r in runs)
    exact = sum(r.get("cycles") == r.get("model_cycles") for r in runs)
    line("regression", f"{'PASSED' if result.passed else 'FAILED'}: {matched}/{len(runs)} "
         f"cases with outputs equal to the golden model, {exact}/{len(runs)} with cycles "
         f"equal to the cycle model (suites {','.join(result.suites)}, seed {result.seed}, "
         f"{result.seconds:.1f} s)")
    for r in runs:
        if r.get("suite") == "conv" and r.get("macs") and r.get("cycles"):
            bits = (r.get("runtime") or {}).get("precision") or cfg.act_bits
            line("conv layer", f"{r['case']}: {r['runs']} tile runs, {r['cycles']} cycles "
                 f"measured = {r['model_cycles']} modelled; {r['macs'] / r['cycles']:.1f} "
                 f"MAC/cycle (peak {cfg.peak_macs_per_cycle(bits):.1f} at {bits} bits)")
    for failure in result.failures:
        line("failure", failure.splitlines()[0][:300])
    if result.waves_file:
        line("waveform", str(result.waves_file))
    if not result.passed:
        line("log", str(result.log))
    return {"passed": result.passed, "seed": result.seed, "suites": list(result.suites),
            "tests": result.tests, "failures": result.failures, "runs": runs}
