"""Power from real switching activity: gate-level netlist, liberty, SAIF.

Modules
-------
cells
    The liberty's cells (functions, flip-flops/latches, pin capacitances, internal-power
    tables, leakage, units) and behavioural Verilog models of them for Verilator.
saif
    A reader of SAIF files (as Verilator ``--trace-saif`` writes them): per hierarchical net
    the toggle count and the time at 1.
compute
    Switching, internal and leakage power of a gate-level netlist from per-net toggle
    rates, by instance and summed by module; :func:`compute.gate_level_power` runs the whole
    chain (models + netlist under Verilator with SAIF tracing, random stimulus).
gatesim
    The Verilator build helper and the generic C++ stimulus harness.
stimulus
    The tile-run harness of ``termwise power`` (random operands, or the runs of a stimulus
    file) and the stimulus file's writer and reader.
workload
    The runs of a workload's real layers for the stimulus file (``termwise power
    --workload``): lowering, runtime registers, sampling within the cycle budget, real MACs.
part
    The representative part of a tile (one PE row: ``filters=1``, the shared logic, the
    whole tile's ``pe_stages``) and the scaling of its power to the whole tile, module by
    module by synthesised area, leakage exact from the cell counts (``termwise power
    --part``).
"""
