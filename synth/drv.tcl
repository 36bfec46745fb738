# termwise design-rule checks (sourced by sta.tcl after the timing report; plain Tcl, not a
# template). The Debian OpenSTA snapshot (2.0.17, 2019) checks only max_transition
# (report_check_types); max_capacitance and max_fanout are checked here on every driving
# leaf pin, and so is the liberty's characterised range: a load past the last load index of
# the driver's delay tables, or a slew past the tables' last input-transition index, is
# extrapolated by the timer, not looked up.
#
# drv_limits.tcl (written by termwise.synth.asic from the liberty, see liberty.py) sets
#   termwise_drv_pin(CELL/PIN) {max_capacitance_pF table_max_load_pF max_fanout} ("-" = none)
#   termwise_drv_slew          the tables' characterised slew range, ns ("-" = unknown)
# Output, one line per violation (units pF, ns, pins):
#   TERMWISE_DRV <kind> <driver pin> <net> <cell> <value> <limit> <fanout>
source drv_limits.tcl

# The sampled timing (termwise.synth.sta_sample) writes sta_stub_fanout.tcl: a stubbed
# instance's input pin stands for termwise_stub_fanout(<pin>) cell pins inside the PE (cell
# termwise_sta_stub), termwise_stub_fanout(<cell>/<pin>) inside another stubbed module.
array set termwise_stub_fanout {}
if {[file exists sta_stub_fanout.tcl]} { source sta_stub_fanout.tcl }

proc termwise_fanout {pin} {
  global termwise_stub_fanout
  set n 0
  set it [$pin connected_pin_iterator]
  while {[$it has_next]} {
    set q [$it next]
    if {[$q is_leaf] && [$q is_load]} {
      set port [get_name [$q port]]
      set cell [get_name [[$q instance] liberty_cell]]
      if {[info exists termwise_stub_fanout($port)] && $cell eq "termwise_sta_stub"} {
        incr n $termwise_stub_fanout($port)
      } elseif {[info exists termwise_stub_fanout($cell/$port)]} {
        incr n $termwise_stub_fanout($cell/$port)
      } else {
        incr n
      }
    }
  }
  $it finish
  return $n
}

proc termwise_drv_line {kind pin cell value limit fanout} {
  set net [$pin net]
  set net_name [expr {$net eq "NULL" ? "-" : [get_full_name $net]}]
  if {$fanout eq ""} { set fanout [termwise_fanout $pin] }
  puts [format "TERMWISE_DRV %s %s %s %s %.4f %.4f %d" $kind [get_full_name $pin] $net_name \
          $cell $value $limit $fanout]
}

puts "TERMWISE_DRV_BEGIN"
set termwise_corner [sta::cmd_corner]
set termwise_drivers 0
foreach pin [get_pins -hierarchical *] {
  if {![$pin is_leaf] || ![$pin is_driver]} { continue }
  set lport [$pin liberty_port]
  if {$lport eq "NULL"} { continue }
  set cell [get_name [[$pin instance] liberty_cell]]
  set key "$cell/[get_name $lport]"
  if {![info exists termwise_drv_pin($key)]} { continue }
  incr termwise_drivers
  lassign $termwise_drv_pin($key) max_cap table_load max_fo
  # OpenSTA works in SI units: farads and seconds.
  set cap [expr {1e12 * max([$pin capacitance rise $termwise_corner max], \
                             [$pin capacitance fall $termwise_corner max])}]
  set slew 0.0
  foreach v [$pin vertices] {
    foreach s [concat [$v slews rise] [$v slews fall]] {
      if {$s > $slew} { set slew $s }
    }
  }
  set slew [expr {1e9 * $slew}]
  set fanout ""
  if {$max_fo ne "-"} {
    set fanout [termwise_fanout $pin]
    if {$fanout > $max_fo} { termwise_drv_line max_fanout $pin $cell $fanout $max_fo $fanout }
  }
  if {$max_cap ne "-" && $cap > $max_cap} {
    termwise_drv_line max_capacitance $pin $cell $cap $max_cap $fanout
  }
  if {$table_load ne "-" && $cap > $table_load} {
    termwise_drv_line table_range_load $pin $cell $cap $table_load $fanout
  }
  if {$termwise_drv_slew ne "-" && $slew > $termwise_drv_slew} {
    termwise_drv_line table_range_slew $pin $cell $slew $termwise_drv_slew $fanout
  }
}
puts "TERMWISE_DRV_DRIVERS $termwise_drivers"
puts "TERMWISE_DRV_END"
# OpenSTA's own check: max_transition limits the liberty (or an SDC) declares, every pin.
puts "TERMWISE_CHECK_TYPES_BEGIN"
report_check_types -max_transition -all_violators -digits 4
puts "TERMWISE_CHECK_TYPES_END"
