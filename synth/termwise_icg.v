// termwise_icg: an integrated clock-gating cell built from OSU018 standard cells (the
// library has none). The enable is caught by a latch that is transparent while the clock is
// LOW (LATCH is transparent while its CLK pin is high, so it gets the inverted clock) and
// holds while the clock is high; the gated clock is clk AND the latched enable. An enable
// that changes while clk is high therefore cannot cut or extend a clock pulse (no glitch),
// and gclk pulses in a cycle only if CE was high at the rising clock edge that starts it.
// termwise.synth.clock_gating: yosys `clockgate -pos termwise_icg CE:CLK:GCLK` instantiates
// it, `techmap -map termwise_icg.v` replaces every instance with these three cells.
module termwise_icg (CE, CLK, GCLK);
  input CE;
  input CLK;
  output GCLK;
  wire clk_n;
  wire en_latched;
  INVX1 inv (.A(CLK), .Y(clk_n));
  LATCH latch (.CLK(clk_n), .D(CE), .Q(en_latched));
  AND2X2 gate (.A(CLK), .B(en_latched), .Y(GCLK));
endmodule
