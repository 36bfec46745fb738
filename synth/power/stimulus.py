"""A tile-run stimulus for the gate-level power flow: a C++ harness that drives the synthesis
wrapper (``<top>__wrap``, :func:`termwise.synth.wrapper.asic_wrapper`) through the tile's
protocol (:mod:`termwise.rtl.tile`, as :mod:`termwise.tb.driver` does from cocotb).

One executable serves two kinds of operands, chosen at run time:

*random* (``sim cycles seed saif``): the loop, after ``rst`` held high for
:data:`RESET_CYCLES` cycles:

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
cycle.

*workload* (``sim cycles seed saif stimulus``): the same phases, but each run's weight
rows, activation rows and command word come from the stimulus file (:func:`write_stimulus`;
the real layers' runs of :mod:`.workload`), the runs in the file's order, weights loaded for
every run; no bias row is loaded (the tile's bias register keeps its reset value 0) and the
residual rows are zero, as the ``real`` regression drives them. A run's weight and
activation row counts are its own and need not be equal (Bit-Tactical's host sends two
weight rows per kept step, weights then selects and step index, and the dense activation
rows; a run whose schedule kept no step has no weight row: phase 2's weight rows are
skipped). The simulation ends after the file's last run, or at ``cycles``.

The wrapper registers every input and output, so the harness sees each output one
cycle late and the tile sees each input one cycle late; the harness only waits on outputs,
so the lags only add idle cycles.

Inputs change at the falling edge (the start of each cycle); the model is evaluated and
the SAIF dumped at every half period (``tfp->dump`` after every ``eval``: without it the
SAIF stays empty). One build serves any run. It prints one JSON line of counts: cycles
simulated, runs completed, timeouts, cycles with ``busy`` seen high, rows written, and
(workload) the runs in the file and one outcome letter per run it reached (``c``
completed, ``t`` timed out).

*idle* (``sim cycles seed saif - idle``): reset, then every input held still (no ``valid``,
``out.ready`` high) for the rest of the cycles: the energy of a cycle in which the clock
runs and nothing happens (:mod:`.phases`).

Besides the cycles with ``busy`` high, the harness counts the *load cycles*: cycles of the
weight and activation phases with ``busy`` low (a row written, nothing computed).
:mod:`.phases` splits the energy by these counts; a stimulus whose commands ask for no
brick (:func:`without_bricks`) loads the same rows and computes nothing.

The stimulus file (:func:`write_stimulus`, :func:`read_stimulus`), version 2: little-endian
32-bit words; a header ``MAGIC, VERSION, runs, wgt_words, act_words, cmd_words`` (words per
``wgt``/``act``/``cmd`` payload, checked by the harness against its ports), then per run
``wgt_count, act_count`` (rows; ``act_count`` at least 1), the command word
(``cmd_words``), ``wgt_count`` weight rows (``wgt_words`` each), ``act_count`` activation
rows (``act_words`` each); a payload's word 0 holds its least significant bits. (Version 1
had one ``bricks`` count for both.)
"""

from __future__ import annotations

__all__ = ["RESET_CYCLES", "STIMULUS_MAGIC", "STIMULUS_VERSION", "command_word",
           "without_bricks",
           "tile_run_harness_cpp", "write_stimulus", "read_stimulus"]

#: Cycles with ``rst`` high at the start.
RESET_CYCLES = 4
#: First word of a stimulus file ("TWPS" little-endian) and its format version.
STIMULUS_MAGIC = 0x53505754
STIMULUS_VERSION = 2


def command_word(layout: dict, fields: dict) -> int:
    """The command payload: each of ``layout``'s fields (name -> offset, width) from
    ``fields`` (booleans as 0/1, negative values in two's complement)."""
    word = 0
    for name, f in layout.items():
        word |= (int(fields[name]) & ((1 << f["width"]) - 1)) << f["offset"]
    return word


def without_bricks(layout: dict, word: int) -> int:
    """The command ``word`` with its ``bricks`` field 0: an empty run (one cycle and the
    pipeline registers, :func:`termwise.golden.cycles.run_cycles`; proven with every array's
    formal harness), its other registers as they were."""
    f = layout["bricks"]
    return int(word) & ~(((1 << f["width"]) - 1) << f["offset"])


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


def _set_words(port: str, width: int, ptr: str) -> str:
    """C++ setting ``port`` from the 32-bit words at ``ptr`` (word 0 least significant)."""
    n = _cn(port)
    top = width - 32 * (_words(width) - 1)
    top_mask = (1 << top) - 1
    if width <= 32:
        return f"t->{n} = {ptr}[0] & {top_mask}u;"
    if width <= 64:
        return (f"t->{n} = ((uint64_t){ptr}[1] << 32 | {ptr}[0]) & "
                f"{(1 << width) - 1}ull;")
    words = [f"t->{n}[{i}] = {ptr}[{i}];" for i in range(_words(width) - 1)]
    words.append(f"t->{n}[{_words(width) - 1}] = {ptr}[{_words(width) - 1}] & {top_mask}u;")
    return " ".join(words)


