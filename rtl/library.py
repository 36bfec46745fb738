"""Emit each distinct leaf module once and instantiate it by name.

Amaranth writes one Verilog module per instance, so a 16x16 tile would carry 256 copies of
the same PE: emission, Verilator builds and synthesis all scale with that. Instead a tile
instantiates its PE through :func:`instantiate`, which records the PE component under a
unique module name; :func:`termwise.gen.emit.emit_verilog` converts each recorded component
once and appends it to the tile's Verilog.
"""

from amaranth import ClockSignal, Instance, ResetSignal, Value
from amaranth.lib import wiring

__all__ = ["ModuleLibrary"]


class ModuleLibrary:
    """The distinct leaf modules of one design: ``name -> component``."""

    def __init__(self):
        self.modules: dict[str, wiring.Component] = {}

    def add(self, name: str, component: wiring.Component) -> str:
        if self.modules.setdefault(name, component) is not component:
            raise ValueError(f"module name {name!r} is already taken by another component")
        return name

    def instantiate(self, m, name: str, instance_name: str, *, clocked: bool = True):
        """Add an instance of module ``name`` to ``m`` and return a fresh interface object
        (same signature as the module) whose signals the parent connects."""
        component = self.modules[name]
        iface = component.signature.create(path=(instance_name,))
        ports = {}
        for path, member, value in component.signature.flatten(iface):
            prefix = "i_" if member.flow == wiring.In else "o_"
            ports[prefix + "__".join(str(p) for p in path)] = Value.cast(value)
        if clocked:
            ports["i_clk"] = ClockSignal()
            ports["i_rst"] = ResetSignal()
        m.submodules[instance_name] = Instance(name, **ports)
        return iface
