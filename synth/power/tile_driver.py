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


def drive(sim, ports: list[dict], runs: TileRuns, cycles: int, seed: int) -> dict:
    """Run the tile-run harness on ``sim`` (a :class:`.levelsim.LevelSim` of the wrapper
    whose inputs are :func:`input_keys` and outputs the :data:`WATCHED` ports present)
    for at most ``cycles`` cycles; :meth:`~.levelsim.LevelSim.close` it; return the
    harness's counts (its JSON line's fields)."""
    names = {p["name"] for p in ports}
    inp = _Inputs(ports)
    rnd = _Rnd(seed)
    wl = runs.runs is not None
    out_at = {n: i for i, n in enumerate(w for w in WATCHED if w in names)}
    has_busy, has_bias, has_res = "busy" in names, "bias__payload" in names, \
        "residual__payload" in names
    widths = {p["name"]: p["width"] for p in ports}
    ph, k, n_runs, timeouts, busy_cycles, wrows, arows, outs = RESET, 0, 0, 0, 0, 0, 0, 0
    load_cycles, wait, nb, na, ri = 0, 0, runs.bricks, runs.bricks, 0
    outcomes, done, c = [], False, 0
    run = runs.runs[0] if wl else None
    if wl:
        nb, na = len(run["wgt_rows"]), len(run["act_rows"])
    while c < cycles and not done:
        inp.set("rst", int(ph == RESET))
        inp.set("out__ready", int(ph != RESET))
        for v in ("wgt__valid", "act__valid", "cmd__valid"):
            inp.set(v, 0)
        if has_bias:
            inp.set("bias__valid", 0)
        if has_res:
            inp.set("residual__valid", int(ph not in (RESET, IDLE)))
            if not wl and ph != IDLE:
                inp.set("residual__payload", rnd.value(widths["residual__payload"]))
        if ph == BIAS and has_bias:
            inp.set("bias__payload", rnd.value(widths["bias__payload"]))
            inp.set("bias__valid", 1)
        elif ph == LOAD_W:
            inp.set("wgt__payload", run["wgt_rows"][k] if wl
                    else rnd.value(widths["wgt__payload"]))
            inp.set("wgt__valid", 1)
            wrows += 1
        elif ph == LOAD_A:
            inp.set("act__payload", run["act_rows"][k] if wl
                    else rnd.value(widths["act__payload"]))
            inp.set("act__valid", 1)
            arows += 1
        elif ph == CMD:
            inp.set("cmd__payload", run["command"] if wl
                    else runs.command & ((1 << widths["cmd__payload"]) - 1))
            inp.set("cmd__valid", 1)
        out = sim.cycle(inp.bits)
        busy = has_busy and bool(out[out_at["busy"]])
        busy_cycles += busy
        if not busy and ph in (LOAD_W, LOAD_A):
            load_cycles += 1
        if ph == RESET:
            k += 1
            if k >= RESET_CYCLES:
                ph = IDLE if runs.idle else (LOAD_W if nb else LOAD_A) if wl else \
                    (BIAS if has_bias else LOAD_W)
                k = 0
        elif ph == BIAS:
            ph, k = LOAD_W, 0
        elif ph == LOAD_W:
            k += 1
            if k >= nb:
                ph, k = LOAD_A, 0
        elif ph == LOAD_A:
            k += 1
            if k >= na:
                ph, k = CMD, 0
        elif ph == CMD:
            ph, wait, outs = WAIT, 0, 0
        elif ph == WAIT:
            outs += bool(out[out_at["out__valid"]])
            if outs >= runs.windows:
                n_runs += 1
                ph, k = GAP, 0
                outcomes.append("c")
            else:
                wait += 1
                if wait > runs.timeout:
                    timeouts += 1
                    ph, k = GAP, 0
                    outcomes.append("t")
        elif ph == GAP:
            k += 1
            if k >= 2:
                ph, k = LOAD_W, 0
                if wl:
                    ri += 1
                    if ri >= len(runs.runs):
                        done = True
                    else:
                        run = runs.runs[ri]
                        nb, na = len(run["wgt_rows"]), len(run["act_rows"])
                        if not nb:
                            ph = LOAD_A
        c += 1
    sim.close()
    stats = {"cycles": c, "runs_completed": n_runs, "timeouts": timeouts,
             "busy_cycles": busy_cycles, "load_cycles": load_cycles, "wgt_rows": wrows,
             "act_rows": arows}
    if wl:
        stats.update(stimulus_runs=len(runs.runs), outcomes="".join(outcomes))
    return stats
