"""Hierarchical power: the tile's replicated modules measured on sampled instances
(``termwise power --part sampled``).

A 16x16 tile is a few hundred copies of one PE module (the library modules of
:mod:`termwise.rtl.library`, emitted and synthesised once) around a little shared logic
and the SRAM macros. A gate-level model of every copy is what made a whole 16x16 tile too
big to simulate (:mod:`.part`). Here the model is *mixed*:

* the shared logic (controller, front end, output stage, IO wrapper, clock gates) at gate
  level, as synthesised, and the SRAM macros as their behavioural models, as in the whole
  tile's model;
* ``k`` instances of each replicated module (a library module the tile instantiates more
  than once) at gate level, spread evenly over the instances in hierarchical-name order
  (at 16x16: the PEs of several filters and window columns). By default ``k`` is as many
  as :data:`SAMPLED_CELLS` gate-level cells allow, at least :data:`MIN_SAMPLED` and at
  most :data:`SAMPLED_INSTANCES` (:func:`default_k`): 8 of stripes-16x16's 256 PEs (about
  3,800 cells each), 2 of baseline-16x16's 16 (61,000 cells each);
* every other instance of it as its RTL (the emitted Verilog of the same module, renamed
  ``<module>__rtl``): functionally the same ports cycle by cycle, so the shared logic and
  the sampled instances see exactly the activity the whole gate-level tile would.

This is the "record the port activity of sampled instances and replay it on the module's
gate-level model" method with the recording and the replay in one simulation: a sampled
instance's gate-level model is driven by the RTL tile around it.

The power is computed on the whole tile's gate-level netlist (:func:`.compute.netlist_power`)
with the mixed model's toggle rates: every net of the shared logic, including the nets
into every instance (their load is all the instances' input pins), has its simulated
rate. Per replicated module:

* leakage and cell counts are exact (every instance's cells);
* dynamic power (internal + switching of the nets its cells drive) is the sampled
  instances' mean times the instance count (:func:`scale_report`); the unsampled
  instances' cells (whose internal nets the RTL model does not have) count none of their
  own, so the computation does not flatten them: each is a stub (:mod:`.stubs`, its port
  loads and its cells by type), the nets around it as the whole netlist has them;
* the sampling error: the standard error of that total, ``N s / sqrt(k) *
  sqrt((N - k) / (N - 1))`` (``s`` the sampled instances' standard deviation, finite
  population), reported with its 95% bound (1.96 standard errors). With every instance
  sampled (``k = N``) the method is the whole tile's, exactly.

Not captured: an instance whose activity differs systematically from every sampled one's
(the samples span filters and window columns; the error bound is statistical).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

__all__ = ["SAMPLED_INSTANCES", "MIN_SAMPLED", "SAMPLED_CELLS", "default_k", "model_for",
           "HOW", "SAMPLED_METHOD_VERSION", "RTL_SUFFIX", "Sampling", "plan_sampling", "rtl_modules",
           "mixed_netlist", "scale_report", "sampling_record"]

#: The most instances of a replicated module simulated at gate level by default (all of
#: them when there are fewer): enough for the spread a standard error needs.
SAMPLED_INSTANCES = 8

#: The fewest by default: a standard error needs two.
MIN_SAMPLED = 2

#: The gate-level cells of a module's sampled instances, by default: the model's build
#: time and memory grow with its cells (baseline-4x4's whole tile, 71k cells: 2-4 minutes),
#: so a module of big instances gets fewer samples (baseline-16x16's PE, 61k cells: 2).
SAMPLED_CELLS = 150_000


def default_k(cells_per_instance: int) -> int:
    """Instances sampled by default of a module of ``cells_per_instance`` cells."""
    return max(MIN_SAMPLED, min(SAMPLED_INSTANCES,
                                SAMPLED_CELLS // max(1, cells_per_instance)))


#: The method's version, in its reports' keys (bump when the same inputs would measure
#: differently).
SAMPLED_METHOD_VERSION = 1

#: The suffix of a replicated module's RTL copy in the mixed model.
RTL_SUFFIX = "__rtl"


@dataclass
class Sampling:
    """Which instances of each replicated module are simulated at gate level.

    Attributes
    ----------
    modules : dict
        Replicated module name -> every instance path of it (``/``-joined, relative to the
        model's top), sorted.
    sampled : dict
        Module name -> the sampled paths.
    parents : dict
        Module name -> ``{parent module: [instance names of the module in it]}`` (the
        instance lines the mixed netlist retypes).
    cells : dict
        Module name -> its leaf cells per instance.
    """
    modules: dict[str, list[str]] = field(default_factory=dict)
    sampled: dict[str, list[str]] = field(default_factory=dict)
    parents: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    cells: dict[str, int] = field(default_factory=dict)

    def __post_init__(self):
        # instance path -> (module, path), and the sampled paths, for unit_of's lookups
        self._index = {p: (m, p) for m, ps in self.modules.items() for p in ps}
        self._sampled_set = {p for ps in self.sampled.values() for p in ps}
        # the depths the instances sit at (a 16x16 tile's PEs: one), so a leaf's lookup
        # tries those prefixes only
        self._depths = sorted({p.count("/") + 1 for p in self._index})

    def unit_of(self, leaf_path: str):
        """``(module, instance path, sampled)`` of the replicated instance holding the
        leaf at ``leaf_path``, or None (shared logic)."""
        parts = leaf_path.split("/", self._depths[-1]) if self._depths else []
        for d in self._depths:
            if d >= len(parts):
                break
            prefix = "/".join(parts[:d])
            hit = self._index.get(prefix)
            if hit is not None:
                return hit + (prefix in self._sampled_set,)
        return None

    def unsampled_instances(self) -> frozenset:
        """The paths of the instances simulated as RTL (:func:`.compute.flatten`'s
        ``opaque``: only their leakage counts, so their own nets are not flattened)."""
        return frozenset(p for m, ps in self.modules.items() for p in ps
                         if p not in self._sampled_set)



def _spread(paths: list[str], k: int) -> list[str]:
    """``k`` of ``paths`` (sorted) evenly spaced, first and last included."""
    n = len(paths)
    if k >= n:
        return list(paths)
    if k == 1:
        return [paths[0]]
    return sorted({paths[round(i * (n - 1) / (k - 1))] for i in range(k)})


def plan_sampling(netlist_text: str, top: str, library: list[str],
                  k: int | None = None) -> Sampling:
    """The replicated modules of a gate-level netlist and the instances sampled.

    Parameters
    ----------
    netlist_text : str
        The synthesised netlist (hierarchy kept).
    top : str
        The model's top module (the IO wrapper).
    library : list of str
        The tile's library modules (the manifest's ``library_modules``): only these are
        sampled. A library module the netlist does not define (an SRAM macro, a black
        box) is not.
    k : int or None
        Instances sampled per module; None: :func:`default_k` of each module's cells.

    Raises
    ------
    ValueError
        A replicated module's parent is itself instantiated more than once outside a
        replicated module (the mixed netlist retypes instance lines of a definition, so
        every copy of the parent would change alike).
    """
    from ..netlist import parse_netlist
    mods = {m.name.lstrip("\\"): m for m in parse_netlist(netlist_text)}
    lib = {name for name in library if name in mods}
    paths: dict[str, list[str]] = {}
    parents: dict[str, dict[str, list[str]]] = {}
    seen_parent: dict[str, int] = {}

    def visit(mname: str, path: tuple[str, ...]):
        seen_parent[mname] = seen_parent.get(mname, 0) + 1
        for inst in mods[mname].insts:
            t = inst.type.lstrip("\\")
            if t not in mods:
                continue
            iname = inst.name[1:].rstrip() if inst.name.startswith("\\") else inst.name
            if t in lib:          # a unit: not descended into (its own library modules
                paths.setdefault(t, []).append("/".join(path + (iname,)))  # go with it)
                parents.setdefault(t, {}).setdefault(mname, []).append(iname)
                continue
            visit(t, path + (iname,))

    visit(top.lstrip("\\"), ())
    replicated = {m: sorted(ps) for m, ps in paths.items() if len(ps) > 1}
    leaf_memo: dict[str, int] = {}

    def leaves(mname: str) -> int:
        if mname not in leaf_memo:
            leaf_memo[mname] = sum(leaves(i.type.lstrip("\\")) if i.type.lstrip("\\") in mods
                                   else 1 for i in mods[mname].insts)
        return leaf_memo[mname]

    cells = {m: leaves(m) for m in replicated}
    for m in replicated:
        for parent in parents[m]:
            if seen_parent.get(parent, 0) > 1:
                raise ValueError(f"{m}'s parent {parent} is instantiated "
                                 f"{seen_parent[parent]} times")
    return Sampling(modules=replicated,
                    sampled={m: _spread(ps, default_k(cells[m]) if k is None else k)
                             for m, ps in replicated.items()},
                    parents={m: parents[m] for m in replicated}, cells=cells)


_MODULE_LINE = re.compile(r"^module\s+(\\\S+|[\w$]+)", re.M)


def rtl_modules(verilog_text: str, names: list[str]) -> str:
    """The emitted RTL of the modules ``names`` and their own submodules (definitions
    named ``<name>.<sub>``), renamed ``<name>__rtl`` (and ``<name>__rtl.<sub>``) so that
    they sit beside the gate-level definitions of the same names."""
    chunks = []
    starts = [(m.start(), m.group(1).lstrip("\\")) for m in _MODULE_LINE.finditer(verilog_text)]
    for pos, mname in starts:
        if not any(mname == n or mname.startswith(n + ".") for n in names):
            continue
        end = verilog_text.index("endmodule", pos) + len("endmodule")
        chunks.append(_rename(verilog_text[pos:end], names))
    missing = [n for n in names
               if not any(mname == n for _, mname in starts)]
    if missing:
        raise ValueError(f"modules not in the tile's Verilog: {missing}")
    return "\n".join(chunks) + "\n"


def _rename(text: str, names: list[str]) -> str:
    """``text`` with every module name ``n`` (or ``n.<sub>``) of ``names`` suffixed."""
    for n in sorted(names, key=len, reverse=True):
        text = re.sub(r"(?<![\w$.])(\\?)" + re.escape(n) + r"(?=[.\s(;])",
                      lambda mt, n=n: mt.group(1) + n + RTL_SUFFIX, text)
    return text


def mixed_netlist(netlist_text: str, verilog_text: str, sampling: Sampling) -> str:
    """The mixed model's Verilog: the gate-level netlist with every unsampled instance of
    a replicated module retyped to the module's RTL copy, and those copies appended."""
    sampled_names = {m: {p.rsplit("/", 1)[-1] for p in ps}
                     for m, ps in sampling.sampled.items()}
    retype: dict[str, dict[str, str]] = {}      # parent -> instance name -> module
    for m, by_parent in sampling.parents.items():
        for parent, insts in by_parent.items():
            for iname in insts:
                if iname not in sampled_names[m]:
                    retype.setdefault(parent, {})[iname] = m
    if not retype:
        return netlist_text
    lines = netlist_text.split("\n")
    line_of = {}        # module name -> its header line number
    for i, line in enumerate(lines):
        mt = _MODULE_LINE.match(line)
        if mt:
            line_of[mt.group(1).lstrip("\\")] = i
    inst_line = re.compile(r"^(\s*)(\\?)([^\s(]+)(\s+)(\\\S+|[\w$]+)(\s*\()")
    for parent, insts in retype.items():
        i = line_of[parent] + 1
        while not lines[i].startswith("endmodule"):
            mt = inst_line.match(lines[i])
            if mt:
                iname = mt.group(5)
                iname = iname[1:] if iname.startswith("\\") else iname
                m = insts.get(iname)
                if m is not None and mt.group(3) == m:
                    lines[i] = (mt.group(1) + mt.group(2) + m + RTL_SUFFIX
                                + lines[i][mt.end(3):])
            i += 1
    return "\n".join(lines) + "\n" + rtl_modules(verilog_text, sorted(sampling.modules))


