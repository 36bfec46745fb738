"""Power of a gate-level netlist: a hand-made netlist (an inverter chain in a submodule, a
NAND, a flip-flop) with given toggle rates against a hand count from the OSU018 numbers
(written out below), and the power flow's own chain (its gate-level model: cell models +
netlist under Verilator with SAIF; its run, rates and power) on the same netlist, under a
random stimulus."""

import os
import shutil

import pytest

from termwise.synth.power import cells, compute
from termwise.synth.tools import DEFAULT_LIBERTY

pytestmark = pytest.mark.skipif(not os.path.isfile(DEFAULT_LIBERTY),
                                reason="OSU018 liberty not installed (qflow-tech-osu018)")

# yosys write_verilog -noattr form: hierarchy kept, an escaped instance name
TINY = r"""module stage(a, y);
  input a;
  wire a;
  output y;
  wire y;
  wire n1;
  INVX1 i1 (
    .A(a),
    .Y(n1)
  );
  INVX1 i2 (
    .A(n1),
    .Y(y)
  );
endmodule

module tiny(clk, a, b, q);
  input clk;
  wire clk;
  input a;
  wire a;
  input b;
  wire b;
  output q;
  wire q;
  wire n2;
  wire n3;
  stage \s  (
    .a(a),
    .y(n2)
  );
  NAND2X1 g (
    .A(n2),
    .B(b),
    .Y(n3)
  );
  DFFPOSX1 f (
    .CLK(clk),
    .D(n3),
    .Q(q)
  );
endmodule
"""

# transitions per second: a 100 MHz clock; the inverter chain follows a
RATES = {"clk": 2e8, "a": 5e7, "s/n1": 5e7, "n2": 5e7, "b": 2e7, "n3": 3e7, "q": 1e7}


def lerp(x, x0, x1, y0, y1):
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


def hand_count():
    """From osu018_stdcells.lib (typical, 1.8 V; pF, pJ, nW), slew 0.06 ns = the tables'
    first input-transition index, so only the load index is interpolated (between its
    first two points 0.005 and 0.0125 pF, or below them: extrapolated)."""
    V2 = 1.8 ** 2
    cap_inv_a, cap_nand_a, cap_nand_b = 0.00932456, 0.0125, 0.0129035
    cap_dff_d, cap_dff_clk = 0.00882947, 0.0279235

    def sw(c_pf, rate):
        return 0.5 * c_pf * 1e-12 * V2 * rate

    # nets: n1 = INVX1.A, n2 = NAND2X1.A, n3 = DFFPOSX1.D, q unloaded
    sw_i1, sw_i2, sw_g = sw(cap_inv_a, 5e7), sw(cap_nand_a, 5e7), sw(cap_dff_d, 3e7)
    ports = sw(cap_inv_a, 5e7) + sw(cap_nand_b, 2e7) + sw(cap_dff_clk, 2e8)

    def inv_e(c):      # INVX1 Y (related A), column slew 0.06: rise, fall
        return (lerp(c, 0.005, 0.0125, 0.023555, 0.023165)
                + lerp(c, 0.005, 0.0125, 0.009213, 0.009047)) / 2
    int_i1 = 5e7 * inv_e(cap_inv_a) * 1e-12
    int_i2 = 5e7 * ((0.023165 + 0.009047) / 2) * 1e-12          # 0.0125 is a grid point
    c = cap_dff_d
    e_a = (lerp(c, 0.005, 0.0125, 0.044515, 0.045446)
           + lerp(c, 0.005, 0.0125, 0.010032, 0.009375)) / 2
    e_b = (lerp(c, 0.005, 0.0125, 0.03356, 0.033477)
           + lerp(c, 0.005, 0.0125, 0.009782, 0.009413)) / 2
    int_g = 3e7 * (5 / 7 * e_a + 2 / 7 * e_b) * 1e-12           # arcs weighted 5e7 : 2e7
    e_q = (lerp(0.0, 0.005, 0.0125, 0.040752, 0.041217)
           + lerp(0.0, 0.005, 0.0125, 0.064773, 0.063395)) / 2  # load 0: extrapolated
    int_f = (1e7 * e_q + 2e8 * (0.006865 + 0.11034) / 2          # CLK pin, passive
             + 3e7 * (0.045424 + 0.08841) / 2) * 1e-12           # D pin, passive
    leak = {"i1": 0.0221741e-9, "i2": 0.0221741e-9, "g": 0.0393659e-9, "f": 0.160725e-9}
    return {"s/i1": (sw_i1, int_i1, leak["i1"]), "s/i2": (sw_i2, int_i2, leak["i2"]),
            "g": (sw_g, int_g, leak["g"]), "f": (0.0, int_f, leak["f"])}, ports


