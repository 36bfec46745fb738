"""Parsers for the tools' output. Pure functions of text, tested on captured fixtures."""

from __future__ import annotations

import json
import re

__all__ = ["parse_stat_json", "instance_counts", "parse_sta", "parse_sta_wns",
           "parse_drv", "DRV_KINDS", "DRV_LISTED", "parse_nextpnr_report", "ecp5_resources"]


def parse_stat_json(text: str) -> dict[str, dict]:
    """yosys ``stat -json -liberty`` -> per module: ``area`` / ``seq_area`` including
    submodules, ``local_area`` / ``local_seq_area`` excluding them, ``cells`` (local count by
    library cell) and ``subs`` (submodule name -> instance count). Names lose the leading
    backslash."""
    data = json.loads(text)
    raw = {name.lstrip("\\"): m for name, m in data["modules"].items()}
    mods = {}
    for name, m in raw.items():
        cells, subs = {}, {}
        for cell, n in m.get("num_cells_by_type", {}).items():
            (subs if cell.lstrip("\\") in raw else cells)[cell.lstrip("\\")] = int(n)
        mods[name] = {"area": float(m.get("area", 0.0)),
                      "seq_area": float(m.get("sequential_area", 0.0)),
                      "cells": cells, "subs": subs}
    for name, m in mods.items():
        m["local_area"] = m["area"] - sum(n * mods[s]["area"] for s, n in m["subs"].items())
        m["local_seq_area"] = m["seq_area"] - sum(n * mods[s]["seq_area"]
                                                  for s, n in m["subs"].items())
    return mods


def instance_counts(mods: dict[str, dict], top: str) -> dict[str, int]:
    """How many times each module occurs below (and including) ``top``."""
    counts: dict[str, int] = {}

    def visit(name: str, n: int):
        counts[name] = counts.get(name, 0) + n
        for sub, k in mods[name]["subs"].items():
            visit(sub, n * k)

    visit(top.lstrip("\\"), 1)
    return counts


_PIN = re.compile(r"^\s*(?:[\d.]+\s+)*(-?[\d.]+)\s+([\^v])\s+(\S+)/(\w+)\s+\((\w+)\)\s*$")


def parse_sta(text: str) -> dict:
    """The first path of OpenSTA ``report_checks -format full...``: startpoint, endpoint,
    the cells on it in order, logic depth (cells between the launching and capturing
    flops), arrival (ns), required (ns), slack (ns)."""
    start = re.search(r"^Startpoint:\s*(\S+)", text, re.M)
    end = re.search(r"^Endpoint:\s*(\S+)", text, re.M)
    if not (start and end):
        raise ValueError("no timing path in OpenSTA output")
    body = text[end.end():]
    arrival = re.search(r"^\s*(-?[\d.]+)\s+data arrival time", body, re.M)
    required = re.search(r"^\s*(-?[\d.]+)\s+data required time", body, re.M)
    slack = re.search(r"^\s*(-?[\d.]+)\s+slack \((MET|VIOLATED)\)", body, re.M)
    path_text = body[:arrival.end()] if arrival else body
    instances: list[tuple[str, str]] = []
    stages = []   # output pins: (instance, cell, cap pF, incremental delay ns)
    for line in path_text.splitlines():
        m = _PIN.match(line)
        if m and (not instances or instances[-1][0] != m.group(3)):
            instances.append((m.group(3), m.group(5)))
        nums = line.split()
        if m and len(nums) >= 7:   # Cap Slew Delay Time dir pin (cell): an output pin
            stages.append((m.group(3), m.group(5), float(nums[0]), float(nums[2])))
    worst = max(stages, key=lambda st: st[3]) if stages else None
    crossing = False
    if worst:
        names = [i for i, _ in instances]
        nxt = names.index(worst[0]) + 1
        if nxt < len(names):
            crossing = names[nxt].rsplit("/", 1)[0] != worst[0].rsplit("/", 1)[0]
    launch = instances[0] if instances else None
    logic = instances[1:-1] if len(instances) >= 2 else []
    return {
        "startpoint": start.group(1),
        "endpoint": end.group(1),
        "start_cell": launch[1] if launch else None,
        "end_cell": instances[-1][1] if instances else None,
        "cells": [c for _, c in logic],
        "instances": [i for i, _ in instances],
        # Every output pin on the path, launching flop first: (instance, cell, cap pF,
        # incremental delay ns).
        "stages": [list(st) for st in stages],
        "logic_depth": len(logic),
        "arrival_ns": float(arrival.group(1)) if arrival else None,
        "required_ns": float(required.group(1)) if required else None,
        "slack_ns": float(slack.group(1)) if slack else None,
        "met": slack.group(2) == "MET" if slack else None,
        # The slowest stage: a large load on a net leaving its module points at fanout that
        # per-module ABC could not buffer (a broadcast across the hierarchy).
        "worst_stage": {"instance": worst[0], "cell": worst[1], "cap_pf": worst[2],
                        "delay_ns": worst[3], "net_leaves_module": crossing} if worst else None,
    }


def parse_sta_wns(text: str) -> float:
    """Worst slack (ns, negative when violated) from our marker line, else ``report_wns``.
    Note: ``report_wns`` prints 0 for a met design; the marker gives the true slack."""
    m = re.search(r"^TERMWISE_WNS\s+(\S+)", text, re.M)
    if m:
        return float(m.group(1))
    m = re.search(r"^wns\s+(-?[\d.]+)", text, re.M)
    if m:
        return float(m.group(1))
    raise ValueError("no worst slack in OpenSTA output")


