"""The footings of ``termwise report``'s table beside its own (equal peak throughput): one
clock, iso-area, and the papers' own (report.md, "Footings").

The table compares tiles of equal peak throughput, each at its own Fmax. A paper may compare
on another footing, and a row's figures move with it, so the report restates them:

* **one clock**: the speedup in cycles (every design at one common clock), beside each
  design's registered PE input stages (``pe_stages``, which the configuration adds from
  256 PEs up: a stage raises Fmax and adds a cycle per run, so the time speedup depends on
  which side of the threshold a tile falls; the cycle speedup does not, but for that
  cycle per run);
* **iso-area**: each design scaled to the baseline's tile area, ``A_base / A`` copies
  working on the workload in parallel: its throughput over the baseline's is the speedup in
  time times ``A_base / A`` (the table's inferences/s/mm2 ratio). Its energy per inference
  is the table's: the copies do the same work with the same energy per operation, and each
  runs ``A / A_base`` as long, so leakage x time is unchanged too. Assumed: the work splits
  evenly over the copies, and no interconnect or shared memory is added;
* **the paper's**: the footing each paper states (:class:`termwise.gen.spec.PaperClaim`,
  ``why_different``), and the presets termwise has on it.
"""

from __future__ import annotations

from .detail import figure as _f

__all__ = ["PAPER_FOOTING_PRESETS", "footing_lines", "profile_line"]

#: Presets built on a paper's own footing (gen/presets.toml), per report design. They are
#: not rows of the table (the table is at equal peak, with its baseline there); each can be
#: generated, regressed and synthesised on its own.
PAPER_FOOTING_PRESETS = {
    "loom": ("loom-s1-128mac (1 activation bit a cycle) and loom-s2-128mac (2 bits): the "
             "paper's 128 16-bit MAC/cycle; loom-s2-256mac at equal peak (docs/papers.md, "
             "Loom)"),
    "laconic": ("none yet: the abstract compares 128- and 1K-wire weight interfaces with a "
                "2K-wire bit-parallel design, and the grids behind them are in the paper's "
                "body, not in termwise's sources (docs/papers.md, Laconic)"),
}


def footing_lines(rows: list[dict]) -> list[str]:
    """report.md's "Footings" section for the table's ``rows`` (after
    :func:`termwise.gen.flows.reports.ppa.ratios`)."""
    lines = ["## Footings", "",
             "The table is at equal peak throughput, each tile at its own Fmax. The same "
             "rows on the other footings (gen/flows/reports/footings.py says how each is "
             "computed):", "",
             "| design | PE input stages | Fmax MHz | speedup, one clock (cycles) | speedup "
             "(time) | iso-area throughput (x base) | energy/inference uJ, iso-area |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['design']} | {_f(r.get('pe_stages'), '{}')} | "
            f"{_f(r['fmax_mhz'], '{:.1f}')} | {_f(r['speedup_cycles'], '{:.2f}x')} | "
            f"{_f(r['speedup_time'], '{:.2f}x')} | "
            f"{_f(r['perf_per_mm2_over_baseline'], '{:.2f}x')} | "
            f"{_f(r['energy_per_inference_uj'], '{:.3g}')} |")
    lines += ["", "One clock: the steady cycles' speedup, which no Fmax enters; a registered "
              "PE input stage (added from 256 PEs up) raises a tile's Fmax and costs one "
              "cycle per run. Iso-area: the tile scaled to the baseline's area (A_base / A "
              "copies in parallel): throughput = speedup (time) x A_base / A; energy per "
              "inference unchanged (the same work at the same energy per operation; leakage "
              "x time unchanged), assuming an even split of the work and no added "
              "interconnect.", "",
              "The papers' own footings (each paper's figure beside the row is on it; "
              "\"Beside the papers\" says why it differs):", ""]
    for r in rows:
        p = r.get("paper") or {}
        why = p.get("why_different") or "-"
        presets = PAPER_FOOTING_PRESETS.get(r["design"])
        lines.append(f"* {r['design']}: {why}"
                     + (f"; termwise's presets on it: {presets}" if presets else ""))
    return lines + [""]


def profile_line(doc: dict) -> str:
    """Whether the table's rows ran on a per-layer precision profile (the papers profile
    their networks; without a profile every layer is at the table's width and the
    precision-based designs have nothing to skip). A report written before the field
    existed says it does not know."""
    if "precision_profile" not in doc:
        return "Precision profile: not recorded (a report from before the field)."
    note = doc["precision_profile"]
    if note:
        return f"Precision profile: profiled rows ({note})."
    return (f"Precision profile: unprofiled rows (every layer at {doc['precision']} bits, "
            "so the precision-based designs skip nothing the profile would let them).")