@pytest.fixture(scope="module")
def lib():
    return cells.read_library(DEFAULT_LIBERTY)


def test_hand_count(lib):
    rep = compute.netlist_power(TINY, "tiny", lib, RATES, slew=0.06)
    want, ports = hand_count()
    got = {ip.path: ip for ip in rep.instances}
    assert set(got) == set(want)
    for path, (sw, intl, leak) in want.items():
        ip = got[path]
        assert ip.switching_w == pytest.approx(sw, rel=1e-9), path
        assert ip.internal_w == pytest.approx(intl, rel=1e-9), path
        assert ip.leakage_w == pytest.approx(leak, rel=1e-9), path
    assert rep.port_switching_w == pytest.approx(ports, rel=1e-9)
    assert rep.totals["total_w"] == pytest.approx(sum(sum(v) for v in want.values()))
    assert rep.by_module["stage"]["cells"] == 2 and rep.by_module["tiny"]["cells"] == 2
    assert rep.by_module["stage"]["total_w"] == pytest.approx(sum(want["s/i1"])
                                                              + sum(want["s/i2"]))
    assert rep.extrapolated == 2                     # f.Q rise and fall at load 0
    assert rep.nets_without_activity == [] and rep.nets == 7
    assert rep.units["leakage_power_unit"] == "1nW" and rep.units["voltage_unit"] == "1V"
    # the magnitudes: about 19 uW, most of it the flop's clock pin (2e8/s x 0.0586 pJ =
    # 11.7 uW); leakage a fraction of a nanowatt
    assert 1e-5 < rep.totals["total_w"] < 3e-5 and rep.totals["leakage_w"] < 1e-9


def test_names_missing_and_wire_load(lib):
    # rates found through any alias: the leaf pin name, the inner wire, the parent's wire
    alias = dict(RATES)
    del alias["n2"]
    alias["s/y"] = 5e7
    del alias["s/n1"]
    alias["s/i2/A"] = 5e7
    base = compute.netlist_power(TINY, "tiny", lib, RATES, slew=0.06)
    same = compute.netlist_power(TINY, "tiny", lib, alias, slew=0.06)
    assert same.totals == pytest.approx(base.totals)
    # a net with no rate is listed and counted as 0 (or the default)
    part = dict(RATES)
    del part["n3"]
    rep = compute.netlist_power(TINY, "tiny", lib, part, slew=0.06)
    assert rep.nets_without_activity == ["n3"]
    assert rep.totals["total_w"] < base.totals["total_w"]
    # a wire load per fanout adds 0.5 C V^2 f on each loaded net
    wl = compute.netlist_power(TINY, "tiny", lib, RATES, slew=0.06, wire_cap_per_fanout=0.01)
    extra = 0.5 * 0.01e-12 * 1.8 ** 2 * (5e7 + 5e7 + 3e7)      # n1, n2, n3 (q: no fanout)
    assert wl.totals["switching_w"] - base.totals["switching_w"] == pytest.approx(extra)
    with pytest.raises(KeyError):
        compute.netlist_power(TINY.replace("NAND2X1", "NAND9"), "tiny", lib, RATES)