def tile_run_harness_cpp(ports: list[dict], bricks: int, windows: int, command: int,
                         timeout_cycles: int, half_period: int,
                         cls: str = "Vdut") -> str:
    """C++ main driving the Verilated wrapper ``cls`` (``--prefix``) through tile runs, of
    random operands or (a fourth argument) of the runs of a stimulus file.

    ``ports``: the manifest's port list (the wrapper has the tile's ports); ``bricks``: rows
    per operand per random run; ``windows``: output rows per run; ``command``: the random
    runs' command payload; ``timeout_cycles``: cycles a run may take from its command to its
    last output row before it counts as a timeout; ``half_period`` in the SAIF's timescale
    (1 ps)."""
    names = {p["name"]: p for p in ports}
    for need in ("clk", "rst", "wgt__payload", "wgt__valid", "act__payload", "act__valid",
                 "cmd__payload", "cmd__valid", "out__valid", "out__ready"):
        if need not in names:
            raise ValueError(f"the tile has no port {need}: not a termwise tile")
    w = {n: p["width"] for n, p in names.items()}
    ww, aw, cw = (_words(w[n]) for n in ("wgt__payload", "act__payload", "cmd__payload"))
    has_bias = "bias__payload" in names
    has_res = "residual__payload" in names
    has_busy = "busy" in names
    init = [_set_const(n, p["width"], 0) for n, p in names.items()
            if p["dir"] == "in" and n != "clk"]
    bias_first = "BIAS" if has_bias else "LOAD_W"
    return (_harness_prelude(cls, ww, aw, cw)
            + _harness_setup(cls, init, bricks)
            + _harness_inputs(w, has_bias, has_res, command)
            + _harness_clock(half_period)
            + _harness_next_phase(has_busy, bias_first, windows, timeout_cycles)
            + _HARNESS_END)


def _harness_prelude(cls: str, ww: int, aw: int, cw: int) -> str:
    """The harness's includes, random generator, phases and stimulus-file reader."""
    return f"""// written by termwise.synth.power.stimulus: tile runs through the IO wrapper
#include "{cls}.h"
#include "verilated.h"
#include "verilated_saif_c.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
static uint64_t state = 1;
static uint64_t rnd() {{ state ^= state << 13; state ^= state >> 7; state ^= state << 17;
  return state; }}
enum Phase {{ RESET, BIAS, LOAD_W, LOAD_A, CMD, WAIT, GAP, IDLE }};
// the stimulus file (termwise.synth.power.stimulus.write_stimulus)
static const long WW = {ww}, AW = {aw}, CW = {cw};
static std::vector<uint32_t> stim;
static std::vector<size_t> run_at;   // word offset of each run's header
static const char* load_stimulus(const char* path) {{
  FILE* f = fopen(path, "rb");
  if (!f) return "cannot open the stimulus file";
  uint32_t buf[4096]; size_t n;
  while ((n = fread(buf, 4, 4096, f)) > 0) stim.insert(stim.end(), buf, buf + n);
  fclose(f);
  if (stim.size() < 6 || stim[0] != {STIMULUS_MAGIC}u || stim[1] != {STIMULUS_VERSION}u)
    return "not a stimulus file of this version";
  if (stim[3] != WW || stim[4] != AW || stim[5] != CW)
    return "the stimulus rows do not match this tile's port widths";
  size_t at = 6;
  for (uint32_t r = 0; r < stim[2]; r++) {{
    if (at + 1 >= stim.size() || stim[at + 1] == 0) return "truncated stimulus file";
    run_at.push_back(at);
    at += 2 + CW + (size_t)stim[at] * WW + (size_t)stim[at + 1] * AW;
  }}
  if (at != stim.size()) return "the stimulus file's size does not match its runs";
  return 0;
}}
"""


