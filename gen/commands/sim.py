"""``termwise sim``: network-level cycles of every design on a workload.

    termwise sim --workload NAME --arch ARCH[,ARCH...|all] [--precision 8|16]
                 [--brick-order position|channel] [--depthwise diagonal|group]
                 [--fc columns|window] -o DIR

Each design runs on its equal-peak 16x16 preset of hardware as wide as the workload's values:
``-16x16`` at ``--precision 16`` (256 16-bit MAC/cycle), ``-16x16-8b`` at ``--precision 8``
(256 8-bit MAC/cycle), so an 8-bit workload's speedups divide by an 8-bit baseline. The
baseline is always simulated, as the reference of the speedups. ``--brick-order`` chooses
what a brick of a convolution holds (:mod:`termwise.golden.lowering`): ``position`` (the
default, the papers') the channels of one kernel position, zero padded to whole bricks;
``channel`` 16 consecutive values of the channel-major im2col row. ``--depthwise`` chooses
how a depthwise convolution is mapped: ``diagonal`` (the default) packs 16 channels into one
tile group with block-diagonal weights, so every filter row of the tile works; ``group``
runs one group per channel on one filter row. ``--fc`` chooses how a fully-connected layer at
batch 1 is mapped: ``columns`` (the default, the papers') deals its input bricks over the
window columns on the designs that have per-column weight registers (``fc_columns``, set on
their presets for the simulation); ``window`` runs it on one window column, as a design
without them must. Writes DIR/sim.json (per design: its preset,
hardware width and reference preset; ``brick_order``, ``depthwise``), sim.csv, sim.md (its
header states the brick order and the depthwise mapping; per layer, the utilisation of the
baseline's MAC slots) and sim_*.png.

Energy (:mod:`termwise.golden.netsim.energy`): sim.json's ``energy`` section and sim.md's
"Energy" section give per design the on-chip buffer and off-chip DRAM energy of the
workload (memory accesses counted on the design's lowering, Horowitz's ISSCC 2014 per-bit
energies, the SRAM's brought to 0.18 um at 1.8 V) and, for the designs with a power record,
the tile's compute energy (tile power x rtl_cycles / clock), per inference.
``--power-reports DIR`` takes the records from the ``power_report.json`` files under DIR
(``termwise power``), matched to the designs by preset name.
"""

from __future__ import annotations

import sys
import time

from ..config import ConfigError
from ..designs import sim_designs
from .args import check_precision

__all__ = ["register", "run_sim", "parse_archs", "read_power_reports"]

#: Position in ``termwise --help``.
ORDER = 70

#: What a convolution's brick holds in each brick order, as sim.json and sim.md state it.
BRICK_ORDER_TEXT = {
    "position": "the papers' bricks: the channels of one kernel position, zero padded to a "
                "multiple of the lanes (ceil(C/lanes) x R x S bricks per window; no brick "
                "mixes kernel positions)",
    "channel": "lanes consecutive values of the channel-major im2col row (c, r, s), zero "
               "padded once at the end (ceil(C x R x S / lanes) bricks per window; a brick "
               "may mix kernel positions)",
}

#: How a depthwise convolution is mapped in each mapping, as sim.json and sim.md state it.
DEPTHWISE_TEXT = {
    "diagonal": "channel-diagonal packing: lanes consecutive channels form one tile group, "
                "lowered as a dense convolution whose weights are block diagonal (tile filter "
                "f carries the kernel of the group's channel f at that channel's lane, zeros "
                "elsewhere; with a channel multiplier m the m filters of a channel share its "
                "lane), so every filter row works each step; the last tile group is padded "
                "with zero channels and filters",
    "group": "one group per channel with its own filters: each step uses one filter row of "
             "the tile (and, in the position order, one lane)",
}

#: How a batch-1 fully-connected layer is mapped in each mapping, as sim.json and sim.md
#: state it.
FC_TEXT = {
    "columns": "the input bricks dealt over the window columns, each column with its own "
               "weights (the papers' staggering; per-column weight registers, fc_columns = 1, "
               "on the designs that have them, one round of weights read per max(step, "
               "windows) cycles); the other designs run it on one window column",
    "window": "a matrix product whose one window is the image: one window column works",
}

