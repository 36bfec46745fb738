# termwise static timing (Debian OpenSTA snapshot): register-to-register only, because the
# wrapper registers every tile input and output (set_input_delay is rejected by this build).
read_liberty ${LIBERTY}
read_verilog ${NETLIST}
link_design ${TOP}
create_clock -name clk -period ${PERIOD_NS} [get_ports clk]
puts "TERMWISE_BEGIN_CHECKS"
report_checks -path_delay max -format full_clock_expanded -fields {fanout cap slew input_pins} -digits 3
puts "TERMWISE_END_CHECKS"
puts "TERMWISE_WNS [sta::worst_slack -max]"
report_wns
report_tns
# Design-rule checks: max capacitance / fanout / transition and the liberty tables' range
# (drv.tcl, with drv_limits.tcl written from the liberty). Guarded: a process that loaded
# an older termwise.synth.asic (which does not write drv.tcl) still gets its timing; its
# report then says "design rules not checked".
if {[file exists drv.tcl]} { source drv.tcl }
exit
