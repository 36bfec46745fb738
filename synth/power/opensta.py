"""OpenSTA's vectorless ``report_power``: the power flow's cross-check of its simulated
figures (OpenSTA's timing is run by :mod:`termwise.synth.asic`).

The 2019 snapshot's help lists ``set_power_activity -global -activiity`` (a typo in the
help: ``-activity`` is what it parses); the command it wraps,
``sta::set_power_global_activity activity duty``, is called directly. Its activity is in
transitions per clock period (checked on this build: switching power scales with it and
with the clock frequency).
"""

from __future__ import annotations

import os
import re
import subprocess

from ...gen.errors import ToolError

__all__ = ["STA_WHY", "opensta_power", "start_opensta_power"]

#: Why OpenSTA's vectorless figure differs from the simulated one.
STA_WHY = ("OpenSTA sets every net to the same activity (the simulation's average), while in "
           "simulation each net has its own rate: the buffer flops hold their rows most "
           "cycles (a row is written once per run) and the datapath nets toggle far more "
           "than the average, and internal power is not linear in per-net activity, so the "
           "totals differ")

_STA_ROW = re.compile(r"^Total\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", re.M)


def opensta_power(netlist_path: str, liberty: str, top: str, period_ns: float,
                  activity: float, workdir: str, extra_liberty: str | None = None) -> dict:
    """OpenSTA's power of a netlist with every net at one activity.

    Parameters
    ----------
    netlist_path : str
        The gate-level netlist, relative to ``workdir`` or absolute.
    liberty : str
        The liberty's path.
    top : str
        The netlist's top module (its clock port ``clk``).
    period_ns : float
        The clock period.
    activity : float
        Transitions per clock period of every net (duty 0.5).
    workdir : str
        Where ``power.tcl`` and ``power.log`` are written.
    extra_liberty : str or None
        A second liberty read after ``liberty`` (the SRAM macros', :mod:`..macros`).

    Returns
    -------
    dict
        ``activity_per_cycle``, ``duty``, ``internal_w``, ``switching_w``, ``leakage_w``,
        ``total_w`` and the ``command`` run.

    Raises
    ------
    ToolError
        OpenSTA failed, or printed no power table.
    """
    return start_opensta_power(netlist_path, liberty, top, period_ns, activity, workdir,
                               extra_liberty)()


def start_opensta_power(netlist_path: str, liberty: str, top: str, period_ns: float,
                        activity: float, workdir: str, extra_liberty: str | None = None):
    """:func:`opensta_power` started, not waited for: returns a function that waits for
    OpenSTA and returns its figures (or raises its :class:`ToolError`); its ``kill()``
    stops it. The power flow runs it beside the phase runs (a 16x16 tile's: minutes of
    each, on the machine's second core)."""
    from ..tools import check_sta
    extra = f"read_liberty {extra_liberty}\n" if extra_liberty else ""
    tcl = (f"read_liberty {liberty}\n{extra}read_verilog {netlist_path}\nlink_design {top}\n"
           f"create_clock -name clk -period {period_ns:g} [get_ports clk]\n"
           f"sta::set_power_global_activity {activity:.6g} 0.5\n"
           f"report_power -digits 6\nexit\n")
    with open(os.path.join(workdir, "power.tcl"), "w", encoding="utf-8") as f:
        f.write(tcl)
    log = os.path.join(workdir, "power.log")
    out = open(log, "w", encoding="utf-8")
    proc = subprocess.Popen([check_sta(), "-no_init", "-exit", "power.tcl"], cwd=workdir,
                            stdout=out, stderr=subprocess.STDOUT, text=True)

    def finish() -> dict:
        try:
            returncode = proc.wait(timeout=1800)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise ToolError("sta", None, log, "report_power took over 30 minutes") from None
        finally:
            out.close()
        with open(log, encoding="utf-8", errors="replace") as f:
            m = _STA_ROW.search(f.read())
        if returncode != 0:
            raise ToolError("sta", returncode, log, "report_power")
        if not m:
            raise ToolError("sta", None, log, "report_power printed no power table")
        internal, switching, leakage, total = (float(x) for x in m.groups())
        return {"activity_per_cycle": round(activity, 6), "duty": 0.5,
                "internal_w": internal, "switching_w": switching, "leakage_w": leakage,
                "total_w": total,
                "command": f"sta::set_power_global_activity {activity:.6g} 0.5; "
                           f"report_power"}

    def kill() -> None:
        proc.kill()
        proc.wait()
        out.close()

    finish.kill = kill
    return finish
