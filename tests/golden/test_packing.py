"""Row packing (:func:`termwise.golden.packing.pack_rows`, vectorised; used by the driver's
two load paths and by the power stimulus): every field's two's complement bits at
``i * bits``, against a plain shift-and-or written here, at the byte widths (which take the
fast path) and odd ones."""

import numpy as np
import pytest

from termwise.golden.packing import pack_row, pack_rows, unpack_row


def _reference(row, bits):
    word = 0
    for i, v in enumerate(row):
        word |= (int(v) & ((1 << bits) - 1)) << (i * bits)
    return word


@pytest.mark.parametrize("bits", [3, 8, 9, 16, 17, 32, 40])
def test_pack_rows_is_the_shift_and_or(bits):
    rng = np.random.default_rng(bits)
    values = rng.integers(-(1 << (bits - 1)), 1 << (bits - 1), size=(5, 7), dtype=np.int64)
    words = pack_rows(values, bits)
    assert words == [_reference(row, bits) for row in values]
    assert pack_row(values[2], bits) == words[2]
    assert [unpack_row(w, 7, bits) for w in words] == values.tolist()
