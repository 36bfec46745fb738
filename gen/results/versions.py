"""Every flow version constant: the hand-bumped part of every result key.

A stored result is keyed on explicit inputs (configuration, tool versions, data hashes)
and on the version of the flow that computed it, never on the flow's source text: editing
a docstring, a comment or an error message retires nothing, while a change that would move
a number must bump its flow's version here, by hand, in the same commit. Old entries then
stop matching (they stay, unused) and are measured or rebuilt again.

Two guards catch a forgotten bump in ``make test``: the emitted Verilog of the small
presets is compared with the hashes recorded for :data:`RTL_VERSION`
(tests/gen/test_results_rtl_guard.py), and a sample of the shipped system perf-db's cycles
is recomputed with the cycle model and compared exactly (tests/gen/
test_results_cycle_guard.py). The synthesis and power flows have no such cheap guard (a
run takes minutes): their shipped results are re-measured and compared when the flow
changes (synth/README.md, "Measured results").
"""

from __future__ import annotations

__all__ = ["ASIC_SCRIPT_VERSION", "FPGA_SCRIPT_VERSION", "POWER_FLOW_VERSION",
           "POWER_REPORT_LAYOUT_VERSION", "CYCLE_MODEL_VERSION", "RTL_VERSION",
           "WORKLOAD_KEYS_VERSION", "ALL"]

#: The ASIC synthesis flow (every synthesis key, termwise.synth.api, and the perf-db's
#: ``synth`` versions). Bump it when a change of synth/asic.ys, sta.tcl, drv.tcl,
#: osu018.constr, asic.py, wrapper.py, parse.py, liberty.py, buffer.py or netlist.py would
#: change any figure of a synthesis (area, timing, cell counts, the refreshed report). The
#: Verilog, the liberty's content and the tools' versions are keyed on their own.
ASIC_SCRIPT_VERSION = "asic-7"

#: The FPGA (ECP5) synthesis flow, in every ECP5 synthesis key. Bump it when a change of
#: synth/ecp5.ys, fpga.py, wrapper.py or parse.py would change a result.
FPGA_SCRIPT_VERSION = "ecp5-1"

#: The power flow, in every power report's key (termwise.synth.power.keys). Bump it when a
#: change would change any number of a report: synth/power's flow.py, measure.py (the run,
#: the rates, the power by kind), model.py (the build), stimulus.py (the harness and the
#: stimulus file), workload.py (the workload's runs), cells.py, cell_functions.py,
#: cell_models.py and tables.py (the cells, their models and tables), saif.py, compute.py
#: and synth/netlist.py (the power arithmetic), opensta.py (the cross-check), part.py and
#: part_report.py (part scaling), records.py (energy and activity); and the stimulus code
#: they call (golden/lowering.py, the cycle model, golden/packing.py), phases.py. Version 1
#: is the flow the shipped reports (synth/measured/power) were measured with; version 2
#: (issue 41) draws the workload's runs in the network's mix and measures busy, load and
#: idle cycles apart (phases.py); version 3 adds a run of empty runs alone and solves for
#: their busy cycles as a sort of their own (2 was never shipped); version 4 loads each
#: empty run's own first activation row in that run, not a zero row (3 priced the
#: loads' rows with the zero rows' cheaper cycles); version 5 reads an instance's
#: connections to escaped port names (synth/netlist.py ``escaped_pins``): a net entering a
#: submodule through one is one net, its loads charged to its driver, as the levelised
#: simulation's power has been since LEVELSIM_VERSION 2.
POWER_FLOW_VERSION = 5

#: The layout of a stored power report (power_report.json and the inputs its key hashes).
#: Bump it when a field is added, removed or renamed in either, so that an old entry is
#: never read as a new one.
POWER_REPORT_LAYOUT_VERSION = 4

#: The cycle model (termwise.golden: tile_model.py, arch/, primitives/, lowering.py,
#: registers.py, netsim/simulate.py and what they call), in every perf-db ``cycles``
#: result's versions. Bump it when a change would change any field of a cycles result
#: (cycles, rtl_cycles, work, runs, steps, sampled) of any layer, configuration or method;
#: then rebuild the system perf-db (``termwise db build-system``). Version 1 is the model
#: the shipped system db was built with (its rows were keyed on the model's source sha256
#: d5e2751418fdd1ed before this constant; every value identical on the rebuild). Version 2:
#: Stripes', Dynamic Stripes', zero-skipping Stripes' and Loom's fc runs stagger their
#: columns (one cycle fewer per run: ``rtl_cycles`` of their batch-1 fc layers on
#: ``fc_columns`` tiles; every other field and result as in version 1).
CYCLE_MODEL_VERSION = 2

