"""bfloat16 bit-parallel baseline array: the DaDianNao-like tile of :mod:`.baseline` with
bf16 operands and float32 accumulation (``cfg.dtype == "bf16"``).

Every PE takes one brick per cycle: ``lanes`` bf16 x bf16 -> fp32 multipliers (exact products
unless they leave the normal range), a float32 adder tree (pairwise, level by level, see
:class:`.fp.FloatAdderTree`) and a float32 accumulator register starting at ``+0.0``, all in
IEEE round-to-nearest-even with subnormals (:mod:`.fp`). Operand buffer rows carry bf16 bit
patterns (16-bit words), output rows fp32 bit patterns (``acc_bits = 32``).

Pipeline (:func:`termwise.gen.designs.baseline_bf16.pipeline`, derived from ``lanes``): two
registers through each multiplier (one inside :class:`.fp.BF16Multiplier`, between the
significand product and the rounding, one on its product), a register after every
adder-tree level, then the
accumulator's fp32 adder, whose loop (one add per cycle into the accumulator register) is
the one recurrence and is not pipelined. The data registers load every cycle; a valid bit
travels beside them and enables the accumulator, so a brick's sum is added ``latency``
cycles after the brick was presented, in brick order: the arithmetic, and every bit of the
result, is the unpipelined datapath's. The array raises ``busy`` while a brick is still in
the pipeline, so a run of N bricks takes ``N + max(latency, 1)`` cycles
(:func:`termwise.golden.arch.baseline_bf16.run_cycles`). For ``lanes = 4``: latency 4
(significand products, products, tree level 0, tree level 1), a run takes ``N + 4``.

The tile outputs float32 accumulators; rounding them to bf16 (RNE, :class:`.fp.FP32ToBF16`)
is left to the host or an output stage.

Each distinct module is emitted once (:mod:`.library`): the PE, and inside it the bf16
multiplier and the fp32 adder, instantiated by name ``lanes`` and ``lanes`` times.
"""

from amaranth import Module, Signal, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In

from ..gen.designs.baseline_bf16 import pipeline
from .accumulator import accumulate
from .baseline import BaselineArray
from .fp import BF16Multiplier, FloatAccumulator, FloatAdderTree, FP32Adder, local_component
from .grid import pe_signature
from .library import ModuleLibrary

__all__ = ["BF16PE", "BF16BaselineArray", "ARRAY"]


def multiplier_internal_stages(pipe) -> int:
    """Registers inside each :class:`.fp.BF16Multiplier` (the others of
    ``pipe.multiplier_stages``, at most one, register its product in the PE)."""
    return max(pipe.multiplier_stages - 1, 0)


def valid_pipe(m, valid, latency: int, name: str) -> list:
    """``latency`` registers delaying ``valid``: element ``k`` is ``valid`` ``k + 1`` cycles
    ago (free-running, no reset needed beyond the flops' initial 0)."""
    stages = [Signal(name=f"{name}{k}") for k in range(latency)]
    previous = valid
    for stage in stages:
        m.d.sync += stage.eq(previous)
        previous = stage
    return stages


class BF16PE(wiring.Component):
    """bf16 inner-product unit: ``lanes`` multipliers, a float32 adder tree and a float32
    accumulator, pipelined (module docstring). One brick per cycle when ``en`` is set; its
    sum reaches the accumulator ``pipeline(cfg).latency`` cycles later.

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
        Accumulate this cycle's brick (when it leaves the pipeline); reset the accumulator
        to ``+0.0`` (``clear`` wins; the tile clears only with the pipeline empty).
    acc : Out(unsigned(32))
        float32 bit pattern of the accumulator.
    latency : int
        Cycles from a brick on ``act``/``wgt`` to its sum on the accumulator's adder.
    """

    def __init__(self, cfg, *, multiplier=None, adder=None):
        self.cfg = cfg
        self.pipeline = pipeline(cfg)
        self.latency = self.pipeline.latency
        self.multiplier = multiplier or local_component(
            lambda: BF16Multiplier(multiplier_internal_stages(self.pipeline)))
        self.adder = adder or local_component(FP32Adder)
        super().__init__(pe_signature(cfg, {
            "act": In(data.ArrayLayout(unsigned(16), cfg.lanes)),
            "wgt": In(data.ArrayLayout(unsigned(16), cfg.lanes)),
            "en": In(1),
        }, acc=unsigned(32)))

    def elaborate(self, platform):
        cfg, pipe = self.cfg, self.pipeline
        m = Module()
        m.submodules.tree = tree = FloatAdderTree(
            cfg.lanes, self.adder, register_levels=pipe.tree_register_levels)
        m.submodules.accumulator = acc = FloatAccumulator(self.adder)
        assert pipe.multiplier_stages + tree.latency == self.latency
        output_stage = pipe.multiplier_stages - multiplier_internal_stages(pipe)
        for lane in range(cfg.lanes):
            mul = self.multiplier(m, f"mul{lane}")
            product = Signal(32, name=f"product{lane}", reset_less=True)   # data register
            m.d.comb += [mul.a.eq(self.act[lane]), mul.b.eq(self.wgt[lane])]
            if output_stage:
                m.d.sync += product.eq(mul.product)
            else:
                m.d.comb += product.eq(mul.product)
            m.d.comb += tree.inputs[lane].eq(product)
        valid = valid_pipe(m, self.en, self.latency, "valid")
        accumulate(m, self, acc, tree.sum, en=valid[-1] if valid else self.en)
        return m


def _library_factory(library: ModuleLibrary, name: str, *, clocked: bool = False):
    def make(m, instance_name):
        return library.instantiate(m, name, instance_name, clocked=clocked)
    return make


class BF16BaselineArray(BaselineArray):
    """``filters`` x ``windows`` bf16 PEs (see :func:`.array.array_signature`); ``acc``
    carries float32 bit patterns. The array wiring is the integer baseline's; the PE (and
    its floating-point units) differ, and ``busy`` covers the PEs' pipeline: it is high
    while a brick taken at least one cycle ago has not yet reached the accumulators' last
    cycle (the controller's own cycle after the last brick covers one register)."""

    def __init__(self, cfg, library: ModuleLibrary, **kwargs):
        if cfg.dtype != "bf16" or (cfg.act_bits, cfg.wgt_bits, cfg.acc_bits) != (16, 16, 32):
            raise ValueError("BF16BaselineArray needs dtype bf16 with 16-bit operands and "
                             "32-bit accumulators")
        super().__init__(cfg, library, **kwargs)

    def make_pe(self, cfg, library: ModuleLibrary):
        """The bf16 PE, its multipliers and adders instantiated by name from ``library``."""
        internal = multiplier_internal_stages(pipeline(cfg))
        mul_name = library.add(f"{cfg.top_name}__bf16_mul", BF16Multiplier(internal))
        add_name = library.add(f"{cfg.top_name}__fp32_add", FP32Adder())
        return BF16PE(cfg, multiplier=_library_factory(library, mul_name, clocked=internal > 0),
                      adder=_library_factory(library, add_name))

    def elaborate(self, platform):
        m = super().elaborate(platform)
        # Bricks in flight: valid[k] is the brick taken k + 1 cycles ago. The last register
        # (valid[-1]) is being added this cycle; the accumulators hold it next cycle, when
        # the controller (which saw ~busy now) starts the output.
        valid = valid_pipe(m, self.valid, pipeline(self.cfg).latency, "inflight")
        busy = 0
        for v in valid[:-1]:
            busy = busy | v
        m.d.comb += self.busy.eq(busy)
        return m


ARRAY = BF16BaselineArray