_DYNAMIC = ("internal_w", "switching_w")


def scale_report(rep, sampling: Sampling):
    """``rep`` (the whole netlist's :class:`.compute.PowerReport` under the mixed model's
    rates) with each replicated module's dynamic power estimated from its sampled
    instances: per leaf of a sampled instance its dynamic power times ``N / k``, per leaf
    of an unsampled one none (leakage kept for all). Returns ``(report, error)``:
    ``error`` per module (:func:`sampling_record`'s inputs: the sampled instances' dynamic
    power and the instance count)."""
    from .compute import PowerReport, by_module_of
    per_instance: dict[str, dict[str, float]] = {
        m: {p: 0.0 for p in ps} for m, ps in sampling.sampled.items()}
    out = []
    for ip in rep.instances:
        unit = sampling.unit_of(ip.path)
        if unit is None:
            out.append(ip)
            continue
        m, path, sampled = unit
        n, k = len(sampling.modules[m]), len(sampling.sampled[m])
        if sampled:
            per_instance[m][path] += ip.internal_w + ip.switching_w
            f = n / k
        else:
            f = 0.0
        out.append(type(ip)(ip.path, ip.cell, ip.module, leakage_w=ip.leakage_w,
                            internal_w=ip.internal_w * f, switching_w=ip.switching_w * f,
                            load=ip.load, cells=ip.cells))
    totals = {k: sum(getattr(ip, k) for ip in out)
              for k in ("leakage_w", "internal_w", "switching_w")}
    totals["total_w"] = sum(totals.values())
    unsampled = tuple(p + "/" for m, ps in sampling.modules.items() for p in ps
                      if p not in set(sampling.sampled[m]))
    missing = [n for n in rep.nets_without_activity if not n.startswith(unsampled)]
    scaled = PowerReport(instances=out, by_module=by_module_of(out), totals=totals,
                         port_switching_w=rep.port_switching_w, nets=rep.nets,
                         nets_without_activity=missing, extrapolated=rep.extrapolated,
                         units=rep.units, assumptions=rep.assumptions)
    return scaled, {m: {"instances": len(sampling.modules[m]),
                        "sampled_w": [per_instance[m][p] for p in sampling.sampled[m]]}
                    for m in sampling.modules}


