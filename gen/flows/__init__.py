"""termwise's library flows: each takes a configuration or a workload and returns a document,
with its writer beside it; the commands (:mod:`termwise.gen.commands`) parse arguments and
call one of them.

- :mod:`.perfdb`: the performance database (problems, results, the shipped system db);
- :mod:`.sweep`: a grid of configurations x layers measured into the perf-db;
- :mod:`.tune`: choose the configuration per layer from the perf-db;
- :mod:`.reports`: the writers (JSON, CSV, Markdown, plots) of the simulation, PPA,
  Bit-Tactical, ShapeShifter and trade-off documents.

Synthesis and power are library flows of their own in :mod:`termwise.synth`; the network
simulator is :mod:`termwise.golden.netsim`.
"""
