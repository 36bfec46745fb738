"""The structural netlist reader on a hand-written netlist: declarations, connections bit by
bit (vectors, slices, escaped names, sized and plain constants, concatenations), assigns,
the hierarchy's order and the nets joined through a submodule's ports."""

from termwise.synth.netlist import (UnionFind, bit_text, bits_of, bottom_up, module_nets,
                                    module_order, output_aliases, parse_netlist, port_nets,
                                    sub_bits)

NETLIST = r"""module leaf(a, y, z);
  input [1:0] a;
  wire [1:0] a;
  output y;
  wire y;
  output z;
  wire z;
  assign z = y;
  AND2X1 _0_ (
    .A(a[1]),
    .B(a[0]),
    .Y(y)
  );
endmodule

module \top.x (b, q);
  input [3:0] b;
  wire [3:0] b;
  output [1:0] q;
  wire [1:0] q;
  wire \n$1 ;
  wire [2:0] w;
  assign w = { \n$1 , 2'b10 };
  leaf u (
    .a(b[2:1]),
    .y(q[0]),
    .z(q[1])
  );
  INVX1 \i$2  (
    .A(b[3]),
    .Y(\n$1 )
  );
endmodule
"""


def test_declarations_instances_assigns():
    mods = {m.name: m for m in parse_netlist(NETLIST)}
    assert list(mods) == ["leaf", "top.x"] == module_order(NETLIST)
    top = mods["top.x"]
    assert top.dirs == {"b": "input", "q": "output"}
    assert top.widths == {"b": (3, 0), "q": (1, 0), "\\n$1": (0, 0), "w": (2, 0)}
    assert top.vectors == {"b", "q", "w"}
    u, inv = top.insts
    assert (u.type, u.name, u.text_span) == ("leaf", "u", (7, 11))
    assert u.conns == {"a": [("b", 2), ("b", 1)], "y": [("q", 0)], "z": [("q", 1)]}
    assert (inv.type, inv.name) == ("INVX1", "\\i$2")
    assert inv.conns == {"A": [("b", 3)], "Y": [("\\n$1", 0)]}
    assert top.assigns == [([("w", 2), ("w", 1), ("w", 0)],
                            [("\\n$1", 0), ("'", "1"), ("'", "0")])]
    assert bit_text(("\\n$1", 0), top) == "\\n$1 "
    assert bit_text(("b", 3), top) == "b[3]"
    assert bit_text(("'", "1"), top) == "1'b1"


def test_constants():
    mod = parse_netlist(NETLIST)[0]
    assert bits_of(["4'hA"], mod) == [("'", c) for c in "1010"]
    assert bits_of(["3'b1_1"], mod) == [("'", c) for c in "011"]
    assert bits_of(["2'd7"], mod) == [("'", c) for c in "11"]      # truncated to 2 bits
    assert bits_of(["5"], mod) == [("'", c) for c in "101"]
    assert bits_of(["{", "a", ",", "1'b0", "}"], mod) == [("a", 1), ("a", 0), ("'", "0")]


def test_union_find():
    uf = UnionFind()
    uf.union(1, 2)
    uf.union(3, 2)
    assert uf.find(1) == uf.find(3) == 2 and uf.find(4) == 4


def test_hierarchy_and_nets():
    mods = {m.name: m for m in parse_netlist(NETLIST)}
    assert bottom_up(mods) == ["leaf", "top.x"]
    assert bottom_up(mods, "leaf") == ["leaf"] and bottom_up(mods, "none") == []
    leaf_nets = module_nets(mods["leaf"], mods, {})
    aliases = {"leaf": output_aliases(mods["leaf"], leaf_nets)}
    # z = y inside leaf: both outputs are one net there
    assert aliases["leaf"][("y", 0)] == aliases["leaf"][("z", 0)]
    uf = module_nets(mods["top.x"], mods, aliases)
    assert uf.find(("q", 0)) == uf.find(("q", 1)) != uf.find(("b", 0))
    assert uf.find(("w", 2)) == uf.find(("\\n$1", 0))
    assert len(set(port_nets(mods["top.x"], uf, "output"))) == 1
    assert len(list(port_nets(mods["top.x"], uf, "input"))) == 4
    assert sub_bits(mods["leaf"], "a", 2) == [("a", 1), ("a", 0)]
    assert sub_bits(mods["leaf"], "y", 1) == [("y", 0)]
