"""Registered, replicated PE inputs: control and operands that never cross the array in one
cycle (``cfg.pe_stages``).

Without it a sequencer's ``first``/``commit``, a window's serialised bits or a weight brick
go from one flop (or a buffer's read port) to every PE that uses them in the same cycle, and
at paper scale such a net reaches hundreds of PEs in other modules. Real bit-serial arrays
give each group of dot-product units its own registered copy of its control (BISMO: Umuroglu
et al., FPL 2018, a delayed copy of valid/shift/negate/clear per DPU; Gemmini moves control
with the data between tiles). Here every value a PE reads passes through ``cfg.pe_stages``
registers, and each registered copy feeds at most :data:`~termwise.gen.config.PE_STAGE_GROUP`
PEs: a value used by more PEs is registered in several copies, a value used by one PE
(e.g. ``first & act_signed`` built for each PE) once for it.

Because *every* PE input (``clear`` too) is delayed alike, each PE computes exactly what it
computed before, ``pe_stages`` cycles later; nothing else in the array reads a PE. The tile
holds its run open for those cycles (:meth:`termwise.rtl.tile.Tile`) and every cycle model
adds them (``cfg.pipeline_latency``).

Values are shared by structure: two ``.eq`` of the same signal, the same slice of a signal,
or the same operator over such, use one copy; constants are not registered at all.
Registers are reset-less: after reset they hold no state a run depends on, because every run
begins by clearing its PEs through the same stage.
"""

import operator

from amaranth import Const, Elaboratable, Module, Signal, Value
from amaranth.hdl import _ast

__all__ = ["PEInputStage", "StagedPE"]


def _key(value: Value, keep: list):
    """A structural key for ``value``: equal for the same signals, slices and operators;
    ``keep`` holds every object whose ``id`` the key uses, so that no id is reused."""
    if isinstance(value, Const):
        return ("const", value.value, len(value), value.shape().signed)
    if isinstance(value, Signal):
        keep.append(value)
        return ("signal", id(value))
    if isinstance(value, _ast.Slice):
        return ("slice", _key(value.value, keep), value.start, value.stop)
    if isinstance(value, _ast.Part):
        return ("part", _key(value.value, keep), _key(value.offset, keep), value.width,
                value.stride)
    if isinstance(value, _ast.Concat):
        return ("cat", tuple(_key(part, keep) for part in value.parts))
    if isinstance(value, _ast.Operator):
        return ("op", value.operator, tuple(_key(o, keep) for o in value.operands))
    keep.append(value)                       # anything else: a copy of its own
    return ("other", id(value))


class PEInputStage(Elaboratable):
    """The registered copies of one array's PE inputs: a module of its own (``pe_stage``
    in the array), so that synthesis reports its area and its paths apart.

    Parameters
    ----------
    stages : int
        Registers on every PE input (``cfg.pe_stages``, at least 1).
    group : int
        Most PEs one copy feeds.
    """

    def __init__(self, *, stages: int, group: int):
        self._m = Module()
        self.stages = operator.index(stages)
        self.group = operator.index(group)
        if self.stages < 1 or self.group < 1:
            raise ValueError("stages and group must be positive")
        self._copies = {}       # key -> [registered copies]
        self._uses = {}         # key -> PEs served so far
        self._keep = []

    def copy(self, value, *, name: str) -> Value:
        """``value`` as the next PE to read it sees it: ``stages`` cycles late, from the copy
        serving that PE (a new copy after every ``group`` PEs, named ``name``: the port and
        the first PE it serves)."""
        value = Value.cast(value)
        if isinstance(value, Const):
            return value
        key = _key(value, self._keep)
        uses = self._uses.get(key, 0)
        self._uses[key] = uses + 1
        copies = self._copies.setdefault(key, [])
        if uses % self.group == 0:
            copies.append(self._chain(value, name))
        return copies[-1]

    def elaborate(self, platform):
        return self._m

    def _chain(self, value: Value, name: str) -> Value:
        for k in range(self.stages):
            reg = Signal(value.shape(), name=f"{name}_s{k}", reset_less=True)
            self._m.d.sync += reg.eq(value)
            value = reg
        return value


class _StagedPort:
    """A PE port (or part of one, ``port[i]``) whose assignments go through the stage."""

    def __init__(self, stage: PEInputStage, target, name: str):
        self._stage = stage
        self._target = target
        self._name = name

    def eq(self, value):
        return self._target.eq(self._stage.copy(value, name=self._name))

    def __getitem__(self, index):
        return _StagedPort(self._stage, self._target[index], f"{self._name}_{index}")

    def as_value(self):
        return _StagedPort(self._stage, Value.cast(self._target), self._name)


class StagedPE:
    """A PE's interface as the array feeds it: every input port assigned with ``.eq``
    (also ``port[i].eq`` and ``port.as_value().eq``) goes through ``stage``; outputs read
    through. ``tag`` names the PE (``f<f>_w<w>``) in the names of the copies it is the
    first to read. A PE input used any other way fails (it has no other attributes), so
    no value can bypass the stage."""

    def __init__(self, pe, stage: PEInputStage, inputs, *, tag: str):
        self._pe = pe
        self._stage = stage
        self._inputs = set(inputs)
        self._tag = tag

    def __getattr__(self, name):
        port = getattr(self._pe, name)
        if name in self._inputs:
            return _StagedPort(self._stage, port, f"{name}_{self._tag}")
        return port
