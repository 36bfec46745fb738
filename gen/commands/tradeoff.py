"""``termwise tradeoff``: accuracy / precision / speedup trade-off of the ``digits-cnn``.

    termwise tradeoff -o DIR [--images N] [--seed S] [--no-plot]

For every precision setting (uniform activation precision, uniform
weight precision, one layer lowered at a time, the lossless per-layer profiles, the 8-bit
base) the integer model of :mod:`termwise.golden.workloads.digits` is run on the 360 test
images (measured accuracy), its integer layer inputs on the first ``N`` test images are
traced and :func:`termwise.golden.netsim.simulate_layers` counts the steady-state cycles of
the baseline, Stripes and Loom on their 16x16 presets of hardware as wide as the setting's
base (equal peak throughput: the ``-16x16`` presets, 256 16-bit MAC/cycle, for the 16-bit
base; the ``-16x16-8b`` presets, 256 8-bit MAC/cycle, for the 8-bit base, whose speedups
divide by the 8-bit baseline). Stripes runs each layer at its activation precision (runtime
``precision``); Loom detects the activation precision per group of 16 and runs at the
layer's weight precision (``wgt_precision``). Lossless: accuracy within
:data:`~termwise.golden.workloads.digits.LOSSLESS_MARGIN` points of the float model.
Writes DIR/tradeoff.md, tradeoff.csv, tradeoff.json and tradeoff.png.
"""

from __future__ import annotations

from ..flows.tradeoff import run_tradeoff

__all__ = ["register"]

#: Position in ``termwise --help``.
ORDER = 80


def _cmd_tradeoff(args) -> int:
    doc = run_tradeoff(args.output, images=args.images, seed=args.seed, plot=not args.no_plot)
    pr = doc["profiles"]["16"]
    print(f"float {doc['float_test_accuracy']:.2f}%  16-bit {doc['quant_test_accuracy']['16']:.2f}%"
          f"  8-bit {doc['quant_test_accuracy']['8']:.2f}%  lossless profile act "
          f"{pr['act']['profile']} wgt {pr['wgt']['profile']}")
    return 0


def register(subparsers):
    """Add the ``tradeoff`` subcommand (the designs run on their 16x16 presets, so the
    configuration arguments are not used)."""
    p = subparsers.add_parser("tradeoff", help="digits-cnn accuracy / precision / speedup "
                                               "trade-off (Stripes, Loom vs the baseline)")
    p.add_argument("--images", type=int, default=360,
                   help="test images traced for the cycle counts (accuracy: all 360)")
    p.add_argument("--seed", type=int, default=None, help="training seed (default 0)")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.set_defaults(func=_cmd_tradeoff)
    return p

