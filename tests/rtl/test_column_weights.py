"""Per-column weight registers (rtl/column_weights.py) at the papers' scale."""

import pytest

from termwise.gen.config import preset
from termwise.gen.emit import render


def test_16x16_fc_columns_emit():
    """A 16x16 tile's round of column weights is 16 x 4096 = 65,536 bits: as one
    array-layout port it passed Amaranth's limit for one signal (an AssertionError in
    ``_nir.Net.from_cell``), so ``termwise sim``'s stripes-16x16 configuration could not be
    generated. Since RTL version 5 the staggered array keeps each column's register in a
    module of its own inside the array (rtl/column_stagger.ColumnRegister): no column row
    crosses a port of the array at all."""
    cfg = preset("stripes-16x16").replace(fc_columns=1)
    text, _ = render(cfg)
    assert cfg.top_name in text
    # one register module, an instance per column, loaded on its bit of `wgt_load`
    assert f"module {cfg.top_name}__fc_column" in text
    for c in (0, cfg.windows - 1):
        assert f"fc_column{c} (" in text
    assert "wgt_cols__" not in text
