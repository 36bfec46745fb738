"""The RTL base layer (issue 13): typed rows, the one reduction, the PE grid, the write
pointer and Bit-Tactical's metadata, each against a pure-Python reference; and the layer
rule that RTL imports nothing from the golden models."""

import ast
import itertools
from pathlib import Path

import numpy as np
import pytest
from amaranth import Module, Signal
from amaranth.hdl import Fragment
from amaranth.lib import stream

from termwise.gen.config import TileConfig, preset
from termwise.gen.designs.tactical import meta_layout
from termwise.rtl.adder_tree import tree_reduce
from termwise.rtl.buffer import write_pointer
from termwise.rtl.grid import PEGrid
from termwise.rtl.library import ModuleLibrary
from termwise.rtl.pe import BitParallelPE
from termwise.rtl.rows import (act_bricks, act_row_layout, act_value_bricks, wgt_bricks,
                               wgt_row_layout)
from termwise.rtl.tactical import meta_row_layout, meta_width
from termwise.tb.amaranth_sim import run_simulation as _sim

RTL = Path(__file__).resolve().parents[2] / "rtl"


def _pack(values, bits):
    """Values (lane 0 first) -> a row's integer, lane 0 in the least significant bits."""
    return sum((int(v) & ((1 << bits) - 1)) << (i * bits) for i, v in enumerate(values))


# ------------------------------------------------------------------------------- rows

@pytest.mark.parametrize("act_signed", [True, False])
def test_rows_index_windows_filters_and_lanes(act_signed):
    """Rows index windows, filters and lanes; the stored activations are bit patterns,
    whose values the run's ``act_signed`` register gives (act_value_bricks)."""
    cfg = TileConfig(arch="baseline", filters=3, windows=2, lanes=4, act_bits=5, wgt_bits=6)
    assert act_row_layout(cfg).size == cfg.act_row_bits
    assert wgt_row_layout(cfg).size == cfg.wgt_row_bits
    rng = np.random.default_rng(1)
    lo = -16 if act_signed else 0
    act = rng.integers(lo, lo + 32, (cfg.windows, cfg.lanes))
    act[0, 0], act[-1, -1] = lo, lo + 31                 # both ends of the range
    wgt = rng.integers(-32, 32, (cfg.filters, cfg.lanes))
    a_row, w_row = Signal(cfg.act_row_bits), Signal(cfg.wgt_row_bits)
    a, w = act_bricks(cfg, a_row), wgt_bricks(cfg, w_row)
    is_signed = Signal()
    m = Module()
    values = act_value_bricks(m, cfg, a, is_signed)
    m.d.comb += [a_row.eq(_pack(act.ravel(), cfg.act_bits)),
                 w_row.eq(_pack(wgt.ravel(), cfg.wgt_bits)),
                 is_signed.eq(int(act_signed))]

    async def tb(ctx):
        assert [[ctx.get(a[i][lane]) for lane in range(cfg.lanes)]
                for i in range(cfg.windows)] == (act & 0x1F).tolist()     # patterns
        assert [[ctx.get(values[i][lane]) for lane in range(cfg.lanes)]
                for i in range(cfg.windows)] == act.tolist()
        assert [[ctx.get(w[f][lane]) for lane in range(cfg.lanes)]
                for f in range(cfg.filters)] == wgt.tolist()
    _sim(m, tb, clocked=False)


# -------------------------------------------------------------------------- reduction

@pytest.mark.parametrize("n", range(1, 10))
def test_tree_reduce_is_balanced_and_ordered(n):
    nodes = []

    def combine(a, b, level, index):
        nodes.append((level, index))
        return f"({a}+{b})"

    root = tree_reduce([str(i) for i in range(n)], combine)
    assert root.replace("(", "").replace(")", "").split("+") == [str(i) for i in range(n)]
    assert len(nodes) == n - 1
    depth = max((lv for lv, _ in nodes), default=-1) + 1
    assert depth == (n - 1).bit_length()                # ceil(log2 n) levels
    for level in range(depth):                          # left to right within a level
        assert [i for lv, i in nodes if lv == level] == \
            list(range(sum(lv == level for lv, _ in nodes)))


def test_tree_reduce_needs_a_value():
    with pytest.raises(ValueError):
        tree_reduce([], lambda *a: None)


# --------------------------------------------------------------------------- PE grid

