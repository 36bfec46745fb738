"""Liberty lookup tables: grid points, bilinear interpolation, linear extrapolation past
either end, 1-D tables, and the variables a power table may name (values worked out by
hand below)."""

import pytest

from termwise.synth.power.tables import Table, lookup

# energy(load, slew): rows at load 0.0 and 0.1, columns at slew 0.1 and 0.5
GRID = Table(("total_output_net_capacitance", "input_transition_time"),
             ((0.0, 0.1), (0.1, 0.5)),
             ((1.0, 2.0), (3.0, 6.0)))


def test_grid_points_and_interpolation():
    assert lookup(GRID, 0.0, 0.1) == 1.0
    assert lookup(GRID, 0.1, 0.5) == 6.0
    # load 0.05: half way between the rows; slew 0.3: half way between the columns
    # rows at slew 0.3: 1.5 and 4.5, their mean 3.0
    assert lookup(GRID, 0.05, 0.3) == pytest.approx(3.0)
    assert GRID.in_range(total_output_net_capacitance=0.05, input_transition_time=0.3)


def test_extrapolation_past_the_ends():
    # load 0.2: one row step past the last; slew 0.1: column 0 -> 3 + (3 - 1) = 5
    assert lookup(GRID, 0.2, 0.1) == pytest.approx(5.0)
    # slew 0.0 before the first column, load 0: 1 - (2 - 1) / 4 = 0.75
    assert lookup(GRID, 0.0, 0.0) == pytest.approx(0.75)
    assert not GRID.in_range(total_output_net_capacitance=0.2, input_transition_time=0.1)


def test_one_dimensional_and_variables():
    passive = Table(("input_transition_time",), ((0.1, 0.3, 0.5),), ((2.0, 4.0, 5.0),))
    assert lookup(passive, 123.0, 0.4) == pytest.approx(4.5)     # load ignored
    assert lookup(passive, 0.0, 0.6) == pytest.approx(5.5)       # last segment extended
    single = Table(("related_pin_transition",), ((0.2,),), ((7.0,),))
    assert lookup(single, 0.0, 9.0) == 7.0
    with pytest.raises(KeyError):
        lookup(Table(("output_net_length",), ((1.0, 2.0),), ((1.0, 2.0),)), 0.0, 0.1)
    with pytest.raises(KeyError):
        GRID.at(total_output_net_capacitance=0.0)
