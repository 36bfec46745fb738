"""A FuseSoC core (CAPI2) for a generated tile, written by ``termwise gen`` beside its Verilog.

Hardware engineers package IP as FuseSoC cores: with ``<top>.core`` in a cores root, a
user's own flow lints, simulates or synthesises the tile through edalize without writing
a core by hand (``fusesoc --cores-root DIR run --target lint termwise:tiles:<top>``).

The core's files, all from the manifest (so the same configuration gives the same bytes):

* ``<top>.v``, the tile (fileset ``rtl``);
* ``<top>_waivers.vlt``, the Verilator lint waivers termwise's own lint uses
  (:data:`termwise.tb.runner.LINT_WAIVERS`: Amaranth's implicit widths and the like, each
  named with its reason there), fileset ``waivers``;
* ``<top>_smoke_tb.sv``, a self-checking smoke testbench (fileset ``smoke_tb``): reset, then
  the idle handshake (commands and both operand streams accepted, no output, not busy).
  It checks that the core builds and comes out of reset; the tile's function is verified
  by ``termwise verify`` (cocotb against the golden models), not by this bench.

Targets: ``default`` (the Verilog and its top, for a user's synthesis target), ``lint``
(Verilator ``--lint-only -Wall`` with the waivers) and ``sim`` (the smoke testbench as a
Verilator ``--binary``).
"""

from __future__ import annotations

from importlib import metadata

from ...tb.runner import control_file
from ..emit import emit

__all__ = ["VENDOR", "LIBRARY", "vlnv", "core_files", "generate"]

#: The VLNV's vendor and library fields (``termwise:tiles:<top>:<version>``).
VENDOR = "termwise"
LIBRARY = "tiles"

#: The idle outputs the smoke bench expects after reset: a ready tile accepts a command
#: and both operand streams, has no output and is not busy.
_IDLE = {"cmd__ready": 1, "wgt__ready": 1, "act__ready": 1, "out__valid": 0, "busy": 0}

#: Cycles held in reset, then cycles idle before the check.
_RESET_CYCLES = 4
_IDLE_CYCLES = 8


def vlnv(man: dict) -> str:
    """The core's name, ``termwise:tiles:<top>:<termwise's version>``."""
    try:
        version = metadata.version("termwise")
    except metadata.PackageNotFoundError:     # run from a source tree, not installed
        version = "0"
    return f"{VENDOR}:{LIBRARY}:{man['top']}:{version}"


def core_files(man: dict) -> dict[str, str]:
    """``{file name: text}`` of the core of the tile ``man`` describes (its manifest)."""
    top = man["top"]
    return {
        f"{top}.core": _core(man),
        f"{top}_waivers.vlt": control_file(man, lint=True),
        f"{top}_smoke_tb.sv": _smoke_tb(man),
    }


def generate(cfg, outdir: str) -> dict:
    """``termwise gen``: the tile's Verilog, manifest and core files in ``outdir`` (all
    rendered before any is written); returns the manifest."""
    return emit(cfg, outdir, more=core_files)


def _core(man: dict) -> str:
    top = man["top"]
    cfg = man["config"]
    what = man.get("preset") or f"{cfg['arch']} {cfg['filters']}x{cfg['windows']}"
    return f"""CAPI=2:
# Written by termwise gen from manifest.json; regenerate rather than edit.
name: {vlnv(man)}
description: "termwise {cfg['arch']} tile ({what}), {cfg['act_bits']}-bit activations, \
{cfg['wgt_bits']}-bit weights"

filesets:
  rtl:
    files:
      - {man['verilog']['file']}
    file_type: verilogSource
  waivers:
    files:
      - {top}_waivers.vlt
    file_type: vlt
  smoke_tb:
    files:
      - {top}_smoke_tb.sv
    file_type: systemVerilogSource

targets:
  default:
    filesets: [rtl]
    toplevel: {top}
  lint:
    default_tool: verilator
    filesets: [rtl, waivers]
    toplevel: {top}
    tools:
      verilator:
        mode: lint-only
        verilator_options: [-Wall]
  sim:
    default_tool: verilator
    filesets: [rtl, waivers, smoke_tb]
    toplevel: {top}_smoke_tb
    tools:
      verilator:
        mode: binary
        # --binary's timing needs C++ coroutines: g++ 12 enables them with -fcoroutines
        verilator_options: [-Wno-fatal, -CFLAGS, -fcoroutines]
"""


def _smoke_tb(man: dict) -> str:
    top = man["top"]
    decls, conns = [], []
    for port in man["ports"]:
        name, width = port["name"], port["width"]
        vec = f"[{width - 1}:0] " if width > 1 else ""
        if name == "clk":
            decls.append("  logic clk = 1'b0;")
        elif name == "rst":
            decls.append("  logic rst = 1'b1;")
        elif port["dir"] == "in":
            decls.append(f"  logic {vec}{name} = '0;")
        else:
            decls.append(f"  wire {vec}{name};")
        conns.append(f"    .{name}({name})")
    checks = [f'    if ({name} !== 1\'b{value}) begin\n'
              f'      $display("FAIL: {name} = %b after reset, expected {value}", {name});\n'
              f'      failed = 1;\n    end'
              for name, value in _IDLE.items()]
    return "\n".join([
        f"// Smoke testbench of {top}, written by termwise gen: reset, then the idle",
        "// handshake. The tile's function is verified by `termwise verify`, not here.",
        f"module {top}_smoke_tb;",
        *decls,
        "  bit failed = 0;",
        f"  {top} dut (",
        ",\n".join(conns),
        "  );",
        "  always #5 clk = ~clk;",
        "  initial begin",
        f"    repeat ({_RESET_CYCLES}) @(posedge clk);",
        "    @(negedge clk) rst = 1'b0;   // away from the edge the tile samples it on",
        f"    repeat ({_IDLE_CYCLES}) @(posedge clk);",
        "    #1;",
        *checks,
        '    if (failed) $fatal(1, "smoke test failed");',
        f'    $display("PASS: {top} idle after reset");',
        "    $finish;",
        "  end",
        "endmodule",
        "",
    ])
