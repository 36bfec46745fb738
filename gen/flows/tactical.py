"""``termwise tactical``'s flow: Bit-Tactical's schedule on pruned copies of a network at
several sparsities and connectivities (:func:`termwise.gen.flows.reports.tactical.
build_report`), checked first, then written."""

from __future__ import annotations

import sys

from ..checks import check_precision, positive_int
from ..errors import ConfigError

__all__ = ["run_tactical", "DEFAULT_SPARSITY", "DEFAULT_CONNECTIVITY"]

DEFAULT_SPARSITY = "0,50,70,90"
DEFAULT_CONNECTIVITY = "T<2,5>,L<1,0>,L<2,1>,L<2,5>,L<4,3>,L<4,7>"


def run_tactical(workload: str, out_dir: str, *, sparsity=DEFAULT_SPARSITY,
                 connectivity=DEFAULT_CONNECTIVITY, precision="16", images=None,
                 max_window_groups=None, sample_pairs=None, log=None) -> dict:
    """Validate, build and write the report; returns the tactical.json document."""
    from ...golden.workloads.pruning import BASES
    from .reports.tactical import build_report, parse_connectivity, parse_sparsities, write_report
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    if workload not in BASES:
        raise ConfigError("workload", f"must be one of {', '.join(BASES)}, got {workload!r}")
    sp = parse_sparsities(sparsity)
    conns = parse_connectivity(connectivity)
    bits = check_precision(precision)
    images = positive_int("images", images)
    mwg = positive_int("max_window_groups", max_window_groups)
    pairs = positive_int("sample_pairs", sample_pairs)
    if not out_dir:
        raise ConfigError("output", "give an output directory")
    doc = build_report(workload, sp, conns, precision=bits, images=images,
                       max_window_groups=mwg, sample_pairs=pairs, log=log)
    paths = write_report(out_dir, doc)
    log(f"wrote {', '.join(paths)} in {doc['seconds']:.1f} s")
    return doc
