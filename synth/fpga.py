"""FPGA flow: yosys ``synth_ecp5`` + ``nextpnr-ecp5`` (with ``--timing-allow-fail``).

The tile has far more IO bits than any ECP5 package has pins, so it is placed in the
pin-limited wrapper of :func:`.wrapper.fpga_wrapper` (serial-in shift register for all
inputs, registered outputs XOR-folded to 8 pins). The figures include that wrapper's flops
and LUTs. The device is the smallest ECP5 (25k, 45k, 85k LUTs) whose LUTs the design fills to
at most 85 %; a design larger than that is not placed and routed (reported as such).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from importlib import resources
from string import Template

from ..gen.results.versions import FPGA_SCRIPT_VERSION
from . import parse, tools
from .wrapper import FPGA_OUT_PINS, fpga_wrapper, wrapper_name

__all__ = ["SCRIPT_VERSION", "DEVICES", "run_fpga"]

#: The FPGA flow's version, in every ECP5 synthesis key; defined, with when to bump it, in
#: :data:`termwise.gen.results.versions.FPGA_SCRIPT_VERSION`.
SCRIPT_VERSION = FPGA_SCRIPT_VERSION

#: (nextpnr option, device name, LUT4 count); package CABGA381 exists for all three.
DEVICES = [("--25k", "LFE5U-25F", 24288), ("--45k", "LFE5U-45F", 43848),
           ("--85k", "LFE5U-85F", 83640)]
PACKAGE = "CABGA381"
FILL_LIMIT = 0.85


def run_fpga(verilog: str, manifest: dict, workdir: str, clock_ns: float) -> dict:
    top = manifest["top"]
    wrap = wrapper_name(top)
    os.makedirs(workdir, exist_ok=True)
    shutil.copyfile(verilog, os.path.join(workdir, "tile.v"))
    with open(os.path.join(workdir, "wrapper.v"), "w", encoding="utf-8") as f:
        f.write(fpga_wrapper(top, manifest["ports"]))
    ys = Template(resources.files(__package__).joinpath("ecp5.ys").read_text(encoding="utf-8"))
    with open(os.path.join(workdir, "ecp5.ys"), "w", encoding="utf-8") as f:
        f.write(ys.substitute(VERILOG="tile.v", WRAPPER="wrapper.v", TOP=wrap))
    t0 = time.monotonic()
    t_yosys = tools.run([tools.yosys_cmd(), "-q", "-l", "yosys.log", "ecp5.ys"], workdir,
                        "yosys.stdout")
    with open(os.path.join(workdir, "fpga_stat.json"), encoding="utf-8") as f:
        stat = json.load(f)
    cells = {k.lstrip("\\"): int(v) for k, v in stat["design"]["num_cells_by_type"].items()}
    res = parse.ecp5_resources(cells)
    result = {
        "wrapper": f"pin-limited: inputs shifted in through 1 pin, outputs registered and "
                   f"XOR-folded to {FPGA_OUT_PINS} pins (figures include the wrapper)",
        **res,
        "cells": dict(sorted(cells.items())),
        "target_mhz": round(1000.0 / clock_ns, 2),
    }
    device = next((d for d in DEVICES if res["lut4"] <= FILL_LIMIT * d[2]), None)
    if device is None:
        result.update(device=None, fmax_mhz=None, wall_s={"yosys": round(t_yosys, 1)},
                      note=f"{res['lut4']} LUT4s exceed {FILL_LIMIT:.0%} of the largest "
                           f"ECP5 ({DEVICES[-1][1]}): not placed and routed")
        return result
    opt, name, _ = device
    t_pnr = tools.run([tools.nextpnr_cmd(), opt, "--package", PACKAGE, "--json", "fpga.json",
                       "--freq", f"{1000.0 / clock_ns:.2f}", "--timing-allow-fail",
                       "--seed", "1", "--report", "pnr_report.json", "--log", "nextpnr.log",
                       "-q"], workdir, "nextpnr.stdout")
    with open(os.path.join(workdir, "pnr_report.json"), encoding="utf-8") as f:
        pnr = parse.parse_nextpnr_report(f.read())
    for big in ("fpga.json", "tile.v"):   # large and reproducible: keep the cache small
        os.remove(os.path.join(workdir, big))
    result.update(device=f"{name}-{PACKAGE}", fmax_mhz=pnr["fmax_mhz"],
                  utilization=pnr["utilization"],
                  wall_s={"yosys": round(t_yosys, 1), "nextpnr": round(t_pnr, 1),
                          "total": round(time.monotonic() - t0, 1)})
    return result
