"""Small gate-level netlists in yosys ``write_verilog`` form for the power simulations'
tests (tests/synth/test_power_levelsim*.py)."""


def module_text(head: str, decls: list[str], cells: list[tuple]) -> str:
    """A module in yosys ``write_verilog`` form (one declaration a line, instances over
    several lines), as :func:`termwise.synth.netlist.parse_netlist` reads it."""
    body = "".join(f"  {d};\n" for d in decls)
    for cell, name, pins in cells:
        conns = ",\n".join(f"    .{p}({n})" for p, n in pins.items())
        body += f"  {cell} {name} (\n{conns}\n  );\n"
    return f"module {head};\n{body}endmodule\n"


# a clock gate (latch open while the clock is low, and an AND), a register bank on the
# gated clock, a toggle flop, falling-edge flops, an XOR/OAI/NAND cone two levels deep,
# and a sub-module (its nets at both levels)
NETLIST = module_text("sub(a, b, s, y)", ["input a", "input b", "input s", "output y", "wire a",
                                       "wire b", "wire s", "wire y", "wire n"], [
    ("MUX2X1", "m", {"A": "a", "B": "b", "S": "s", "Y": "n"}),
    ("INVX1", "i", {"A": "n", "Y": "y"})]) + module_text(
    "tiny(clk, a, b, en, y, q, z, w)",
    ["input clk", "input [3:0] a", "input [3:0] b", "input en", "output [3:0] y",
     "output q", "output [1:0] z", "output w", "wire clk", "wire [3:0] a", "wire [3:0] b",
     "wire en", "wire [3:0] y", "wire q", "wire [1:0] z", "wire w", "wire nclk",
     "wire en_l", "wire gclk", "wire [3:0] s", "wire t", "wire u"], [
        ("INVX1", "ci", {"A": "clk", "Y": "nclk"}),
        ("LATCH", "cl", {"CLK": "nclk", "D": "en", "Q": "en_l"}),
        ("AND2X1", "cg", {"A": "clk", "B": "en_l", "Y": "gclk"}),
        ("XOR2X1", "x0", {"A": "a[0]", "B": "b[0]", "Y": "s[0]"}),
        ("XOR2X1", "x1", {"A": "a[1]", "B": "b[1]", "Y": "s[1]"}),
        ("OAI21X1", "o2", {"A": "a[2]", "B": "b[2]", "C": "s[0]", "Y": "s[2]"}),
        ("NAND2X1", "n3", {"A": "s[1]", "B": "s[2]", "Y": "s[3]"}),
        *[("DFFPOSX1", f"r{k}", {"CLK": "gclk", "D": f"s[{k}]", "Q": f"y[{k}]"})
          for k in range(4)],
        ("XOR2X1", "tx", {"A": "q", "B": "a[3]", "Y": "t"}),
        ("DFFPOSX1", "tq", {"CLK": "clk", "D": "t", "Q": "q"}),
        ("DFFNEGX1", "nz0", {"CLK": "clk", "D": "y[3]", "Q": "z[0]"}),
        ("AOI22X1", "ao", {"A": "y[0]", "B": "q", "C": "b[3]", "D": "z[0]", "Y": "u"}),
        ("DFFNEGX1", "nz1", {"CLK": "clk", "D": "u", "Q": "z[1]"}),
        ("sub", "m", {"a": "u", "b": "q", "s": "en", "y": "w"})])