#: The emitted Verilog (termwise.rtl, gen/emit.py, the designs' specs), in the perf-db's
#: ``synth`` versions. Bump it when the Verilog rendered for any configuration changes
#: (even by a name or a comment: synthesis keys hash the Verilog itself), record the new
#: hashes (tests/gen/test_results_rtl_guard.py says how) and rebuild the system perf-db
#: (`termwise db build-system`: its rows carry this version, and tune falls back to the
#: analytic model for a design whose rows are of another; tests/e2e/test_system_db.py).
#: Version 2: SRAM-macro buffers
#: read only the rows a run uses (each once), Laconic's per-column weight term counts
#: a port per column (laconic-16x16 with fc_columns did not emit); every flop preset's
#: Verilog as in version 1. Version 3: Laconic's term lanes grouped per brick (one
#: ``TermBrick`` library module per weight or activation brick, rtl/laconic_terms.py);
#: every other design's Verilog as in version 2 (37 preset hashes compared). Version 4:
#: Stripes', Dynamic Stripes', zero-skipping Stripes' and Loom's ``fc_columns`` tiles
#: stagger their columns in fc runs, one weight register per PE (rtl/column_stagger.py);
#: every tile without ``fc_columns``, and every other design's, as in version 3 (the small
#: presets' hashes, and Laconic's and Pragmatic's with ``fc_columns``, compared). Version 5:
#: the staggered ``fc_columns`` tiles' per-column weight register and the choice of what
#: the column reads are one library module instantiated per column
#: (rtl/column_stagger.ColumnRegister); every other Verilog as in version 4 (the 36
#: variants of the small presets with and without ``fc_columns``, flops and macros:
#: the 8 staggered ones changed, 28 equal). Version 6: Laconic's PE is the paper's
#: (``reduction = "histogram"``: per-exponent counts and a grouped shift-and-add,
#: rtl/laconic_pe.py; version 5's PE is ``reduction = "onehot"``, byte-identical to it);
#: every other design's Verilog as in version 5. Version 7: the double-buffered fc loader's
#: per-column registers (Laconic, Pragmatic with ``fc_columns``) are library modules the
#: tile instantiates per column (rtl/column_weights.ColumnSlot), not the loader's own
#: (laconic-16x16 at 16 bits: a million-cell module whose netlist stage took 11.6 GB), and
#: with ``fc_columns`` Laconic's step-length detector takes each column's longest lane
#: from one library module the array instantiates per column (rtl/laconic.ColumnPairCount:
#: the detector was a flat 923k-cell module at 16 bits); the 33 variants of the small presets
#: compared: the 4 Laconic and Pragmatic ``fc_columns`` ones changed, 29 equal.
RTL_VERSION = 7

#: The perf-db's cache of a workload's layer problem keys (termwise.gen.flows.perfdb.
#: workload_keys), in its fingerprint. Bump it when the layers a workload loads from the
#: same trace-cache files would change (termwise.golden.workloads' loaders, training or
#: tracing code, golden/lowering.py's layer view) or when the layer problem key's spelling
#: changes (gen/flows/perfdb/problem.py). A retrained or re-traced workload needs no bump:
#: its files' names, sizes and times are in the fingerprint.
WORKLOAD_KEYS_VERSION = 1

#: Every version by name (for reports and the tests).
ALL = {"ASIC_SCRIPT_VERSION": ASIC_SCRIPT_VERSION, "FPGA_SCRIPT_VERSION": FPGA_SCRIPT_VERSION,
       "POWER_FLOW_VERSION": POWER_FLOW_VERSION,
       "POWER_REPORT_LAYOUT_VERSION": POWER_REPORT_LAYOUT_VERSION,
       "CYCLE_MODEL_VERSION": CYCLE_MODEL_VERSION, "RTL_VERSION": RTL_VERSION,
       "WORKLOAD_KEYS_VERSION": WORKLOAD_KEYS_VERSION}
