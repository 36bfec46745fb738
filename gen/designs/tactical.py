"""Bit-Tactical (Delmas Lascorz et al., ASPLOS 2019): zero weights skipped by an offline
schedule within a lookahead/lookaside window; TCLp (Dynamic Stripes) or TCLe (Pragmatic)
back end.

Besides the spec, this module holds the configuration's derived connectivity, which the RTL
front end, the offline scheduler and the host lowering all read (docs/papers.md#bit-tactical):
a weight slot (step ``t``, lane ``l``) may be filled by a *promotion source* ``(dt, dl)``,
the weight of step ``t + dt``, lane ``(l + dl) mod lanes``.
"""

from __future__ import annotations

import math

from ..spec import (ConfigError, DesignSpec, FormalSpec, Option,
                    PaperClaim, Regression, StuckAt, TuneAxis)
from .common import booth_digits, own_testbench

__all__ = ["SPEC", "T_SOURCES", "sources", "cfg_sources", "metadata_bits",
           "window_candidates", "candidate_index", "meta_layout"]

#: The 'T' <2,5> connectivity, (steps ahead, lane shift).
T_SOURCES = ((1, -1), (1, 0), (1, 1), (1, 3), (2, -2), (2, 0), (2, 2))


def sources(shape: str = "T", lookahead: int = 2, lookaside: int = 5) -> tuple:
    """The promotion sources of a connectivity, in the greedy's order of preference:
    ``'T'`` is <2,5> above; ``'L' <h,d>`` is ``(1,0) .. (h,0)`` then ``(1,-1) .. (1,-d)``."""
    if shape == "T":
        if (lookahead, lookaside) != (2, 5):
            raise ValueError("shape: T is the <2,5> connectivity")
        return T_SOURCES
    if shape == "L":
        if lookahead < 1 or lookaside < 0:
            raise ValueError("lookahead must be >= 1, lookaside >= 0")
        return tuple((dt, 0) for dt in range(1, lookahead + 1)) + \
            tuple((1, -d) for d in range(1, lookaside + 1))
    raise ValueError(f"shape: must be T or L, got {shape!r}")


def cfg_sources(cfg) -> tuple:
    """The promotion sources of a tactical configuration."""
    return sources(cfg.shape, cfg.lookahead, cfg.lookaside)


def metadata_bits(srcs) -> int:
    """Bits of one weight's select: ``ceil(log2(len(srcs) + 1))``."""
    return max(1, math.ceil(math.log2(len(srcs) + 1)))


def window_candidates(srcs) -> int:
    """Rows of the front end's lookahead window: ``1 + max steps ahead``."""
    return 1 + max(dt for dt, _ in srcs)


def candidate_index(srcs, select: int, lane: int, lanes: int) -> int:
    """Index ``dt * lanes + lane'`` in the window (rows t..t+h, lane-minor) of the activation
    that select ``select`` of lane ``lane`` reads."""
    if select == 0:
        return lane
    dt, dl = srcs[select - 1]
    return dt * lanes + (lane + dl) % lanes


def meta_layout(cfg) -> dict:
    """Bit fields of the metadata row (one per kept step, sent as a weight row): the select
    width, the step-index field's offset and width, and whether it fits in a row."""
    mb = metadata_bits(cfg_sources(cfg))
    index_bits = max(max(0, math.ceil(math.log2(cfg.depth))) if cfg.depth > 1 else 0, 1)
    offset = cfg.filters * cfg.lanes * mb
    return {"select_bits": mb, "index_offset": offset, "index_bits": index_bits,
            "fits": offset + index_bits <= cfg.wgt_row_bits}


def _check(cfg):
    if cfg.shape == "T" and (cfg.lookahead, cfg.lookaside) != (2, 5):
        raise ConfigError("shape", "T is the <2,5> connectivity: lookahead must be 2 and "
                          "lookaside 5 (use shape L for other windows)")
    if not meta_layout(cfg)["fits"]:
        raise ConfigError("wgt_bits", "the metadata row (selects and step index) does not "
                          "fit in a weight row: widen wgt_bits or lanes")


def _formal_fault(cfg):
    """The PE input bit the broken array of the formal proof loses: lane 0's activation
    bit (TCLp's bit-serial PE) or its term sign (TCLe's Bit-Pragmatic PE)."""
    return StuckAt(port="act_bit" if cfg.backend == "tclp" else "neg")


