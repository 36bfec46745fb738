"""The rules that bring OpenRAM's scn4m_subm macros to the OSU 0.18 um library's node.

The macros are compiled and simulated in OpenRAM's offline ``scn4m_subm`` technology
(MOSIS SCMOS rules ``SCN4M_SUBM.20``: lambda = 0.20 um, "to process: TSMC35", drawn
channel length 2 lambda = 0.40 um, nominal supply 5.0 V; OpenRAM 1.2.48
``technology/scn4m_subm/tech/tech.py`` ``_lambda_ = 0.2``, ``drc["minlength_channel"] =
2*_lambda_``, ``spice["nom_supply_voltage"] = 5.0``, and ``tech/SCN4M_SUBM.20.tech``). The
standard cells termwise synthesises to are OSU's 0.18 um cells, drawn in SCMOS rules
``SCN6M_SUBM.10`` (lambda = 0.10 um, "to process: TSMC18";
``/usr/share/qflow/tech/osu018/SCN6M_SUBM.10.tech``) at 1.8 V (``osu018_stdcells.lib``
``nom_voltage : 1.8``). Both are lambda-based SCMOS layouts, so the linear factor is the
ratio of the lambdas, 0.5.

Rules (constant-field scaling, R. H. Dennard et al., "Design of ion-implanted MOSFET's with
very small physical dimensions", IEEE JSSC 9(5), 1974; J. Rabaey, A. Chandrakasan,
B. Nikolic, "Digital Integrated Circuits", 2nd ed., 2003, sec. 3.5 "Technology scaling"):

=============  ==========================  ==============================================
quantity       rule                        factor (s = 0.5, V'/V = 1.8/5.0 = 0.36)
=============  ==========================  ==============================================
area           ~ s^2                       0.25
capacitance    ~ s                         0.5
energy         C V^2 ~ s (V'/V)^2          0.0648
delay          ~ s (constant field)        0.5
leakage power  I V ~ s (V'/V)              0.18 (indicative only: see below)
=============  ==========================  ==============================================

Not captured: a real 0.18 um process's thresholds (about 0.4-0.5 V against scn4m_subm's
models' VTH0 = 0.50 V at 5 V: the gate overdrive falls from 4.5 V to about 1.35 V, so the
delay factor of 0.5 is optimistic for a 1.8 V supply), its thinner oxide and its
subthreshold leakage (exponential in the threshold, not a power of s); and a foundry 0.18
um bitcell drawn with tighter rules than SCMOS lambda rules (the cross-check in
:mod:`.published` measures that gap).
"""

from __future__ import annotations

__all__ = ["LAMBDA_FROM_UM", "LAMBDA_TO_UM", "VDD_FROM_V", "VDD_TO_V", "LINEAR", "AREA",
           "CAPACITANCE", "ENERGY", "DELAY", "LEAKAGE", "FACTORS"]

#: scn4m_subm's lambda (um): OpenRAM technology/scn4m_subm/tech/tech.py ``_lambda_``.
LAMBDA_FROM_UM = 0.20
#: OSU018's lambda (um): qflow tech/osu018/SCN6M_SUBM.10.tech ``lambda=0.10``.
LAMBDA_TO_UM = 0.10
#: scn4m_subm's nominal supply (V): tech.py ``spice["nom_supply_voltage"]``.
VDD_FROM_V = 5.0
#: OSU018's supply (V): osu018_stdcells.lib ``nom_voltage``.
VDD_TO_V = 1.8

#: Linear dimension factor s.
LINEAR = LAMBDA_TO_UM / LAMBDA_FROM_UM
#: Area ~ s^2.
AREA = LINEAR ** 2
#: Capacitance ~ s (Dennard 1974, table I).
CAPACITANCE = LINEAR
#: Switching energy C V^2 (Rabaey et al. sec. 5.4: E = C_L V_DD^2 per 0->1->0 cycle).
ENERGY = CAPACITANCE * (VDD_TO_V / VDD_FROM_V) ** 2
#: Gate delay ~ s under constant-field scaling (Dennard 1974, table I).
DELAY = LINEAR
#: Leakage power I V, the current ~ s (device width): indicative only.
LEAKAGE = LINEAR * (VDD_TO_V / VDD_FROM_V)

#: The factors by name, as the data file records them (``scale.factors``).
FACTORS = {"linear": LINEAR, "area": AREA, "energy": ENERGY, "delay": DELAY,
           "leakage": LEAKAGE}
