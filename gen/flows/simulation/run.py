"""``termwise sim``'s flow: network-level cycles and energy of every design on a workload,
each on its equal-peak 16x16 preset (:mod:`termwise.gen.commands.sim` states the options).
"""

from __future__ import annotations

import time

from ...errors import ConfigError
from ...progress import Bar, note
from .document import sim_document
from .options import DEFAULT_SAMPLE_PAIRS, SHAPES_DEFAULT_SAMPLE, sim_options
from .power_records import power_records

__all__ = ["run_sim", "simulate"]


def _stderr(msg):
    note(msg)


def simulate(workload: str, archs, precision, *, images: int | None = None,
             max_window_groups=None, sample_pairs=DEFAULT_SAMPLE_PAIRS, log=None,
             workers: int | None = None, brick_order: str | None = None,
             depthwise: str | None = None, signed_digits: str | None = None,
             fc: str | None = None, power: dict | None = None,
             power_reports: str | None = None, loaded=None) -> dict:
    """Simulate every design and return the sim.json document (nothing written): the
    options as :func:`run_sim` takes them."""
    from ....golden import netsim
    from ....golden.workloads import load_workload
    log = log or _stderr
    opts = sim_options(workload, archs, precision, images=images, workers=workers,
                       max_window_groups=max_window_groups, sample_pairs=sample_pairs,
                       brick_order=brick_order, depthwise=depthwise,
                       signed_digits=signed_digits, fc=fc)
    bits, ref = opts.bits, netsim.REFERENCE
    power, ignored = power_records(list(opts.designs), bits, power, power_reports)
    ok, skipped = netsim.available_designs(list(opts.designs))
    if ref not in ok:
        raise ConfigError("arch", "the baseline golden model is required for speedups")
    for a, why in skipped.items():
        log(f"note: skipping {a}: {why}")
    for p in ignored:
        log(f"note: power report(s) of preset {p} ignored: no simulated design runs on it")
    t0 = time.perf_counter()
    # Each workload has its own default input count (one photo for EfficientNet, the whole
    # test set for the digits CNN); pass --images only when the user chose it.
    kw = {} if images is None else {"images": opts.images}
    wl = loaded if loaded is not None else load_workload(workload, bits, log=log, **kw)
    groups = SHAPES_DEFAULT_SAMPLE if wl.synthetic and max_window_groups is None \
        else max_window_groups
    log(f"{wl.name}: {len(wl.layers)} layers, {wl.macs / 1e6:.1f} M MACs, designs "
        f"{', '.join(ok)}, brick order {opts.order}, depthwise {opts.depthwise}, signed "
        f"digits {opts.digits}, fc {opts.fc}")

    with Bar(len(wl.layers), f"sim {wl.name}", "layer") as bar:
        def progress(i, n, layer, sec):
            log(f"  [{i:3d}/{n}] {layer.name:14s} {layer.shape_text():34s} {sec:6.2f} s")
            bar.step(layer.name)

        results = netsim.simulate_layers(wl.layers, ok, bits=bits, order=opts.order,
                                         depthwise=opts.depthwise, signed_digits=opts.digits,
                                         fc=opts.fc, max_window_groups=groups,
                                         sample_pairs=sample_pairs, progress=progress,
                                         workers=workers)
    cfgs = {a: netsim.sim_config(a, bits, opts.fc) for a in ok}
    doc = sim_document(opts, wl, ok, skipped, results, cfgs, groups)
    # Energy per inference: memory accesses on each design's lowering, compute from the
    # power records; the inputs simulated are the layers' batch.
    doc["energy"] = netsim.network_energy(
        wl.layers, cfgs, {a: [r.designs[a].get("rtl_cycles", r.designs[a]["cycles"])
                              for r in results] for a in ok},
        out_bits=bits, images=int(wl.layers[0].act.shape[0]), order=opts.order,
        depthwise=opts.depthwise, power={a: rec for a, rec in power.items() if a in ok})
    with_power = [a for a in ok if a in power]
    log(f"energy: compute from power records of {', '.join(with_power)}" if with_power else
        "energy: memory only (no power records: --power-reports DIR)")
    doc["seconds"] = time.perf_counter() - t0
    return doc


def run_sim(workload: str, archs, precision, out_dir, *, plots: bool = True, log=None,
            **options) -> dict:
    """Simulate and write the reports (sim.json, sim.csv, sim.md, sim_*.png); returns the
    sim.json document.

    Parameters
    ----------
    workload : str
        A :data:`termwise.golden.workloads.WORKLOADS` name.
    archs : str or list of str
        ``all``, a comma list or a list of ``termwise sim`` designs; the baseline is always
        simulated (the speedups' reference).
    precision : int or str
        8 or 16: the workload's width and the hardware's.
    out_dir : str
        Where the reports go.
    plots : bool
        Whether to draw the plots.
    log : callable, optional
        Progress lines (default: standard error).
    **options
        As :func:`simulate` takes them: ``images``, ``max_window_groups``,
        ``sample_pairs``, ``workers``; ``brick_order``
        (:data:`termwise.golden.lowering.ORDERS`, default the papers' ``position``),
        ``depthwise`` (:data:`termwise.golden.lowering.DEPTHWISE_MAPPINGS`, default
        ``diagonal``), ``signed_digits`` (``booth``, the hardware's, or ``csd``, a
        model-only comparison point), ``fc`` (:data:`termwise.golden.netsim.FC_MAPPINGS`,
        default ``columns``); ``power`` (``{design: power record}``: those designs get
        compute energy, :func:`termwise.golden.netsim.check_power_record`) and
        ``power_reports`` (a folder of ``power_report.json`` files matched by preset; a
        record in ``power`` wins); ``loaded`` (the workload already loaded for these
        ``precision`` and ``images``: not loaded again).
    """
    from ..reports.sim import write_reports
    log = log or _stderr
    doc = simulate(workload, archs, precision, log=log, **options)
    paths = write_reports(out_dir, doc, plots=plots)
    log(f"wrote {', '.join(paths)} in {doc['seconds']:.1f} s")
    return doc