def _harness_setup(cls: str, init: list[str], bricks: int) -> str:
    """``main`` up to the cycle loop: arguments, the model, SAIF, inputs at 0, counters."""
    return f"""int main(int argc, char** argv) {{
  if (argc < 4) {{ fprintf(stderr, "usage: %s cycles seed saif [stimulus|-] [idle]\\n",
                          argv[0]);
    return 2; }}
  long cycles = atol(argv[1]);
  state = (uint64_t)atoll(argv[2]) * 0x9E3779B97F4A7C15ull + 1;
  for (int i = 0; i < 8; i++) rnd();
  const bool wl = argc > 4 && strcmp(argv[4], "-");   // runs from the stimulus file
  const bool idle = argc > 5 && !strcmp(argv[5], "idle");   // no run: the clock only
  if (wl) {{
    const char* err = load_stimulus(argv[4]);
    if (err) {{ fprintf(stderr, "%s: %s\\n", argv[4], err); return 3; }}
    if (run_at.empty()) {{ fprintf(stderr, "%s: no runs\\n", argv[4]); return 3; }}
  }}
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
  long load_cycles = 0;       // cycles of a row load with busy low
  long wait = 0, nb = {bricks}, na = {bricks}, c = 0;   // weight, activation rows per run
  size_t ri = 0;              // the stimulus run in progress
  const uint32_t* run = 0;    // its header in the stimulus
  std::string outcomes;
  bool done = false;
  if (wl) {{ run = &stim[run_at[0]]; nb = run[0]; na = run[1]; }}
"""


def _harness_inputs(w: dict[str, int], has_bias: bool, has_res: bool, command: int) -> str:
    """The cycle loop's head: the inputs of the cycle's phase, set at the falling edge."""
    res_w = w.get("residual__payload", 1)
    return f"""  for (c = 0; c < cycles && !done; c++) {{
    // inputs for this cycle (changed at the falling edge)
    t->{_cn("rst")} = ph == RESET;
    t->{_cn("out__ready")} = ph != RESET;
    t->{_cn("wgt__valid")} = 0; t->{_cn("act__valid")} = 0; t->{_cn("cmd__valid")} = 0;
    {"t->" + _cn("bias__valid") + " = 0;" if has_bias else ""}
    {("t->" + _cn("residual__valid") + " = ph != RESET && ph != IDLE; "
      + "if (!wl && ph != IDLE) { " + _set_random("residual__payload", res_w) + " }")
     if has_res else ""}
    switch (ph) {{
      case BIAS: {_set_random("bias__payload", w.get("bias__payload", 1)) if has_bias else ""}
        {"t->" + _cn("bias__valid") + " = 1;" if has_bias else ""} break;
      case LOAD_W:
        if (wl) {{ const uint32_t* p = run + 2 + CW + k * WW;
          {_set_words("wgt__payload", w["wgt__payload"], "p")} }}
        else {{ {_set_random("wgt__payload", w["wgt__payload"])} }}
        t->{_cn("wgt__valid")} = 1; wrows++; break;
      case LOAD_A:
        if (wl) {{ const uint32_t* p = run + 2 + CW + nb * WW + k * AW;
          {_set_words("act__payload", w["act__payload"], "p")} }}
        else {{ {_set_random("act__payload", w["act__payload"])} }}
        t->{_cn("act__valid")} = 1; arows++; break;
      case CMD:
        if (wl) {{ const uint32_t* p = run + 2;
          {_set_words("cmd__payload", w["cmd__payload"], "p")} }}
        else {{ {_set_const("cmd__payload", w["cmd__payload"], command)} }}
        t->{_cn("cmd__valid")} = 1; break;
      default: break;
    }}
"""


def _harness_clock(half_period: int) -> str:
    """One clock period: evaluated and dumped to the SAIF at each half."""
    return f"""    t->{_cn("clk")} = 0;
    t->eval(); tfp->dump(time); time += {half_period};
    t->{_cn("clk")} = 1;
    t->eval(); tfp->dump(time); time += {half_period};
"""


def _harness_next_phase(has_busy: bool, bias_first: str, windows: int,
                        timeout_cycles: int) -> str:
    """The cycle loop's tail: the next phase from the outputs after the rising edge."""
    return f"""    // outputs after the rising edge (the wrapper's registers): next cycle's phase
    {"const bool busy = t->busy; if (busy) busy_cycles++;" if has_busy else
     "const bool busy = false;"}
    if (!busy && (ph == LOAD_W || ph == LOAD_A)) load_cycles++;
    switch (ph) {{
      case RESET: if (++k >= {RESET_CYCLES}) {{
          ph = idle ? IDLE : wl ? (nb ? LOAD_W : LOAD_A) : {bias_first}; k = 0; }}
        break;
      case BIAS: ph = LOAD_W; k = 0; break;
      case LOAD_W: if (++k >= nb) {{ ph = LOAD_A; k = 0; }} break;
      case LOAD_A: if (++k >= na) {{ ph = CMD; k = 0; }} break;
      case CMD: ph = WAIT; wait = 0; outs = 0; break;
      case WAIT:
        if (t->{_cn("out__valid")}) outs++;
        if (outs >= {windows}) {{ runs++; ph = GAP; k = 0; if (wl) outcomes += 'c'; }}
        else if (++wait > {timeout_cycles}) {{ timeouts++; ph = GAP; k = 0;
          if (wl) outcomes += 't'; }}
        break;
      case GAP:
        if (++k >= 2) {{
          ph = LOAD_W; k = 0;
          if (wl) {{
            if (++ri >= run_at.size()) done = true;
            else {{ run = &stim[run_at[ri]]; nb = run[0]; na = run[1]; if (!nb) ph = LOAD_A; }}
          }}
        }}
        break;
    }}
  }}
"""


