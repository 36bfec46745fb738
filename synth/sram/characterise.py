"""Characterise SRAM macro shapes with OpenRAM + ngspice and write the shipped figures.

For each shape (words, width), one at a time: run ``compile_macro.py`` under the OpenRAM
venv in a subprocess (with a timeout), read the macro's liberty (area, average read /
write / disabled power at the characterised period, leakage, clock-to-q, setup, minimum
period) and LEF outline, and keep them with the run's provenance. The raw figures are
scn4m_subm at 5.0 V; the scaled ones (0.18 um, 1.8 V) use the rules of
:mod:`termwise.golden.sram.scaling`'s constants, repeated here as numbers in the JSON so
that the file stands alone (docs/sram.md, "Scaling rules").

Each shape is cached under ``build/sram/scn4m_subm/<words>x<width>/`` (OpenRAM's output
folder plus ``run.json``): a re-run compiles only the shapes missing there. The JSON is
written atomically (a temporary file, then ``os.replace``).

OpenRAM's liberty (characterizer/lib.py, 1.2.48) writes, on the clock pin, one
``internal_power`` group per operation whose value is the *average supply power in mW*
over one clock cycle at the characterised period (``.meas tran ... avg`` of
-v(vdd)*i(vdd), scaled by 1e3, plus the untrimmed array's leakage), not an energy; the
``csb`` (deselected) groups are the same clocked cycle with the macro deselected. So the
energy of one access is ``(P_op - P_deselected) * T``: mW x ns = pJ, with ``T`` the
minimum period it was measured at. ``cell_leakage_power`` (clock stopped, deselected) is
kept as it is: in scn4m_subm it is 30 mW for 16 x 32, larger than a deselected clocked
cycle's power, i.e. a static (DC) current of the netlist in that state, not subthreshold
leakage (docs/sram.md, "Leakage").
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

from termwise.gen.errors import ConfigError, ToolError
from termwise.synth.liberty import Group, parse_groups

__all__ = ["SHAPES", "SCALE", "LibertyFigures", "parse_liberty", "parse_lef_size",
           "scaled", "characterise_shape", "characterise", "write_json", "cache_root",
           "shipped_json", "raw_figures", "parse_shapes", "main"]

#: The shapes characterised, smallest first (the operand buffers are 16 or 64 rows deep
#: and banked into macros of at most 64-256 bits; one deeper macro for chip-level buffers).
SHAPES = ((16, 16), (16, 32), (64, 32), (16, 64), (16, 128), (64, 64), (64, 128), (256, 64))

#: Scaling from scn4m_subm (SCMOS SCN4M_SUBM.20: lambda 0.20 um, TSMC 0.35 um class,
#: drawn L 0.4 um, 5.0 V nominal; OpenRAM technology/scn4m_subm/tech/tech.py and
#: SCN4M_SUBM.20.tech) to OSU 0.18 um (SCMOS SCN6M_SUBM.10: lambda 0.10 um, TSMC 0.18 um,
#: 1.8 V; /usr/share/qflow/tech/osu018/SCN6M_SUBM.10.tech, osu018_stdcells.lib
#: nom_voltage). Rules (Dennard et al., IEEE JSSC 9(5), 1974; Rabaey, Chandrakasan,
#: Nikolic, "Digital Integrated Circuits", 2nd ed., ch. 3.5): lengths x s, area x s^2,
#: capacitance x s, switching energy C V^2 x s (V'/V)^2, gate delay x s (constant field),
#: leakage power I V x s (V'/V) (indicative only: threshold voltages do not scale so).
SCALE = {
    "lambda_from_um": 0.20, "lambda_to_um": 0.10,
    "vdd_from_v": 5.0, "vdd_to_v": 1.8,
}


def _factors() -> dict[str, float]:
    s = SCALE["lambda_to_um"] / SCALE["lambda_from_um"]
    v = SCALE["vdd_to_v"] / SCALE["vdd_from_v"]
    return {"linear": s, "area": s * s, "energy": s * v * v, "delay": s, "leakage": s * v}


def shipped_json() -> str:
    """The shipped data file, ``golden/sram/openram_scn4m_subm.json`` in the package (the
    golden layer reads it; this layer only writes it, so it names the path itself)."""
    from termwise.gen.results.locations import PACKAGE_ROOT
    return os.path.join(PACKAGE_ROOT, "golden", "sram", "openram_scn4m_subm.json")


def cache_root() -> str:
    """``build/sram/scn4m_subm`` of the checkout (``$TERMWISE_SRAM_CACHE`` overrides)."""
    from termwise.gen.results.locations import PACKAGE_ROOT
    return os.environ.get("TERMWISE_SRAM_CACHE",
                          os.path.join(PACKAGE_ROOT, "build", "sram", "scn4m_subm"))


def _scalar(group: Group) -> float:
    """The single value of a ``rise_power(scalar) { values("x"); }``-like table."""
    vals = group.complex.get("values", [[]])[0]
    nums = [float(x) for a in vals for x in a.replace(",", " ").split()]
    if not nums:
        raise ValueError(f"no values in {group.type}")
    return sum(nums) / len(nums)


def _mean_table(group: Group, name: str) -> float | None:
    tables = [t for t in group.children if t.type == name]
    return sum(_scalar(t) for t in tables) / len(tables) if tables else None


def _units(lib: Group) -> dict[str, float]:
    """Factors to mW, ns and um2 from the library's unit attributes."""
    def factor(text: str, table: dict[str, float], default: float) -> float:
        m = re.match(r"\s*([0-9.eE+-]*)\s*([a-zA-Z]+)", text or "")
        if not m:
            return default
        return float(m.group(1) or 1) * table.get(m.group(2), default)
    power = factor(lib.attrs.get("leakage_power_unit", "1mW"),
                   {"mW": 1.0, "uW": 1e-3, "nW": 1e-6, "pW": 1e-9, "W": 1e3}, 1.0)
    time_ = factor(lib.attrs.get("time_unit", "1ns"), {"ns": 1.0, "ps": 1e-3}, 1.0)
    return {"power_mw": power, "time_ns": time_}