#: Window groups sampled per layer by default for the synthetic shape-only workloads.
SHAPES_DEFAULT_SAMPLE = 64
#: Default bound of PE-lane evaluations per layer and design (netsim ``sample_pairs``):
#: 2048 steps of a 16x16x16 tile, 512 of a 64-window one.
DEFAULT_SAMPLE_PAIRS = 1 << 23


def parse_archs(text: str) -> list[str]:
    from ...golden.netsim import PRESETS
    if not text:
        raise ConfigError("designs", f"give one or more of {', '.join(PRESETS)} or 'all'")
    if text == "all":
        return list(PRESETS)
    archs = [a.strip() for a in text.split(",") if a.strip()]
    for a in archs:
        if a not in PRESETS:
            raise ConfigError("designs", f"must be 'all' or a comma list of {', '.join(PRESETS)}, "
                              f"got {a!r}")
    return list(dict.fromkeys(archs))


def read_power_reports(root: str) -> dict:
    """The ``power_report.json`` files under ``root`` (recursively) as ``{preset: {path
    relative to root: power record}}`` (:func:`termwise.gen.flows.reports.files.power_record`,
    checked as :func:`termwise.golden.netsim.check_power_record` takes them). A missing
    directory, one without reports or a malformed report is a :class:`ConfigError` naming
    ``power_reports``."""
    from ...golden.netsim import check_power_record
    from ..flows.reports.files import POWER_REPORT, json_reports, power_record
    found = {}
    for path, rel, doc in json_reports(root, POWER_REPORT, "power_reports"):
        rec = power_record(doc, path, rel, "power_reports")
        checked = check_power_record(rec["preset"], rec)
        found.setdefault(checked["preset"], {})[rel] = checked
    return found


def _power_for(designs, bits: int, reports: dict) -> tuple[dict, list]:
    """``({design: power record}, [ignored presets])``: the reports of each design's preset
    (:func:`termwise.golden.netsim.design_preset`); two reports of one preset in use are a
    ConfigError (which one would be a guess)."""
    from ...golden.netsim import design_preset
    power = {}
    for d in designs:
        recs = reports.get(design_preset(d, bits), {})
        if len(recs) > 1:
            raise ConfigError("power_reports", f"{len(recs)} reports of preset "
                                               f"{design_preset(d, bits)} ({', '.join(recs)}): "
                                               "keep one")
        if recs:
            power[d] = next(iter(recs.values()))
    used = {design_preset(d, bits) for d in designs}
    return power, sorted(p for p in reports if p not in used)