def model_for(netlist: str, top: str, library: list[str], verilog: str,
              samples: int | None) -> tuple[Sampling, str]:
    """``(sampling, mixed model's Verilog)`` of a tile's gate-level ``netlist`` (top
    ``top``), its library modules and its emitted ``verilog``; ``samples`` per module (None:
    :func:`default_k`). A hierarchy the method cannot sample: ``ConfigError`` (``part``)."""
    from ...gen.errors import ConfigError
    try:
        sampling = plan_sampling(netlist, top, library, samples)
        return sampling, mixed_netlist(netlist, verilog, sampling)
    except ValueError as err:
        raise ConfigError("part", f"sampled: {err}; use --part whole or row") from None


#: How the report's ``sampling`` record was obtained.
HOW = ("replicated modules: the listed instances simulated at gate level, the others as "
       "their RTL in the same simulation; dynamic power = the sampled instances' mean x "
       "instances, leakage exact; standard error with the finite-population correction, "
       "bound95 = 1.96 standard errors (termwise.synth.power.sampled)")


def sampling_record(errors: dict, sampling: Sampling) -> dict:
    """Per replicated module: instances, the sampled ones, their mean dynamic power, the
    estimated total and its standard error and 95% bound (finite population)."""
    out = {}
    for m, e in errors.items():
        n, xs = e["instances"], e["sampled_w"]
        k = len(xs)
        mean = sum(xs) / k
        s = math.sqrt(sum((x - mean) ** 2 for x in xs) / (k - 1)) if k > 1 else 0.0
        fpc = math.sqrt((n - k) / (n - 1)) if n > 1 else 0.0
        se = n * s / math.sqrt(k) * fpc
        total = n * mean
        out[m] = {"instances": n, "sampled": sampling.sampled[m],
                  "cells_per_instance": sampling.cells.get(m),
                  "dynamic_mean_w": mean, "dynamic_stdev_w": s,
                  "dynamic_total_w": total, "standard_error_w": se,
                  "bound95_w": 1.96 * se,
                  "bound95_fraction": (1.96 * se / total) if total else 0.0}
    return out