def _worst(cfg, p):
    """Dense weights: the back end's dense cost per step."""
    if cfg.backend == "tclp":
        return p
    return booth_digits(p) if cfg.encoding == "booth" else p



#: The connectivities ``termwise tune`` tries around Bit-Tactical's presets.
_TUNE_AXES = (TuneAxis("connectivity", {f"{s} <{h},{d}>": {"shape": s, "lookahead": h,
                                                             "lookaside": d}
                                         for s, h, d in (("T", 2, 5), ("L", 1, 4),
                                                         ("L", 4, 3))}),)

SPEC = DesignSpec(
    arch="tactical",
    description="Bit-Tactical (ASPLOS 2019): zero weights skipped by an offline schedule "
                "within a lookahead/lookaside window; TCLp or TCLe back end",
    order=90,
    own_stores="a dense activation store with h + 1 read ports, a packed weight store and "
               "a select metadata store",
    options=(
        Option("backend", "tclp", ("tclp", "tcle"), "", "back end"),
        Option("shape", "T", ("T", "L"), "", "connectivity (T is <2,5>, L is <h,d>)"),
        Option("lookahead", 2, (1, 2, 3, 4), "h", "h, steps ahead"),
        Option("lookaside", 5, tuple(range(0, 8)), "d", "d, lanes aside"),
        Option("first_stage_bits", 2, (0, 1, 2, 3, 4), "fs", "first-stage shifter bits"),
        Option("encoding", "booth", ("plain", "booth"), "", "term encoding"),
    ),
    worst_step_cycles=_worst,
    check=_check,
    rtl="tactical",
    golden="tactical",
    testbench=own_testbench("termwise.tb.tactical_cases",
                            ("sparse", "random", "corners", "conv", "edges")),
    regressions=(
        Regression("tactical-tclp-4x4"),
        Regression("tactical-tcle-4x4"),
        Regression("tactical-tclp-4x4", {"pe_stages": 1}),   # registered PE inputs
        Regression("tactical-tcle-4x4", {"pe_stages": 1}),
        Regression("tactical-tclp-4x4", {"shape": "L", "lookahead": 3, "lookaside": 2}, ("sparse", "random")),
        Regression("tactical-tcle-4x4", {"encoding": "plain", "first_stage_bits": 1}, ("sparse", "random")),
        Regression("tactical-tclp-16x16", slow=True),
        Regression("tactical-tcle-16x16", slow=True),
    ),
    sim_designs={
        "tactical-tclp": {16: "tactical-tclp-16x16", 8: "tactical-tclp-16x16-8b"},
        "tactical-tcle": {16: "tactical-tcle-16x16", 8: "tactical-tcle-16x16-8b"},
    },
    # termwise tune: the T <2,5> connectivity and L <1,4>, <4,3>
    tune_variants={d: _TUNE_AXES for d in ("tactical-tclp", "tactical-tcle")},
    papers={
        "tactical-tclp": PaperClaim(
            source="Bit-Tactical (Delmas Lascorz et al., ASPLOS 2019), abstract",
            speedup=6.7, speedup_text="TCLp 6.7x over a dense baseline on sparse (pruned) "
                                      "networks",
            energy_text="2.98x more energy efficient, 5.05x faster and +22% area against "
                        "an equivalent data-parallel accelerator on dense CNNs (arXiv "
                        "1803.03688 v1 abstract, an earlier version of the study)",
            area_text="about +10% area",
            why_different="the paper's networks are pruned (most weights zero); a dense "
                          "workload gives the schedule few zero weights to skip"),
        "tactical-tcle": PaperClaim(
            source="Bit-Tactical (Delmas Lascorz et al., ASPLOS 2019), abstract",
            speedup=11.3, speedup_text="TCLe 11.3x over a dense baseline on sparse (pruned) "
                                       "networks",
            energy_text="1.04 TOPS/W (65 nm): an absolute figure, not a ratio to a baseline",
            area_text="no area figure for TCLe in the abstract",
            why_different="the paper's networks are pruned (most weights zero); a dense "
                          "workload gives the schedule few zero weights to skip"),
    },
    formal=FormalSpec(fault=_formal_fault, module="termwise.tb.tactical_formal"),
)