def run_sim(workload: str, archs, precision, out_dir, *, images: int | None = None,
            max_window_groups=None, sample_pairs=DEFAULT_SAMPLE_PAIRS, plots: bool = True,
            log=None, workers: int | None = None, brick_order: str | None = None,
            depthwise: str | None = None, signed_digits: str | None = None,
            fc: str | None = None, power: dict | None = None,
            power_reports: str | None = None, loaded=None) -> dict:
    """Simulate and write the reports; returns the sim.json document. ``brick_order``:
    :data:`termwise.golden.lowering.ORDERS` (default the papers' ``position``);
    ``depthwise``: :data:`termwise.golden.lowering.DEPTHWISE_MAPPINGS` (default
    ``diagonal``); ``signed_digits``: the terms the Booth-coded designs are costed in,
    ``booth`` (the default, the hardware's) or ``csd`` (a model-only comparison point);
    ``fc``: :data:`termwise.golden.netsim.FC_MAPPINGS` (default ``columns``).

    ``power``: ``{design: {"preset", "tile_w", "clock_mhz", "source"}}``, the tile power
    (W) of a design's preset under some activity, its clock and a short text saying which
    report and activity (:func:`termwise.golden.netsim.check_power_record`); the designs
    given one get compute energy in sim.json's ``energy`` section, the others memory energy
    only. ``power_reports``: a directory whose ``power_report.json`` files
    (:func:`read_power_reports`) give the records of the designs whose preset they are of
    (reports of other presets ignored); a record in ``power`` wins over a report's.

    ``loaded``: ``workload`` as :func:`termwise.golden.workloads.load_workload` returned it
    for these ``precision`` and ``images``, when the caller loaded it already (``termwise
    report`` does, before any synthesis): not loaded, and its notes not printed, again."""
    from ...golden import netsim
    from ...golden.netsim import simulate as netsim_simulate
    from ..flows.reports.sim import summarise, write_reports
    from ...golden.netsim import network_output_traffic
    from ...golden.workloads import WORKLOADS, load_workload
    from ...golden.arch import model_of
    from ...golden.work import MODEL_ENCODING, signed_digits as model_encoding

    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    if workload not in WORKLOADS:
        raise ConfigError("workload", f"must be one of {', '.join(WORKLOADS)}, got "
                          f"{workload!r}")
    from ...golden.lowering import DEFAULT_DEPTHWISE, DEFAULT_ORDER, DEPTHWISE_MAPPINGS, ORDERS
    bits = check_precision(precision)
    order = DEFAULT_ORDER if brick_order is None else brick_order
    if order not in ORDERS:
        raise ConfigError("brick_order", f"must be one of {', '.join(ORDERS)}, got "
                          f"{brick_order!r}")
    mapping = DEFAULT_DEPTHWISE if depthwise is None else depthwise
    if mapping not in DEPTHWISE_MAPPINGS:
        raise ConfigError("depthwise", f"must be one of {', '.join(DEPTHWISE_MAPPINGS)}, got "
                          f"{depthwise!r}")
    digits = "booth" if signed_digits is None else signed_digits
    if digits not in netsim_simulate.SIGNED_DIGITS:
        raise ConfigError("signed_digits", f"must be one of "
                          f"{', '.join(netsim_simulate.SIGNED_DIGITS)}, got {signed_digits!r}")
    fc = netsim_simulate.DEFAULT_FC if fc is None else fc
    if fc not in netsim_simulate.FC_MAPPINGS:
        raise ConfigError("fc", f"must be one of {', '.join(netsim_simulate.FC_MAPPINGS)}, "
                          f"got {fc!r}")
    archs = parse_archs(archs) if isinstance(archs, str) else list(archs)
    if images is not None and (isinstance(images, bool) or not isinstance(images, int)
                               or images < 1):
        raise ConfigError("images", f"must be a positive integer, got {images!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or not 1 <= workers <= 64):
        raise ConfigError("workers", f"must be an integer in 1..64, got {workers!r}")
    if max_window_groups is not None and max_window_groups < 1:
        raise ConfigError("max_window_groups", f"must be >= 1, got {max_window_groups}")
    ref = netsim.REFERENCE
    wanted = [ref] + [a for a in archs if a != ref]
    if power is not None and not isinstance(power, dict):
        raise ConfigError("power", f"must be a dict design -> power record, got {power!r}")
    given = {}
    for d, rec in (power or {}).items():
        if d not in wanted:
            raise ConfigError("power", f"{d!r} is not a simulated design (designs: "
                                       f"{', '.join(wanted)})")
        given[d] = netsim.check_power_record(d, rec, netsim.design_preset(d, bits))
    power, ignored = _power_for(wanted, bits, read_power_reports(power_reports)) \
        if power_reports is not None else ({}, [])
    power.update(given)
    ok, skipped = netsim.available_designs([ref] + [a for a in archs if a != ref])
    if ref not in ok:
        raise ConfigError("arch", "the baseline golden model is required for speedups")
    for a, why in skipped.items():
        log(f"note: skipping {a}: {why}")
    for p in ignored:
        log(f"note: power report(s) of preset {p} ignored: no simulated design runs on it")
    t0 = time.perf_counter()
    # Each workload has its own default input count (one photo for EfficientNet, the whole
    # test set for the digits CNN); pass --images only when the user chose it.
    kw = {} if images is None else {"images": images}
    wl = loaded if loaded is not None else load_workload(workload, bits, log=log, **kw)
    if wl.synthetic and max_window_groups is None:
        max_window_groups = SHAPES_DEFAULT_SAMPLE
    log(f"{wl.name}: {len(wl.layers)} layers, {wl.macs / 1e6:.1f} M MACs, designs "
        f"{', '.join(ok)}, brick order {order}, depthwise {mapping}, signed digits {digits}, "
        f"fc {fc}")

    def progress(i, n, layer, sec):
        log(f"  [{i:3d}/{n}] {layer.name:14s} {layer.shape_text():34s} {sec:6.2f} s")

    results = netsim.simulate_layers(wl.layers, ok, bits=bits, order=order, depthwise=mapping,
                                     signed_digits=digits, fc=fc,
                                     max_window_groups=max_window_groups,
                                     sample_pairs=sample_pairs, progress=progress,
                                     workers=workers)
    layers, total = summarise(results, ok)
    cfgs = {a: netsim.sim_config(a, bits, fc) for a in ok}
    reference = netsim.design_preset(ref, bits)
    peak = cfgs[ref].peak_macs_per_cycle(bits)
    sampled = any(d["sampled"] for r in layers for d in r["designs"].values())
    # A design's term encoding: its option, else its golden model's own (Diffy's deltas).
    encodings = {a: cfg.encoding or getattr(model_of(cfg), "ENCODING", None)
                 for a, cfg in cfgs.items()}
    doc = {
        "workload": wl.name,
        "precision": bits,
        "synthetic": wl.synthetic,
        "notes": wl.notes,
        "macs": wl.macs,
        # Per design: its preset, the hardware's width, its peak at that width and the
        # preset its speedups divide by.
        "designs": {a: {"preset": netsim.design_preset(a, bits), "config": cfgs[a].to_dict(),
                        f"peak_macs_per_cycle_{bits}b": cfgs[a].peak_macs_per_cycle(bits),
                        "hardware_bits": bits, "reference": reference}
                    for a in ok},
        "hardware_bits": bits,
        "reference": {"design": ref, "preset": reference},
        "equal_peak_throughput": f"every design at {peak:g} {bits}-bit MAC/cycle (16x16 "
                                 f"presets{'' if bits == 16 else f' of {bits}-bit hardware'})",
        # What a convolution's brick holds (golden/lowering.py and the mapping conventions
        # of docs/papers.md).
        "brick_order": order,
        "brick_order_text": BRICK_ORDER_TEXT[order],
        # How a depthwise convolution is mapped (golden/lowering.py), and how many layers
        # of the workload are depthwise.
        "depthwise": mapping,
        "depthwise_text": DEPTHWISE_TEXT[mapping],
        "depthwise_layers": sum(netsim_simulate.layer_is_depthwise(layer)
                                for layer in wl.layers),
        # How a batch-1 fully-connected layer is mapped, and on which designs its input
        # bricks are dealt over the columns (per-column weight registers).
        "fc": fc,
        "fc_text": FC_TEXT[fc],
        "fc_columns": [a for a in ok if cfgs[a].fc_columns],
        "skipped": skipped,
        # The term encoding of every design that counts terms (cycles and ideal work alike):
        # the hardware's, unless --signed-digits csd replaced Booth in the model.
        "signed_digits": digits,
        "encodings": {d: model_encoding(e, {MODEL_ENCODING: digits})
                      for d, e in encodings.items() if e},
        "sampling": (("; ".join(
            ([f"window groups of each layer sampled evenly (np.linspace(0, WG-1, "
              f"{max_window_groups}).round())"] if max_window_groups else []) +
            ([f"at most {sample_pairs} // (filters*windows*lanes) steps per layer and "
              f"design, uniform without replacement (numpy default_rng(0))"]
             if sample_pairs else [])) +
            "; step cycles scaled by all/sampled steps, run counts exact, baseline and "
            "Stripes totals exact") if sampled else "none (every step simulated)"),
        "layers": layers,
        "total": total,
        # Output-side traffic with and without the fused output stage, on the baseline's
        # tile (lanes, depth, acc_bits); out_bits = the workload's fixed-point width.
        "traffic": network_output_traffic(wl.layers, cfgs[netsim.REFERENCE], bits, order,
                                          mapping),
    }
    # Energy per inference: memory accesses on each design's lowering, compute from the
    # power records; the inputs simulated are the layers' batch.
    n_images = int(wl.layers[0].act.shape[0])
    doc["energy"] = netsim.network_energy(
        wl.layers, cfgs, {a: [r.designs[a].get("rtl_cycles", r.designs[a]["cycles"])
                              for r in results] for a in ok},
        out_bits=bits, images=n_images, order=order, depthwise=mapping,
        power={a: rec for a, rec in power.items() if a in ok})
    with_power = [a for a in ok if a in power]
    log(f"energy: compute from power records of {', '.join(with_power)}" if with_power else
        "energy: memory only (no power records: --power-reports DIR)")
    doc["seconds"] = time.perf_counter() - t0
    paths = write_reports(out_dir, doc, plots=plots)
    log(f"wrote {', '.join(paths)} in {doc['seconds']:.1f} s")
    return doc


def _cmd_sim(args) -> int:
    doc = run_sim(args.workload, args.designs, args.precision, args.output, images=args.images,
                  max_window_groups=args.max_window_groups,
                  sample_pairs=None if args.exact else args.sample_pairs,
                  plots=not args.no_plots, workers=args.workers,
                  brick_order=args.brick_order, depthwise=args.depthwise,
                  signed_digits=args.signed_digits, fc=args.fc,
                  power_reports=args.power_reports)
    energy = doc["energy"]["designs"]
    for a, t in doc["total"].items():
        e = energy[a]["per_inference"]
        tot = "" if e["total_j"] is None else f"  energy/inference {e['total_j'] * 1e6:.4g} uJ"
        print(f"{a:10s} cycles {t['cycles']:>14d}  speedup {t['speedup']:6.2f}x  "
              f"ideal {t['ideal']:6.2f}x  achieved/ideal {t['achieved_over_ideal']:.2f}"
              f"{tot}")
    return 0


def register(subparsers):
    """Add the ``sim`` subcommand (the tile configuration comes from the presets, so the
    configuration arguments are not used)."""
    p = subparsers.add_parser("sim", help="network-level cycles of the designs on a workload")
    from ...golden.workloads import WORKLOADS
    p.add_argument("--workload", required=True,
                   help=" | ".join(WORKLOADS) + " (alexnet, vgg16, resnet50: synthetic values; "
                        "efficientnet-lite0 and ffdnet need `make workloads`)")
    p.add_argument("--designs", "--arch", dest="designs", required=True,
                   metavar="DESIGN[,DESIGN...]|all",
                   help="termwise sim designs (each on its equal-peak preset): "
                        + ", ".join(sim_designs()) + "; or all. --arch is an old spelling")
    p.add_argument("--precision", default="16",
                   help="8 or 16 (fixed-point bits of the values; the hardware is as wide: "
                        "the -16x16 presets at 16, the -16x16-8b presets at 8)")
    from ...golden.lowering import DEFAULT_ORDER, ORDERS
    p.add_argument("--brick-order", choices=ORDERS, default=DEFAULT_ORDER,
                   help="what a convolution's brick holds: position (default, the papers': "
                        "the channels of one kernel position, zero padded to whole bricks) "
                        "or channel (consecutive values of the channel-major im2col row)")
    from ...golden.lowering import DEFAULT_DEPTHWISE, DEPTHWISE_MAPPINGS
    p.add_argument("--depthwise", choices=DEPTHWISE_MAPPINGS, default=DEFAULT_DEPTHWISE,
                   help="how a depthwise convolution is mapped: diagonal (default: 16 "
                        "channels per tile group, block-diagonal weights, every filter row "
                        "busy) or group (one group per channel, one filter row)")
    p.add_argument("--signed-digits", choices=("booth", "csd"), default="booth",
                   help="terms the Booth-coded designs (pragmatic-booth, tactical-tcle, "
                        "laconic, diffy) are costed in: booth (default; the RTL's radix-4 "
                        "Booth) or csd (model only: the non-adjacent-form digits of |x|, "
                        "as some simulators of this family count them)")
    p.add_argument("--fc", choices=("columns", "window"), default="columns",
                   help="how a fully-connected layer at batch 1 is mapped: columns (default, "
                        "the papers': input bricks dealt over the window columns on the "
                        "designs with per-column weight registers, fc_columns = 1) or window "
                        "(one window column)")
    p.add_argument("--images", type=int, default=None,
                   help="photos / inputs simulated (default: the workload's own)")
    p.add_argument("--max-window-groups", type=int, default=None,
                   help="sample at most N window groups per layer (deterministic)")
    p.add_argument("--sample-pairs", type=int, default=DEFAULT_SAMPLE_PAIRS,
                   help="bound of PE-lane evaluations per layer and design (sampled steps)")
    p.add_argument("--exact", action="store_true", help="simulate every step (slow)")
    p.add_argument("--workers", type=int, default=None,
                   help="processes simulating layers in parallel (default: up to 2)")
    p.add_argument("--power-reports", default=None, metavar="DIR",
                   help="directory searched recursively for power_report.json files "
                        "(termwise power): a design whose preset one is of gets compute "
                        "energy (tile power x rtl_cycles / clock) in the energy report; "
                        "the others memory energy only")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.set_defaults(func=_cmd_sim)
    return p

