"""Emit each distinct leaf module once and instantiate it by name.

Amaranth writes one Verilog module per instance, so a 16x16 tile would carry 256 copies of
the same PE: emission, Verilator builds and synthesis all scale with that. Instead a tile
instantiates its PE through :func:`instantiate`, which records the PE component under a
unique module name; :func:`termwise.gen.emit.emit_verilog` converts each recorded component
once and appends it to the tile's Verilog.
"""

from amaranth import ClockSignal, Const, Instance, ResetSignal, Shape, ShapeCastable, Signal, Value
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
        _plain_ports(iface, component.signature, (instance_name,))
        ports = {}
        for path, member, value in component.signature.flatten(iface):
            prefix = "i_" if member.flow == wiring.In else "o_"
            ports[prefix + "__".join(str(p) for p in path)] = Value.cast(value)
        if clocked:
            ports["i_clk"] = ClockSignal()
            ports["i_rst"] = ResetSignal()
        m.submodules[instance_name] = Instance(name, **ports)
        return iface


def _plain_ports(iface, signature, path):
    """Give every port of ``iface`` with a layout (or other shape-castable) shape a plain
    signal of its width, seen through the same layout.

    A signal with a layout shape makes Amaranth write a named wire per field in the
    parent's Verilog; at one instance per PE that is most of a large array's module (260k
    lines of laconic-16x16's array were such wires). The ports' values are unchanged.
    """
    for name, member in signature.members.items():
        sub = path + (name,)
        if member.is_signature:
            _plain_ports(getattr(iface, name), member.signature, sub)
        elif isinstance(member.shape, ShapeCastable):
            shape = member.shape
            init = Const.cast(shape.const(member.init)).value
            plain = Signal(Shape.cast(shape).width, name="__".join(sub), init=init)
            setattr(iface, name, shape(plain))