# A C++ main for the tiny netlist that speaks the tile harness's protocol
# (synth/power/stimulus.py): cycles, seed and the SAIF's path in argv, one JSON line of counts
# out; the model's class is Vdut (synth/power/model.py builds with --prefix Vdut). At each
# falling edge every input flips with probability 1/2 (a seeded xorshift); 10 ns period in
# the SAIF's 1 ps.
TINY_HARNESS = r"""#include "Vdut.h"
#include "verilated.h"
#include "verilated_saif_c.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
int main(int argc, char** argv) {
  int cycles = atoi(argv[1]);
  uint64_t state = strtoull(argv[2], 0, 10) * 0x9E3779B97F4A7C15ull + 1;
  Verilated::traceEverOn(true);
  Vdut* t = new Vdut;
  VerilatedSaifC* tfp = new VerilatedSaifC;
  t->trace(tfp, 99);
  tfp->open(argv[3]);
  uint64_t time = 0;
  for (int c = 0; c < cycles; c++) {
    state ^= state << 13; state ^= state >> 7; state ^= state << 17;
    t->a ^= state & 1; t->b ^= (state >> 1) & 1;
    t->clk = 0; t->eval(); tfp->dump(time); time += 5000;
    t->clk = 1; t->eval(); tfp->dump(time); time += 5000;
  }
  tfp->dump(time);
  tfp->close();
  t->final();
  printf("{\"cycles\": %d}\n", cycles);
  delete t;
  return 0;
}
"""


def test_the_flows_model_and_power_on_the_tiny_netlist(lib, tmp_path):
    """The power flow's own chain on the tiny netlist: the gate-level model (cell models +
    netlist under Verilator with SAIF, synth/power/model.py), its run, the SAIF's rates and
    their power (synth/power/measure.py). 400 cycles at 10 ns, inputs flipping with
    probability 0.5 per cycle; about 10 s clean, a few seconds with ccache."""
    if shutil.which("g++") is None:
        pytest.skip("no C++ compiler")
    from termwise.synth.power.measure import (average_activity, read_rates, run_model,
                                              simulated_power)
    from termwise.synth.power.model import build_model, cells_used
    from termwise.synth.power.saif import read_saif
    cache_dir = str(tmp_path / "power-cache")
    exe, built = build_model(TINY, "tiny", lib, TINY_HARNESS, "tiny-synthesis", cache_dir)
    assert not built["hit"] and cells_used(TINY, lib) == ["DFFPOSX1", "INVX1", "NAND2X1"]
    run = tmp_path / "run"
    run.mkdir()
    assert run_model(exe, str(run), 400, 1) == {"cycles": 400}
    assert read_saif(str(run / "dump.saif")).duration_s == pytest.approx(400 * 10e-9)
    r = read_rates(str(run / "dump.saif"), "tiny")
    assert r["clk"] == pytest.approx(2 / 10e-9, rel=0.01)          # 799 or 800 edges
    # the simulated cells: the inverter chain passes a's toggles on; q is n3 a cycle later
    # (to within one toggle: Verilator counts a net's first value as a toggle from 0, so
    # n1 = !a, 1 at t = 0, may differ from a by one; n2 = a exactly)
    one = 1 / 4e-6
    assert r["n2"] == r["a"] and abs(r["s/n1"] - r["a"]) <= one
    # the cells' own pins are not traced (cell_models.verilog_models: tracing_off): every rate
    # is a net's, found under its name
    in_cells = [k for k in r if "/" in k and k.split("/")[-2] in ("i1", "i2", "g", "f")]
    assert in_cells == [] and {"s/n1", "n2", "n3", "q"} <= set(r)
    assert 0.3 * 1e8 < r["a"] < 0.7 * 1e8
    assert abs(r["q"] - r["n3"]) <= 2 * one
    # the flow's power is netlist_power on those rates, rescaled to the assumed clock
    # (here twice the simulated one), every net found
    rep, used = simulated_power(TINY, "tiny", lib, r, 2.0)
    again = compute.netlist_power(TINY, "tiny", lib, {n: 2.0 * v for n, v in r.items()})
    assert rep.totals == pytest.approx(again.totals) and rep.nets_without_activity == []
    assert rep.totals["internal_w"] > 0 and rep.totals["switching_w"] > 0
    assert used["clk"] == 2.0 * r["clk"] and "a" in used
    assert 0 < average_activity(used, 5.0) < 1                    # transitions per cycle
    # the same netlist and harness again: the cached model
    assert build_model(TINY, "tiny", lib, TINY_HARNESS, "tiny-synthesis", cache_dir) == \
        (exe, {"key": built["key"], "hit": True, "build_s": 0.0})
