"""Per-column weight registers (rtl/column_weights.py) at the papers' scale."""

import pytest

from termwise.gen.config import preset
from termwise.gen.emit import render


def test_16x16_fc_columns_emit():
    """A 16x16 tile's round of column weights is 16 x 4096 = 65,536 bits: as one
    array-layout port it passed Amaranth's limit for one signal (an AssertionError in
    ``_nir.Net.from_cell``), so ``termwise sim``'s stripes-16x16 configuration could not be
    generated. One port per column emits it."""
    cfg = preset("stripes-16x16").replace(fc_columns=1)
    text, _ = render(cfg)
    assert cfg.top_name in text
    # one weight port per column on the array, each a whole weight row
    for c in (0, cfg.windows - 1):
        assert f"wgt_cols__{c}" in text
