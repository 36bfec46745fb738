"""``termwise tune``'s candidate space: the tile configurations it chooses among.

The default space of a workload of ``bits``-bit values is, per ``termwise sim`` design
(:func:`termwise.gen.designs.sim_presets`), its equal-peak preset as ``termwise sim``
simulates it (:func:`termwise.golden.netsim.sim_config`: 256 ``bits``-bit
MAC/cycle, batch-1 fc layers on every window column where the design can) plus a small grid
of the design's options around it, each point brought back to the preset's peak by its
``windows`` (each design's ``tune_variants``, :class:`termwise.gen.spec.DesignSpec`):

* ``loom``: ``serial_bits`` 1, 2, 4 (the windows scale with the cycles a dense brick takes;
  a point that would need more than 64 windows is left out);
* ``pragmatic`` and ``pragmatic-booth``: ``first_stage_bits`` 1, 2, 3, each with pallet
  synchronisation and with column synchronisation (2 column registers);
* ``diffy``: ``first_stage_bits`` 1, 2, 3;
* ``tactical-tclp`` and ``tactical-tcle``: the T <2,5> connectivity and L <1,4>, <4,3>;
* the other designs (baseline, stripes, zstripes, dstripes, laconic, cnvlutin): the preset.

``--designs`` keeps the candidates of the named designs; a sweep grid file (``--grid``,
:mod:`termwise.gen.flows.sweep.grid`) replaces the space.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from ...spec import ConfigError

__all__ = ["Candidate", "default_space", "design_names", "space_text",
           "grid_space", "select_designs"]

@dataclass(frozen=True)
class Candidate:
    """One configuration ``termwise tune`` may choose.

    Attributes
    ----------
    design : str
        The ``termwise sim`` design it belongs to (``grid`` for a ``--grid`` point).
    cfg : TileConfig
        The tile.
    preset : str or None
        The equal-peak preset's name when ``cfg`` is that preset as ``termwise sim`` runs it.
    """

    design: str
    cfg: object
    preset: str | None = None

    @property
    def top(self) -> str:
        return self.cfg.top_name


def design_names(bits: int) -> list[str]:
    """The ``termwise sim`` designs with an equal-peak preset of ``bits``-bit hardware."""
    from ...designs import sim_designs
    return list(sim_designs(bits))


def _at_equal_peak(base, changes: dict, bits: int):
    """``base`` with ``changes``, its windows scaled so that the peak (dense MAC/cycle at
    ``bits``) stays the preset's; None when no whole window count in range does."""
    from ...config import RANGES
    trial = base.replace(**changes)
    ratio = trial.worst_brick_cycles(bits) / base.worst_brick_cycles(bits)
    windows = base.windows * ratio
    if windows != int(windows) or not 1 <= windows <= RANGES["windows"][1]:
        return None
    windows = int(windows)
    extra = {"depth": max(base.depth, windows)} if base.has_fc_columns else {}
    try:
        cfg = base.replace(**changes, windows=windows, **extra)
    except ConfigError:
        return None
    if cfg.peak_macs_per_cycle(bits) != base.peak_macs_per_cycle(bits):
        return None
    return cfg


def default_space(bits: int) -> list[Candidate]:
    """The default candidates for ``bits``-bit values (see the module's docstring), in
    design order, the preset first."""
    from ....golden.netsim import design_preset, sim_config
    from ...designs import tune_variants
    out, seen = [], set()
    for design in design_names(bits):
        base = sim_config(design, bits)
        name = design_preset(design, bits)
        points = [(base, name)]
        for combo in itertools.product(*(axis.points.values()
                                         for axis in tune_variants(design))):
            changes = {}
            for change in combo:
                changes.update(change)
            cfg = _at_equal_peak(base, changes, bits)
            if cfg is not None:
                points.append((cfg, None))
        for cfg, preset in points:
            if cfg.top_name not in seen:
                seen.add(cfg.top_name)
                out.append(Candidate(design, cfg, preset))
    return out


def select_designs(candidates, designs) -> list[Candidate]:
    """The candidates of ``designs`` (a list of names, or text ``a,b``); an unknown name is
    a :class:`ConfigError` naming ``designs``."""
    if designs is None:
        return list(candidates)
    if isinstance(designs, str):
        designs = [d.strip() for d in designs.split(",") if d.strip()]
    known = list(dict.fromkeys(c.design for c in candidates))
    for d in designs:
        if d not in known:
            raise ConfigError("designs", f"must be one or more of {', '.join(known)}, got "
                                         f"{d!r}")
    if not designs:
        raise ConfigError("designs", f"must be one or more of {', '.join(known)}")
    return [c for c in candidates if c.design in designs]


def grid_space(grid) -> list[Candidate]:
    """The points of a sweep grid (:class:`termwise.gen.flows.sweep.grid.Grid`) as candidates of
    design ``arch`` (their architecture); a point that is a design's equal-peak preset as
    ``termwise sim`` runs it (same tile) is that design's preset candidate, as in the
    default space, so the fixed presets are compared with the winner."""
    from ....golden.netsim import design_preset, sim_config
    presets = {sim_config(d, grid.precision).top_name: (d, design_preset(d, grid.precision))
               for d in design_names(grid.precision)}
    out = []
    for cfg in grid.points:
        design, preset = presets.get(cfg.top_name, (cfg.arch, cfg.name))
        out.append(Candidate(design, cfg, preset))
    return out


def space_text(bits: int) -> str:
    """The default space in a few lines of Markdown (tune.md states it)."""
    from ...designs import sim_designs, tune_variants
    lines = [f"Default space ({bits}-bit values): every `termwise sim` design's equal-peak "
             f"preset ({256} {bits}-bit MAC/cycle, batch-1 fc layers on every window column "
             "where the design can), plus, at the same peak (windows scaled with the cycles "
             "of a dense brick):"]
    for design in sim_designs(bits):
        axes = [f"{axis.name} " + ", ".join(axis.points) for axis in tune_variants(design)]
        if axes:
            lines.append(f"- {design}: " + " x ".join(axes))
    lines.append("- the others: the preset only.")
    return "\n".join(lines)
