"""Power from real switching activity: gate-level netlist, liberty, SAIF.

The power flow (``termwise power``, and ``termwise report``'s power column) as a library;
:func:`flow.power_report` is its one entry point.

Modules
-------
flow
    :func:`flow.power_report`: the report of a tile, measured (whole, or a part scaled) or
    found stored.
measure
    One measurement: synthesis (cached), the gate-level model run on tile runs, power from
    its SAIF toggle counts, OpenSTA beside it.
part_report
    The whole tile's report from a part's measurement.
part
    The representative part of a tile (one PE row: ``filters=1``, the shared logic, the
    whole tile's ``pe_stages``; or a slice of it) and the rules that scale its power to the
    whole tile, module by module by synthesised area, leakage exact from the cell counts.
records
    The report's energy and activity records and what is and is not modelled.
report_files
    ``power_report.json`` and ``power_report.md``, and the one-line summary.
keys
    The report's key (explicit inputs and versions: ``POWER_FLOW_VERSION``), the synthesis
    keys and the Verilog sha256 memo they are computed from, and whether a shipped entry is
    current.
cache
    The power cache beside the synthesis cache: models, runs, stored reports.
model
    The gate-level model: the netlist and the liberty's cell models compiled by Verilator
    with SAIF tracing and the tile-run harness, cached; its runs.
cells
    The liberty's cells (pins and their functions' text, flip-flops/latches, pin
    capacitances, internal-power tables, leakage, units, wire loads).
cell_functions
    The liberty's Boolean function expressions: parsed, evaluated, written as Verilog.
tables
    The liberty's lookup tables: interpolated and extrapolated as OpenSTA does.
cell_models
    Behavioural Verilog models of the cells for Verilator.
saif
    A reader of SAIF files (as Verilator ``--trace-saif`` writes them): per hierarchical net
    the toggle count and the time at 1.
compute
    Switching, internal and leakage power of a gate-level netlist from per-net toggle
    rates, by instance and summed by module.
gatesim
    The Verilator build helper.
levelsim
    A levelised, cycle-based gate-level simulation in NumPy (no compilation): the toggle
    counts of Verilator's SAIF of the same netlist, checked against it.
tile_driver
    The tile-run harness of :mod:`.stimulus` in Python, driving a levelised simulation.
levelsim_run
    ``--simulator levelsim``: the power flow's runs on the levelised simulation, their
    activity handed on in the SAIF's form.
opensta
    OpenSTA's vectorless ``report_power``, the cross-check.
stimulus
    The tile-run harness (random operands, or the runs of a stimulus file) and the
    stimulus file's writer and reader.
workload
    The runs of a workload's real layers for the stimulus file (``termwise power
    --workload``): lowering, runtime registers, sampling within the cycle budget, real MACs.
"""
