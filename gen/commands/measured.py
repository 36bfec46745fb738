"""``termwise measured``: the project's shipped syntheses and power reports
(:mod:`termwise.synth.measured_store`).

    termwise measured list             # every entry: kind, key, preset, current or stale
    termwise measured add DIR [DIR...] # keep the cache entries behind the reports under DIR

An entry is *current* when measuring its configuration now, with this checkout's Verilog,
scripts, tools and flow versions, would give the same key
(:func:`termwise.synth.power.keys.is_current`): only then does a lookup find it. ``list``
recomputes each key (rendering each configuration's Verilog: seconds to a minute for a
16x16 tile) and exits 1 when an entry is stale, so that a change of the Verilog or of the
power flow's version is seen to retire the results measured before it.
"""

from __future__ import annotations

import os
import sys

from ..spec import ConfigError

__all__ = ["register"]

#: Position in ``termwise --help``: after report.
ORDER = 76


def _summary(kind: str, folder: str) -> str:
    from ...synth.measured_store import PROVENANCE, load
    when = ""
    if os.path.isfile(os.path.join(folder, PROVENANCE)):
        when = f", measured {load(folder, PROVENANCE).get('measured')}"
    if kind == "asic":
        a = load(folder, "synth_report.json")["asic"]
        return (f"{a['area_um2'] / 1e6:.2f} mm2, {a['fmax_mhz']:g} MHz, DRV "
                f"{(a.get('drv_violations') or {}).get('count')}{when}")
    rep = load(folder, "power_report.json")
    act = rep.get("activity") or {}
    return (f"{rep['power_w']['tile']:.4f} W at {rep['clock']['mhz']:g} MHz, activity "
            f"{act.get('source')} ({act.get('cycles_simulated')} cycles){when}")


def _cmd_list(args) -> int:
    from ...synth.measured_store import entries, load, root
    from ...synth.power.keys import is_current
    found = entries()
    if not found:
        print(f"no measured results in {root()}")
        return 0
    stale = 0
    for kind, key, folder in found:
        name = "synth_report.json" if kind == "asic" else "power_report.json"
        preset = load(folder, name).get("preset")
        ok = args.no_check or is_current(kind, folder, key)
        stale += not ok
        state = "" if args.no_check else ("current " if ok else "STALE   ")
        print(f"{kind:5s} {key} {state}{preset}: {_summary(kind, folder)}")
    if stale:
        print(f"{stale} stale entr{'y' if stale == 1 else 'ies'}: never read; remove or "
              "measure again", file=sys.stderr)
    return 1 if stale else 0


def _cmd_add(args) -> int:
    from ...synth.measured_store import add
    from ..results import locations
    synth_cache = locations.synth_cache_root(args.cache_dir)
    power_cache = locations.power_cache_dir(args.cache_dir)
    for d in args.dirs:
        if not os.path.isdir(d):
            raise ConfigError("dirs", f"must be directories, got {d!r}")
    try:
        added = add(args.dirs, synth_cache=synth_cache, power_cache=power_cache)
    except (OSError, ValueError) as err:
        raise ConfigError("dirs", str(err)) from None
    print(f"{len(added)} entr{'y' if len(added) == 1 else 'ies'} added")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("measured", help="the syntheses and power reports the project "
                                               "measured and ships: list, add")
    sub = p.add_subparsers(dest="measured_command", required=True, parser_class=type(p))
    q = sub.add_parser("list", help="every shipped entry and whether its key is current")
    q.add_argument("--no-check", action="store_true",
                   help="do not recompute the keys (no Verilog rendered)")
    q.set_defaults(func=_cmd_list)
    q = sub.add_parser("add", help="copy the cache entries behind the synth/power reports "
                                   "under DIR into the shipped store")
    q.add_argument("dirs", nargs="+", metavar="DIR")
    q.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="synthesis cache (default build/synth-cache; the power cache is "
                        "its sibling power-cache)")
    q.set_defaults(func=_cmd_add)
