"""The sim.json document of a simulation: what was simulated and how (designs, mappings,
sampling), the per-layer and total cycles, the output traffic and the energy."""

from __future__ import annotations

from .texts import BRICK_ORDER_TEXT, DEPTHWISE_TEXT, FC_TEXT

__all__ = ["sim_document", "sampling_text"]


def sampling_text(sampled: bool, max_window_groups, sample_pairs) -> str:
    """How the steps were sampled, as sim.json and sim.md state it."""
    if not sampled:
        return "none (every step simulated)"
    parts = ([f"window groups of each layer sampled evenly (np.linspace(0, WG-1, "
              f"{max_window_groups}).round())"] if max_window_groups else []) + \
        ([f"at most {sample_pairs} // (filters*windows*lanes) steps per layer and "
          f"design, uniform without replacement (numpy default_rng(0))"]
         if sample_pairs else [])
    return "; ".join(parts) + ("; step cycles scaled by all/sampled steps, run counts "
                               "exact, baseline and Stripes totals exact")


def _encodings(cfgs: dict, digits: str) -> dict:
    """The term encoding of every design that counts terms (cycles and ideal work alike):
    its option, else its golden model's own (Diffy's deltas); the hardware's, unless
    ``digits`` (``--signed-digits csd``) replaced Booth in the model."""
    from ....golden.arch import model_of
    from ....golden.work import MODEL_ENCODING, signed_digits as model_encoding
    encodings = {a: cfg.option("encoding", default=None) or getattr(model_of(cfg), "ENCODING", None)
                 for a, cfg in cfgs.items()}
    return {d: model_encoding(e, {MODEL_ENCODING: digits}) for d, e in encodings.items() if e}


def sim_document(opts, wl, designs: list, skipped: dict, results: list, cfgs: dict,
                 max_window_groups) -> dict:
    """sim.json's document without its energy section and timing.

    Parameters
    ----------
    opts : SimOptions
        The checked options.
    wl : Workload
        The workload simulated.
    designs : list of str
        The designs simulated (the reference first), ``skipped`` the others with why.
    results : list
        :func:`termwise.golden.netsim.simulate_layers`'s per-layer results.
    cfgs : dict
        ``{design: TileConfig}`` each design ran on.
    max_window_groups : int or None
        The window groups sampled per layer (the workload's default filled in).
    """
    from ....golden import netsim
    from ....golden.netsim import network_output_traffic
    from ....golden.netsim import simulate as netsim_simulate
    from ..reports.sim import summarise
    bits, ref = opts.bits, netsim.REFERENCE
    layers, total = summarise(results, designs)
    reference = netsim.design_preset(ref, bits)
    peak = cfgs[ref].peak_macs_per_cycle(bits)
    sampled = any(d["sampled"] for r in layers for d in r["designs"].values())
    return {
        "workload": wl.name, "precision": bits, "synthetic": wl.synthetic,
        "notes": wl.notes, "macs": wl.macs,
        # Per design: its preset, the hardware's width, its peak at that width and the
        # preset its speedups divide by.
        "designs": {a: {"preset": netsim.design_preset(a, bits), "config": cfgs[a].to_dict(),
                        f"peak_macs_per_cycle_{bits}b": cfgs[a].peak_macs_per_cycle(bits),
                        "hardware_bits": bits, "reference": reference}
                    for a in designs},
        "hardware_bits": bits,
        "reference": {"design": ref, "preset": reference},
        "equal_peak_throughput": f"every design at {peak:g} {bits}-bit MAC/cycle (16x16 "
                                 f"presets{'' if bits == 16 else f' of {bits}-bit hardware'})",
        # What a convolution's brick holds (golden/lowering.py, docs/papers.md).
        "brick_order": opts.order, "brick_order_text": BRICK_ORDER_TEXT[opts.order],
        # How a depthwise convolution is mapped, and how many layers are depthwise.
        "depthwise": opts.depthwise, "depthwise_text": DEPTHWISE_TEXT[opts.depthwise],
        "depthwise_layers": sum(netsim_simulate.layer_is_depthwise(layer)
                                for layer in wl.layers),
        # How a batch-1 fully-connected layer is mapped, and on which designs its input
        # bricks are dealt over the columns (per-column weight registers).
        "fc": opts.fc, "fc_text": FC_TEXT[opts.fc],
        "fc_columns": [a for a in designs if cfgs[a].has_fc_columns],
        "skipped": skipped,
        "signed_digits": opts.digits,
        "encodings": _encodings(cfgs, opts.digits),
        "sampling": sampling_text(sampled, max_window_groups, opts.sample_pairs),
        "layers": layers,
        "total": total,
        # Output-side traffic with and without the fused output stage, on the baseline's
        # tile (lanes, depth, acc_bits); out_bits = the workload's fixed-point width.
        "traffic": network_output_traffic(wl.layers, cfgs[ref], bits, opts.order,
                                          opts.depthwise),
    }
