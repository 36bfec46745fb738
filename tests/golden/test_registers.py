"""The golden side of the command's precision clamp (issue 39, golden/registers.py): a
precision of 0 runs as 1 and one above the datapath's width as the width, in the functional
model and the cycle model alike, on every integer design; legal registers pass unchanged."""

import numpy as np
import pytest

from termwise.gen import designs
from termwise.gen.config import preset
from termwise.golden import cycles
from termwise.golden.registers import clamp_precision, command_registers
from termwise.golden.tile_model import fc_column_outputs, tile_outputs

#: The 4x4 preset of every integer design (a design added later is covered with no edit).
INTEGER_PRESETS = sorted({reg.preset for s in designs.SPECS.values() if s.dtype == "int"
                          for reg in s.regressions if reg.preset.endswith("-4x4")})


@pytest.mark.parametrize("value, top, clamped", [
    (0, 8, 1), (1, 8, 1), (5, 8, 5), (8, 8, 8), (9, 8, 8), (15, 8, 8), (31, 16, 16), (0, 1, 1),
])
def test_clamp_precision(value, top, clamped):
    assert clamp_precision(value, top) == clamped


@pytest.mark.parametrize("name", INTEGER_PRESETS + ["baseline-bf16-4x4"])
def test_legal_registers_pass_unchanged(name):
    cfg = preset(name)
    for p in (1, cfg.act_bits):
        rt = cfg.runtime_values(p if "precision" in cfg.spec.runtime else None, 1)
        assert command_registers(cfg, rt) == rt


def test_command_registers_copies():
    cfg = preset("stripes-4x4")
    rt = dict(cfg.runtime_values(), precision=0, wgt_precision=15)
    out = command_registers(cfg, rt)
    assert (out["precision"], out["wgt_precision"]) == (1, cfg.wgt_bits)
    assert (rt["precision"], rt["wgt_precision"]) == (0, 15)      # the caller's is kept


def _run(cfg, rng, signed):
    lo, hi = (-(1 << (cfg.act_bits - 1)), (1 << (cfg.act_bits - 1)) - 1) if signed else \
        (0, (1 << cfg.act_bits) - 1)
    act = rng.integers(lo, hi + 1, (cfg.windows, 3 * cfg.lanes + 1))
    w = 1 << (cfg.wgt_bits - 1)
    return act, rng.integers(-w, w, (cfg.filters, act.shape[1]))


@pytest.mark.parametrize("name", INTEGER_PRESETS)
@pytest.mark.parametrize("signed", [True, False])
def test_models_clamp_the_precisions_alike(name, signed):
    """Outputs and cycles of a run whose precision field says 0 (above the width: the
    field's largest value) are those of the legal run at 1 (at the width)."""
    cfg = preset(name)
    act, wgt = _run(cfg, np.random.default_rng(7), signed)
    base = cfg.runtime_values(act_signed=signed)
    for field, top, bits in (("precision", 15, cfg.act_bits), ("wgt_precision", 15, cfg.wgt_bits)):
        for sent, legal in ((0, 1), (top, bits), (bits + 1, bits)):
            edge, ok = dict(base, **{field: sent}), dict(base, **{field: legal})
            assert np.array_equal(tile_outputs(cfg, act, wgt, edge),
                                  tile_outputs(cfg, act, wgt, ok)), (field, sent)
            assert cycles.run_cycles(cfg, act, wgt, edge) == \
                cycles.run_cycles(cfg, act, wgt, ok), (field, sent)


@pytest.mark.parametrize("name, field", [("stripes-4x4", "precision"),
                                         ("loom-4x4", "wgt_precision")])
def test_the_clamp_shows(name, field):
    """Where a design reads the field, the clamped edges are runs of their own: 0 (run at
    1) differs from the full width in outputs and cycles, so a tile that did not clamp
    could not pass both (the edges suite's premise)."""
    cfg = preset(name)
    act, wgt = _run(cfg, np.random.default_rng(3), True)
    zero, full = (dict(cfg.runtime_values(), **{field: v}) for v in (0, 15))
    assert not np.array_equal(tile_outputs(cfg, act, wgt, zero),
                              tile_outputs(cfg, act, wgt, full))
    assert cycles.run_cycles(cfg, act, wgt, zero) < cycles.run_cycles(cfg, act, wgt, full)


def test_fc_runs_clamp_alike():
    """An fc run (per-column weights) clamps as any other: its golden outputs and cycles."""
    cfg = preset("stripes-4x4").replace(fc_columns=1)
    rng = np.random.default_rng(5)
    k = 2 * cfg.lanes
    act = rng.integers(-128, 128, (cfg.windows, k))
    wgt = rng.integers(-128, 128, (cfg.windows, cfg.filters, k))
    base = cfg.runtime_values(fc=True)
    for sent, legal in ((0, 1), (15, cfg.act_bits)):
        edge, ok = dict(base, precision=sent), dict(base, precision=legal)
        assert np.array_equal(fc_column_outputs(cfg, act, wgt, edge),
                              fc_column_outputs(cfg, act, wgt, ok))
        assert cycles.fc_run_cycles(cfg, act, wgt, edge) == \
            cycles.fc_run_cycles(cfg, act, wgt, ok)
