"""Helpers for the amaranth.sim unit tests of RTL components (tests/rtl).

The cocotb regressions run the emitted Verilog under Verilator; the unit tests run single
components in Amaranth's own simulator, which needs every module as Amaranth code, hence
:class:`InlineLibrary`.
"""

from amaranth.sim import Simulator

from ..rtl.library import ModuleLibrary

__all__ = ["run_simulation", "InlineLibrary", "run_command"]


def run_simulation(dut, testbench, clocked: bool = True) -> None:
    """Run the async ``testbench(ctx)`` on ``dut`` (with a 1 MHz clock unless ``clocked``
    is false, for purely combinational components)."""
    sim = Simulator(dut)
    if clocked:
        sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()


class InlineLibrary(ModuleLibrary):
    """Instantiates leaf modules as Amaranth submodules (a fresh component each), so the
    simulator can run a tile whose PEs are otherwise Verilog instances.

    A fresh copy comes from the component's ``fresh()`` where it has one (a module whose
    constructor takes more than the configuration), else from ``type(c)(c.cfg)`` (the PEs).
    """

    def __init__(self, modules):
        super().__init__()
        self.modules.update(modules)
        self.used = set()

    def instantiate(self, m, name, instance_name, *, clocked=True):
        template = self.modules[name]
        if name not in self.used:
            component = template
        elif hasattr(template, "fresh"):
            component = template.fresh()
        else:
            component = type(template)(template.cfg)
        self.used.add(name)
        m.submodules[instance_name] = component
        return component


async def run_command(ctx, tile, cfg, bricks: int, max_cycles: int = 1000, *,
                      act_signed: bool = True):
    """Issue one tile command of ``bricks`` (operands already written) with the run's
    ``act_signed`` register (integer tiles) and collect the ``windows`` output rows; returns
    ``(cycles from the command to out.valid, rows)``, the cycle count the golden cycle
    models predict."""
    if "act_signed" in cfg.runtime:
        ctx.set(tile.cmd.payload.act_signed, int(act_signed))
    ctx.set(tile.cmd.payload.bricks, bricks)
    ctx.set(tile.cmd.valid, 1)
    await ctx.tick()
    ctx.set(tile.cmd.valid, 0)
    measured = 0
    while not ctx.get(tile.out.valid):
        await ctx.tick()
        measured += 1
        assert measured < max_cycles, f"no output within {max_cycles} cycles"
    rows = []
    for _ in range(cfg.windows):
        assert ctx.get(tile.out.valid)
        rows.append([ctx.get(tile.out.payload[f]) for f in range(cfg.filters)])
        await ctx.tick()
    return measured, rows
