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

__all__ = ["STA_WHY", "opensta_power"]

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
    from ..tools import check_sta
    extra = f"read_liberty {extra_liberty}\n" if extra_liberty else ""
    tcl = (f"read_liberty {liberty}\n{extra}read_verilog {netlist_path}\nlink_design {top}\n"
           f"create_clock -name clk -period {period_ns:g} [get_ports clk]\n"
           f"sta::set_power_global_activity {activity:.6g} 0.5\n"
           f"report_power -digits 6\nexit\n")
    with open(os.path.join(workdir, "power.tcl"), "w", encoding="utf-8") as f:
        f.write(tcl)
    log = os.path.join(workdir, "power.log")
    with open(log, "w", encoding="utf-8") as f:
        proc = subprocess.run([check_sta(), "-no_init", "-exit", "power.tcl"], cwd=workdir,
                              stdout=f, stderr=subprocess.STDOUT, text=True, timeout=1800)
    with open(log, encoding="utf-8", errors="replace") as f:
        m = _STA_ROW.search(f.read())
    if proc.returncode != 0:
        raise ToolError("sta", proc.returncode, log, "report_power")
    if not m:
        raise ToolError("sta", None, log, "report_power printed no power table")
    internal, switching, leakage, total = (float(x) for x in m.groups())
    return {"activity_per_cycle": round(activity, 6), "duty": 0.5,
            "internal_w": internal, "switching_w": switching, "leakage_w": leakage,
            "total_w": total,
            "command": f"sta::set_power_global_activity {activity:.6g} 0.5; report_power"}
