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

from ..designs import sim_designs
from ..flows.simulation import DEFAULT_SAMPLE_PAIRS, run_sim

__all__ = ["register"]

#: Position in ``termwise --help``.
ORDER = 70


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

