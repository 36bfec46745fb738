"""A simulation's options, checked before anything runs: each bad one is a
:class:`~termwise.gen.errors.ConfigError` naming its field."""

from __future__ import annotations

from dataclasses import dataclass

from ...checks import check_precision, one_of
from ...errors import ConfigError

__all__ = ["SimOptions", "sim_options", "parse_archs", "DEFAULT_SAMPLE_PAIRS",
           "SHAPES_DEFAULT_SAMPLE"]

#: Window groups sampled per layer by default for the synthetic shape-only workloads.
SHAPES_DEFAULT_SAMPLE = 64
#: Default bound of PE-lane evaluations per layer and design (netsim ``sample_pairs``):
#: 2048 steps of a 16x16x16 tile, 512 of a 64-window one.
DEFAULT_SAMPLE_PAIRS = 1 << 23


def parse_archs(text: str) -> list[str]:
    """The designs of a ``--designs`` text: ``all`` or a comma list of
    :data:`termwise.golden.netsim.PRESETS` names, in order, without repeats."""
    from ....golden.netsim import PRESETS
    if not text:
        raise ConfigError("designs", f"give one or more of {', '.join(PRESETS)} or 'all'")
    if text == "all":
        return list(PRESETS)
    archs = [a.strip() for a in text.split(",") if a.strip()]
    for a in archs:
        if a not in PRESETS:
            raise ConfigError("designs", f"must be 'all' or a comma list of {', '.join(PRESETS)}, "
                              f"got {a!r}")
    return list(dict.fromkeys(archs))


@dataclass(frozen=True)
class SimOptions:
    """The checked options of :func:`~.run.run_sim` (see it for their meaning)."""
    workload: str
    bits: int
    designs: tuple          # the reference first, then the others asked for
    order: str
    depthwise: str
    digits: str
    fc: str
    images: int | None
    workers: int | None
    max_window_groups: int | None
    sample_pairs: int | None


def _bounded_int(field: str, value, low: int, high: int | None = None):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < low \
            or (high is not None and value > high):
        what = "a positive integer" if high is None and low == 1 else \
            f"an integer in {low}..{high}" if high is not None else f">= {low}"
        raise ConfigError(field, f"must be {what}, got {value!r}")
    return value


def sim_options(workload: str, archs, precision, *, images=None, workers=None,
                max_window_groups=None, sample_pairs=DEFAULT_SAMPLE_PAIRS,
                brick_order=None, depthwise=None, signed_digits=None,
                fc=None) -> SimOptions:
    """The options checked, defaults filled in (:class:`SimOptions`)."""
    from ....golden import netsim
    from ....golden.lowering import DEFAULT_DEPTHWISE, DEFAULT_ORDER, DEPTHWISE_MAPPINGS, ORDERS
    from ....golden.netsim import simulate as netsim_simulate
    from ....golden.workloads import check_workload
    check_workload(workload)
    bits = check_precision(precision)
    order = one_of("brick_order", brick_order, ORDERS, DEFAULT_ORDER)
    mapping = one_of("depthwise", depthwise, DEPTHWISE_MAPPINGS, DEFAULT_DEPTHWISE)
    digits = one_of("signed_digits", signed_digits, netsim_simulate.SIGNED_DIGITS, "booth")
    fc = one_of("fc", fc, netsim.FC_MAPPINGS, netsim.DEFAULT_FC)
    archs = parse_archs(archs) if isinstance(archs, str) else list(archs)
    images = _bounded_int("images", images, 1)
    workers = _bounded_int("workers", workers, 1, 64)
    if max_window_groups is not None and max_window_groups < 1:
        raise ConfigError("max_window_groups", f"must be >= 1, got {max_window_groups}")
    ref = netsim.REFERENCE
    return SimOptions(workload, bits, tuple([ref] + [a for a in archs if a != ref]), order,
                      mapping, digits, fc, images, workers, max_window_groups, sample_pairs)
