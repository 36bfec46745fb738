"""pytest runner for the Bit-Tactical tile regressions under Verilator (rtl/tactical.py,
cocotb module :mod:`termwise.tb.tactical_cases`): outputs exact against the dense dot
product, cycle counts exact against golden/arch/tactical.py, for both back ends, on every
regression the design registers. The host lowers the weights with the offline schedule
(golden/tactical_schedule.py), so these runs use the Bit-Tactical driver.
"""

import pytest

from termwise.tb.regress import params, regress


@pytest.mark.parametrize("cfg, suites", params("termwise.tb.tactical_cases"))
def test_tactical_tile(cfg, suites, request):
    result = regress(cfg, suites, request)
    sparse = [r for r in result.runs if r["suite"] == "sparse"]
    assert sparse and any(r["kept"] < r["dense_steps"] for r in sparse), \
        "no step was ever skipped"
