"""gen/flows/reports/ppa.py: how each design's power was obtained, as report.md states it."""

import pytest

from termwise.gen.flows.reports.ppa import method_text


def test_method_text_names_the_part():
    assert method_text({}) == "the whole tile simulated at gate level"
    assert method_text({"method": {"mode": "whole"}}).startswith("the whole tile")
    assert method_text({"method": {"mode": "whole"}, "simulator": {"name": "levelsim"}}) == (
        "the whole tile simulated at gate level (termwise's levelised simulation)")
    row = method_text({"method": {"mode": "row", "part_top": "t_f1w64"}})
    assert row.startswith("one PE row (t_f1w64)") and "scaled" in row
    sl = method_text({"method": {"mode": "slice", "part_top": "t_f1w16",
                                 "macs": {"windows": [16, 64]}}})
    assert sl.startswith("a slice of one PE row (t_f1w16: 16 of 64 window columns)")
    smp = method_text({"method": {"mode": "sampled"}, "sampling": {"modules": {
        "t__pe": {"sampled": ["a", "b"], "instances": 256, "bound95_fraction": 0.016}}}})
    assert smp.startswith("the whole tile simulated, its replicated modules on sampled")
    assert smp.endswith("2 of 256 (+/-1.6%, 95%)")
    with pytest.raises(ValueError, match="'half'"):
        method_text({"method": {"mode": "half"}})


def test_power_column_is_the_power_while_busy():
    """With busy cycles measured apart, the row's power is the tile's while busy plus the
    clock network (0.8 + 0.3 W), the stimulus's average kept beside it; without, the
    average (0.5 + 0.3 W), marked as such."""
    from termwise.gen.flows.reports.ppa import design_row
    synth = {"preset": "p", "top": "t", "throughput": {"peak_macs_per_cycle": 16},
             "asic": {"area_um2": 1e6, "fmax_mhz": 100.0, "drv_violations": {"count": 0}}}
    sim = {"cycles": 10, "rtl_cycles": 12, "speedup": 1.0}
    pw = {"tile": 0.5, "clock_network": 0.3, "tile_with_clock_network": 0.8}
    busy = design_row("d", synth, {"power_w": pw, "phases": {"busy_w": 0.8}}, None, sim,
                      None, None, {})
    assert busy["power_mw"] == pytest.approx(1100.0)
    assert busy["power_average_mw"] == pytest.approx(800.0) and busy["power_while_busy"]
    avg = design_row("d", synth, {"power_w": pw}, None, sim, None, None, {})
    assert avg["power_mw"] == pytest.approx(800.0) and avg["power_while_busy"] is False


def test_power_shares_of_storage_and_clock():
    """Storage's share: the buffers and the fc column registers over the tile's power (the
    IO wrapper is not the tile); the clock network's: over the tile's power with it."""
    from termwise.gen.flows.reports.ppa import power_shares
    power = {"power_w": {"tile": 0.8, "clock_network": 0.2},
             "by_kind_w": {"buffers": {"total_w": 0.1}, "fc_weight_registers": {"total_w": 0.1},
                           "pe_lanes": {"total_w": 0.6}, "io_wrapper": {"total_w": 0.05}}}
    shares = power_shares(power)
    assert shares["storage_power_share"] == pytest.approx(0.25)
    assert shares["clock_network_share"] == pytest.approx(0.2)
    assert power_shares({"power_w": {"tile": 0.8}}) == {"storage_power_share": None,
                                                          "clock_network_share": None}


def test_common_differences_follow_the_tables_storage():
    from termwise.gen.flows.reports.ppa import common_differences
    flops = " ".join(common_differences())
    assert "operand buffers as flip-flops" in flops and "clocked every cycle" in flops
    macros = " ".join(common_differences("macros", True))
    assert "operand buffers as SRAM macros" in macros and "clocked every cycle" not in macros
    # the designs that keep stores of their own (their specs' own_stores) keep flip-flops
    assert "of cnvlutin, tactical in flip-flops)" in macros
