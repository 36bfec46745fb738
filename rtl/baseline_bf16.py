"""bfloat16 bit-parallel baseline array: the DaDianNao-like tile of :mod:`.baseline` with
bf16 operands and float32 accumulation (``cfg.dtype == "bf16"``).

Every PE takes one brick per cycle: ``lanes`` bf16 x bf16 -> fp32 multipliers (exact products
unless they leave the normal range), a float32 adder tree (pairwise, level by level, see
:class:`.fp.FloatAdderTree`) and a float32 accumulator register starting at ``+0.0``, all in
IEEE round-to-nearest-even with subnormals (:mod:`.fp`). Operand buffer rows carry bf16 bit
patterns (16-bit words), output rows fp32 bit patterns (``acc_bits = 32``).

Timing: the multipliers, the tree and the accumulator's adder form one combinational path
(no pipeline registers), so a run of N bricks takes exactly the integer baseline's N + 1
cycles (:mod:`termwise.golden.arch.baseline`, used unchanged by
:func:`termwise.golden.cycles.run_cycles`). The tile outputs float32 accumulators; rounding
them to bf16 (RNE, :class:`.fp.FP32ToBF16`) is left to the host or an output stage.

Each distinct module is emitted once (:mod:`.library`): the PE, and inside it the bf16
multiplier and the fp32 adder, instantiated by name ``lanes`` and ``lanes`` times.
"""

from amaranth import Module, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In

from .accumulator import accumulate
from .baseline import BaselineArray
from .fp import BF16Multiplier, FloatAccumulator, FloatAdderTree, FP32Adder, local_component
from .grid import pe_signature
from .library import ModuleLibrary

__all__ = ["BF16PE", "BF16BaselineArray", "ARRAY"]


class BF16PE(wiring.Component):
    """bf16 inner-product unit: ``lanes`` multipliers, a float32 adder tree and a float32
    accumulator. One brick per cycle when ``en`` is set.

    Parameters
    ----------
    cfg : TileConfig
    multiplier, adder : callable ``(m, name) -> interface`` or None
        Factories of the multipliers and adders (see :func:`.fp.local_component`); ``None``
        builds local submodules (what Amaranth's simulator needs).

    Attributes
    ----------
    act, wgt : In(ArrayLayout(unsigned(16), lanes))
        bf16 bit patterns, lane 0 first.
    en, clear : In(1)
        Accumulate this cycle's brick; reset the accumulator to ``+0.0`` (``clear`` wins).
    acc : Out(unsigned(32))
        float32 bit pattern of the accumulator.
    """

    def __init__(self, cfg, *, multiplier=None, adder=None):
        self.cfg = cfg
        self.multiplier = multiplier or local_component(BF16Multiplier)
        self.adder = adder or local_component(FP32Adder)
        super().__init__(pe_signature(cfg, {
            "act": In(data.ArrayLayout(unsigned(16), cfg.lanes)),
            "wgt": In(data.ArrayLayout(unsigned(16), cfg.lanes)),
            "en": In(1),
        }, acc=unsigned(32)))

    def elaborate(self, platform):
        cfg = self.cfg
        m = Module()
        m.submodules.tree = tree = FloatAdderTree(cfg.lanes, self.adder)
        m.submodules.accumulator = acc = FloatAccumulator(self.adder)
        for lane in range(cfg.lanes):
            mul = self.multiplier(m, f"mul{lane}")
            m.d.comb += [
                mul.a.eq(self.act[lane]),
                mul.b.eq(self.wgt[lane]),
                tree.inputs[lane].eq(mul.product),
            ]
        accumulate(m, self, acc, tree.sum, en=self.en)
        return m


def _library_factory(library: ModuleLibrary, name: str):
    def make(m, instance_name):
        return library.instantiate(m, name, instance_name, clocked=False)
    return make


class BF16BaselineArray(BaselineArray):
    """``filters`` x ``windows`` bf16 PEs (see :func:`.array.array_signature`); ``acc``
    carries float32 bit patterns. The array wiring is the integer baseline's; only the PE
    (and its floating-point units) differ."""

    def __init__(self, cfg, library: ModuleLibrary, **kwargs):
        if cfg.dtype != "bf16" or (cfg.act_bits, cfg.wgt_bits, cfg.acc_bits) != (16, 16, 32):
            raise ValueError("BF16BaselineArray needs dtype bf16 with 16-bit operands and "
                             "32-bit accumulators")
        super().__init__(cfg, library, **kwargs)

    def make_pe(self, cfg, library: ModuleLibrary):
        """The bf16 PE, its multipliers and adders instantiated by name from ``library``."""
        mul_name = library.add(f"{cfg.top_name}__bf16_mul", BF16Multiplier())
        add_name = library.add(f"{cfg.top_name}__fp32_add", FP32Adder())
        return BF16PE(cfg, multiplier=_library_factory(library, mul_name),
                      adder=_library_factory(library, add_name))


ARRAY = BF16BaselineArray