def _clock_powers(cell: Group, upw: float) -> dict[str, float]:
    """Average powers (mW) per operation from the clock pin's ``internal_power`` groups,
    told apart by their ``when`` (``!csb & !web`` write, ``!csb & web`` read, ``csb ...``
    disabled); rise and fall tables averaged."""
    out: dict[str, list[float]] = {}
    for pin in cell.groups("pin"):
        if pin.attrs.get("clock") != "true":
            continue
        for ip in pin.groups("internal_power"):
            when = ip.attrs.get("when", "").replace(" ", "")
            enabled = when.startswith("!csb")
            write = "!web" in when
            key = ("write" if write else "read") if enabled else \
                ("disabled_write" if write else "disabled_read")
            vals = [v for v in (_mean_table(ip, "rise_power"), _mean_table(ip, "fall_power"))
                    if v is not None]
            out.setdefault(key, []).extend(vals)
    return {k: upw * sum(v) / len(v) for k, v in out.items() if v}


class LibertyFigures(dict):
    """The figures of one OpenRAM macro liberty, in mW, ns, um2 and V (a plain dict, so it
    goes to JSON as is): ``area_um2``, ``vdd_v``, ``leakage_mw``, ``power_mw`` (``read``,
    ``write``, ``disabled_read``, ``disabled_write``: average over one cycle),
    ``clk_fall_to_q_ns`` (data out after the clock's falling edge, OpenRAM's
    ``falling_edge`` arc, rise and fall averaged), ``setup_ns`` (largest setup constraint),
    ``min_period_ns``."""


def _constraints(cell: Group, kind: str) -> list[float]:
    """Every value of ``kind`` timing arcs (``setup_rising``, ``minimum_period``) on the
    cell's pins and bus pins."""
    vals = []
    stack = list(cell.children)
    while stack:
        g = stack.pop()
        if g.type == "timing" and g.attrs.get("timing_type") == kind:
            for t in g.children:
                vals += [float(x) for a in t.complex.get("values", []) for s in a
                         for x in s.replace(",", " ").split()]
        else:
            stack.extend(g.children)
    return vals