#: kind of a design-rule violation -> the quantity compared with the limit.
DRV_KINDS = {"max_capacitance": "load_pf", "max_transition": "slew_ns",
             "max_fanout": "fanout", "table_range": "load_pf or slew_ns"}
#: How many violations a report lists (the worst by value / limit); all are counted.
DRV_LISTED = 50
_DRV_TCL_KINDS = {"max_capacitance": ("max_capacitance", "load_pf"),
                  "max_fanout": ("max_fanout", "fanout"),
                  "table_range_load": ("table_range", "load_pf"),
                  "table_range_slew": ("table_range", "slew_ns")}
_CHECK_TYPES_ROW = re.compile(
    r"^(\S+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+\(VIOLATED\)\s*$")


def parse_drv(text: str, listed: int = DRV_LISTED,
              path_instances: list[str] | None = None, weight=None) -> dict | None:
    """Design-rule violations from ``drv.tcl``'s output in an OpenSTA log: the
    ``TERMWISE_DRV`` lines (max_capacitance, max_fanout, the liberty tables' load and slew
    range) and OpenSTA's own ``report_check_types -max_transition`` rows. None when the log
    has no design-rule section (a run from before the checks existed).

    Returns ``{"count", "by_kind", "drivers_checked", "nets", "violations", "listed",
    "worst"}``: ``violations`` holds the ``listed`` worst (largest value / limit) as dicts
    ``pin, net, cell, kind, quantity, value, limit, fanout``; ``nets`` counts distinct
    offending driver pins (one net can break several rules). With ``path_instances`` (the
    critical path's instances, :func:`parse_sta`), ``on_critical_path`` counts the
    violations whose pin belongs to one of them: the Fmax itself is then extrapolated.

    ``weight(pin) -> float`` counts a violation that many times (the sampled timing's
    (:mod:`.sta_sample`): one inside a sampled PE stands for it in every PE); the counts
    are rounded sums, the listed violations each once."""
    if "TERMWISE_DRV_BEGIN" not in text:
        return None
    found = []
    drivers = None
    for line in text.splitlines():
        if line.startswith("TERMWISE_DRV_DRIVERS"):
            drivers = int(line.split()[1])
            continue
        if not line.startswith("TERMWISE_DRV "):
            continue
        f = line.split()
        if len(f) != 8 or f[1] not in _DRV_TCL_KINDS:
            raise ValueError(f"malformed design-rule line: {line!r}")
        kind, qty = _DRV_TCL_KINDS[f[1]]
        found.append({"pin": f[2], "net": f[3], "cell": f[4], "kind": kind, "quantity": qty,
                      "value": float(f[5]), "limit": float(f[6]), "fanout": int(f[7])})
    m = re.search(r"^TERMWISE_CHECK_TYPES_BEGIN\n(.*?)^TERMWISE_CHECK_TYPES_END", text,
                  re.M | re.S)
    if m:
        for line in m.group(1).splitlines():
            row = _CHECK_TYPES_ROW.match(line.strip())
            if row:
                found.append({"pin": row.group(1), "net": None, "cell": None,
                              "kind": "max_transition", "quantity": "slew_ns",
                              "value": float(row.group(3)), "limit": float(row.group(2)),
                              "fanout": None})
    w = (lambda pin: 1) if weight is None else weight
    by_kind = {k: 0.0 for k in DRV_KINDS}
    for v in found:
        by_kind[v["kind"]] += w(v["pin"])
    by_kind = {k: round(n) for k, n in by_kind.items()}

    def ratio(v):
        return v["value"] / v["limit"] if v["limit"] > 0 else float("inf")

    worst = sorted(found, key=ratio, reverse=True)
    on_path = None
    if path_instances is not None:
        insts = set(path_instances)
        on_path = sum(1 for v in found if v["pin"].rsplit("/", 1)[0] in insts)
    return {"count": round(sum(w(v["pin"]) for v in found)), "by_kind": by_kind,
            "drivers_checked": drivers, "on_critical_path": on_path,
            "nets": round(sum(w(p) for p in {v["pin"] for v in found
                                              if v["net"] is not None})),
            "violations": worst[:listed], "listed": min(listed, len(worst)),
            "worst": ({"pin": worst[0]["pin"], "kind": worst[0]["kind"],
                       "value": worst[0]["value"], "limit": worst[0]["limit"],
                       "times_limit": round(ratio(worst[0]), 2)} if worst else None)}


def parse_nextpnr_report(text: str) -> dict:
    """nextpnr ``--report`` JSON -> achieved Fmax (MHz, worst clock) and utilisation of the
    resource types in use."""
    data = json.loads(text)
    fmax = data.get("fmax", {})
    achieved = [v["achieved"] for v in fmax.values() if "achieved" in v]
    util = {k: {"used": v["used"], "available": v["available"]}
            for k, v in data.get("utilization", {}).items() if v.get("used")}
    return {"fmax_mhz": min(achieved) if achieved else None, "utilization": util}


def ecp5_resources(cells: dict[str, int]) -> dict[str, int]:
    """ECP5 resources from a yosys ``synth_ecp5`` cell count: LUT4s (a CCU2C carry cell
    holds two LUT4s), flip-flops, 18x18 DSP multipliers, DP16KD block RAMs, and
    distributed-RAM cells (TRELLIS_DPR16X4) separately as ``lutram``."""
    return {
        "lut4": cells.get("LUT4", 0) + 2 * cells.get("CCU2C", 0),
        "ff": cells.get("TRELLIS_FF", 0),
        "dsp": cells.get("MULT18X18D", 0) + cells.get("ALU54B", 0),
        "bram": cells.get("DP16KD", 0),
        "lutram": cells.get("TRELLIS_DPR16X4", 0),
    }
