"""Two's complement helpers (golden/twos_complement.py), checked against Python's own
integer arithmetic."""

import numpy as np
import pytest

from termwise.golden.twos_complement import to_unsigned, value_range, wrap


@pytest.mark.parametrize("bits", [1, 4, 8, 16])
def test_value_range(bits):
    assert value_range(bits, True) == (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
    assert value_range(bits, False) == (0, 2 ** bits - 1)


def test_wrap_and_bit_patterns():
    xs = [-300, -129, -128, -1, 0, 127, 128, 255, 256, 1000]
    for bits in (3, 8, 12):
        signed = [((x + 2 ** (bits - 1)) % 2 ** bits) - 2 ** (bits - 1) for x in xs]
        assert wrap(xs, bits).tolist() == signed
        assert wrap(xs, bits, signed=False).tolist() == [x % 2 ** bits for x in xs]
        assert to_unsigned(xs, bits).tolist() == [x % 2 ** bits for x in xs]
    assert wrap(np.int64(-5), 4).dtype == np.int64
