"""The one balanced reduction, and the adder tree every integer PE sums its lanes with."""

import operator

from amaranth import Module, signed, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..gen.config import clog2

__all__ = ["tree_reduce", "AdderTree", "sum_lanes"]


def tree_reduce(values, combine):
    """Reduce ``values`` pairwise, level by level: ``ceil(log2(n))`` levels deep, not ``n``.

    Level 0 combines ``(v0, v1), (v2, v3), ...``; an odd last value passes unchanged to the
    next level; repeat until one value remains (a single value is returned as it is).

    Parameters
    ----------
    values : iterable
        At least one value (Amaranth values, or anything ``combine`` takes).
    combine : callable ``(a, b, level, index) -> value``
        One node: ``level`` counts from 0 at the leaves, ``index`` from 0 at the left of
        its level (for naming the node's hardware, if it has any).

    Returns
    -------
    The root.
    """
    level = list(values)
    if not level:
        raise ValueError("tree_reduce needs at least one value")
    depth = 0
    while len(level) > 1:
        paired = [combine(a, b, depth, j)
                  for j, (a, b) in enumerate(zip(level[0::2], level[1::2]))]
        level = paired + ([level[-1]] if len(level) % 2 else [])
        depth += 1
    return level[0]


class AdderTree(wiring.Component):
    """Sum of ``n`` operands in ``ceil(log2(n))`` levels of two-input adders
    (:func:`tree_reduce`).

    Each level widens by one bit, so the sum never overflows.

    Parameters
    ----------
    n : int
        Number of operands.
    width : int
        Width of each operand.
    is_signed : bool
        Operands (and the sum) are two's complement.

    Attributes
    ----------
    inputs : In(ArrayLayout(shape, n))
    sum : Out(width + ceil(log2(n)))
    """

    def __init__(self, n: int, width: int, *, is_signed: bool = True):
        self.n = operator.index(n)
        width = operator.index(width)
        shape = signed if is_signed else unsigned
        self.sum_width = width + clog2(self.n)
        super().__init__({
            "inputs": In(data.ArrayLayout(shape(width), self.n)),
            "sum": Out(shape(self.sum_width)),
        })

    def elaborate(self, platform):
        m = Module()
        total = tree_reduce((self.inputs[i] for i in range(self.n)),
                            lambda a, b, *_: a + b)
        m.d.comb += self.sum.eq(total)
        return m


def sum_lanes(m, lanes: int, width: int, term, *, is_signed: bool = True) -> AdderTree:
    """A PE's lane reduction: an :class:`AdderTree` submodule ``tree`` over ``lanes`` terms.

    Parameters
    ----------
    m : Module
    lanes, width : int
        Terms and the width of each.
    term : callable ``(lane) -> Value``
        The lane's term (it may add statements of its own to ``m`` first).
    is_signed : bool

    Returns
    -------
    AdderTree
        The tree (``sum``, ``sum_width``).
    """
    m.submodules.tree = tree = AdderTree(lanes, width, is_signed=is_signed)
    for lane in range(tree.n):
        m.d.comb += tree.inputs[lane].eq(term(lane))
    return tree