def _output_delay(cell: Group) -> float:
    """Mean ``cell_rise`` / ``cell_fall`` of the data-out arcs (all table entries)."""
    vals = []
    for bus in cell.groups("bus"):
        if bus.attrs.get("direction") != "output":
            continue
        for pin in bus.groups("pin") or [bus]:
            for t in pin.groups("timing"):
                for tab in t.children:
                    if tab.type in ("cell_rise", "cell_fall"):
                        vals += [float(x) for a in tab.complex.get("values", []) for s in a
                                 for x in s.replace(",", " ").split()]
    if not vals:
        raise ValueError("no data-out delay table")
    return sum(vals) / len(vals)


def parse_liberty(text: str) -> LibertyFigures:
    """The figures of an OpenRAM single-port macro liberty (one ``cell``).

    Raises
    ------
    ValueError
        When the text has no library, no cell, or misses a figure.
    """
    libs = [g for g in parse_groups(text) if g.type == "library"]
    if not libs or not libs[0].groups("cell"):
        raise ValueError("no library with a cell")
    lib, cell = libs[0], libs[0].groups("cell")[0]
    units = _units(lib)
    leak = cell.attrs.get("cell_leakage_power")
    periods = _constraints(cell, "minimum_period")
    if leak is None or not periods:
        raise ValueError("no cell_leakage_power or minimum_period")
    setups = _constraints(cell, "setup_rising")
    return LibertyFigures(
        area_um2=float(cell.attrs.get("area", "0")),
        vdd_v=float(lib.attrs.get("nom_voltage", "nan")),
        leakage_mw=float(leak) * units["power_mw"],
        power_mw=_clock_powers(cell, units["power_mw"]),
        clk_fall_to_q_ns=_output_delay(cell) * units["time_ns"],
        setup_ns=max(setups) * units["time_ns"] if setups else 0.0,
        min_period_ns=max(periods) * units["time_ns"])


_LEF_SIZE = re.compile(r"^\s*SIZE\s+([0-9.eE+-]+)\s+BY\s+([0-9.eE+-]+)\s*;", re.M)


def parse_lef_size(text: str) -> tuple[float, float]:
    """The first macro's ``SIZE w BY h`` (um) of a LEF."""
    m = _LEF_SIZE.search(text)
    if not m:
        raise ValueError("no SIZE in LEF")
    return float(m.group(1)), float(m.group(2))


def raw_figures(lib: LibertyFigures, lef_wh: tuple[float, float]) -> dict:
    """The macro's figures in scn4m_subm at its own voltage: the energy of an access (pJ)
    is ``(P_op - P_deselected) x min_period``, what an enabled cycle costs over a clocked
    cycle with the macro deselected (module docstring); ``idle_pj`` is the deselected
    cycle's own energy; access time from the rising edge is half the period plus the
    falling-edge delay."""
    t = lib["min_period_ns"]
    p = lib["power_mw"]
    return {
        "area_um2": round(lef_wh[0] * lef_wh[1], 3), "lef_w_um": lef_wh[0], "lef_h_um": lef_wh[1],
        "liberty_area_um2": lib["area_um2"], "vdd_v": lib["vdd_v"],
        "read_pj": round((p["read"] - p["disabled_read"]) * t, 6),
        "write_pj": round((p["write"] - p["disabled_write"]) * t, 6),
        "idle_pj": round(p["disabled_read"] * t, 6),
        "leakage_w": lib["leakage_mw"] * 1e-3,
        "clk_fall_to_q_ns": round(lib["clk_fall_to_q_ns"], 6),
        "access_ns": round(t / 2 + lib["clk_fall_to_q_ns"], 6),
        "setup_ns": lib["setup_ns"], "min_period_ns": t,
        "liberty": dict(lib),
    }


