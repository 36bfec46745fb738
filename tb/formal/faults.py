"""Deliberately broken designs, for proofs that must fail (so that no proof passes
vacuously): a PE input bit stuck at 0 (:class:`StuckAt`, injected by
:class:`FaultyLibrary`; each design's own in its spec, :func:`fault_for`) and a component
outside the PEs that loses bits of one port (:func:`masked_part`)."""

from __future__ import annotations

from amaranth import Module, Value
from amaranth.lib import wiring

from ...gen.spec import StuckAt
from ..amaranth_sim import InlineLibrary
from .hooks import formal_spec

__all__ = ["StuckAt", "FaultyLibrary", "fault_for", "masked_part"]


def fault_for(cfg) -> StuckAt | None:
    """The PE input bit ``cfg``'s broken array loses (its spec's
    :attr:`~termwise.gen.spec.FormalSpec.fault`), or None when the spec names none."""
    return formal_spec(cfg).fault_for(cfg)


class FaultyLibrary(InlineLibrary):
    """:class:`~termwise.tb.amaranth_sim.InlineLibrary` that injects ``fault``: the array
    drives a copy of the faulty PE's interface, which reaches the PE with one input bit
    forced to 0 (by default bit 0 of the PE's first input)."""

    def __init__(self, fault: StuckAt):
        super().__init__({})
        self.fault = fault

    def instantiate(self, m, name, instance_name, *, clocked=True):
        pe = super().instantiate(m, name, instance_name, clocked=clocked)
        if instance_name != self.fault.instance:
            return pe
        outer = pe.signature.create(path=(f"{instance_name}_faulty",))
        inputs = [n for n, mem in pe.signature.members.items() if mem.flow == wiring.In]
        port = self.fault.port or inputs[0]
        for member, flow in ((n, mem.flow) for n, mem in pe.signature.members.items()):
            inner, seen = Value.cast(getattr(pe, member)), Value.cast(getattr(outer, member))
            if flow == wiring.Out:
                m.d.comb += seen.eq(inner)
            elif member == port:
                m.d.comb += inner.eq(seen & ~(1 << self.fault.bit))
            else:
                m.d.comb += inner.eq(seen)
        return outer


def masked_part(real, port: str, clear: int):
    """A stand-in for the component class ``real`` (same constructor arguments, same
    signature, other attributes read from the real one) whose ``port``, input or output,
    loses the bits set in ``clear`` on its way through: a deliberately broken part outside
    the PEs, for a proof that must fail (``monkeypatch`` it over ``real``'s name)."""

    class Masked(wiring.Component):
        def __init__(self, *args, **kwargs):
            self.inner = real(*args, **kwargs)
            super().__init__(self.inner.signature)

        def __getattr__(self, name):   # not the ports: those are this component's own
            if name == "inner" or name in self.inner.signature.members:
                raise AttributeError(name)
            return getattr(self.inner, name)

        def elaborate(self, platform):
            m = Module()
            m.submodules.inner = inner = self.inner
            for name, member in self.signature.members.items():
                outer, inside = Value.cast(getattr(self, name)), Value.cast(getattr(inner, name))
                if member.flow == wiring.In:
                    m.d.comb += inside.eq(outer & ~clear if name == port else outer)
                else:
                    m.d.comb += outer.eq(inside & ~clear if name == port else inside)
            return m

    Masked.__name__ = Masked.__qualname__ = f"Masked{real.__name__}"
    return Masked
