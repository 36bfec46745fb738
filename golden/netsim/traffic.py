"""Output-side memory traffic of a layer, with and without the fused output stage.

A tile run reduces ``depth`` bricks (``depth * lanes`` inputs) of every output it computes.
Without a fused output stage (:mod:`termwise.rtl.output_stage`) every run writes its
``windows x filters`` sums at the accumulator width, and the host finishes the layer in a
second pass: it reads the partial sums of all K chunks back, adds them, applies bias,
residual, activation and requantisation, and writes the result at the next layer's
precision. With the fused stage the tile writes finished outputs at ``out_bits`` -- but
only when one run sees the whole dot product (``chunks == 1``): the stage requantises at
the end of a run, and this RTL's accumulators restart at every run, so a layer whose K
spans several chunks still sends its partial sums out at full width (counted as unfused,
flagged ``fusable = False``; ``depth_needed`` says how deep the operand buffers would have
to be). Per layer, with ``O`` outputs (per group ``M x kg``, summed over the groups) and
``c`` K chunks::

    unfused bits = O * (c * acc_bits   # the runs write their partial sums
                        + c * acc_bits  # the host reads them back
                        + out_bits)     # and writes the finished outputs
    fused bits   = O * out_bits                              if c == 1
                 = unfused bits                              otherwise

Input-side traffic (activations, weights, residual) is the same with and without the
stage and is not counted here. MIOpen's fusion motivation is the same: partial sums never
make the round trip at full width.

``O`` counts the layer's own outputs: a depthwise layer packed channel-diagonally
(:func:`termwise.golden.lowering.pack_depthwise`) also computes the zero outputs of its last
tile group's padding filters, which the host drops and nobody writes; its mapping sets only
the K of a run (``R x S`` bricks per window in either brick order), hence its chunks.
"""

from __future__ import annotations

import math

from ..lowering import DEFAULT_DEPTHWISE, DEFAULT_ORDER, check_depthwise, conv_lowered_shape

__all__ = ["layer_lowered_shape", "layer_output_traffic", "network_output_traffic"]


def layer_lowered_shape(layer, lanes: int, order: str,
                   depthwise: str = DEFAULT_DEPTHWISE) -> tuple[int, int, int]:
    """``(outputs, M, Kg)`` of the layer's lowering (:mod:`termwise.golden.lowering`) in
    brick ``order`` and depthwise mapping ``depthwise`` on ``lanes`` lanes: the layer's
    outputs (not the padding filters'), the rows and the inner-dimension length of a run."""
    if layer.kind == "fc":
        n, k = layer.act.shape[0], layer.wgt.shape[1]
        return n * layer.wgt.shape[0], n, k
    n = layer.act.shape[0]
    oh, ow = layer.out_hw
    kout, cg, r, s = layer.wgt.shape
    _, _, kin = conv_lowered_shape(kout, cg, r, s, layer.groups, lanes, order, depthwise)
    return n * oh * ow * kout, n * oh * ow, kin


def layer_output_traffic(layer, cfg, out_bits: int, order: str = DEFAULT_ORDER,
                         depthwise: str = DEFAULT_DEPTHWISE) -> dict:
    """Output-side traffic of ``layer`` on tile ``cfg`` (bits), unfused and fused.

    Parameters
    ----------
    layer : termwise.golden.workloads.Layer
    cfg : termwise.gen.config.TileConfig
        The tile: ``lanes`` and ``depth`` set the K chunks, ``acc_bits`` the partial sums.
    out_bits : int
        Width of the finished outputs (the next layer's activation precision).
    order : str
        The brick order of the lowering (:data:`termwise.golden.lowering.ORDERS`): it sets
        a convolution's K, hence its chunks.
    depthwise : str
        The mapping of a depthwise layer (:data:`termwise.golden.lowering.DEPTHWISE_MAPPINGS`):
        it sets the layer's K in the ``"channel"`` order.

    Returns
    -------
    dict
        ``outputs``, ``chunks``, ``depth_needed`` (bricks for one chunk), ``fusable``,
        ``unfused_bits``, ``fused_bits`` and ``saved_fraction``.
    """
    outputs, _, k = layer_lowered_shape(layer, cfg.lanes, order, check_depthwise(depthwise))
    bricks = math.ceil(k / cfg.lanes)
    chunks = math.ceil(bricks / cfg.depth)
    unfused = outputs * (2 * chunks * cfg.acc_bits + out_bits)
    fusable = chunks == 1
    fused = outputs * out_bits if fusable else unfused
    return {"outputs": outputs, "chunks": chunks, "depth_needed": bricks,
            "fusable": fusable, "unfused_bits": unfused, "fused_bits": fused,
            "saved_fraction": 1 - fused / unfused}


def network_output_traffic(layers, cfg, out_bits: int, order: str = DEFAULT_ORDER,
                           depthwise: str = DEFAULT_DEPTHWISE) -> dict:
    """Per-layer :func:`layer_output_traffic` and the network totals, plus the totals if
    the operand buffers were deep enough for every layer to fuse (``fused_deep_bits``:
    every layer at ``outputs * out_bits``; ``depth_for_all`` is the depth that needs)."""
    rows = [dict(name=layer.name, **layer_output_traffic(layer, cfg, out_bits, order,
                                                         depthwise))
            for layer in layers]
    unfused = sum(r["unfused_bits"] for r in rows)
    fused = sum(r["fused_bits"] for r in rows)
    deep = sum(r["outputs"] * out_bits for r in rows)
    return {
        "tile": {"lanes": cfg.lanes, "depth": cfg.depth, "acc_bits": cfg.acc_bits},
        "out_bits": out_bits,
        "brick_order": order,
        "depthwise": depthwise,
        "layers": rows,
        "total": {"unfused_bits": unfused, "fused_bits": fused,
                  "saved_fraction": 1 - fused / unfused if unfused else 0.0,
                  "fusable_layers": sum(r["fusable"] for r in rows),
                  "layers": len(rows),
                  "fused_deep_bits": deep,
                  "saved_fraction_deep": 1 - deep / unfused if unfused else 0.0,
                  "depth_for_all": max((r["depth_needed"] for r in rows), default=0)},
    }