def scaled(raw: dict) -> dict:
    """``raw`` at 0.18 um / 1.8 V by :data:`SCALE`'s rules."""
    f = _factors()
    return {
        "area_um2": round(raw["area_um2"] * f["area"], 3),
        "read_pj": round(raw["read_pj"] * f["energy"], 6),
        "write_pj": round(raw["write_pj"] * f["energy"], 6),
        "idle_pj": round(raw["idle_pj"] * f["energy"], 6),
        "leakage_w": raw["leakage_w"] * f["leakage"],
        "access_ns": round(raw["access_ns"] * f["delay"], 6),
        "min_period_ns": round(raw["min_period_ns"] * f["delay"], 6),
        "setup_ns": round(raw["setup_ns"] * f["delay"], 6),
    }


def _openram_python() -> str:
    from termwise.gen.results.locations import PACKAGE_ROOT
    return os.environ.get("TERMWISE_OPENRAM_PYTHON",
                          os.path.join(PACKAGE_ROOT, ".venv-openram", "bin", "python"))


def _shape_dir(words: int, width: int, root: str | None = None) -> str:
    return os.path.join(root or cache_root(), f"{words}x{width}")


def _read_shape(folder: str, name: str) -> dict:
    """The cached shape's provenance and raw figures (ValueError when incomplete)."""
    with open(os.path.join(folder, "run.json")) as f:
        run = json.load(f)
    libs = [n for n in os.listdir(folder) if n.startswith(name) and n.endswith(".lib")]
    if not libs:
        raise ValueError(f"no liberty in {folder}")
    with open(os.path.join(folder, sorted(libs)[0])) as f:
        lib = parse_liberty(f.read())
    with open(os.path.join(folder, name + ".lef")) as f:
        wh = parse_lef_size(f.read())
    return {"run": run, "liberty_file": sorted(libs)[0], "raw": raw_figures(lib, wh)}


def characterise_shape(words: int, width: int, root: str | None = None,
                       timeout_s: float = 3600.0) -> dict:
    """One shape's figures: from the cache, else by running OpenRAM (one process).

    Raises
    ------
    ToolError
        When OpenRAM fails, times out or leaves no usable liberty (names its log).
    """
    folder = _shape_dir(words, width, root)
    name = f"sram_{words}x{width}"
    try:
        return _read_shape(folder, name)
    except (OSError, ValueError):
        pass
    os.makedirs(folder, exist_ok=True)
    log = os.path.join(folder, "compile_macro.log")
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compile_macro.py")
    argv = [_openram_python(), script, "--words", str(words), "--width", str(width),
            "-o", folder, "--name", name]
    with open(log, "w") as out:
        try:
            # A session of its own: on a timeout the whole group goes (OpenRAM's ngspice
            # runs under a shell under it, and would outlive its parent).
            # cwd: ngspice leaves its model-check log (b3v3_1check.log) in the current
            # folder; the shape's folder keeps it out of the checkout.
            proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True, cwd=folder)
        except OSError as err:
            raise ToolError("openram", None, log, f"cannot start: {err}") from None
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait()
            raise ToolError("openram", None, log, f"timed out after {timeout_s:.0f} s") from None
    if proc.returncode != 0:
        raise ToolError("openram", proc.returncode, log)
    try:
        return _read_shape(folder, name)
    except (OSError, ValueError) as err:
        raise ToolError("openram", None, log, f"no usable output: {err}") from None


