"""A tile-run stimulus for the gate-level power flow: a C++ harness that drives the synthesis
wrapper (``<top>__wrap``, :func:`termwise.synth.wrapper.asic_wrapper`) through the tile's
protocol (:mod:`termwise.rtl.tile`, as :mod:`termwise.tb.driver` does from cocotb).

The loop, after ``rst`` held high for :data:`RESET_CYCLES` cycles:

1. with ``bias`` (configurations that have it): one bias row, once;
2. ``bricks`` weight rows through ``wgt`` (one per cycle, ``valid`` high), then ``bricks``
   activation rows through ``act``; every payload bit drawn at random, i.e. uniformly
   random operands of the configuration's widths (dense: zero only by chance);
3. one command (``bricks`` and the runtime registers, packed by the manifest's
   ``command_layout``);
4. ``out.ready`` held high; the harness waits until it has seen ``windows`` output rows
   (``out.valid`` through the wrapper's output register), then two idle cycles, and starts
   over at 2 (weights reloaded every run). A run that shows no output within a bound counts
   as a timeout and the loop goes on (the JSON says how many).

``residual`` (configurations that have it) is held valid with a fresh random row every
cycle. The wrapper registers every input and output, so the harness sees each output one
cycle late and the tile sees each input one cycle late; the harness only waits on outputs,
so the lags only add idle cycles.

Inputs change at the falling edge (the start of each cycle), like
:func:`.gatesim.harness_cpp`; the model is evaluated and the SAIF dumped at every half
period. The executable takes ``cycles seed saif_path`` as arguments (one build serves any
run) and prints one JSON line of counts: cycles, runs completed, timeouts, cycles with
``busy`` seen high, rows written.
"""

from __future__ import annotations

__all__ = ["RESET_CYCLES", "command_word", "tile_run_harness_cpp"]

#: Cycles with ``rst`` high at the start.
RESET_CYCLES = 4


def command_word(layout: dict, fields: dict) -> int:
    """The command payload: each of ``layout``'s fields (name -> offset, width) from
    ``fields`` (booleans as 0/1, negative values in two's complement)."""
    word = 0
    for name, f in layout.items():
        word |= (int(fields[name]) & ((1 << f["width"]) - 1)) << f["offset"]
    return word


def _cn(name: str) -> str:
    """Verilator's C++ name of a port: ``__`` is encoded as ``___05F``."""
    return name.replace("__", "___05F")


def _words(width: int) -> int:
    return (width + 31) // 32


def _set_random(port: str, width: int) -> str:
    n = _cn(port)
    if width <= 64:
        mask = (1 << width) - 1
        return f"t->{n} = rnd() & {mask}ull;"
    parts = []
    for i in range(_words(width)):
        bits = min(32, width - 32 * i)
        parts.append(f"t->{n}[{i}] = (uint32_t)(rnd() & {(1 << bits) - 1}ull);")
    return " ".join(parts)


def _set_const(port: str, width: int, value: int) -> str:
    n = _cn(port)
    value &= (1 << width) - 1
    if width <= 64:
        return f"t->{n} = {value}ull;"
    return " ".join(f"t->{n}[{i}] = {(value >> (32 * i)) & 0xffffffff}u;"
                    for i in range(_words(width)))