class _Grid(PEGrid):
    PE = BitParallelPE

    def elaborate(self, platform):
        m = Module()
        m.d.comb += [self.advance.eq(1), self.busy.eq(0)]
        act = self.act_values(m)
        for w, f, pe in self.pes(m):
            m.d.comb += [pe.act.eq(act[w]), pe.wgt.eq(self.wgt_bricks[f]),
                         pe.en.eq(self.valid)]
        return m


def test_pe_grid_instantiates_every_pe_once_by_name():
    cfg = TileConfig(arch="baseline", filters=3, windows=2, lanes=2, act_bits=4, wgt_bits=4)
    library = ModuleLibrary()
    fragment = Fragment.get(_Grid(cfg, library), None)
    assert list(library.modules) == [f"{cfg.top_name}__pe"]
    assert [name for _, name, _ in fragment.subfragments] == \
        [f"pe_f{f}_w{w}" for w in range(2) for f in range(3)]
    other = ModuleLibrary()
    _Grid(cfg, other, top_name="outer")
    assert list(other.modules) == ["outer__pe"]


def test_pe_grid_contract_follows_owns_operands():
    cfg = preset("cnvlutin-4x4")

    class Owning(PEGrid):
        PE = BitParallelPE
        OWNS_OPERANDS = True

    sig = Owning(cfg, ModuleLibrary()).signature
    assert "act_write" in sig.members and "act_row" not in sig.members
    assert "act_row" in _Grid(cfg.twin("baseline"), ModuleLibrary()).signature.members


# ----------------------------------------------------------------------- write pointer

def test_write_pointer_fills_rows_until_full_and_rewinds():
    m = Module()
    write = stream.Signature(8).flip().create()
    enable, rewind = Signal(), Signal()
    pointer, take = write_pointer(m, write, rows=3, enable=enable, rewind=rewind)

    async def tb(ctx):
        ctx.set(write.valid, 1)
        seen = []
        for en, rw in [(0, 0), (1, 0), (1, 0), (1, 0), (1, 0), (1, 1), (1, 0)]:
            ctx.set(enable, en)
            ctx.set(rewind, rw)
            seen.append((ctx.get(pointer), ctx.get(write.ready), ctx.get(take)))
            await ctx.tick()
        assert seen == [(0, 0, 0), (0, 1, 1), (1, 1, 1), (2, 1, 1), (3, 0, 0), (3, 0, 0),
                        (0, 1, 1)]
    _sim(m, tb, clocked=True)


# -------------------------------------------------------------- Bit-Tactical metadata

def _tactical_configs():
    yield preset("tactical-tclp-4x4")
    yield preset("tactical-tcle-16x16")
    for lookahead, lookaside in itertools.product((1, 2, 4), (0, 3, 7)):
        yield preset("tactical-tclp-4x4").replace(shape="L", lookahead=lookahead,
                                                  lookaside=lookaside)


@pytest.mark.parametrize("cfg", list(_tactical_configs()), ids=lambda c: c.top_name[9:])
def test_tactical_metadata_row_layout_is_the_hosts(cfg):
    """The front end reads the metadata row through a layout built from the one shared
    description of its fields (the host writes it from the same)."""
    fields = meta_layout(cfg)
    layout = meta_row_layout(cfg)
    assert layout.size == meta_width(fields) <= cfg.wgt_row_bits
    assert layout["index"].offset == fields["index_offset"]
    assert layout["index"].shape.width == fields["index_bits"]
    select = layout["select"].shape
    assert (select.length, select.elem_shape.length) == (cfg.filters, cfg.lanes)
    assert select.elem_shape.elem_shape.width == fields["select_bits"]
    # Select s of (filter f, lane l) at bits (f * lanes + l) * select_bits.
    mb, f, lane = fields["select_bits"], cfg.filters - 1, cfg.lanes - 1
    assert layout["select"].offset + select.elem_shape.size * f + \
        select.elem_shape.elem_shape.width * lane == (f * cfg.lanes + lane) * mb


# ------------------------------------------------------------------------ layer rule

def test_rtl_imports_nothing_from_golden():
    bad = []
    for path in sorted(RTL.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and "golden" in (node.module or ""):
                bad.append(f"{path.name}:{node.lineno}")
            elif isinstance(node, ast.Import):
                bad += [f"{path.name}:{node.lineno}" for a in node.names if "golden" in a.name]
    assert not bad
