"""The design registry: every module in this package that defines ``SPEC`` (a
:class:`~termwise.gen.spec.DesignSpec`) is a design.

Adding a design is one new spec module here, one RTL module (``rtl/<spec.rtl>.py``, whose
``ARRAY`` is the PE array) and one golden model (``golden/arch/<spec.golden>.py``), plus its
presets in ``gen/presets.toml``: see docs/adding-a-design.md. Nothing shared names a design.
"""

from __future__ import annotations

import importlib
import pkgutil

from ..spec import ConfigError, DesignSpec

__all__ = ["SPECS", "spec", "archs", "options", "sim_designs", "sim_presets", "lookup",
           "tune_variants",
           "paper_claim"]


def _discover() -> dict:
    found = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        s = getattr(module, "SPEC", None)
        if isinstance(s, DesignSpec):
            if s.key in found:
                raise ValueError(f"design {s.key} declared twice ({info.name})")
            found[s.key] = s
    return dict(sorted(found.items(), key=lambda kv: (kv[1].order, kv[0])))


#: (arch, dtype) -> spec, in the family's order.
SPECS: dict = _discover()


def archs() -> list[str]:
    """Every arch name, in the family's order."""
    return list(dict.fromkeys(a for a, _ in SPECS))


def lookup(arch: str, dtype: str = "int") -> DesignSpec | None:
    return SPECS.get((arch, dtype))


def spec(cfg) -> DesignSpec:
    """The spec of a configuration (its arch and dtype)."""
    found = SPECS.get((cfg.arch, cfg.dtype))
    if found is None:
        raise ConfigError("dtype", f"{cfg.dtype} is not available for arch {cfg.arch}")
    return found


def options() -> dict:
    """Every design option name -> the specs that declare it, in the family's order."""
    out: dict = {}
    for s in SPECS.values():
        for o in s.options:
            out.setdefault(o.name, []).append(s)
    return out


def sim_presets() -> dict:
    """``termwise sim`` design name -> ``{hardware bits: preset name}``, in the family's
    order (each spec's ``sim_designs``)."""
    out = {}
    for s in SPECS.values():
        out.update({d: dict(sorted(by_bits.items(), reverse=True))
                    for d, by_bits in s.sim_designs.items()})
    return out


def sim_designs(bits: int = 16) -> dict:
    """``termwise sim`` design name -> its equal-peak preset on ``bits``-bit hardware (the
    width of the workload's values), in the family's order; designs without a preset of
    that width are left out. ``sim_designs()`` is the 16-bit map."""
    return {d: by_bits[bits] for d, by_bits in sim_presets().items() if bits in by_bits}


def tune_variants(design: str) -> tuple:
    """The option grid ``termwise tune`` tries around ``termwise sim`` design ``design``'s
    preset (its spec's ``tune_variants``: a tuple of axes of option changes), or ``()``."""
    for s in SPECS.values():
        if design in s.tune_variants:
            return s.tune_variants[design]
    return ()


def paper_claim(design: str):
    """The :class:`~termwise.gen.spec.PaperClaim` of ``termwise sim`` design ``design``
    (from its spec's ``papers``), or None when its spec states none."""
    for s in SPECS.values():
        if design in s.papers:
            return s.papers[design]
    return None
