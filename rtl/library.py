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
        iface = _Ports(component.signature, (instance_name,))
        ports = {}
        for path, member, value in component.signature.flatten(iface):
            prefix = "i_" if member.flow == wiring.In else "o_"
            ports[prefix + "__".join(str(p) for p in path)] = Value.cast(value)
        if clocked:
            ports["i_clk"] = ClockSignal()
            ports["i_rst"] = ResetSignal()
        m.submodules[instance_name] = Instance(name, **ports)
        return iface


class _Ports:
    """An instance's ports, as ``signature.create(path=path)`` would make them (the same
    names, shapes and initial values, nested interfaces and arrays alike), except that a
    port with a layout (or other shape-castable) shape is a plain signal of its width seen
    through the layout.

    A signal with a layout shape makes Amaranth write a named wire per field in the
    parent's Verilog; at one instance per PE that is most of a large array's module (260k
    lines of laconic-16x16's array were such wires). Creating it is slow as well (its
    format, per field): making the plain ports directly took laconic-16x16 with per-column
    weights (2,112 instances) from 126 to 116 s of CPU to emit.
    """

    def __init__(self, signature, path):
        for name, member in signature.members.items():
            setattr(self, name, _member(member, member.dimensions, path + (name,)))


def _member(member, dimensions, path):
    if dimensions:
        return [_member(member, dimensions[1:], path + (index,))
                for index in range(dimensions[0])]
    if member.is_signature:
        return _Ports(member.signature, path)
    name = "__".join(str(p) for p in path)
    shape = member.shape
    if isinstance(shape, ShapeCastable):
        init = Const.cast(shape.const(member.init)).value
        return shape(Signal(Shape.cast(shape).width, name=name, init=init))
    return Signal(shape, name=name, init=member.init)