def characterise(shapes=SHAPES, root: str | None = None, deadline: float | None = None,
                 timeout_s: float = 3600.0, log=print, on_failure=None) -> list[dict]:
    """Every shape of ``shapes`` in order (cached ones read, missing ones compiled), one
    OpenRAM process at a time; a shape not cached is not started after ``deadline`` (a
    ``time.time()``), and is left out. A shape whose run fails is skipped; after the
    others, ``on_failure(done)`` is called (say, to write them) and the first
    :class:`ToolError` raised."""
    out, failed = [], []
    for words, width in shapes:
        cached = os.path.exists(os.path.join(_shape_dir(words, width, root), "run.json"))
        if not cached and deadline is not None and time.time() > deadline:
            log(f"sram: {words}x{width} skipped (past the deadline)")
            continue
        log(f"sram: {words}x{width} {'cached' if cached else 'compiling'}")
        try:
            shape = characterise_shape(words, width, root, timeout_s)
        except ToolError as err:
            # The other shapes still count: kept, and the first failure raised at the end.
            log(f"sram: {words}x{width} failed: {err}")
            failed.append(err)
            continue
        shape["words"], shape["width"] = words, width
        shape["scaled"] = scaled(shape["raw"])
        out.append(shape)
    if failed and on_failure is not None:
        on_failure(out)
    if failed:
        raise failed[0]
    return out


def write_json(shapes: list[dict], path: str) -> None:
    """The shipped data file: the shapes, the scaling rules and their factors; written to a
    temporary file in the same folder, then moved over ``path`` (atomic)."""
    doc = {
        "about": "SRAM macros compiled and characterised by OpenRAM (SPICE: ngspice) in "
                 "scn4m_subm (SCMOS, lambda 0.20 um, 5.0 V, TT, 25 C), scaled to 0.18 um / "
                 "1.8 V. Energies per access of the whole word (pJ), leakage W, times ns, "
                 "area um2. See docs/sram.md.",
        "scale": SCALE | {"factors": _factors()},
        "shapes": [{k: s[k] for k in ("words", "width", "raw", "scaled", "run",
                                      "liberty_file")} for s in shapes],
    }
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".sram-", suffix=".json", dir=folder)
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.chmod(tmp, 0o644)          # mkstemp's 0600 would ship an unreadable data file
    os.replace(tmp, path)


def parse_shapes(text: str) -> tuple[tuple[int, int], ...]:
    """``"16x32,64x64"`` as ((16, 32), (64, 64)); ConfigError naming ``shapes`` otherwise
    (OpenRAM needs at least 16 words)."""
    out = []
    for item in text.split(","):
        m = re.fullmatch(r"\s*(\d+)x(\d+)\s*", item)
        if not m or int(m.group(1)) < 16 or int(m.group(2)) < 1:
            raise ConfigError("shapes", f"must be WORDSxWIDTH,... with WORDS >= 16 and "
                                        f"WIDTH >= 1, got {item!r}")
        out.append((int(m.group(1)), int(m.group(2))))
    return tuple(out)


def main(argv: list[str] | None = None) -> int:
    """``python -m termwise.synth.sram.characterise [--until HH:MM]`` (UTC)."""
    import argparse
    import datetime
    ap = argparse.ArgumentParser(description="characterise SRAM macro shapes with OpenRAM")
    ap.add_argument("--until", help="start no new OpenRAM run after this UTC time HH:MM")
    ap.add_argument("--shapes", help="WORDSxWIDTH,... (default: all of SHAPES)")
    ap.add_argument("--timeout", type=float, default=3600.0,
                    help="seconds one OpenRAM run may take (default 3600)")
    ap.add_argument("-o", "--output", default=shipped_json())
    args = ap.parse_args(argv)
    deadline = None
    if args.until:
        now = datetime.datetime.now(datetime.timezone.utc)
        m = re.fullmatch(r"([01]?\d|2[0-3]):([0-5]\d)", args.until)
        if not m:
            raise ConfigError("until", f"must be HH:MM (UTC), got {args.until!r}")
        hh, mm = int(m.group(1)), int(m.group(2))
        deadline = now.replace(hour=hh, minute=mm, second=0, microsecond=0).timestamp()
    shapes = SHAPES if not args.shapes else parse_shapes(args.shapes)
    done = characterise(shapes, deadline=deadline, timeout_s=args.timeout,
                        on_failure=lambda ok: write_json(ok, args.output) if ok else None)
    write_json(done, args.output)
    print(f"sram: {len(done)} shapes -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