def tile_run_harness_cpp(ports: list[dict], bricks: int, windows: int, command: int,
                         timeout_cycles: int, half_period: int,
                         cls: str = "Vdut") -> str:
    """C++ main driving the Verilated wrapper ``cls`` (``--prefix``) through tile runs.

    ``ports``: the manifest's port list (the wrapper has the tile's ports); ``bricks``: rows
    per operand per run; ``windows``: output rows per run; ``command``: the command
    payload; ``timeout_cycles``: cycles a run may take from its command to its last output
    row before it counts as a timeout; ``half_period`` in the SAIF's timescale (1 ps)."""
    names = {p["name"]: p for p in ports}
    for need in ("clk", "rst", "wgt__payload", "wgt__valid", "act__payload", "act__valid",
                 "cmd__payload", "cmd__valid", "out__valid", "out__ready"):
        if need not in names:
            raise ValueError(f"the tile has no port {need}: not a termwise tile")
    w = {n: p["width"] for n, p in names.items()}
    has_bias = "bias__payload" in names
    has_res = "residual__payload" in names
    has_busy = "busy" in names
    init = [_set_const(n, p["width"], 0) for n, p in names.items()
            if p["dir"] == "in" and n != "clk"]
    bias_first = "BIAS" if has_bias else "LOAD_W"
    return f"""// written by termwise.synth.power.stimulus: tile runs through the IO wrapper
#include "{cls}.h"
#include "verilated.h"
#include "verilated_saif_c.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
static uint64_t state = 1;
static uint64_t rnd() {{ state ^= state << 13; state ^= state >> 7; state ^= state << 17;
  return state; }}
enum Phase {{ RESET, BIAS, LOAD_W, LOAD_A, CMD, WAIT, GAP }};
int main(int argc, char** argv) {{
  if (argc < 4) {{ fprintf(stderr, "usage: %s cycles seed saif\\n", argv[0]); return 2; }}
  long cycles = atol(argv[1]);
  state = (uint64_t)atoll(argv[2]) * 0x9E3779B97F4A7C15ull + 1;
  for (int i = 0; i < 8; i++) rnd();
  Verilated::commandArgs(1, argv);
  Verilated::traceEverOn(true);
  {cls}* t = new {cls};
  VerilatedSaifC* tfp = new VerilatedSaifC;
  t->trace(tfp, 999);
  tfp->open(argv[3]);
  uint64_t time = 0;
  {chr(10).join("  " + s for s in init).strip()}
  Phase ph = RESET;
  long k = 0, runs = 0, timeouts = 0, busy_cycles = 0, wrows = 0, arows = 0, outs = 0;
  long wait = 0;
  for (long c = 0; c < cycles; c++) {{
    // inputs for this cycle (changed at the falling edge)
    t->{_cn("rst")} = ph == RESET;
    t->{_cn("out__ready")} = ph != RESET;
    t->{_cn("wgt__valid")} = 0; t->{_cn("act__valid")} = 0; t->{_cn("cmd__valid")} = 0;
    {"t->" + _cn("bias__valid") + " = 0;" if has_bias else ""}
    {("t->" + _cn("residual__valid") + " = ph != RESET; "
      + _set_random("residual__payload", w.get("residual__payload", 1))) if has_res else ""}
    switch (ph) {{
      case BIAS: {_set_random("bias__payload", w.get("bias__payload", 1)) if has_bias else ""}
        {"t->" + _cn("bias__valid") + " = 1;" if has_bias else ""} break;
      case LOAD_W: {_set_random("wgt__payload", w["wgt__payload"])}
        t->{_cn("wgt__valid")} = 1; wrows++; break;
      case LOAD_A: {_set_random("act__payload", w["act__payload"])}
        t->{_cn("act__valid")} = 1; arows++; break;
      case CMD: {_set_const("cmd__payload", w["cmd__payload"], command)}
        t->{_cn("cmd__valid")} = 1; break;
      default: break;
    }}
    t->{_cn("clk")} = 0;
    t->eval(); tfp->dump(time); time += {half_period};
    t->{_cn("clk")} = 1;
    t->eval(); tfp->dump(time); time += {half_period};
    // outputs after the rising edge (the wrapper's registers): next cycle's phase
    {"if (t->busy) busy_cycles++;" if has_busy else ""}
    switch (ph) {{
      case RESET: if (++k >= {RESET_CYCLES}) {{ ph = {bias_first}; k = 0; }} break;
      case BIAS: ph = LOAD_W; k = 0; break;
      case LOAD_W: if (++k >= {bricks}) {{ ph = LOAD_A; k = 0; }} break;
      case LOAD_A: if (++k >= {bricks}) {{ ph = CMD; k = 0; }} break;
      case CMD: ph = WAIT; wait = 0; outs = 0; break;
      case WAIT:
        if (t->{_cn("out__valid")}) outs++;
        if (outs >= {windows}) {{ runs++; ph = GAP; k = 0; }}
        else if (++wait > {timeout_cycles}) {{ timeouts++; ph = GAP; k = 0; }}
        break;
      case GAP: if (++k >= 2) {{ ph = LOAD_W; k = 0; }} break;
    }}
  }}
  tfp->dump(time);  // the last half period: DURATION = cycles * period
  tfp->close();
  t->final();
  printf("{{\\"cycles\\": %ld, \\"runs_completed\\": %ld, \\"timeouts\\": %ld, "
         "\\"busy_cycles\\": %ld, \\"wgt_rows\\": %ld, \\"act_rows\\": %ld}}\\n",
         cycles, runs, timeouts, busy_cycles, wrows, arows);
  delete t;
  return 0;
}}
"""