#: ``main`` after the cycle loop: the SAIF closed, the counts printed as one JSON line.
_HARNESS_END = """  tfp->dump(time);  // the last half period: DURATION = cycles * period
  tfp->close();
  t->final();
  printf("{\\"cycles\\": %ld, \\"runs_completed\\": %ld, \\"timeouts\\": %ld, "
         "\\"busy_cycles\\": %ld, \\"load_cycles\\": %ld, \\"wgt_rows\\": %ld, "
         "\\"act_rows\\": %ld", c, runs, timeouts, busy_cycles, load_cycles, wrows, arows);
  if (wl) printf(", \\"stimulus_runs\\": %ld, \\"outcomes\\": \\"%s\\"", (long)run_at.size(),
                 outcomes.c_str());
  printf("}\\n");
  delete t;
  return 0;
}
"""



def _to_words(value: int, width: int, words: int) -> list[int]:
    if not 0 <= value < 1 << width:
        raise ValueError(f"a {width}-bit row holds 0 .. 2**{width} - 1, got {value}")
    return [(value >> (32 * i)) & 0xffffffff for i in range(words)]


def write_stimulus(path: str, ports: list[dict], runs) -> int:
    """Write the stimulus file of ``runs`` for a tile with the manifest's ``ports``.

    Parameters
    ----------
    path : str
        The file to write.
    ports : list of dict
        The manifest's port list (the payload widths).
    runs : iterable of tuple
        Each run's ``(command, wgt_rows, act_rows)`` payload integers
        (:func:`command_word`; the rows as the design's driver sends them,
        :func:`termwise.synth.power.workload.run_rows`): any number of weight rows, at
        least one activation row.

    Returns
    -------
    int
        The number of runs written.
    """
    import numpy as np
    names = {p["name"]: p["width"] for p in ports}
    wb, ab, cb = (names[n] for n in ("wgt__payload", "act__payload", "cmd__payload"))
    ww, aw, cw = _words(wb), _words(ab), _words(cb)
    out = []
    count = 0
    for command, wrows, arows in runs:
        wrows, arows = list(wrows), list(arows)
        if not arows:
            raise ValueError(f"run {count}: no activation row (a run needs at least one)")
        out += [len(wrows), len(arows)]
        out += _to_words(int(command), cb, cw)
        for row in wrows:
            out += _to_words(int(row), wb, ww)
        for row in arows:
            out += _to_words(int(row), ab, aw)
        count += 1
    header = [STIMULUS_MAGIC, STIMULUS_VERSION, count, ww, aw, cw]
    np.asarray(header + out, dtype="<u4").tofile(path)
    return count


def read_stimulus(path: str) -> dict:
    """A stimulus file as :func:`write_stimulus` wrote it: ``wgt_words``, ``act_words``,
    ``cmd_words`` and ``runs`` (each ``command``, ``wgt_rows``, ``act_rows``, payloads as
    integers)."""
    import numpy as np
    w = np.fromfile(path, dtype="<u4").tolist()
    if len(w) < 6 or w[0] != STIMULUS_MAGIC or w[1] != STIMULUS_VERSION:
        raise ValueError(f"{path}: not a stimulus file of version {STIMULUS_VERSION}")
    ww, aw, cw = w[3:6]

    def value(words):
        return sum(x << (32 * i) for i, x in enumerate(words))

    runs, at = [], 6
    for _ in range(w[2]):
        if at + 1 >= len(w):
            raise ValueError(f"{path}: truncated")
        nw, na = w[at], w[at + 1]
        cmd_at = at + 2
        w_at = cmd_at + cw
        a_at = w_at + nw * ww
        runs.append({"command": value(w[cmd_at:w_at]),
                     "wgt_rows": [value(w[w_at + i * ww:w_at + (i + 1) * ww])
                                  for i in range(nw)],
                     "act_rows": [value(w[a_at + i * aw:a_at + (i + 1) * aw])
                                  for i in range(na)]})
        at = a_at + na * aw
    if at != len(w):
        raise ValueError(f"{path}: {len(w) - at} words after the last run")
    return {"wgt_words": ww, "act_words": aw, "cmd_words": cw, "runs": runs}
