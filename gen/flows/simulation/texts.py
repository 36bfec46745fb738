"""What sim.json and sim.md say of each mapping choice of a simulation: the brick order,
the depthwise mapping and the fully-connected mapping (:mod:`termwise.golden.lowering`,
:mod:`termwise.golden.netsim`; the conventions of docs/papers.md)."""

from __future__ import annotations

__all__ = ["BRICK_ORDER_TEXT", "DEPTHWISE_TEXT", "FC_TEXT"]

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
