"""The tile-run harness of :mod:`.stimulus` in Python, driving a :class:`.levelsim.LevelSim`
of the wrapper's gate-level netlist: the same phases, rows, random numbers and counts as
the C++ harness drives a Verilated model with (its text is
:func:`.stimulus.tile_run_harness_cpp`; the two are checked against each other on a 4x4
tile, net by net).

Random operands draw from the same xorshift generator, seeded the same way, in the same
order; a workload's runs come from the stimulus file (:func:`.stimulus.read_stimulus`).
An input port keeps its value until a phase sets it again, as the C++ model's do.
"""

from __future__ import annotations

import numpy as np

from ...gen.progress import Bar
from .stimulus import RESET_CYCLES

__all__ = ["TileRuns", "tile_runs", "input_keys", "WATCHED", "drive"]

_MASK64 = (1 << 64) - 1
RESET, BIAS, LOAD_W, LOAD_A, CMD, WAIT, GAP, IDLE = range(8)


class _Rnd:
    """The harness's xorshift64 generator (``rnd()``), seeded as its ``main`` does."""

    def __init__(self, seed: int):
        self.state = (seed * 0x9E3779B97F4A7C15 + 1) & _MASK64
        for _ in range(8):
            self()

    def __call__(self) -> int:
        s = self.state
        s ^= (s << 13) & _MASK64
        s ^= s >> 7
        s ^= (s << 17) & _MASK64
        self.state = s
        return s

    def value(self, width: int) -> int:
        """A random ``width``-bit payload, drawn as ``_set_random`` draws it."""
        if width <= 64:
            return self() & ((1 << width) - 1)
        out = 0
        for i in range((width + 31) // 32):
            bits = min(32, width - 32 * i)
            out |= (self() & ((1 << bits) - 1)) << (32 * i)
        return out


class TileRuns:
    """What one harness run is given: the runs' shape and where its operands come from.

    Parameters
    ----------
    bricks, windows, command, timeout_cycles : int
        As :func:`.stimulus.tile_run_harness_cpp`.
    runs : list or None
        The stimulus file's runs (:func:`.stimulus.read_stimulus`), or None: random.
    idle : bool
        Reset, then the clock alone.
    """

    def __init__(self, bricks: int, windows: int, command: int, timeout_cycles: int,
                 runs: list | None = None, idle: bool = False):
        self.bricks, self.windows, self.command = bricks, windows, command
        self.timeout, self.runs, self.idle = timeout_cycles, runs, idle


def tile_runs(cfg, man: dict, runs: list | None = None, idle: bool = False) -> TileRuns:
    """The harness's runs of ``cfg`` (manifest ``man``): ``cfg.depth`` bricks per random
    run, each given up after a timeout well past its worst case."""
    from .stimulus import command_word
    bricks = cfg.depth
    worst = cfg.worst_brick_cycles(max(cfg.act_bits + 1, cfg.wgt_bits))
    timeout = max(1000, bricks * worst + cfg.windows + 64)
    command = command_word(man["command_layout"], {"bricks": bricks, **cfg.runtime_values()})
    return TileRuns(bricks, cfg.windows, command, timeout, runs, idle)


class _Inputs:
    """The wrapper's input ports as slices of the simulation's input bits."""

    def __init__(self, ports: list[dict]):
        self.at: dict[str, tuple[int, int]] = {}
        n = 0
        for p in ports:
            if p["dir"] == "in" and p["name"] != "clk":
                self.at[p["name"]] = (n, p["width"])
                n += p["width"]
        self.bits = np.zeros(n, dtype=bool)

    def set(self, name: str, value: int) -> None:
        lo, w = self.at[name]
        raw = np.frombuffer(value.to_bytes((w + 7) // 8, "little"), dtype=np.uint8)
        self.bits[lo:lo + w] = np.unpackbits(raw, bitorder="little")[:w]

    def has(self, name: str) -> bool:
        return name in self.at


def input_keys(ports: list[dict]) -> list:
    """The net keys of the wrapper's input bits (clock excepted), in :class:`_Inputs`'
    order, for :class:`.levelsim.LevelSim`."""
    return [((), p["name"], k) for p in ports if p["dir"] == "in" and p["name"] != "clk"
            for k in range(p["width"])]


#: The outputs the harness reads (after each rising edge).
WATCHED = ("busy", "out__valid")


class _State:
    """The harness's phase machine and counters (its C++ ``main``'s locals)."""

    def __init__(self, runs: TileRuns, has_bias: bool):
        self.runs, self.has_bias = runs, has_bias
        self.ph, self.k, self.wait, self.outs = RESET, 0, 0, 0
        self.n_runs = self.timeouts = self.busy_cycles = self.load_cycles = 0
        self.wrows = self.arows = 0
        self.ri, self.done, self.outcomes = 0, False, []
        self.run = runs.runs[0] if runs.runs is not None else None
        self.nb = self.na = runs.bricks
        if self.run is not None:
            self.nb, self.na = len(self.run["wgt_rows"]), len(self.run["act_rows"])

    def next_phase(self, busy: bool, out_valid: bool) -> None:
        """The phase after this cycle, from the outputs after its rising edge."""
        r, wl = self.runs, self.run is not None
        self.busy_cycles += busy
        if not busy and self.ph in (LOAD_W, LOAD_A):
            self.load_cycles += 1
        ph = self.ph
        if ph == RESET:
            self.k += 1
            if self.k >= RESET_CYCLES:
                self.ph = IDLE if r.idle else (LOAD_W if self.nb else LOAD_A) if wl else \
                    (BIAS if self.has_bias else LOAD_W)
                self.k = 0
        elif ph == BIAS:
            self.ph, self.k = LOAD_W, 0
        elif ph in (LOAD_W, LOAD_A):
            self.k += 1
            if self.k >= (self.nb if ph == LOAD_W else self.na):
                self.ph, self.k = (LOAD_A if ph == LOAD_W else CMD), 0
        elif ph == CMD:
            self.ph, self.wait, self.outs = WAIT, 0, 0
        elif ph == WAIT:
            self.outs += out_valid
            if self.outs >= r.windows:
                self.n_runs += 1
                self.ph, self.k = GAP, 0
                self.outcomes.append("c")
            else:
                self.wait += 1
                if self.wait > r.timeout:
                    self.timeouts += 1
                    self.ph, self.k = GAP, 0
                    self.outcomes.append("t")
        elif ph == GAP:
            self.k += 1
            if self.k >= 2:
                self.ph, self.k = LOAD_W, 0
                if wl:
                    self._next_run()

    def _next_run(self) -> None:
        self.ri += 1
        if self.ri >= len(self.runs.runs):
            self.done = True
            return
        self.run = self.runs.runs[self.ri]
        self.nb, self.na = len(self.run["wgt_rows"]), len(self.run["act_rows"])
        if not self.nb:
            self.ph = LOAD_A


def _set_inputs(inp: _Inputs, st: _State, rnd: _Rnd, widths: dict) -> None:
    """This cycle's inputs, set at the falling edge, as the C++ harness sets them."""
    ph, wl, run = st.ph, st.runs.runs is not None, st.run
    inp.set("rst", int(ph == RESET))
    inp.set("out__ready", int(ph != RESET))
    for v in ("wgt__valid", "act__valid", "cmd__valid"):
        inp.set(v, 0)
    if inp.has("bias__valid"):
        inp.set("bias__valid", 0)
    if inp.has("residual__payload"):
        inp.set("residual__valid", int(ph not in (RESET, IDLE)))
        if not wl and ph != IDLE:
            inp.set("residual__payload", rnd.value(widths["residual__payload"]))
    if ph == BIAS and inp.has("bias__payload"):
        inp.set("bias__payload", rnd.value(widths["bias__payload"]))
        inp.set("bias__valid", 1)
    elif ph == LOAD_W:
        inp.set("wgt__payload", run["wgt_rows"][st.k] if wl
                else rnd.value(widths["wgt__payload"]))
        inp.set("wgt__valid", 1)
        st.wrows += 1
    elif ph == LOAD_A:
        inp.set("act__payload", run["act_rows"][st.k] if wl
                else rnd.value(widths["act__payload"]))
        inp.set("act__valid", 1)
        st.arows += 1
    elif ph == CMD:
        inp.set("cmd__payload", run["command"] if wl
                else st.runs.command & ((1 << widths["cmd__payload"]) - 1))
        inp.set("cmd__valid", 1)


def drive(sim, ports: list[dict], runs: TileRuns, cycles: int, seed: int) -> dict:
    """Run the tile-run harness on ``sim`` (a :class:`.levelsim.LevelSim` of the wrapper
    whose inputs are :func:`input_keys` and outputs the :data:`WATCHED` ports present)
    for at most ``cycles`` cycles; :meth:`~.levelsim.LevelSim.close` it; return the
    harness's counts (its JSON line's fields)."""
    names = {p["name"] for p in ports}
    widths = {p["name"]: p["width"] for p in ports}
    inp, rnd = _Inputs(ports), _Rnd(seed)
    out_at = {n: i for i, n in enumerate(w for w in WATCHED if w in names)}
    st = _State(runs, "bias__payload" in names)
    c = 0
    with Bar(cycles, "levelsim", "cycle") as bar:   # drawn on a terminal only
        while c < cycles and not st.done:
            _set_inputs(inp, st, rnd, widths)
            out = sim.cycle(inp.bits)
            st.next_phase("busy" in out_at and bool(out[out_at["busy"]]),
                          st.ph == WAIT and bool(out[out_at["out__valid"]]))
            c += 1
            if c % 64 == 0:
                bar.step(f"run {st.n_runs}", 64)
    sim.close()
    stats = {"cycles": c, "runs_completed": st.n_runs, "timeouts": st.timeouts,
             "busy_cycles": st.busy_cycles, "load_cycles": st.load_cycles,
             "wgt_rows": st.wrows, "act_rows": st.arows}
    if runs.runs is not None:
        stats.update(stimulus_runs=len(runs.runs), outcomes="".join(st.outcomes))
    return stats
