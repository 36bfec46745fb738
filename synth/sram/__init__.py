"""SRAM macros from a real memory compiler: OpenRAM (its own venv, ``.venv-openram``)
compiles and characterises macro shapes by SPICE (ngspice) in its offline scn4m_subm
technology; :mod:`.characterise` reads their liberty and LEF, scales them to 0.18 um /
1.8 V and writes the data file the golden layer's model reads
(:mod:`termwise.golden.sram`). ``make sram`` runs it all (docs/sram.md)."""
